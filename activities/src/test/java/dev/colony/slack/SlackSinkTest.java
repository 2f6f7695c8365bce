package dev.colony.slack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChatText;
import dev.colony.fakes.FakeSlack;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Slack poster against the fake Slack, through the real Slack SDK. */
@Timeout(30)
class SlackSinkTest {
  private static final String WORK = "C0WORK001";
  private static final String ALERTS = "C0ALERTS1";
  private final FakeSlack slack;
  private final AtomicLong now = new AtomicLong(1_790_000_000_000L);

  SlackSinkTest() throws IOException {
    slack = new FakeSlack().channel(WORK, "work", true).channel(ALERTS, "alerts", true)
        .channel("C0LOCKED1", "locked", false);
  }

  @AfterEach
  void close() throws IOException {
    slack.close();
  }

  private SlackSink sink(String token, String alerts, List<String> operators, Map<String, String> channels) {
    SlackSettings s = new SlackSettings("B", "A", operators, Map.of(), channels, true, alerts, true);
    return new SlackSink(new SlackApi(new OkHttpClient(), slack.apiUrl(), token), s, now::get);
  }

  private SlackSink sink() {
    return sink(FakeSlack.BOT_TOKEN, null, List.of(), Map.of("fixer", "#work"));
  }

  private ChatPost post(String text, String key) {
    return new ChatPost("c", "fixer", null, text, key, now.get());
  }

  @Test
  void postsInSlacksMarkdownWithEverythingAnAgentPrintsEscaped() throws Exception {
    sink().deliver(post("✅ **fixer** finished: see [the PR](https://example.com/pr/1) <!channel> & <@U123|x>", "k1"));
    assertEquals(List.of("✅ *fixer* finished: see <https://example.com/pr/1|the PR> &lt;!channel&gt; &amp; "
        + "&lt;@U123|x&gt;"), slack.texts(WORK));
    assertEquals("k1#0", slack.messages(WORK).get(0).metadata().path("event_payload").path("key").asText());
  }

  @Test
  void aPostThatNeedsAHumanMentionsUsersAndGroupsAndIsCopiedToAlertsWithALink() throws Exception {
    sink(FakeSlack.BOT_TOKEN, "#alerts", List.of("U0DANA001", "S0OPS0001"), Map.of("fixer", "work"))
        .deliver(post("💳 **fixer** is paused: the billing account needs attention.\nmore", "k2"));
    String main = slack.texts(WORK).get(0);
    assertTrue(main.startsWith("<@U0DANA001> <!subteam^S0OPS0001> 💳 *fixer* is paused"), main);
    String alert = slack.texts(ALERTS).get(0);
    assertTrue(alert.startsWith("<@U0DANA001> <!subteam^S0OPS0001> 💳 *fixer* is paused: the billing account needs "
        + "attention. <https://colony.slack.com/archives/" + WORK + "/p"), alert);
    assertFalse(alert.contains("more"), alert);
    // The colony's own posts (no ant channel) go to the alerts channel.
    sink(FakeSlack.BOT_TOKEN, "#alerts", List.of(), Map.of("fixer", "work"))
        .deliver(new ChatPost("c", "colony", null, "🔁 supervisor: restarted fixer", "k3", now.get()));
    assertEquals("🔁 supervisor: restarted fixer", slack.texts(ALERTS).get(1));
  }

  @Test
  void aRetriedPostIsNotShownTwiceEvenFromAnotherWorker() throws Exception {
    ChatPost p = post("📥 **fixer** queued: x", "k4");
    sink().deliver(p);
    // A new worker (no memory of the first) retries the same post after its worker died.
    now.addAndGet(12_000);
    sink().deliver(p);
    assertEquals(1, slack.texts(WORK).size(), slack.texts(WORK).toString());
    assertTrue(slack.requests.contains("conversations.history"), "the retry looked before posting");
    // A first attempt does not look: one call per post (once the channel's id is known).
    SlackSink warm = sink();
    warm.deliver(post("second", "k5"));
    slack.requests.clear();
    warm.deliver(post("third", "k5b"));
    assertEquals(List.of("chat.postMessage"), slack.requests);
    // A long post is cut in parts, each with its own key; a retry finds them all and posts none again.
    String big = ("line of a long report\n").repeat(400);
    sink().deliver(post(big, "k6"));
    int parts = slack.texts(WORK).size() - 3;
    assertTrue(parts > 1 && parts <= ChatText.MAX_PARTS, "parts: " + parts);
    now.addAndGet(12_000);
    sink().deliver(new ChatPost("c", "fixer", null, big, "k6", now.get() - 12_000));
    assertEquals(parts + 3, slack.texts(WORK).size());
  }

  @Test
  void refusalsThatRetryingCannotFixDropThePostInOneLineAndSlackDownIsRetried() throws Exception {
    // An unknown channel, a channel the app is not in, a missing scope, a refused token: dropped, no exception.
    sink(FakeSlack.BOT_TOKEN, null, List.of(), Map.of("fixer", "#nowhere")).deliver(post("a", "k7"));
    sink(FakeSlack.BOT_TOKEN, null, List.of(), Map.of("fixer", "#locked")).deliver(post("b", "k8"));
    sink("xoxb-revoked-0000", null, List.of(), Map.of("fixer", "#work")).deliver(post("c", "k9"));
    slack.scopes.remove("chat:write");
    sink().deliver(post("d", "k10"));
    assertEquals(List.of(), slack.texts(WORK));
    slack.scopes.add("chat:write");
    // A short rate limit is waited out in place.
    slack.rateLimitNextPosts(2);
    sink().deliver(post("limited", "k12"));
    assertEquals(List.of("limited"), slack.texts(WORK));
    // A long one is thrown, so the activity retries; the retry goes through.
    slack.rateLimitNextPosts(20); // more than 5 s of Retry-After: 1
    IOException e = assertThrows(IOException.class, () -> sink().deliver(post("e", "k11")));
    assertTrue(e.getMessage().contains("rate limited"), e.getMessage());
    slack.rateLimitNextPosts(0);
    sink().deliver(post("e", "k11"));
    assertEquals(List.of("limited", "e"), slack.texts(WORK));
  }

  @Test
  void refusalsAreExplainedForTheHumanWhoReadsTheLog() {
    assertTrue(SlackApi.refusal("chat.postMessage", "missing_scope", "chat:write").getMessage()
        .contains("lacks the scope 'chat:write'"));
    assertTrue(SlackApi.refusal("auth.test", "invalid_auth", null).getMessage().contains("bot token was refused"));
    assertTrue(SlackApi.refusal("chat.postMessage", "not_in_channel", null).getMessage().contains("/invite"));
    assertTrue(SlackApi.refusal("x", "ratelimited", null).retryable);
    assertFalse(SlackApi.refusal("x", "channel_not_found", null).retryable);
  }
}
