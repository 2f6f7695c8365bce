package dev.colony.console;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskEvent;
import dev.colony.task.TaskSessionLink;
import dev.colony.task.TaskState;
import dev.colony.task.TaskWork;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A board in memory, with the task workflow's rules as the console meets them (approve only In
 * Review, re-queue from In Progress, In Review or Blocked, Blocked needs a reason); every change
 * it was asked for is recorded. Public: the starter's browser test serves a console on it.
 */
public final class FakeTaskBoard implements TaskBoard {
  public final Map<String, TaskCard> tasks = new ConcurrentHashMap<>();
  /** "approve k7m2qx by @alice: text", one line per change asked for. */
  public final List<String> changes = new CopyOnWriteArrayList<>();
  public final AtomicLong listCalls = new AtomicLong();
  private final AtomicInteger next = new AtomicInteger(1);
  /** Every write gets a later time, so the live view's cursor sees each one. */
  private final AtomicLong clock = new AtomicLong();

  private long now() {
    return clock.updateAndGet(t -> Math.max(t + 1, System.currentTimeMillis()));
  }

  /** A task as a test sets it up. */
  public static TaskCard card(String id, String title, TaskState state, String worker) {
    long t = System.currentTimeMillis();
    return new TaskCard("hello", id, title, "", Priority.NORMAL, List.of(), null, state, null, worker, null, 0,
        t - 3_600_000, t - 600_000, t, List.of(), null, null, List.of(), List.of());
  }

  /** Puts {@code c} as it is, with a fresh {@code updatedAt} (a change the live view pushes). */
  public void put(TaskCard c) {
    tasks.put(c.id(), new TaskCard(c.colony(), c.id(), c.title(), c.body(), c.priority(), c.labels(), c.assignee(), c.state(),
        c.reason(), c.worker(), c.claimToken(), c.attempts(), c.createdAtMillis(), c.stateSinceMillis(), now(), c.comments(),
        c.issueUrl(), c.work(), c.sessions(), c.log()));
  }

  /** Puts every card at once (a list never sees half of them). */
  public synchronized void putAll(List<TaskCard> cards) {
    cards.forEach(this::put);
  }

  @Override
  public TaskCard add(NewTask t) {
    String id = t.id() != null ? t.id() : String.format("t%05d", next.getAndIncrement());
    if (tasks.containsKey(id)) {
      throw new TaskBoardException("a task '" + id + "' exists already");
    }
    long now = now();
    TaskCard c = new TaskCard("hello", id, t.title(), t.body(), t.priority(), t.labels(), t.assignee(),
        t.state() == null ? TaskState.TODO : t.state(), null, null, null, 0, now, now, now, List.of(), t.issueUrl(), null,
        List.of(), List.of(new TaskEvent(now, t.by(), "added to " + (t.state() == null ? TaskState.TODO : t.state()).label())));
    tasks.put(id, c);
    changes.add("add " + id + " by " + t.by() + ": " + t.title());
    return c;
  }

  @Override
  public synchronized List<TaskCard> list(Filter f) {
    listCalls.incrementAndGet();
    return tasks.values().stream()
        .filter(c -> f.state() == null || c.state() == f.state())
        .filter(c -> f.worker() == null || f.worker().equals(c.worker()))
        .filter(c -> f.label() == null || c.labels().contains(f.label()))
        .filter(c -> f.assignee() == null || (c.assignee() == null ? "-" : c.assignee().text()).equals(f.assignee()))
        .sorted(Comparator.comparingLong(TaskCard::updatedAtMillis).reversed())
        .limit(f.limit())
        .toList();
  }

  @Override
  public TaskCard get(String id) {
    return tasks.get(id);
  }

  private TaskCard existing(String id) {
    TaskCard c = tasks.get(id);
    if (c == null) {
      throw new TaskBoardException("no task '" + id + "' in colony 'hello'");
    }
    return c;
  }

  @Override
  public synchronized TaskCard approve(String id, TaskChange change) {
    TaskCard c = existing(id);
    if (c.state() != TaskState.IN_REVIEW) {
      throw new TaskBoardException("task " + id + " is not in review (it is " + c.state().label() + ")");
    }
    changes.add("approve " + id + " by " + change.by() + (change.text() == null ? "" : ": " + change.text()));
    return save(with(c, TaskState.DONE, null, c.worker(), c.assignee(), comments(c, change), "approved", change.by()));
  }

