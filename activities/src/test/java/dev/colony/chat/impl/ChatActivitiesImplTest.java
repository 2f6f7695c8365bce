package dev.colony.chat.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colony.chat.ChatPost;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ChatActivitiesImplTest {
  @Test
  void aKeyIsDeliveredOnceEvenWhenPostedAgain() {
    List<String> seen = new ArrayList<>();
    ChatActivitiesImpl chat = new ChatActivitiesImpl(p -> seen.add(p.text()));
    chat.post(new ChatPost("c", "a", null, "one", "wf/run/1"));
    chat.post(new ChatPost("c", "a", null, "one", "wf/run/1"));
    chat.post(new ChatPost("c", "a", null, "two", "wf/run/2"));
    assertEquals(List.of("one", "two"), seen);
  }

  @Test
  void aFailedDeliveryIsNotRememberedSoTheRetryDelivers() {
    List<String> seen = new ArrayList<>();
    boolean[] fail = {true};
    ChatActivitiesImpl chat = new ChatActivitiesImpl(p -> {
      if (fail[0]) {
        fail[0] = false;
        throw new IllegalStateException("sink down");
      }
      seen.add(p.text());
    });
    try {
      chat.post(new ChatPost("c", "a", null, "one", "k1"));
    } catch (RuntimeException expected) {
      // the activity fails; Temporal retries it
    }
    chat.post(new ChatPost("c", "a", null, "one", "k1"));
    assertEquals(List.of("one"), seen);
  }

  @Test
  void consoleLinesArePrefixedWithTheAntName() {
    var buf = new java.io.ByteArrayOutputStream();
    new ConsoleSink(new java.io.PrintStream(buf, true)).deliver(new ChatPost("c", "scout", null, "a\nb", "k"));
    assertEquals("[scout] a" + System.lineSeparator() + "[scout] b" + System.lineSeparator(), buf.toString());
  }
}
