package dev.colony.slack;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.fakes.FakeSlack;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A bridge that cannot connect says in one line which token is wrong, and never shows it. */
@Timeout(30)
class SlackBridgeTest {
  private static final SlackSettings SETTINGS = new SlackSettings("B", "A", List.of(), Map.of(),
      Map.of("fixer", "#work"), true, null, true);

  private static SlackBridge bridge(FakeSlack slack, String botToken) {
    return new SlackBridge(null, "c", SETTINGS, new SlackApi(new OkHttpClient(), slack.apiUrl(), botToken), botToken);
  }

  @Test
  void refusedTokensAreNamedWithoutBeingShown() throws Exception {
    try (FakeSlack slack = new FakeSlack().channel("C0WORK001", "work", true)) {
      SlackBridge badBot = bridge(slack, "xoxb-revoked-123456");
      SlackApi.SlackException bot = assertThrows(SlackApi.SlackException.class, () -> badBot.connect(FakeSlack.APP_TOKEN));
      assertTrue(bot.getMessage().startsWith("auth.test: the bot token was refused (invalid_auth)"), bot.getMessage());
      badBot.close();

      SlackBridge badApp = bridge(slack, FakeSlack.BOT_TOKEN);
      Exception app = assertThrows(IllegalStateException.class, () -> badApp.connect("xapp-revoked-123456"));
      assertTrue(app.getMessage().startsWith("apps.connections.open: the app-level token was refused (invalid_auth)"),
          app.getMessage());
      badApp.close();

      SlackBridge swapped = bridge(slack, FakeSlack.BOT_TOKEN);
      Exception wrongKind = assertThrows(IllegalStateException.class, () -> swapped.connect(FakeSlack.BOT_TOKEN));
      assertTrue(wrongKind.getMessage().contains("is not an app-level token"), wrongKind.getMessage());
      swapped.close();
      for (Exception e : List.of(bot, app, wrongKind)) {
        assertFalse(e.getMessage().contains("revoked-123456") || e.getMessage().contains(FakeSlack.BOT_TOKEN), e.getMessage());
      }
      assertEquals(0, slack.openSockets());

      SlackBridge good = bridge(slack, FakeSlack.BOT_TOKEN);
      good.connect(FakeSlack.APP_TOKEN);
      eventually(java.time.Duration.ofSeconds(10), () -> slack.openSockets() > 0, "the good bridge's socket is open");
      assertTrue(good.connected());
      assertEquals(1, slack.openSockets());
      good.close();
      assertFalse(good.connected());
    }
  }
}
