package dev.colony.errorpolicy;

import java.util.Locale;
import java.util.Map;

/**
 * How a session ended: success, or one of the seven categories of the error policy. Every engine reduces
 * its own error vocabulary to these values; the workflow decides what each one means.
 */
public enum Outcome {
  SUCCESS(Action.CONTINUE),
  /** The turn limit was reached: a normal end for long tasks; restart at once, silently. */
  MAX_TURNS(Action.RESTART_NOW),
  /** Expected to pass on retry: back off exponentially. */
  TRANSIENT(Action.BACK_OFF),
  /** Wait until the reset time when known, else back off. */
  RATE_LIMIT(Action.WAIT_FOR_RESET),
  /** A configuration or prompt problem: back off exponentially. */
  PERMANENT(Action.BACK_OFF),
  BILLING(Action.PAUSE),
  AUTH(Action.PAUSE),
  BUDGET(Action.PAUSE),
  /**
   * The session's sandbox could not be made (bubblewrap missing, user namespaces off): no session
   * runs without its walls; paused until a human fixes the machine and resumes the ant.
   */
  SANDBOX(Action.PAUSE);

  /** What the error policy does about an outcome. */
  public enum Action { CONTINUE, RESTART_NOW, BACK_OFF, WAIT_FOR_RESET, PAUSE }

  private final Action action;

  Outcome(Action action) {
    this.action = action;
  }

  public Action action() {
    return action;
  }

  /** Lower-case name as written in config and shown to operators, e.g. {@code rate_limit}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  // Error values of the Claude Agent SDK / Claude Code (assistant `error` and result `subtype`).
  private static final Map<String, Outcome> SDK_VALUES = new java.util.TreeMap<>();

  static {
    SDK_VALUES.put("server_error", TRANSIENT);
    SDK_VALUES.put("unknown", TRANSIENT);
    SDK_VALUES.put("max_output_tokens", TRANSIENT);
    SDK_VALUES.put("error_during_execution", TRANSIENT);
    SDK_VALUES.put("rate_limit", RATE_LIMIT);
    SDK_VALUES.put("invalid_request", PERMANENT);
    SDK_VALUES.put("error_max_structured_output_retries", PERMANENT);
    SDK_VALUES.put("error_max_turns", MAX_TURNS);
    SDK_VALUES.put("billing_error", BILLING);
    SDK_VALUES.put("authentication_failed", AUTH);
    SDK_VALUES.put("error_max_budget_usd", BUDGET);
  }

  /**
   * Classifies an SDK error value. Values not known here are treated as transient: the SDK adds
   * new values over time, and retrying with backoff is the safe reading of an unknown failure.
   */
  public static Outcome fromSdkValue(String value) {
    if (value == null) {
      return TRANSIENT;
    }
    return SDK_VALUES.getOrDefault(value.trim().toLowerCase(Locale.ROOT), TRANSIENT);
  }

  /**
   * Parses a category name ({@code transient}, {@code rate_limit}, ..., {@code success}) or an
   * SDK error value; returns null when it is neither.
   */
  public static Outcome parse(String value) {
    if (value == null) {
      return null;
    }
    String v = value.trim().toLowerCase(Locale.ROOT).replace('-', '_');
    for (Outcome o : values()) {
      if (o.configName().equals(v)) {
        return o;
      }
    }
    if ("ratelimit".equals(v) || "rate_limited".equals(v)) {
      return RATE_LIMIT;
    }
    return SDK_VALUES.get(v);
  }
}
