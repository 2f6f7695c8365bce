package dev.colony.task;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order ants take To Do tasks in: by priority, then by age, with aging so that a waiting
 * task rises one priority level every {@code agingSeconds} (a low task waiting two levels' worth
 * is taken before a new high one, so nothing starves). Ties go to the oldest, then by id.
 */
public final class TaskOrder {
  private TaskOrder() {}

  public static final long DEFAULT_AGING_SECONDS = 3600;

  /** The effective rank: the priority's weight plus one per {@code agingSeconds} waited. */
  public static long rank(TaskCandidate c, long nowMillis, long agingSeconds) {
    long waited = Math.max(0, nowMillis - c.queuedAtMillis());
    long steps = agingSeconds <= 0 ? 0 : waited / (agingSeconds * 1000);
    return c.priority().weight() + steps;
  }

  /** Candidates best first: this ant's own In Progress tasks, then by rank, age and id. */
  public static List<TaskCandidate> sort(List<TaskCandidate> candidates, long nowMillis, long agingSeconds) {
    List<TaskCandidate> out = new ArrayList<>(candidates);
    out.sort(order(nowMillis, agingSeconds));
    return out;
  }

  /** The order of {@link #sort}: best first. */
  public static Comparator<TaskCandidate> order(long nowMillis, long agingSeconds) {
    return Comparator.comparing((TaskCandidate c) -> !c.mine())
        .thenComparing(c -> -rank(c, nowMillis, agingSeconds))
        .thenComparingLong(TaskCandidate::queuedAtMillis)
        .thenComparing(TaskCandidate::id);
  }
}
