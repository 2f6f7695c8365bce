package dev.colony.task.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.task.Assignee;
import dev.colony.task.FindTasks;
import dev.colony.task.Priority;
import dev.colony.task.TaskCandidate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An ant's FindTasks over a visibility that lists newest first, as Temporal's does: aging's order at any board size. */
@Timeout(value = 1, unit = java.util.concurrent.TimeUnit.MINUTES)
class TaskActivitiesImplTest {
  private static final long NOW = 1_800_000_000_000L;

  /** A board of {@code n} To Do tasks, one queued every minute, listed newest first; and the ant's own task. */
  private static final class Board implements TaskActivitiesImpl.Listing {
    final List<String> queries = new CopyOnWriteArrayList<>();
    final List<TaskCandidate> todo = new ArrayList<>();
    final List<TaskCandidate> mine = new ArrayList<>();

    @Override
    public Stream<TaskCandidate> list(String query, boolean isMine) {
      queries.add(query);
      return isMine ? mine.stream() : todo.stream();
    }
  }

  private static FindTasks find(int limit) {
    return new FindTasks("test", "alpha", List.of(Assignee.takeAnt("alpha"), Assignee.TAKE_ANY), 3600, limit);
  }

  @Test
  void theOldestTasksOfABoardPastTwoThousandComeFirst() {
    Board board = new Board();
    int n = 2_500;
    // Newest first: t0 was queued now, t2499 two thousand four hundred and ninety-nine minutes ago.
    IntStream.range(0, n).forEach(i -> board.todo.add(new TaskCandidate("t" + i,
        i == 3 ? Priority.HIGH : Priority.NORMAL, NOW - i * 60_000L, false)));
    // The very oldest is a low one, listed last: aging lifts it above everything younger.
    board.todo.add(new TaskCandidate("old-low", Priority.LOW, NOW - 3_000 * 60_000L, false));
    var activities = new TaskActivitiesImpl(null, "default", board, () -> NOW);

    List<TaskCandidate> found = activities.find(find(20));

    assertEquals(20, found.size());
    List<String> ids = found.stream().map(TaskCandidate::id).toList();
    List<String> expected = new ArrayList<>(List.of("old-low"));
    IntStream.range(0, 19).forEach(i -> expected.add("t" + (n - 1 - i)));
    assertEquals(expected, ids, "aging's order: the longest-waiting first, whatever the board's size");
    assertTrue(board.queries.stream().anyMatch(q -> q.contains("TaskState = 'todo'")), board.queries.toString());
  }

  @Test
  void theAntsOwnTaskComesFirstAndTheLimitHolds() {
    Board board = new Board();
    IntStream.range(0, 3_000).forEach(i -> board.todo.add(new TaskCandidate("t" + i, Priority.NORMAL,
        NOW - i * 1_000L, false)));
    board.mine.add(new TaskCandidate("mine1", Priority.LOW, NOW, true));
    var activities = new TaskActivitiesImpl(null, "default", board, () -> NOW);

    List<TaskCandidate> found = activities.find(find(5));

    assertEquals(List.of("mine1", "t2999", "t2998", "t2997", "t2996"), found.stream().map(TaskCandidate::id).toList());
    assertEquals(List.of(), activities.find(find(0)));
  }
}
