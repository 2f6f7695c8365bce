package dev.colony.spec;

/** Which agent engine drives an ant's sessions. */
public enum EngineKind {
  /** Claude Code CLI in headless stream-json mode (the default). */
  CLAUDE,
  /** Google Gen AI SDK with an in-process tool loop. */
  GEMINI,
  /** Any CLI agent: a configured argv, outcomes mapped by rules. */
  COMMAND;

  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
