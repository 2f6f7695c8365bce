package dev.colony.github.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskState;
import dev.colony.trigger.IssueEvent;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issues as tasks through the board's interface: made once whatever repeats, closed to Done. */
@Timeout(30)
class IssueTaskActivitiesImplTest {
  /** Just what the activity uses of a board: add (refusing a second with the same id), get, move. */
  static final class Board implements TaskBoard {
    final Map<String, TaskCard> cards = new ConcurrentHashMap<>();
    final List<NewTask> added = new ArrayList<>();
    final List<String> moves = new ArrayList<>();
    /** Adds the task but answers a failure, as a start whose answer was lost would. */
    boolean loseTheAnswer;

    @Override
    public TaskCard add(NewTask t) {
      added.add(t);
      if (cards.containsKey(t.id())) {
        throw new TaskBoardException("task '" + t.id() + "' exists already");
      }
      TaskCard c = new TaskCard("c", t.id(), t.title(), t.body(), t.priority(), t.labels(), t.assignee(), t.state(), null,
          null, null, 0, 1, 1, 1, List.of(), t.issueUrl(), null, List.of(), List.of());
      cards.put(t.id(), c);
      if (loseTheAnswer) {
        throw new TaskBoardException("Temporal did not answer in time");
      }
      return c;
    }

    @Override
    public TaskCard get(String id) {
      return cards.get(id);
    }

    @Override
    public TaskCard move(String id, TaskChange change) {
      moves.add(id + " -> " + change.to().word() + " by " + change.by() + ": " + change.text());
      TaskCard c = cards.get(id);
      TaskCard d = new TaskCard(c.colony(), c.id(), c.title(), c.body(), c.priority(), c.labels(), c.assignee(),
          change.to(), change.text(), null, null, 0, 1, 2, 2, List.of(), c.issueUrl(), null, List.of(), List.of());
      cards.put(id, d);
      return d;
    }

    @Override
    public List<TaskCard> list(Filter filter) {
      throw new UnsupportedOperationException();
    }

    @Override
    public TaskCard approve(String id, TaskChange change) {
      throw new UnsupportedOperationException();
    }

    @Override
    public TaskCard requeue(String id, TaskChange change) {
      throw new UnsupportedOperationException();
    }

    @Override
    public TaskCard assign(String id, TaskChange change) {
      throw new UnsupportedOperationException();
    }

    @Override
    public TaskCard comment(String id, TaskChange change) {
      throw new UnsupportedOperationException();
    }
  }

  private final Board board = new Board();
  private final List<String> colonies = new ArrayList<>();
  private final IssueTaskActivitiesImpl tasks = new IssueTaskActivitiesImpl(colony -> {
    colonies.add(colony);
    return board;
  });

  @Test
  void anIssueBecomesOneTaskWithItsTitleBodyLabelsAndLink() {
    List<String> labels = new ArrayList<>(List.of("bug", "Bug", "good first issue", "type: bug", "\uD83D\uDD25",
        "x".repeat(TaskLimits.LABEL + 1)));
    for (int i = 0; i < 12; i++) {
      labels.add("l" + i);
    }
    IssueEvent issue = new IssueEvent("Acme/App", 7, "t".repeat(250), "https://github.com/Acme/App/issues/7", labels,
        "Steps: save twice.");
    assertEquals("added", tasks.add("c", issue, "pool:triage"));
    NewTask t = board.added.get(0);
    assertEquals("gh-acme-app-7", t.id());
    assertEquals(TaskLimits.TITLE, t.title().length());
    assertTrue(t.title().endsWith("…"));
    assertEquals("Steps: save twice.", t.body());
    assertEquals(TaskLimits.LABELS, t.labels().size());
    assertEquals(List.of("bug", "good-first-issue", "type-bug", "x".repeat(TaskLimits.LABEL), "l0"),
        t.labels().subList(0, 5), "one 'bug', GitHub's words made labels, the emoji left out, the long one cut");
    assertEquals(Assignee.pool("triage"), t.assignee());
    assertEquals(TaskState.TODO, t.state());
    assertEquals("https://github.com/Acme/App/issues/7", t.issueUrl());
    assertEquals("github", t.by());
    assertEquals(List.of("c"), colonies);

    // Polled again, delivered again: the task is there, nothing is added.
    assertEquals("exists", tasks.add("c", issue, "pool:triage"));
    assertEquals(1, board.added.size());
  }

  @Test
  void aStartWhoseAnswerWasLostIsNotMadeTwice() {
    board.loseTheAnswer = true;
    IssueEvent issue = new IssueEvent("acme/app", 8, "Freeze", "u", List.of(), "");
    assertEquals("exists", tasks.add("c", issue, "alpha"));
    assertEquals(Assignee.ant("alpha"), board.get("gh-acme-app-8").assignee());
  }

  @Test
  void aBadAssigneeIsNotRetried() {
    ApplicationFailure f = assertThrows(ApplicationFailure.class,
        () -> tasks.add("c", new IssueEvent("acme/app", 9, "T", "u", List.of(), ""), "pool:no good"));
    assertTrue(f.isNonRetryable());
    assertNull(board.get("gh-acme-app-9"));
  }

  @Test
  void aClosedIssuesTaskMovesToDoneOnce() {
    IssueEvent issue = new IssueEvent("acme/app", 7, "Crash", "u", List.of("bug"), "b");
    IssueEvent closed = new IssueEvent("acme/app", 7, "Crash", "u", List.of("bug"), "b", true);
    assertEquals("none", tasks.close("c", closed), "no task was made of it");
    tasks.add("c", issue, "alpha");
    assertEquals("done", tasks.close("c", closed));
    assertEquals(TaskState.DONE, board.get("gh-acme-app-7").state());
    assertEquals(List.of("gh-acme-app-7 -> done by github: issue acme/app#7 was closed on GitHub"), board.moves);
    assertEquals("already", tasks.close("c", closed));
    assertEquals(1, board.moves.size());
  }

  @Test
  void aReopenedIssuesDoneTaskGoesBackToToDoOnce() {
    IssueEvent issue = new IssueEvent("acme/app", 8, "Leak", "u", List.of("bug"), "b");
    IssueEvent closed = new IssueEvent("acme/app", 8, "Leak", "u", List.of("bug"), "b", true);
    assertEquals("none", tasks.reopen("c", issue), "no task was made of it");
    tasks.add("c", issue, "alpha");
    assertEquals("open", tasks.reopen("c", issue), "not Done: nothing to reopen");
    tasks.close("c", closed);
    assertEquals("exists", tasks.add("c", issue, "alpha"), "adding does not bring a Done task back");
    assertEquals("reopened", tasks.reopen("c", issue));
    assertEquals(TaskState.TODO, board.get("gh-acme-app-8").state());
    assertEquals("gh-acme-app-8 -> todo by github: issue acme/app#8 was reopened on GitHub",
        board.moves.get(board.moves.size() - 1));
    assertEquals("open", tasks.reopen("c", issue), "a repeat does nothing");
    assertEquals(2, board.moves.size());
  }
}
