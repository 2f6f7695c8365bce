package dev.colony.chat.impl;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The board in memory, for the chats' tests: the rules a task workflow's validators hold (approve
 * only In Review, a re-queue needs a comment, a move to Blocked a reason), and a record of every
 * change asked ({@link #changes}).
 */
public final class FakeTaskBoard implements TaskBoard {
  private final Map<String, TaskCard> cards = new LinkedHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();
  private long clock = 1_790_000_000_000L;
  /** "approve k1 by @dana", in order. */
  public final List<String> changes = new CopyOnWriteArrayList<>();

  /** A task already on the board, in {@code state}. */
  public synchronized TaskCard put(String id, String title, TaskState state, String assignee) {
    TaskCard c = new TaskCard("c", id, title, null, null, List.of(), Assignee.parse(assignee), state, null, null, null, 0,
        ++clock, clock, clock, List.of(), null, null, List.of(), List.of());
    cards.put(id, c);
    return c;
  }

  @Override
  public synchronized TaskCard add(NewTask t) {
    String id = t.id() != null ? t.id() : "t" + ids.incrementAndGet();
    TaskCard c = new TaskCard("c", id, t.title(), t.body(), t.priority(), t.labels(), t.assignee(),
        t.state() == null ? TaskState.TODO : t.state(), null, null, null, 0, ++clock, clock, clock, List.of(), t.issueUrl(),
        null, List.of(), List.of());
    cards.put(id, c);
    changes.add("add " + id + " by " + t.by());
    return c;
  }

  @Override
  public synchronized List<TaskCard> list(Filter f) {
    return cards.values().stream().filter(c -> f.state() == null || c.state() == f.state())
        .sorted(Comparator.comparingLong(TaskCard::updatedAtMillis).reversed()).limit(f.limit()).toList();
  }

  @Override
  public synchronized TaskCard get(String id) {
    return cards.get(id);
  }

  private TaskCard existing(String id) {
    TaskCard c = cards.get(id);
    if (c == null) {
      throw new TaskBoardException("There is no task '" + id + "'.");
    }
    return c;
  }

  private TaskCard with(TaskCard c, TaskState state, Assignee assignee, String reason, TaskComment comment) {
    List<TaskComment> comments = new ArrayList<>(c.comments());
    if (comment != null) {
      comments.add(comment);
    }
    TaskCard n = new TaskCard(c.colony(), c.id(), c.title(), c.body(), c.priority(), c.labels(), assignee, state, reason,
        c.worker(), c.claimToken(), c.attempts(), c.createdAtMillis(), ++clock, clock, comments, c.issueUrl(), c.work(),
        c.sessions(), c.log());
    cards.put(c.id(), n);
    return n;
  }

  @Override
  public synchronized TaskCard approve(String id, TaskChange ch) {
    TaskCard c = existing(id);
    if (c.state() != TaskState.IN_REVIEW) {
      throw new TaskBoardException("Task '" + id + "' is not in review (it is in " + c.state().label() + ").");
    }
    changes.add("approve " + id + " by " + ch.by());
    return with(c, TaskState.DONE, c.assignee(), null, null);
  }

  @Override
  public synchronized TaskCard requeue(String id, TaskChange ch) {
    TaskCard c = existing(id);
    if (ch.text() == null || ch.text().isBlank()) {
      throw new TaskBoardException("A re-queue needs a comment.");
    }
    if (c.state() == TaskState.TODO) {
      throw new TaskBoardException("Task '" + id + "' is already in To Do.");
    }
    changes.add("requeue " + id + " by " + ch.by() + ": " + ch.text());
    return with(c, TaskState.TODO, c.assignee(), null, new TaskComment(ch.by(), ch.text(), clock));
  }

  @Override
  public synchronized TaskCard move(String id, TaskChange ch) {
    TaskCard c = existing(id);
    if (ch.to() == TaskState.BLOCKED && (ch.text() == null || ch.text().isBlank())) {
      throw new TaskBoardException("A move to Blocked needs a reason.");
    }
    changes.add("move " + id + " to " + ch.to().word() + " by " + ch.by());
    return with(c, ch.to(), c.assignee(), ch.text(), null);
  }

  @Override
  public synchronized TaskCard assign(String id, TaskChange ch) {
    TaskCard c = existing(id);
    changes.add("assign " + id + " to " + ch.assignee() + " by " + ch.by());
    return with(c, c.state(), Assignee.parse(ch.assignee()), c.reason(), null);
  }

  @Override
  public synchronized TaskCard comment(String id, TaskChange ch) {
    TaskCard c = existing(id);
    changes.add("comment " + id + " by " + ch.by() + ": " + ch.text());
    return with(c, c.state(), c.assignee(), c.reason(), new TaskComment(ch.by(), ch.text(), clock));
  }
}
