package dev.colony.config;

import dev.colony.errorpolicy.ErrorPolicy;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;

/**
 * The error policy, shared by {@code defaults} and each ant: backoff, error thresholds, interrupt
 * grace, the session watchdog and budgets. The overseer's block is {@link OverseerReader}'s.
 */
final class ErrorPolicyReader {
  private ErrorPolicyReader() {}

  /** {@code backoff}, {@code max_consecutive_errors}, {@code max_total_errors} of {@code n}, over {@code base}. */
  static ErrorPolicy readErrorPolicy(Node n, ErrorPolicy base) {
    long initial = base.backoffInitialSeconds();
    long max = base.backoffMaxSeconds();
    Node b = n.child("backoff");
    if (b != null) {
      b.allowOnly(ConfigSchema.ANT.child("backoff"));
      Long i = b.durationSeconds("initial");
      Long m = b.durationSeconds("max");
      if (i == null && b.has("initial") || m == null && b.has("max")) {
        return base;
      }
      initial = i == null ? 10 : i;
      max = m == null ? 300 : m;
      if (max < initial) {
        b.problem("max", "must be at least backoff.initial (" + Durations.format(initial) + ")");
      }
    }
    Integer consecutive = n.has("max_consecutive_errors") ? n.positiveInt("max_consecutive_errors")
        : base.maxConsecutiveErrors();
    Integer total = n.has("max_total_errors") ? n.positiveInt("max_total_errors") : base.maxTotalErrors();
    Long grace = n.durationSeconds("interrupt_grace");
    Long idle = n.durationSeconds("session_idle_timeout");
    Double daily = base.dailyBudgetUsd();
    Double monthly = base.monthlyBudgetUsd();
    Node b2 = n.child("budget");
    if (b2 != null) {
      b2.allowOnly(ConfigSchema.ANT.child("budget"));
      daily = b2.has("daily_usd") ? b2.positiveNumber("daily_usd") : daily;
      monthly = b2.has("monthly_usd") ? b2.positiveNumber("monthly_usd") : monthly;
    }
    return new ErrorPolicy(initial, max, consecutive, total,
        grace == null ? base.interruptGraceSeconds() : grace,
        idle == null ? base.sessionIdleTimeoutSeconds() : idle, daily, monthly, base.budgetTimezone());
  }

  /** {@code defaults.timezone}: where budget days and months begin (and the default schedule zone). */
  static String readColonyZone(Node d) {
    String zone = d.literal("timezone", false);
    if (zone == null) {
      return null;
    }
    try {
      ZoneId.of(zone);
      return zone;
    } catch (java.time.DateTimeException e) {
      d.problem("timezone", "unknown time zone '" + zone + "' (use an IANA name such as Europe/Paris)");
      return null;
    }
  }
}
