package dev.colony.config;

import dev.colony.overseer.OverseerSpec;

/** The {@code overseer} block shared by {@code defaults} and each ant: the LLM that watches an ant's turns. */
final class OverseerReader {
  private OverseerReader() {}

  /** The key. */
  static final String KEY = "overseer";
  /** Its old name, still read with the same meaning. */
  static final String OLD_KEY = "supervisor";

  /**
   * The {@code overseer} block (or its old name {@code supervisor}) over {@code base}: {@code off}
   * (or {@code false}) turns an inherited one off; a mapping sets model, provider, thinking,
   * window_size, eval_interval, escalation_threshold and stall_after. A file that sets both names
   * is refused, naming the file and the field.
   */
  static OverseerSpec readOverseer(Node n, OverseerSpec base, long idleTimeoutSeconds) {
    String key = KEY;
    if (n.has(OLD_KEY)) {
      if (n.has(KEY)) {
        n.problem(OLD_KEY, "is the old name of " + KEY + "; set one of them, not both");
        return base;
      }
      key = OLD_KEY;
    }
    if (!n.has(key)) {
      return base;
    }
    if (!n.isMapping(key)) {
      String raw = n.raw(key);
      // on/off as the schema lists them, or a YAML boolean (true, True, TRUE, ...)
      if (raw != null && (raw.equals("off") || SWITCH_OFF.contains(raw))) {
        return null;
      }
      if (raw != null && (raw.equals("on") || SWITCH_ON.contains(raw))) {
        return base == null ? OverseerSpec.DEFAULTS : base;
      }
      if (raw != null) {
        n.problem(key, "expected a mapping (model, thinking, window_size, ...), on or off; found '"
            + (raw.length() > 40 ? raw.substring(0, 40) + "…" : raw) + "'");
      }
      return base;
    }
    Node v = n.child(key);
    if (v == null) {
      return base;
    }
    OverseerSpec b = base == null ? OverseerSpec.DEFAULTS : base;
    v.allowOnly(ConfigSchema.ANT.child(KEY));
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

  /** YAML's booleans, which an editor's schema check reads as true and false. */
  static final java.util.Set<String> SWITCH_ON = java.util.Set.of("true", "True", "TRUE");
  static final java.util.Set<String> SWITCH_OFF = java.util.Set.of("false", "False", "FALSE");
}
