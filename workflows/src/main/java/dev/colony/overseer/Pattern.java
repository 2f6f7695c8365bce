package dev.colony.overseer;

/** What an evaluation saw in the agent's recent turns. */
public enum Pattern {
  /** Nothing worth interrupting the agent for: most evaluations. */
  OK,
  /** The same approach retried three or more times without progress. */
  SPIRALING,
  /** The work has moved away from the task. */
  DRIFT,
  /** Long gaps without meaningful output. */
  STALLING,
  /** A complex decision taken without enough reasoning. */
  SHALLOW;

  /** The whisper that answers the pattern before escalation. */
  public String whisperKind() {
    return this == SHALLOW ? Whisper.THINK_DEEPER : Whisper.CORRECTION;
  }
}
