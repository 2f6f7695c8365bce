package dev.colony.lifecycle;

/**
 * What happens to an ant: the lifecycle's events, and the waits and pauses Colony adds. Events carry
 * the workflow time they happened at where a transition needs it (backoff until-times).
 */
public sealed interface LifecycleEvent {
  /** The session's workspace (git worktree) is ready. */
  record WorktreeReady() implements LifecycleEvent {}

  /** The session's inputs are assembled; {@code prompt} says what it will carry. */
  record PromptReady(String prompt) implements LifecycleEvent {}

  /** A worker started the agent of session {@code session}. */
  record SessionStarted(int session) implements LifecycleEvent {}

  /**
   * The session ended. {@code retryAtMillis} is when a rate limit lifts, when the engine said so.
   */
  record SessionExited(Exit exit, String detail, long atMillis, Long retryAtMillis) implements LifecycleEvent {
    public static SessionExited of(Exit exit, long atMillis) {
      return new SessionExited(exit, null, atMillis, null);
    }
  }

  /** How a session ended, as the state machine tells them apart. */
  enum Exit {
    SUCCESS,
    /** The turn limit: a normal end for a long task (counts as success). */
    MAX_TURNS,
    /** A failure that may pass on retry (transient, permanent, a crash). */
    ERROR,
    /** The session bound or the idle watchdog cut it. */
    TIMEOUT,
    RATE_LIMITED,
    /** A cause only a human can fix (billing, auth, the engine's budget): the detail is the reason. */
    BLOCKED
  }

  /** An urgent message arrived (or the watchdog fired): interrupt the running session. */
  record UrgentMessage() implements LifecycleEvent {}

  /** The interrupted session did not exit within the grace period. */
  record GraceExceeded() implements LifecycleEvent {}

  /** A cooling-down wait ended (its timer, or {@code resume} cut it short). */
  record BackoffElapsed() implements LifecycleEvent {}

  /** {@code stop}: valid in every state. */
  record OperatorStop() implements LifecycleEvent {}

  /** Nothing more can be done: valid in every state. */
  record FatalError(String message) implements LifecycleEvent {}

  // ---- Colony's additions ----

  /** The ant pauses ({@code operator}, {@code budget}, ...); takes effect between sessions. */
  record Paused(String reason, Long untilMillis) implements LifecycleEvent {}

  /** A paused or parked ant goes back to work. */
  record Resumed() implements LifecycleEvent {}

  /** Nothing to do until {@code untilMillis} (null: until an event), for the reason given. */
  record Waiting(String reason, Long untilMillis) implements LifecycleEvent {}

  /** A wait ended: a tick, a trigger, a message. */
  record Woken() implements LifecycleEvent {}

  /**
   * The host holding the ant's workspace stopped polling for longer than {@code move_after}: the
   * session (or its preparation) did not run and is prepared again on another host. Not an error.
   */
  record HostLost(String host) implements LifecycleEvent {}
}
