package dev.colony.spec;

import java.util.List;

/**
 * How an ant takes tasks from the board ({@code tasks:} in its file, with the colony's
 * {@code tasks:} settings folded in). Every ant takes the tasks assigned to it by name; this adds
 * pools, what it does with no task, and the colony-wide rules.
 *
 * @param takes pools (and labels of unassigned tasks) it takes; {@code "*"}: any unassigned task
 * @param waitWhenIdle with no task: wait for one ({@code when_idle: wait}) instead of working on
 *     its standing instructions ({@code work}, the default)
 * @param maxTries failed sessions on one task before it is Blocked for a human
 * @param antsMayFinish its finished task goes to Done, not In Review (colony.yaml)
 * @param agingSeconds a waiting task rises one priority level per this many seconds (colony.yaml)
 */
public record TaskPolicy(List<String> takes, boolean waitWhenIdle, int maxTries, boolean antsMayFinish,
    long agingSeconds) {
  public static final int DEFAULT_MAX_TRIES = 3;

  public TaskPolicy {
    takes = takes == null ? List.of() : List.copyOf(takes);
  }
}
