package dev.colony.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeliveryJournalTest {
  @TempDir
  Path tmp;

  @Test
  void aKeyDeliveredByOneWorkerIsNotDeliveredByAnother() throws Exception {
    Path file = tmp.resolve("chat/delivered-keys");
    List<String> out = new ArrayList<>();
    DeliveryJournal first = new DeliveryJournal(file);
    DeliveryJournal second = new DeliveryJournal(file);
    assertTrue(first.deliverOnce("k1", () -> out.add("k1 by first")));
    assertFalse(second.deliverOnce("k1", () -> out.add("k1 by second")));
    assertTrue(second.deliverOnce("k2", () -> out.add("k2 by second")));
    assertFalse(first.deliverOnce("k2", () -> out.add("k2 by first")));
    // a worker started later (after a kill -9) reads what was delivered before it
    assertFalse(new DeliveryJournal(file).deliverOnce("k1", () -> out.add("k1 by third")));
    assertEquals(List.of("k1 by first", "k2 by second"), out);
  }

  @Test
  void aFailedDeliveryIsNotRecorded() throws Exception {
    DeliveryJournal j = new DeliveryJournal(tmp.resolve("keys"));
    try {
      j.deliverOnce("k", () -> {
        throw new IllegalStateException("down");
      });
    } catch (IllegalStateException expected) {
      // retried by Temporal
    }
    List<String> out = new ArrayList<>();
    assertTrue(j.deliverOnce("k", () -> out.add("ok")));
    assertEquals(List.of("ok"), out);
  }
}
