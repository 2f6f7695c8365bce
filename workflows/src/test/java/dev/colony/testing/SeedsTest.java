package dev.colony.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/** The seed plumbing of the property tests: a printed seed, passed back, is the seed used. */
@Timeout(30)
@ResourceLock(Resources.SYSTEM_PROPERTIES)
class SeedsTest {
  private String saved;

  @BeforeEach
  void save() {
    saved = System.getProperty(Seeds.PROPERTY);
  }

  @AfterEach
  void restore() {
    if (saved == null) {
      System.clearProperty(Seeds.PROPERTY);
    } else {
      System.setProperty(Seeds.PROPERTY, saved);
    }
  }

  /** What {@code pick} printed on stderr, and the seed it returned. */
  private record Picked(long seed, String printed) {}

  private static Picked pick() {
    PrintStream err = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      long seed = Seeds.pick("SeedsTest");
      return new Picked(seed, buf.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(err);
    }
  }

  @Test
  void thePrintedSeedPassedBackIsTheSeedUsed() {
    System.clearProperty(Seeds.PROPERTY);
    Picked fresh = pick();
    assertEquals("SeedsTest: seed " + fresh.seed() + " (replay with -Dcolony.seed=" + fresh.seed() + ")\n",
        fresh.printed());
    // what a developer copies from that line
    String copied = fresh.printed().substring(fresh.printed().indexOf("-Dcolony.seed=") + "-Dcolony.seed=".length(),
        fresh.printed().lastIndexOf(')'));
    System.setProperty(Seeds.PROPERTY, copied);
    Picked replayed = pick();
    assertEquals(fresh.seed(), replayed.seed());
    assertEquals(fresh.printed(), replayed.printed(), "the replay prints the same line");
  }

  @Test
  void withoutAGivenSeedEachRunPicksAnother() {
    System.clearProperty(Seeds.PROPERTY);
    assertEquals(OptionalLong.empty(), Seeds.given());
    long a = pick().seed();
    boolean other = false;
    for (int i = 0; i < 5 && !other; i++) {
      other = pick().seed() != a;
    }
    assertTrue(other, "five fresh seeds in a row equal to " + a);
  }

  @Test
  void aSeedThatIsNotANumberIsRefusedInOneLine() {
    System.setProperty(Seeds.PROPERTY, "12x");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Seeds::given);
    assertEquals("-Dcolony.seed=12x: not a whole number (a seed a test printed)", e.getMessage());
  }
}
