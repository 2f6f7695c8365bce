package dev.colony.errorpolicy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.colony.errorpolicy.ErrorPolicy;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BackoffTest {
  private static List<Long> seconds(ErrorPolicy s, int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> Backoff.delay(i, s).toSeconds()).toList();
  }

  @Test
  void seedZerosScheduleByDefaultAndSeedOnesFormulaWhenConfigured() {
    assertEquals(List.of(10L, 20L, 40L, 80L, 300L, 300L), seconds(ErrorPolicy.DEFAULTS, 6));
    assertEquals(List.of(2L, 4L, 8L, 16L, 32L, 60L, 60L), seconds(new ErrorPolicy(2, 60, null, null), 7));
    assertEquals(3600L, Backoff.delay(500, new ErrorPolicy(5, 3600, null, null)).toSeconds(), "no overflow");
  }

  @Test
  void thresholdsSayWhichWasReached() {
    ErrorPolicy s = new ErrorPolicy(0, 0, 5, 20);
    assertNull(s.thresholdReached(4, 19));
    assertEquals("5 failed sessions in a row (max_consecutive_errors 5)", s.thresholdReached(5, 7));
    assertEquals("20 failed sessions in all (max_total_errors 20)", s.thresholdReached(1, 20));
    assertNull(ErrorPolicy.DEFAULTS.thresholdReached(1000, 1000), "the default error policy: never");
  }
}
