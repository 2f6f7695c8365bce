package dev.colony.ant;

/**
 * What a timed wait is for. The constant names are those runs recorded before the lifecycle
 * machine stored in their continue-as-new input, so old histories still read.
 */
public enum WaitKind {
  /** Backoff after a failed session. */
  BACKING_OFF,
  /** Until a rate limit lifts. */
  RATE_LIMITED,
  /** A continuous ant's poll interval between sessions. */
  SLEEPING,
  /** An event-driven ant's next cron tick. */
  WAITING;

  /** The state an ant shows while it waits for this. */
  public Lifecycle shownAs() {
    return this == BACKING_OFF || this == RATE_LIMITED ? Lifecycle.COOLING_DOWN : Lifecycle.WAITING;
  }

  /** Why, in words, for status. */
  public String reason() {
    return switch (this) {
      case BACKING_OFF -> "backoff";
      case RATE_LIMITED -> "rate limit";
      case SLEEPING -> "poll interval";
      case WAITING -> "next tick";
    };
  }
}
