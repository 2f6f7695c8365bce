package dev.colony.task;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The order ants take tasks in: their own first, then priority with aging, then age, then id. */
@Timeout(10)
class TaskOrderTest {
  private static final long HOUR = 3_600_000;
  private static final long NOW = 100 * HOUR;

  private static TaskCandidate c(String id, Priority p, long waitedMillis) {
    return new TaskCandidate(id, p, NOW - waitedMillis, false);
  }

  private static List<String> ids(List<TaskCandidate> cs) {
    return TaskOrder.sort(cs, NOW, 3600).stream().map(TaskCandidate::id).toList();
  }

  @Test
  void higherPriorityFirstThenTheOlderThenById() {
    assertEquals(List.of("high", "old", "young", "zz-low"), ids(List.of(
        c("young", Priority.NORMAL, 60_000), c("zz-low", Priority.LOW, 0), c("high", Priority.HIGH, 0),
        c("old", Priority.NORMAL, 120_000))));
    assertEquals(List.of("a", "b"), ids(List.of(c("b", Priority.NORMAL, 0), c("a", Priority.NORMAL, 0))));
  }

  @Test
  void aWaitingTaskRisesOneLevelPerAgingPeriodSoNothingStarves() {
    // A low task that waited two hours ranks with a new high one, and is older: it goes first.
    assertEquals(List.of("low-2h", "high-new"), ids(List.of(c("high-new", Priority.HIGH, 0),
        c("low-2h", Priority.LOW, 2 * HOUR))));
    // One hour is one level only: the new high one still goes first.
    assertEquals(List.of("high-new", "low-1h"), ids(List.of(c("low-1h", Priority.LOW, HOUR),
        c("high-new", Priority.HIGH, 0))));
    assertEquals(4, TaskOrder.rank(c("x", Priority.HIGH, 2 * HOUR + 1), NOW, 3600));
    assertEquals(2, TaskOrder.rank(c("x", Priority.HIGH, 5 * HOUR), NOW, 0), "no aging when it is off");
    assertEquals(1, TaskOrder.rank(new TaskCandidate("f", Priority.NORMAL, NOW + HOUR, false), NOW, 3600),
        "a clock ahead does not lower a task");
  }

  @Test
  void theAntsOwnInProgressTaskComesBeforeAnything() {
    var mine = new TaskCandidate("mine", Priority.LOW, NOW, true);
    assertEquals(List.of("mine", "high"), ids(List.of(c("high", Priority.HIGH, 10 * HOUR), mine)));
  }
}
