package dev.colony.discord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.chat.ChatPost;
import dev.colony.chat.OperatorMessages;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class DiscordSinkTest {
  private FakeDiscord discord;
  private String work;
  private String alerts;
  private DiscordSink sink;

  @BeforeEach
  void setUp() throws Exception {
    discord = new FakeDiscord();
    work = discord.addChannel("work");
    alerts = discord.addChannel("alerts");
    DiscordRest rest = new DiscordRest(new OkHttpClient(), discord.apiUrl(), "fake-token");
    sink = new DiscordSink(rest, new DiscordSettings(FakeDiscord.GUILD_NAME,
        List.of("Colony Ops", "900000000000000777"), Map.of(), true, "alerts", true));
  }

  @AfterEach
  void tearDown() throws Exception {
    discord.close();
  }

  @Test
  void aPostRetriedWithTheSameKeyIsShownOnce() throws Exception {
    ChatPost post = new ChatPost("c", "a", "#work", "✅ **a** finished session 1.", "ant/c/a/run/1");
    sink.deliver(post);
    sink.deliver(post);
    sink.deliver(new ChatPost("c", "a", "work", "✅ **a** finished session 2.", "ant/c/a/run/2"));
    assertEquals(List.of("✅ **a** finished session 1.", "✅ **a** finished session 2."),
        discord.botMessagesIn(work).stream().map(FakeDiscord.Message::content).toList());
  }

  @Test
  void longPostsAreSplitAtLineBreaksAndHugeOnesCut() throws Exception {
    String line = "x".repeat(99) + "\n";
    sink.deliver(new ChatPost("c", "a", "work", line.repeat(30), "k1"));
    List<String> parts = discord.botMessagesIn(work).stream().map(FakeDiscord.Message::content).toList();
    assertEquals(2, parts.size());
    assertTrue(parts.stream().allMatch(p -> p.length() <= 2000));
    assertEquals(line.repeat(30).strip(), String.join("\n", parts).strip());
    sink.deliver(new ChatPost("c", "a", "work", "y".repeat(50_000), "k2"));
    List<String> huge = discord.botMessagesIn(work).stream().map(FakeDiscord.Message::content).skip(2).toList();
    assertEquals(dev.colony.chat.impl.ChatText.MAX_PARTS, huge.size());
    assertTrue(huge.get(huge.size() - 1).endsWith("… (cut)"));
  }

  @Test
  void aRateLimitIsWaitedOutAndNothingIsLost() throws Exception {
    discord.rateLimitNextPosts(3);
    for (int i = 1; i <= 5; i++) {
      sink.deliver(new ChatPost("c", "a", "work", "post " + i, "rl" + i));
    }
    assertEquals(3, discord.rateLimitsSent());
    assertEquals(List.of("post 1", "post 2", "post 3", "post 4", "post 5"),
        discord.botMessagesIn(work).stream().map(FakeDiscord.Message::content).toList());
  }

  @Test
  void postsThatNeedAHumanMentionTheOperatorsAndAlertWithALink() throws Exception {
    String text = OperatorMessages.billing("a");
    sink.deliver(new ChatPost("c", "a", "work", text, "b1"));
    FakeDiscord.Message m = discord.botMessagesIn(work).get(0);
    assertEquals("<@900000000000000777> <@&" + FakeDiscord.OPS_ROLE_ID + "> " + text, m.content());
    assertEquals("[]", m.allowedMentions().get("parse").toString());
    FakeDiscord.Message alert = discord.botMessagesIn(alerts).get(0);
    assertTrue(alert.content().endsWith("https://discord.com/channels/" + FakeDiscord.GUILD_ID + "/" + work + "/" + m.id()),
        alert.content());
    // an ordinary post mentions nobody, even when the agent wrote @everyone
    sink.deliver(new ChatPost("c", "a", "work", "done @everyone", "b2"));
    assertEquals("[]", discord.botMessagesIn(work).get(1).allowedMentions().get("parse").toString());
    assertEquals(1, discord.botMessagesIn(alerts).size());
  }

  @Test
  void anUnknownChannelIsLoggedAndDroppedNotRetriedForEver() throws Exception {
    sink.deliver(new ChatPost("c", "a", "no-such-channel", "hello", "u1"));
    assertEquals(0, discord.botMessagesIn(work).size());
  }
}
