package dev.colony.ant;

/** What an ant is doing right now, as shown by {@code status}. */
public enum Lifecycle {
  /** Workflow started, first session not yet begun. */
  STARTING,
  /** Preparing the workspace (git worktree) for a session. */
  PREPARING,
  /** An agent session is running. */
  RUNNING,
  /** Waiting out the exponential backoff after a crash. */
  BACKING_OFF,
  /** Waiting for a rate limit to lift. */
  RATE_LIMITED,
  /** Continuous ant sleeping {@code poll_interval} between sessions. */
  SLEEPING,
  /** Event-driven ant waiting for its schedule, a trigger or a human message. */
  WAITING,
  /** Paused by an operator or a blocking error; no timer, no CPU. */
  PAUSED,
  /** Parked: an error threshold was reached; waits, with no timer, for {@code resume} or {@code stop}. */
  PARKED,
  /** Stopped for good (the workflow has completed). */
  STOPPED
}
