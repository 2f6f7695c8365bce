package dev.colony.errorpolicy;

import java.time.Duration;

/** Restart delay after consecutive crashes: 10 s, 20 s, 40 s, 80 s, then a 5 minute cap. */
public final class Backoff {
  private static final long[] STEPS_SECONDS = {10, 20, 40, 80};
  public static final Duration CAP = Duration.ofMinutes(5);

  private Backoff() {}

  /**
   * The delay under {@code s}: the default backoff schedule (10 s, 20 s, 40 s, 80 s, then 5 minutes) by default, else the configured doubling
   * {@code min(initial x 2^(n-1), max)}.
   */
  public static Duration delay(int consecutiveErrors, dev.colony.errorpolicy.ErrorPolicy s) {
    if (s == null || s.backoffInitialSeconds() <= 0) {
      return delay(consecutiveErrors);
    }
    if (consecutiveErrors < 1) {
      return Duration.ZERO;
    }
    long max = Math.max(s.backoffInitialSeconds(), s.backoffMaxSeconds());
    int doublings = Math.min(consecutiveErrors - 1, 40);
    long seconds = doublings >= 62 || (s.backoffInitialSeconds() << doublings) >> doublings != s.backoffInitialSeconds()
        ? max : Math.min(s.backoffInitialSeconds() << doublings, max);
    return Duration.ofSeconds(seconds);
  }

  /** @param consecutiveErrors the counter after counting this crash (1 for the first) */
  public static Duration delay(int consecutiveErrors) {
    if (consecutiveErrors < 1) {
      return Duration.ZERO;
    }
    if (consecutiveErrors > STEPS_SECONDS.length) {
      return CAP;
    }
    return Duration.ofSeconds(STEPS_SECONDS[consecutiveErrors - 1]);
  }
}
