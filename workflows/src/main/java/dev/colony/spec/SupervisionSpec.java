package dev.colony.spec;

/**
 * How an ant recovers from errors, and when it gives up.
 *
 * @param backoffInitialSeconds first restart delay of a custom backoff; 0 for seed 000's schedule
 *     (10 s, 20 s, 40 s, 80 s, then 5 minutes)
 * @param backoffMaxSeconds cap of a custom backoff (delay = min(initial x 2^(n-1), max))
 * @param maxConsecutiveErrors park the ant after this many failed sessions in a row; null: never
 * @param maxTotalErrors park the ant after this many failed sessions in all; null: never
 */
public record SupervisionSpec(long backoffInitialSeconds, long backoffMaxSeconds, Integer maxConsecutiveErrors,
    Integer maxTotalErrors) {
  /** Seed 000: retry for ever with its backoff schedule. */
  public static final SupervisionSpec DEFAULTS = new SupervisionSpec(0, 0, null, null);

  /** Which threshold the counters reached, in words; null while neither is reached. */
  public String thresholdReached(int consecutiveErrors, int totalErrors) {
    if (maxConsecutiveErrors != null && consecutiveErrors >= maxConsecutiveErrors) {
      return consecutiveErrors + " failed sessions in a row (max_consecutive_errors " + maxConsecutiveErrors + ")";
    }
    if (maxTotalErrors != null && totalErrors >= maxTotalErrors) {
      return totalErrors + " failed sessions in all (max_total_errors " + maxTotalErrors + ")";
    }
    return null;
  }
}
