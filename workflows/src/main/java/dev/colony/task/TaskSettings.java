package dev.colony.task;

/**
 * The colony's task settings ({@code tasks:} in colony.yaml), given to each task's workflow.
 *
 * @param antsMayFinish an ant's finished task goes to Done instead of In Review
 * @param goneCheckSeconds how often an In Progress task looks whether its ant still runs (it
 *     goes back to To Do when not)
 */
public record TaskSettings(boolean antsMayFinish, long goneCheckSeconds) {
  public static final long DEFAULT_GONE_CHECK_SECONDS = 600;

  public static TaskSettings defaults() {
    return new TaskSettings(false, DEFAULT_GONE_CHECK_SECONDS);
  }
}
