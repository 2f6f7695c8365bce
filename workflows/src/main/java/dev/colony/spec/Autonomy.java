package dev.colony.spec;

/** What happens when a dangerous tool call is detected. */
public enum Autonomy {
  /** Ask a human and wait for approve/deny (the default). */
  HUMAN,
  /** Never intercept: every call proceeds. */
  FULL,
  /** Deny flagged calls without asking anyone. */
  STRICT
}
