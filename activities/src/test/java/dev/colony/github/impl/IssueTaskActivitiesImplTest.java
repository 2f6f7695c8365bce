package dev.colony.github.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.board.FakeTaskBoard;
import dev.colony.task.Assignee;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskState;
import dev.colony.trigger.IssueEvent;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issues as tasks through the board's interface: made once whatever repeats, closed to Done. */
@Timeout(30)
class IssueTaskActivitiesImplTest {
  private final FakeTaskBoard board = new FakeTaskBoard("c");
  private final List<String> colonies = new ArrayList<>();
  private final IssueTaskActivitiesImpl tasks = new IssueTaskActivitiesImpl(colony -> {
    colonies.add(colony);
    return board;
  });

  /** The tasks asked to be added, as "add ID". */
  private List<String> added() {
    return board.changes.stream().filter(c -> c.startsWith("add ")).map(c -> c.replaceAll(" by .*", "")).toList();
  }

  private List<String> moves() {
    return board.changes.stream().filter(c -> c.startsWith("move ")).toList();
  }

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
    TaskCard t = board.get("gh-acme-app-7");
    assertEquals(List.of("add gh-acme-app-7"), added());
    assertEquals(TaskLimits.TITLE, t.title().length());
    assertTrue(t.title().endsWith("…"));
    assertEquals("Steps: save twice.", t.body());
    assertEquals(TaskLimits.LABELS, t.labels().size());
    assertEquals(List.of("bug", "good-first-issue", "type-bug", "x".repeat(TaskLimits.LABEL), "l0"),
        t.labels().subList(0, 5), "one 'bug', GitHub's words made labels, the emoji left out, the long one cut");
    assertEquals(Assignee.pool("triage"), t.assignee());
    assertEquals(TaskState.TODO, t.state());
    assertEquals("https://github.com/Acme/App/issues/7", t.issueUrl());
    assertEquals("github", t.log().get(0).by());
    assertEquals(List.of("c"), colonies);

    // Polled again, delivered again: the task is there, nothing is added.
    assertEquals("exists", tasks.add("c", issue, "pool:triage"));
    assertEquals(1, added().size());
  }

  @Test
  void aStartWhoseAnswerWasLostIsNotMadeTwice() {
    board.loseAnswers = true;
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
    assertEquals(List.of("move gh-acme-app-7 to done by github: issue acme/app#7 was closed on GitHub"), moves());
    assertEquals("already", tasks.close("c", closed));
    assertEquals(1, moves().size());
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
    assertEquals("move gh-acme-app-8 to todo by github: issue acme/app#8 was reopened on GitHub", moves().getLast());
    assertEquals("open", tasks.reopen("c", issue), "a repeat does nothing");
    assertEquals(2, moves().size());
  }
}
