package dev.colony.cli;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskEvent;
import dev.colony.task.TaskState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The board in memory, for the CLI's tests: the rules a task's workflow keeps (approve only from
 * In Review, re-queue from In Progress, In Review or Blocked, Blocked needs a reason), refusals
 * as {@link TaskBoardException}s, and a record of every call.
 */
final class FakeTaskBoard implements TaskBoard {
  final String colony;
  final Map<String, TaskCard> cards = new LinkedHashMap<>();
  final List<String> calls = new ArrayList<>();
  Filter lastFilter;
  long now = System.currentTimeMillis();
  private int next;

  FakeTaskBoard(String colony) {
    this.colony = colony;
  }

  @Override
  public synchronized TaskCard add(NewTask t) {
    String id = t.id() != null ? t.id() : "k7m2q" + "xyzabc".charAt(next++ % 6);
    calls.add("add " + id + " by " + t.by());
    if (cards.containsKey(id)) {
      throw new TaskBoardException("task '" + id + "' exists already");
    }
    TaskCard c = new TaskCard(colony, id, t.title(), t.body(), t.priority(), t.labels(), t.assignee(), t.state(), null,
        null, null, 0, now, now, now, List.of(), t.issueUrl(), null, List.of(),
        List.of(new TaskEvent(now, t.by(), "created in " + t.state().label())));
    cards.put(id, c);
    return c;
  }

  @Override
  public synchronized List<TaskCard> list(Filter f) {
    lastFilter = f;
    return cards.values().stream()
        .filter(c -> f.state() == null || c.state() == f.state())
        .filter(c -> f.label() == null || c.labels().stream().anyMatch(l -> l.equalsIgnoreCase(f.label())))
        .filter(c -> f.assignee() == null || (c.assignee() == null ? "-" : c.assignee().text()).equals(f.assignee()))
        .sorted(Comparator.comparingLong(TaskCard::updatedAtMillis).reversed())
        .limit(f.limit()).toList();
  }

  @Override
  public synchronized TaskCard get(String id) {
    return cards.get(id);
  }

  private TaskCard card(String id) {
    TaskCard c = cards.get(id);
    if (c == null) {
      throw new TaskBoardException("no task '" + id + "' in colony '" + colony + "'");
    }
    return c;
  }

  @Override
  public synchronized TaskCard approve(String id, TaskChange change) {
    calls.add("approve " + id + " by " + change.by() + (change.text() == null ? "" : ": " + change.text()));
    TaskCard c = card(id);
    if (c.state() != TaskState.IN_REVIEW) {
      throw new TaskBoardException(id + " is " + c.state().label() + ", not In Review: only a task in review can be approved");
    }
    return put(with(c, TaskState.DONE, c.assignee(), null, change.text(), change.by()));
  }

  @Override
  public synchronized TaskCard requeue(String id, TaskChange change) {
    calls.add("requeue " + id + " by " + change.by() + " to " + change.assignee() + ": " + change.text());
    TaskCard c = card(id);
    if (c.state() != TaskState.IN_PROGRESS && c.state() != TaskState.IN_REVIEW && c.state() != TaskState.BLOCKED) {
      throw new TaskBoardException(id + " is " + c.state().label() + ": only a task in progress, in review or blocked can be re-queued");
    }
    Assignee a = change.assignee() == null ? c.assignee() : Assignee.parse(change.assignee());
    return put(with(c, TaskState.TODO, a, null, change.text(), change.by()));
  }

  @Override
  public synchronized TaskCard move(String id, TaskChange change) {
    calls.add("move " + id + " by " + change.by() + " to " + change.to().word()
        + (change.text() == null ? "" : ": " + change.text()));
    TaskCard c = card(id);
    if (c.state() == change.to()) {
      throw new TaskBoardException(id + " is " + c.state().label() + " already");
    }
    return put(with(c, change.to(), c.assignee(), change.text(), null, change.by()));
  }

  @Override
  public synchronized TaskCard assign(String id, TaskChange change) {
    calls.add("assign " + id + " by " + change.by() + " to " + change.assignee());
    TaskCard c = card(id);
    return put(with(c, c.state(), Assignee.parse(change.assignee()), c.reason(), null, change.by()));
  }

  @Override
  public synchronized TaskCard comment(String id, TaskChange change) {
    calls.add("comment " + id + " by " + change.by() + ": " + change.text());
    TaskCard c = card(id);
    return put(with(c, c.state(), c.assignee(), c.reason(), change.text(), change.by()));
  }

  private TaskCard put(TaskCard c) {
    cards.put(c.id(), c);
    return c;
  }

  private TaskCard with(TaskCard c, TaskState state, Assignee a, String reason, String comment, String by) {
    List<TaskComment> comments = new ArrayList<>(c.comments());
    if (comment != null) {
      comments.add(new TaskComment(by, comment, now));
    }
    List<TaskEvent> log = new ArrayList<>(c.log());
    log.add(new TaskEvent(now, by, state == c.state() ? "changed" : "moved to " + state.label()));
    return new TaskCard(c.colony(), c.id(), c.title(), c.body(), c.priority(), c.labels(), a, state, reason,
        state == TaskState.IN_PROGRESS ? c.worker() : c.worker(), c.claimToken(), c.attempts(), c.createdAtMillis(),
        state == c.state() ? c.stateSinceMillis() : now, now, comments, c.issueUrl(), c.work(), c.sessions(), log);
  }
}
