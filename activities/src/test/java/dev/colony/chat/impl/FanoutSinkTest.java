package dev.colony.chat.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.colony.chat.ChatPost;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Discord and Slack together: each gets every post once, and one failing does not cost the other its post. */
@Timeout(30)
class FanoutSinkTest {
  @Test
  void aFailingChatIsRetriedAloneAndTheOtherKeepsItsOneCopy() throws Exception {
    List<String> discord = new CopyOnWriteArrayList<>();
    List<String> slack = new CopyOnWriteArrayList<>();
    AtomicInteger slackFailures = new AtomicInteger(1);
    ChatSink a = p -> discord.add(p.text());
    ChatSink b = p -> {
      if (slackFailures.getAndDecrement() > 0) {
        throw new IOException("slack: rate limited");
      }
      slack.add(p.text());
    };
    ChatSink both = FanoutSink.of(List.of(a, b));
    ChatPost post = new ChatPost("c", "fixer", "work", "✅ done", "k1", 1);
    IOException e = assertThrows(IOException.class, () -> both.deliver(post));
    assertEquals("slack: rate limited", e.getMessage());
    assertEquals(List.of("✅ done"), discord, "Discord got it although Slack failed");
    both.deliver(post); // the activity's retry
    assertEquals(List.of("✅ done"), discord, "not again on the retry");
    assertEquals(List.of("✅ done"), slack);
    both.deliver(new ChatPost("c", "fixer", "work", "next", "k2", 2));
    assertEquals(List.of("✅ done", "next"), discord);
    assertEquals(List.of("✅ done", "next"), slack);
    assertSame(a, FanoutSink.of(List.of(a)), "one chat is used as it is");
  }
}
