package dev.colony.config;

import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.overseer.OverseerSpec;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;

/**
 * The supervision settings shared by {@code defaults} and each ant: backoff, error thresholds,
 * interrupt grace, the session watchdog, budgets (seed 001, seed 000) and the overseer
 * block (seed 002).
 */
final class ErrorPolicyReader {
  private ErrorPolicyReader() {}


  /**
   * The {@code supervisor} block (seed 002's overseer) over {@code base}: {@code off} (or
   * {@code false}) turns an inherited one off; a mapping sets model, provider, thinking,
   * window_size, eval_interval, escalation_threshold and stall_after.
   */
  static OverseerSpec readOverseer(Node n, OverseerSpec base, long idleTimeoutSeconds) {
    if (!n.has("supervisor")) {
      return base;
    }
    if (!n.isMapping("supervisor")) {
      String raw = n.raw("supervisor");
      // on/off as the schema lists them, or a YAML boolean (true, True, TRUE, ...)
      if (raw != null && (raw.equals("off") || SWITCH_OFF.contains(raw))) {
        return null;
      }
      if (raw != null && (raw.equals("on") || SWITCH_ON.contains(raw))) {
        return base == null ? OverseerSpec.DEFAULTS : base;
      }
      if (raw != null) {
        n.problem("supervisor", "expected a mapping (model, thinking, window_size, ...), on or off; found '"
            + (raw.length() > 40 ? raw.substring(0, 40) + "…" : raw) + "'");
      }
      return base;
    }
    Node v = n.child("supervisor");
    if (v == null) {
      return base;
    }
    OverseerSpec b = base == null ? OverseerSpec.DEFAULTS : base;
    v.allowOnly(ConfigSchema.ANT.child("supervisor"));
    String model = v.literal("model", false);
    String provider = v.literal("provider", false);
    if (provider != null && !provider.equals(OverseerSpec.ANTHROPIC) && !provider.equals(OverseerSpec.GEMINI)) {
      v.problem("provider", "unknown provider '" + provider + "' (use anthropic or gemini)");
      provider = null;
    }
    String thinking = v.literal("thinking", false);
    if (thinking != null && !ConfigSchema.THINKING.contains(thinking)) {
      v.problem("thinking", "unknown thinking level '" + thinking + "' (use off, low, medium or high)");
      thinking = null;
    }
    Integer window = v.positiveInt("window_size");
    int w = window == null ? b.windowSize() : window;
    Integer interval = v.positiveInt("eval_interval");
    if (interval != null && interval > w) {
      v.problem("eval_interval", "must be at most window_size (" + w + "): an evaluation reads the window");
      interval = null;
    }
    Integer threshold = v.positiveInt("escalation_threshold");
    Long stall = v.durationSeconds("stall_after");
    if (stall != null && stall >= idleTimeoutSeconds) {
      v.problem("stall_after", "must be shorter than session_idle_timeout (" + Durations.format(idleTimeoutSeconds)
          + "), which interrupts a silent session first");
      stall = null;
    }
    if (stall == null && b.stallAfterSeconds() >= idleTimeoutSeconds) {
      stall = Math.max(30, idleTimeoutSeconds * 2 / 3); // a silence is seen before the watchdog acts
    }
    String m = model == null ? b.model() : model;
    String p = provider != null ? provider : model != null ? OverseerSpec.providerOf(model) : b.provider();
    return new OverseerSpec(p, m, thinking == null ? b.thinking() : thinking,
        w, interval == null ? Math.min(b.evalInterval(), w) : interval,
        threshold == null ? b.escalationThreshold() : threshold, stall == null ? b.stallAfterSeconds() : stall);
  }

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

  /** YAML's booleans, which an editor's schema check reads as true and false. */
  private static final java.util.Set<String> SWITCH_ON = java.util.Set.of("true", "True", "TRUE");
  private static final java.util.Set<String> SWITCH_OFF = java.util.Set.of("false", "False", "FALSE");
}
