package dev.colony.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Eventually#throughout}: "nothing happens" is watched for the whole time, and can fail;
 * {@link Eventually#within}: a yes, a no, and a condition's own failure never read as a no.
 */
@Timeout(30)
class EventuallyTest {
  @Test
  void aConditionThatHoldsIsWatchedForTheWholeTime() {
    AtomicInteger polls = new AtomicInteger();
    long start = System.nanoTime();
    Eventually.throughout(Duration.ofMillis(400), () -> polls.incrementAndGet() > 0, () -> "never broken");
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(tookMillis >= 400, "returned after " + tookMillis + " ms");
    assertTrue(polls.get() > 2, "polled " + polls.get() + " times");
  }

  @Test
  void aConditionThatBreaksMidwayFailsSayingWhatWasSeen() {
    long start = System.nanoTime();
    AssertionError e = assertThrows(AssertionError.class, () -> Eventually.throughout(Duration.ofSeconds(1),
        () -> System.nanoTime() - start < Duration.ofMillis(200).toNanos(), () -> "the marker appeared"));
    assertTrue(e.getMessage().startsWith("did not hold throughout PT1S: the marker appeared"), e.getMessage());
  }

  @Test
  void withinSaysWhetherTheConditionCameAndLetsItsOwnFailureThrough() {
    AtomicInteger polls = new AtomicInteger();
    assertTrue(Eventually.within(Duration.ofSeconds(5), () -> polls.incrementAndGet() >= 3));
    assertEquals(3, polls.get());
    assertFalse(Eventually.within(Duration.ofMillis(200), () -> false));
    IllegalStateException broken = assertThrows(IllegalStateException.class,
        () -> Eventually.within(Duration.ofSeconds(5), () -> {
          throw new IllegalStateException("the condition itself broke");
        }));
    assertEquals("the condition itself broke", broken.getMessage());
  }
}
