package dev.colony.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MailboxTest {
  @Test
  void urgentMessagesGoFirstAndGivenBackOnesFollowThem() {
    Mailbox box = new Mailbox(List.of(), List.of(), List.of());
    box.add("a", false);
    box.add("b", false);
    box.add("URGENT", true);
    assertEquals(List.of("URGENT", "a", "b"), box.takeBatch(1000));
    box.add("later urgent", true);
    box.giveBack(List.of("URGENT", "a", "b"));
    assertEquals(List.of("later urgent", "URGENT", "a", "b"), box.takeAll());
  }

  @Test
  void aBatchIsBoundedButNeverEmpty() {
    Mailbox box = new Mailbox(List.of("x".repeat(50), "y".repeat(60)), List.of(), List.of());
    assertEquals(1, box.takeBatch(100).size());
    assertEquals(1, box.takeBatch(10).size(), "one message even when it alone is over the bound");
    assertTrue(box.isEmpty());
  }

  @Test
  void anIdIsReceivedOnceAndTheMemoryIsBounded() {
    Mailbox box = new Mailbox(List.of(), List.of(), List.of());
    assertFalse(box.seenBefore("m1"));
    assertTrue(box.seenBefore("m1"));
    assertFalse(box.seenBefore(null), "no id: never a duplicate");
    assertFalse(box.seenBefore(null));
    for (int i = 0; i < Mailbox.MAX_REMEMBERED_IDS + 10; i++) {
      box.seenBefore("id" + i);
    }
    assertEquals(Mailbox.MAX_REMEMBERED_IDS, box.seenIds().size());
    assertTrue(new Mailbox(List.of(), List.of(), box.seenIds()).seenBefore("id" + (Mailbox.MAX_REMEMBERED_IDS + 9)),
        "carried over continue-as-new");
  }

  @Test
  void aPlainStringAndAnObjectBothReadAsMail() throws Exception {
    ObjectMapper json = new ObjectMapper();
    assertEquals(Mail.of("fix the build"), json.readValue("\"fix the build\"", Mail.class));
    assertEquals(new Mail("now", true, "scout", "k1"),
        json.readValue("{\"text\":\"now\",\"urgent\":true,\"from\":\"scout\",\"id\":\"k1\"}", Mail.class));
    assertEquals(new Mail("t", false, null, null), json.readValue("{\"text\":\"t\"}", Mail.class));
  }

  @Test
  void derivedIdsTellSessionsAndTextsApart() {
    String a = Mail.derivedId("scout", "4", "builder", "hello");
    assertEquals(a, Mail.derivedId("scout", "4", "builder", "hello"), "a retried session sends the same id");
    assertNotEquals(a, Mail.derivedId("scout", "5", "builder", "hello"));
    assertNotEquals(a, Mail.derivedId("scout", "4", "builder", "hello!"));
  }
}
