package dev.colony.merge.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.board.FakeTaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.task.TaskState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The queue's task changes through a board: Done on landing, back to To Do for rework, "already so" is fine. */
@Timeout(30)
class MergeDeskTaskChangesTest {
  private final FakeTaskBoard board = new FakeTaskBoard("test");
  private final MergeDeskActivitiesImpl desk = new MergeDeskActivitiesImpl(null, colony -> board);

  private void put(String id, TaskState state) {
    board.put(id, "t", state, null);
  }

  private TaskState state(String id) {
    return board.get(id).state();
  }

  /** The changes asked of the board, as "move t1 to done": what and which task, not who. */
  private List<String> asked() {
    return board.changes.stream().map(c -> c.replaceAll(" by .*", "")).toList();
  }

  @Test
  void landedWorkMovesItsTaskToDoneOnceAndAMissingOrDoneTaskIsFine() {
    put("t1", TaskState.IN_REVIEW);
    desk.finishTask("test", "t1", "landed");
    assertEquals(TaskState.DONE, state("t1"));
    desk.finishTask("test", "t1", "landed"); // a retry
    desk.finishTask("test", "gone", "landed");
    assertEquals(List.of("move t1 to done"), asked());
    put("t2", TaskState.IN_REVIEW);
    board.failing = "no worker answered";
    assertThrows(TaskBoardException.class, () -> desk.finishTask("test", "t2", "x"), "a real failure is retried");
  }

  @Test
  void reworkRequeuesToTheAntWithTheMessageAndARetryChangesNothingMore() {
    put("t1", TaskState.IN_REVIEW);
    desk.reworkTask("test", "t1", "alpha", "resolve the conflicts in a.txt");
    assertEquals(TaskState.TODO, state("t1"));
    assertEquals("alpha", board.get("t1").assignee().text());
    assertEquals("resolve the conflicts in a.txt", board.get("t1").comments().get(0).text());
    desk.reworkTask("test", "t1", "alpha", "resolve the conflicts in a.txt"); // a retry after it landed
    assertEquals(1, board.get("t1").comments().size(), "the comment once");
    put("t2", TaskState.DONE);
    desk.reworkTask("test", "t2", "beta", "x".repeat(5000));
    assertEquals(TaskState.TODO, state("t2"));
    assertEquals("beta", board.get("t2").assignee().text());
    assertTrue(board.get("t2").comments().getLast().text().length() <= dev.colony.task.TaskLimits.COMMENT);
    desk.reworkTask("test", "none", "beta", "x");
  }

  @Test
  void aReworkInPlaceLeavesTheTaskWhereItIsAndWithReviewTakesBackItsApproval() {
    put("t1", TaskState.IN_REVIEW);
    desk.taskInRework("test", "t1", "resolve the conflicts in a.txt", false);
    desk.taskInRework("test", "t1", "resolve the conflicts in a.txt", false); // a retry
    assertEquals(TaskState.IN_REVIEW, state("t1"));
    assertEquals(List.of("comment t1"), asked(), "no requeue, no assignment, the comment once");
    put("t2", TaskState.DONE); // approved: the rework withdraws the approval
    desk.taskInRework("test", "t2", "x".repeat(5000), true);
    desk.taskInRework("test", "t2", "x".repeat(5000), true); // a retry
    assertEquals(TaskState.IN_REVIEW, state("t2"));
    assertEquals(1, board.get("t2").comments().size());
    assertTrue(board.get("t2").comments().get(0).text().length() <= dev.colony.task.TaskLimits.COMMENT);
    put("t3", TaskState.DONE);
    desk.taskInRework("test", "t3", "fix it", false); // a human moved it to Done already: no refused comment, no retry
    assertEquals(TaskState.DONE, state("t3"), "without review a task is not moved");
    assertTrue(board.get("t3").comments().isEmpty());
    desk.taskInRework("test", "none", "x", true);
    assertFalse(asked().stream().anyMatch(c -> c.startsWith("requeue") || c.startsWith("assign")), asked().toString());
  }

  @Test
  void taskStatesNamesTheStatesOfTheTasksThatExist() {
    put("t1", TaskState.DONE);
    put("t2", TaskState.IN_REVIEW);
    assertEquals(Map.of("t1", TaskState.DONE, "t2", TaskState.IN_REVIEW), desk.taskStates("test", List.of("t1", "t2", "t3")));
  }
}
