package dev.colony.ant;

import java.util.Locale;

/**
 * What an ant is doing right now, as {@code status}, the {@code AntState} search attribute and the
 * Web UI show it: the lifecycle's eight states, plus Waiting, Paused and Parked. Transitions are made
 * by {@link dev.colony.lifecycle.LifecycleMachine} only.
 */
public enum Lifecycle {
  /** The workflow started; the workspace (git worktree) for the first session is being prepared. */
  INITIALIZING,
  /** The next session's inputs are assembled: workspace, queued messages, the issue to work on. */
  BUILDING_PROMPT,
  /** The session is scheduled; no worker has started its agent yet. */
  SPAWNING,
  /** An agent session is running (its number is in {@code session}). */
  RUNNING,
  /** The running session was asked to stop (urgent message, watchdog, stop); waiting for it to exit. */
  INTERRUPTING,
  /** The last session succeeded; the workspace is readied for the next one. */
  SESSION_COMPLETE,
  /** After a failed or rate-limited session: waiting until {@code nextWakeTime}. */
  COOLING_DOWN,
  /** Nothing to do until a cron tick, a trigger, a message or the poll interval (see the reason). */
  WAITING,
  /** Paused by an operator, a billing/auth problem or a budget cap; only a budget pause has a timer. */
  PAUSED,
  /** An error threshold was reached: no sessions, no timer, until {@code resume} or {@code stop}. */
  PARKED,
  /** Stopped for good (the workflow has completed). */
  STOPPED;

  /** Lower-case name, as visibility and operators see it: {@code cooling_down}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** A session is scheduled or running. */
  public boolean sessionLive() {
    return this == SPAWNING || this == RUNNING || this == INTERRUPTING;
  }
}
