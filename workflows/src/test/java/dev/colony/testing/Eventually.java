package dev.colony.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The one polling helper of the tests: a thin wrapper over Awaitility that says what was not
 * reached. Every wait is bounded ({@code atMost}); a condition that throws a transient gRPC error
 * (a Temporal server restarting under a fault test) counts as "not yet". Shared with the other
 * modules through the workflows test-jar. Waiting a fixed time for something NOT to happen is
 * not polling: say so with {@link #throughout} (Awaitility's {@code during}) or a latch.
 */
public final class Eventually {
  /** The bound when none is given: generous, the class-level {@code @Timeout} is the real limit. */
  public static final Duration DEFAULT = Duration.ofSeconds(20);

  private Eventually() {}

  public static void eventually(BooleanSupplier condition, String what) {
    eventually(DEFAULT, condition, () -> what);
  }

  public static void eventually(Duration atMost, BooleanSupplier condition, String what) {
    eventually(atMost, condition, () -> what);
  }

  /** {@code detail} is built only on timeout: for diagnostics (posts, logs) that are costly to build. */
  public static void eventually(Duration atMost, BooleanSupplier condition, Supplier<String> detail) {
    try {
      poll(atMost, condition);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("not reached within " + atMost + ": " + detail.get(), e);
    }
  }

  /** Polls {@code condition} every 20 ms until it holds; Awaitility's timeout past {@code atMost}. */
  private static void poll(Duration atMost, BooleanSupplier condition) {
    await()
        .atMost(atMost)
        .pollInSameThread()
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .ignoreExceptionsMatching(Eventually::transientServerError)
        .until(condition::getAsBoolean);
  }

  /**
   * Whether {@code condition} came true within {@code atMost}, polled as {@link #eventually} polls:
   * for a caller that measures or recovers instead of failing (a benchmark's "did it come up?").
   */
  public static boolean within(Duration atMost, BooleanSupplier condition) {
    try {
      poll(atMost, condition);
      return true;
    } catch (ConditionTimeoutException e) {
      return false; // the condition's own failures are not a "no"
    }
  }

  /**
   * "Nothing happens for a while": {@code condition} holds at every poll for the whole of
   * {@code during} (Awaitility's {@code await().during(...).atMost(...)}). Meant for a condition
   * that, once broken, stays broken (a count that only grows, a file that appears): the test then
   * fails by {@code during} + 2 s at the latest, saying what was seen.
   */
  public static void throughout(Duration during, BooleanSupplier condition, Supplier<String> detail) {
    try {
      await()
          .during(during)
          .atMost(during.plusSeconds(2))
          .pollInSameThread()
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(50))
          .until(condition::getAsBoolean);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("did not hold throughout " + during + ": " + detail.get(), e);
    }
  }

  private static boolean transientServerError(Throwable t) {
    return t instanceof io.grpc.StatusRuntimeException || t instanceof io.temporal.client.WorkflowServiceException;
  }
}
