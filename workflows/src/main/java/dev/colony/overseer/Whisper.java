package dev.colony.overseer;

/**
 * A private message from the overseer to the agent, delivered at its next turn and never
 * posted to any channel.
 *
 * @param id unique within the ant, for acknowledgement
 * @param kind {@link #CORRECTION}, {@link #THINK_DEEPER} or {@link #ESCALATION}
 */
public record Whisper(String id, String kind, String text) {
  public static final String CORRECTION = "CORRECTION";
  public static final String THINK_DEEPER = "THINK_DEEPER";
  public static final String ESCALATION = "ESCALATION";

  /** As the agent reads it: {@code [CORRECTION] ...}. */
  public String rendered() {
    return "[" + kind + "] " + text;
  }
}
