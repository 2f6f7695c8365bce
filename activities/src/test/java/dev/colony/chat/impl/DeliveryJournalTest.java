package dev.colony.chat.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
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

  @Test
  void theJournalStaysBoundedAndStillKnowsTheNewestKeysInEveryProcess() throws Exception {
    Path file = tmp.resolve("keys");
    DeliveryJournal a = new DeliveryJournal(file, 100);
    DeliveryJournal b = new DeliveryJournal(file, 100);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      DeliveryJournal j = i % 3 == 0 ? b : a;
      String key = "ant/c/x/run/" + i;
      assertTrue(j.deliverOnce(key, () -> out.add(key)));
    }
    assertEquals(1000, out.size());
    List<String> lines = java.nio.file.Files.readAllLines(file);
    assertTrue(lines.size() <= 101, "bounded: " + lines.size() + " lines");
    assertTrue(lines.get(0).startsWith("#generation "), lines.get(0));
    assertTrue(a.size() <= 100 && b.size() <= 100, a.size() + " / " + b.size());
    // the newest keys are still known to both, after the other one compacted the file
    for (int i = 960; i < 1000; i++) {
      String key = "ant/c/x/run/" + i;
      assertFalse(a.deliverOnce(key, () -> out.add("again " + key)));
      assertFalse(b.deliverOnce(key, () -> out.add("again " + key)));
    }
    // and to a process started later
    assertFalse(new DeliveryJournal(file, 100).deliverOnce("ant/c/x/run/999", () -> out.add("again")));
    assertEquals(1000, out.size());
  }

  @Test
  void aKillInTheMiddleOfACompactionLosesNoneOfTheNewestKeys() throws Exception {
    Path file = tmp.resolve("keys");
    StringBuilder old = new StringBuilder();
    for (int i = 0; i < 100; i++) {
      old.append("k").append(i).append('\n');
    }
    StringBuilder rewrite = new StringBuilder("#generation 1\n");
    for (int i = 50; i < 100; i++) {
      rewrite.append("k").append(i).append('\n');
    }
    byte[] o = old.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] n = rewrite.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (int cut = 0; cut <= n.length; cut += 7) {
      byte[] torn = o.clone(); // the rewrite got `cut` bytes in, the rest is the old file
      System.arraycopy(n, 0, torn, 0, cut);
      java.nio.file.Files.write(file, torn);
      DeliveryJournal j = new DeliveryJournal(file, 100);
      for (int i = 50; i < 100; i++) {
        assertFalse(j.deliverOnce("k" + i, () -> {
          throw new AssertionError("delivered twice");
        }), "cut at " + cut);
      }
    }
  }

  @Test
  void hostileKeysStayOneLineAndAreKeptApart() throws Exception {
    Path file = tmp.resolve("keys");
    DeliveryJournal j = new DeliveryJournal(file);
    List<String> out = new ArrayList<>();
    for (String key : List.of("a\nb", "a", "b", "#generation 9", "\\#generation 9", "", "\\", "x\r")) {
      assertTrue(j.deliverOnce(key, () -> out.add(key)), key);
    }
    assertEquals(8, out.size());
    DeliveryJournal later = new DeliveryJournal(file);
    for (String key : out) {
      assertFalse(later.deliverOnce(key, () -> out.add("again")), key);
    }
    assertEquals(8, java.nio.file.Files.readAllLines(file).size());
  }
}