  @Override
  public synchronized TaskCard requeue(String id, TaskChange change) {
    TaskCard c = existing(id);
    if (!EnumSet.of(TaskState.IN_PROGRESS, TaskState.IN_REVIEW, TaskState.BLOCKED).contains(c.state())) {
      throw new TaskBoardException("task " + id + " cannot be re-queued from " + c.state().label());
    }
    Assignee a = change.assignee() == null ? c.assignee() : Assignee.parse(change.assignee());
    changes.add("requeue " + id + " by " + change.by() + ": " + change.text());
    return save(with(c, TaskState.TODO, null, null, a, comments(c, change), "re-queued", change.by()));
  }

  @Override
  public synchronized TaskCard move(String id, TaskChange change) {
    TaskCard c = existing(id);
    if (change.to() == TaskState.BLOCKED && (change.text() == null || change.text().isBlank())) {
      throw new TaskBoardException("a move to Blocked needs a reason");
    }
    changes.add("move " + id + " to " + change.to().word() + " by " + change.by());
    return save(with(c, change.to(), change.to() == TaskState.BLOCKED ? change.text() : null,
        change.to() == TaskState.IN_PROGRESS ? c.worker() : c.worker(), c.assignee(), c.comments(),
        "moved to " + change.to().label(), change.by()));
  }

  @Override
  public synchronized TaskCard assign(String id, TaskChange change) {
    TaskCard c = existing(id);
    Assignee a = Assignee.parse(change.assignee());
    changes.add("assign " + id + " to " + (a == null ? "-" : a.text()) + " by " + change.by());
    return save(with(c, c.state(), c.reason(), c.worker(), a, c.comments(), "assigned to " + (a == null ? "nobody" : a.text()),
        change.by()));
  }

  @Override
  public synchronized TaskCard comment(String id, TaskChange change) {
    TaskCard c = existing(id);
    changes.add("comment " + id + " by " + change.by() + ": " + change.text());
    return save(with(c, c.state(), c.reason(), c.worker(), c.assignee(), comments(c, change), "commented", change.by()));
  }

  private TaskCard save(TaskCard c) {
    tasks.put(c.id(), c);
    return c;
  }

  private List<TaskComment> comments(TaskCard c, TaskChange change) {
    if (change.text() == null || change.text().isBlank()) {
      return c.comments();
    }
    List<TaskComment> l = new ArrayList<>(c.comments());
    l.add(new TaskComment(change.by(), change.text(), System.currentTimeMillis()));
    return l;
  }

  private TaskCard with(TaskCard c, TaskState state, String reason, String worker, Assignee assignee,
      List<TaskComment> comments, String what, String by) {
    long now = now();
    List<TaskEvent> log = new ArrayList<>(c.log());
    log.add(new TaskEvent(now, by, what));
    return new TaskCard(c.colony(), c.id(), c.title(), c.body(), c.priority(), c.labels(), assignee, state, reason, worker,
        c.claimToken(), c.attempts(), c.createdAtMillis(), state == c.state() ? c.stateSinceMillis() : now, now, comments,
        c.issueUrl(), c.work(), c.sessions(), log);
  }

  /** A task In Review with everything the drawer shows: body, comments, work, sessions, log. */
  public static TaskCard reviewed(String id, String title, String body, String worker) {
    long t = System.currentTimeMillis();
    TaskWork work = new TaskWork("colony/" + worker, "1111111", "2222222",
        List.of(new TaskWork.Commit("2222222aaaa", "Fix the login form"), new TaskWork.Commit("1b2c3d4eeee", "Add a test")),
        3, 42, 7, List.of("src/Login.java", "src/LoginTest.java", "README.md"));
    return new TaskCard("hello", id, title, body, Priority.HIGH, List.of("backend", "auth"), Assignee.pool("backend"),
        TaskState.IN_REVIEW, null, worker, null, 0, t - 7_200_000, t - 300_000, t,
        List.of(new TaskComment("@alice", "Please keep the old endpoint.", t - 3_600_000)),
        "https://github.com/acme/web/issues/12", work,
        List.of(new TaskSessionLink(worker, 14, "success", "Fixed the login form and added a test.", 0.42, t - 300_000)),
        List.of(new TaskEvent(t - 7_200_000, "github", "added to To Do"),
            new TaskEvent(t - 3_600_000, worker, "moved to In Progress by " + worker),
            new TaskEvent(t - 300_000, worker, "moved to In Review by " + worker)));
  }
}
