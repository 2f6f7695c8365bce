package dev.colony.task;

import java.util.List;

/**
 * An idle ant's search for work: its own In Progress task first (one it held before its worker
 * died or its run was restarted), then the To Do tasks it may take, best first ({@link TaskOrder}).
 */
public record FindTasks(String colony, String ant, List<String> takerTags, long agingSeconds, int limit) {
  public FindTasks {
    takerTags = takerTags == null ? List.of() : List.copyOf(takerTags);
  }
}
