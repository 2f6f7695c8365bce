package dev.colony.merge.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The queue's task changes through a board: Done on landing, back to To Do for rework, "already so" is fine. */
@Timeout(30)
class MergeDeskTaskChangesTest {
  /** A board of tasks that only records state, assignee and comments, refusing what is already so. */
  static final class Board implements TaskBoard {
    final Map<String, TaskState> states = new TreeMap<>();
    final Map<String, String> assignees = new TreeMap<>();
    final Map<String, List<TaskComment>> comments = new TreeMap<>();
    final List<String> calls = new ArrayList<>();
    boolean failMoves;

    void put(String id, TaskState s) {
      states.put(id, s);
      comments.put(id, new ArrayList<>());
    }

    @Override
    public TaskCard get(String id) {
      if (!states.containsKey(id)) {
        return null;
      }
      return new TaskCard("test", id, "t", "b", Priority.NORMAL, List.of(), null, states.get(id), null, null, null, 0,
          0, 0, 0, List.copyOf(comments.get(id)), null, null, List.of(), List.of());
    }

    @Override
    public TaskCard move(String id, TaskChange c) {
      calls.add("move " + id + " " + c.to());
      if (failMoves) {
        throw new TaskBoardException("no worker answered");
      }
      if (states.get(id) == c.to()) {
        throw new TaskBoardException("task " + id + " is already " + c.to());
      }
      states.put(id, c.to());
      return get(id);
    }

    @Override
    public TaskCard requeue(String id, TaskChange c) {
      calls.add("requeue " + id + " " + c.assignee());
      if (states.get(id) == TaskState.TODO) {
        throw new TaskBoardException("task " + id + " is already To Do");
      }
      states.put(id, TaskState.TODO);
      assignees.put(id, c.assignee());
      comments.get(id).add(new TaskComment(c.by(), c.text(), 0));
      return get(id);
    }

    @Override
    public TaskCard assign(String id, TaskChange c) {
      calls.add("assign " + id + " " + c.assignee());
      if (c.assignee().equals(assignees.get(id))) {
        throw new TaskBoardException("already assigned");
      }
      assignees.put(id, c.assignee());
      return get(id);
    }

    @Override
    public TaskCard comment(String id, TaskChange c) {
      calls.add("comment " + id);
      if (states.get(id) == TaskState.DONE) { // as the board: a Done task's run is over, it takes a move only
        throw new TaskBoardException("task " + id + " is Done");
      }
      comments.get(id).add(new TaskComment(c.by(), c.text(), 0));
      return get(id);
    }

    @Override
    public TaskCard add(dev.colony.task.NewTask task) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<TaskCard> list(Filter filter) {
      throw new UnsupportedOperationException();
    }

    @Override
    public TaskCard approve(String id, TaskChange change) {
      throw new UnsupportedOperationException();
    }
  }

  private final Board board = new Board();
  private final MergeDeskActivitiesImpl desk = new MergeDeskActivitiesImpl(null, colony -> board);

  @Test
  void landedWorkMovesItsTaskToDoneOnceAndAMissingOrDoneTaskIsFine() {
    board.put("t1", TaskState.IN_REVIEW);
    desk.finishTask("test", "t1", "landed");
    assertEquals(TaskState.DONE, board.states.get("t1"));
    desk.finishTask("test", "t1", "landed"); // a retry
    desk.finishTask("test", "gone", "landed");
    assertEquals(List.of("move t1 DONE"), board.calls);
    board.put("t2", TaskState.IN_REVIEW);
    board.failMoves = true;
    assertThrows(TaskBoardException.class, () -> desk.finishTask("test", "t2", "x"), "a real failure is retried");
  }

  @Test
  void reworkRequeuesToTheAntWithTheMessageAndARetryChangesNothingMore() {
    board.put("t1", TaskState.IN_REVIEW);
    desk.reworkTask("test", "t1", "alpha", "resolve the conflicts in a.txt");
    assertEquals(TaskState.TODO, board.states.get("t1"));
    assertEquals("alpha", board.assignees.get("t1"));
    assertEquals("resolve the conflicts in a.txt", board.comments.get("t1").get(0).text());
    desk.reworkTask("test", "t1", "alpha", "resolve the conflicts in a.txt"); // a retry after it landed
    assertEquals(1, board.comments.get("t1").size(), "the comment once");
    board.put("t2", TaskState.DONE);
    desk.reworkTask("test", "t2", "beta", "x".repeat(5000));
    assertEquals(TaskState.TODO, board.states.get("t2"));
    assertEquals("beta", board.assignees.get("t2"));
    assertTrue(board.comments.get("t2").get(0).text().length() <= dev.colony.task.TaskLimits.COMMENT);
    desk.reworkTask("test", "none", "beta", "x");
  }

  @Test
  void aReworkInPlaceLeavesTheTaskWhereItIsAndWithReviewTakesBackItsApproval() {
    board.put("t1", TaskState.IN_REVIEW);
    desk.taskInRework("test", "t1", "resolve the conflicts in a.txt", false);
    desk.taskInRework("test", "t1", "resolve the conflicts in a.txt", false); // a retry
    assertEquals(TaskState.IN_REVIEW, board.states.get("t1"));
    assertEquals(List.of("comment t1"), board.calls, "no requeue, no assignment, the comment once");
    board.put("t2", TaskState.DONE); // approved: the rework withdraws the approval
    desk.taskInRework("test", "t2", "x".repeat(5000), true);
    desk.taskInRework("test", "t2", "x".repeat(5000), true); // a retry
    assertEquals(TaskState.IN_REVIEW, board.states.get("t2"));
    assertEquals(1, board.comments.get("t2").size());
    assertTrue(board.comments.get("t2").get(0).text().length() <= dev.colony.task.TaskLimits.COMMENT);
    board.put("t3", TaskState.DONE);
    desk.taskInRework("test", "t3", "fix it", false); // a human moved it to Done already: no refused comment, no retry
    assertEquals(TaskState.DONE, board.states.get("t3"), "without review a task is not moved");
    assertTrue(board.comments.get("t3").isEmpty());
    desk.taskInRework("test", "none", "x", true);
    assertFalse(board.calls.stream().anyMatch(c -> c.startsWith("requeue") || c.startsWith("assign")), board.calls.toString());
  }

  @Test
  void taskStatesNamesTheStatesOfTheTasksThatExist() {
    board.put("t1", TaskState.DONE);
    board.put("t2", TaskState.IN_REVIEW);
    assertEquals(Map.of("t1", TaskState.DONE, "t2", TaskState.IN_REVIEW), desk.taskStates("test", List.of("t1", "t2", "t3")));
  }
}
