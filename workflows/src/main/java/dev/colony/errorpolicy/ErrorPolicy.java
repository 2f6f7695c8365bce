package dev.colony.errorpolicy;

/**
 * How an ant recovers from errors, when it gives up, and the guardrails around its sessions.
 * Specs recorded before a field existed read it as 0 or null, which means its default.
 *
 * @param backoffInitialSeconds first restart delay of a custom backoff; 0 for the default backoff schedule (10 s, 20 s, 40 s, 80 s, then 5 minutes)
 *     (10 s, 20 s, 40 s, 80 s, then 5 minutes)
 * @param backoffMaxSeconds cap of a custom backoff (delay = min(initial x 2^(n-1), max))
 * @param maxConsecutiveErrors park the ant after this many failed sessions in a row; null: never
 * @param maxTotalErrors park the ant after this many failed sessions in all; null: never
 * @param interruptGraceSeconds how long an interrupted session may take to stop by itself before
 *     it is killed; 0: {@link #DEFAULT_INTERRUPT_GRACE_SECONDS}
 * @param sessionIdleTimeoutSeconds a session silent this long (no output, no tool activity, not
 *     waiting for a human) is interrupted; 0: {@link #DEFAULT_SESSION_IDLE_TIMEOUT_SECONDS}
 * @param dailyBudgetUsd spend cap per day of {@code budgetTimezone}; null: none
 * @param monthlyBudgetUsd spend cap per calendar month of {@code budgetTimezone}; null: none
 * @param budgetTimezone the colony's time zone, where budget days and months begin; null: UTC
 * @param budgetZoneTable that zone's UTC offsets as data, made when the config was loaded: the
 *     workflow counts budget days from it, never from the worker's time-zone data; null in specs
 *     recorded before it (they count with the JVM's rules, see {@link dev.colony.budget.BudgetDays})
 */
public record ErrorPolicy(long backoffInitialSeconds, long backoffMaxSeconds, Integer maxConsecutiveErrors,
    Integer maxTotalErrors, long interruptGraceSeconds, long sessionIdleTimeoutSeconds, Double dailyBudgetUsd,
    Double monthlyBudgetUsd, String budgetTimezone, dev.colony.budget.ZoneTable budgetZoneTable) {
  public static final long DEFAULT_INTERRUPT_GRACE_SECONDS = 30;
  public static final long DEFAULT_SESSION_IDLE_TIMEOUT_SECONDS = 15 * 60;

  /** The default: retry for ever with the default backoff schedule (10 s, 20 s, 40 s, 80 s, then 5 minutes); no budget; default grace and watchdog. */
  public static final ErrorPolicy DEFAULTS = new ErrorPolicy(0, 0, null, null);

  /** Without the zone table (tests, and specs recorded before it). */
  public ErrorPolicy(long backoffInitialSeconds, long backoffMaxSeconds, Integer maxConsecutiveErrors,
      Integer maxTotalErrors, long interruptGraceSeconds, long sessionIdleTimeoutSeconds, Double dailyBudgetUsd,
      Double monthlyBudgetUsd, String budgetTimezone) {
    this(backoffInitialSeconds, backoffMaxSeconds, maxConsecutiveErrors, maxTotalErrors, interruptGraceSeconds,
        sessionIdleTimeoutSeconds, dailyBudgetUsd, monthlyBudgetUsd, budgetTimezone, null);
  }

  /** Thresholds and backoff only, the other guardrails at their defaults. */
  public ErrorPolicy(long backoffInitialSeconds, long backoffMaxSeconds, Integer maxConsecutiveErrors,
      Integer maxTotalErrors) {
    this(backoffInitialSeconds, backoffMaxSeconds, maxConsecutiveErrors, maxTotalErrors, 0, 0, null, null, null);
  }

  /** The same policy counting its budget days with {@code table}. */
  public ErrorPolicy withZoneTable(dev.colony.budget.ZoneTable table) {
    return new ErrorPolicy(backoffInitialSeconds, backoffMaxSeconds, maxConsecutiveErrors, maxTotalErrors,
        interruptGraceSeconds, sessionIdleTimeoutSeconds, dailyBudgetUsd, monthlyBudgetUsd, budgetTimezone, table);
  }

  /** Seconds an interrupted session gets to stop by itself. */
  public long interruptGrace() {
    return interruptGraceSeconds > 0 ? interruptGraceSeconds : DEFAULT_INTERRUPT_GRACE_SECONDS;
  }

  /** Seconds of silence after which the watchdog interrupts a session. */
  public long sessionIdleTimeout() {
    return sessionIdleTimeoutSeconds > 0 ? sessionIdleTimeoutSeconds : DEFAULT_SESSION_IDLE_TIMEOUT_SECONDS;
  }

  public boolean hasBudget() {
    return dailyBudgetUsd != null || monthlyBudgetUsd != null;
  }

  /** The zone budget windows are counted in. */
  public String budgetZone() {
    return budgetTimezone == null || budgetTimezone.isBlank() ? "UTC" : budgetTimezone;
  }

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
