package dev.colony.board;

import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskCards;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskEvent;
import dev.colony.task.TaskRules;
import dev.colony.task.TaskSessionLink;
import dev.colony.task.TaskState;
import dev.colony.task.TaskWork;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one board in memory for every surface's tests (the CLI, the console and its browser test, the
 * chats, the GitHub intake, the merge desk): it refuses a change with the task workflow's own
 * sentence ({@link TaskRules#refusal}), a missing task and a Done one (its run is over: only a move or a
 * re-queue, which reopens it) with {@link TemporalTaskBoard}'s, and records
 * every change it was asked for in {@link #changes}. Published in the client's test-jar.
 */
public final class FakeTaskBoard implements TaskBoard {
  public final String colony;
  /** The tasks by id, in the order they were put. */
  public final Map<String, TaskCard> tasks = Collections.synchronizedMap(new LinkedHashMap<>());
  /**
   * One line per change asked for, refused ones included: {@code add ID by WHO: TITLE},
   * {@code approve ID by WHO[: TEXT]}, {@code requeue ID by WHO[ to ASSIGNEE][: TEXT]},
   * {@code move ID to COLUMN by WHO[: TEXT]}, {@code assign ID to ASSIGNEE by WHO},
   * {@code comment ID by WHO: TEXT}.
   */
  public final List<String> changes = new CopyOnWriteArrayList<>();
  /** How many times the board was listed. */
  public final AtomicLong listCalls = new AtomicLong();
  /** The filter of the last listing. */
  public volatile Filter lastFilter;
  /** When set, every change and add fails with this sentence before it is applied (a lost server, a refusal). */
  public volatile String failing;
  /** When set, every add and change is applied and then fails, as a call whose answer was lost. */
  public volatile boolean loseAnswers;
  /** The id of the {@code n}th task added without one (from 1): {@code t1}, unless a test names them its way. */
  public volatile java.util.function.IntFunction<String> newId = n -> "t" + n;
  private final AtomicInteger next = new AtomicInteger(1);
  /** Every write gets a later time, so a live view's cursor sees each one. */
  private final AtomicLong clock = new AtomicLong();

  /** A board of colony {@code hello}. */
  public FakeTaskBoard() {
    this("hello");
  }

  public FakeTaskBoard(String colony) {
    this.colony = colony;
  }

  /** A time later than any this board gave before (and not before the wall clock). */
  public long now() {
    return clock.updateAndGet(t -> Math.max(t + 1, System.currentTimeMillis()));
  }

  /** A task of colony {@code hello} as a test sets it up: in {@code state}, worked on by {@code worker}. */
  public static TaskCard card(String id, String title, TaskState state, String worker) {
    long t = System.currentTimeMillis();
    return new TaskCard("hello", id, title, "", Priority.NORMAL, List.of(), null, state, null, worker, null, 0,
        t - 3_600_000, t - 600_000, t, List.of(), null, null, List.of(), List.of());
  }

  /** A task In Review with everything a drawer shows: body, comments, work, sessions, log. */
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

  /** Puts {@code c} as it is, with a fresh {@code updatedAt} (a change a live view pushes). */
  public TaskCard put(TaskCard c) {
    TaskCard fresh = new TaskCard(c.colony(), c.id(), c.title(), c.body(), c.priority(), c.labels(), c.assignee(),
        c.state(), c.reason(), c.worker(), c.claimToken(), c.attempts(), c.createdAtMillis(), c.stateSinceMillis(), now(),
        c.comments(), c.issueUrl(), c.work(), c.sessions(), c.log());
    tasks.put(c.id(), fresh);
    return fresh;
  }

  /** Puts a task of this board's colony in {@code state}, assigned to {@code assignee} (as written; null for nobody). */
  public TaskCard put(String id, String title, TaskState state, String assignee) {
    long t = now();
    return put(new TaskCard(colony, id, title, null, Priority.NORMAL, List.of(), Assignee.parse(assignee), state, null,
        null, null, 0, t, t, t, List.of(), null, null, List.of(), List.of()));
  }

  /** Puts every card at once (a listing never sees half of them). */
  public void putAll(List<TaskCard> cards) {
    synchronized (tasks) {
      cards.forEach(this::put);
    }
  }

  @Override
  public TaskCard add(NewTask t) {
    String id = t.id() != null ? t.id() : newId.apply(next.getAndIncrement());
    changes.add("add " + id + " by " + t.by() + ": " + t.title());
    fail();
    TaskCard c;
    synchronized (tasks) {
      if (tasks.containsKey(id)) {
        throw new TaskBoardException("task '" + id + "' exists already");
      }
      long now = now();
      TaskState state = t.state() == null ? TaskState.TODO : t.state();
      c = new TaskCard(colony, id, t.title(), t.body(), t.priority() == null ? Priority.NORMAL : t.priority(),
          t.labels() == null ? List.of() : t.labels(), t.assignee(), state, null, null, null, 0, now, now, now, List.of(),
          t.issueUrl(), null, List.of(), List.of(new TaskEvent(now, t.by(), "added to " + state.label())));
      tasks.put(id, c);
    }
    return answered(c);
  }

  @Override
  public List<TaskCard> list(Filter f) {
    listCalls.incrementAndGet();
    lastFilter = f;
    List<TaskCard> all;
    synchronized (tasks) {
      all = new ArrayList<>(tasks.values());
    }
    return all.stream()
        .filter(c -> f.state() == null || c.state() == f.state())
        .filter(c -> f.worker() == null || f.worker().equals(c.worker()))
        .filter(c -> f.label() == null || c.labels().stream().anyMatch(l -> l.equalsIgnoreCase(f.label())))
        .filter(c -> f.assignee() == null || (c.assignee() == null ? "-" : c.assignee().text()).equals(f.assignee()))
        .sorted(Comparator.comparingLong(TaskCard::updatedAtMillis).reversed())
        .limit(f.limit())
        .toList();
  }

  @Override
  public TaskCard get(String id) {
    return tasks.get(id);
  }

  @Override
  public TaskCard approve(String id, TaskChange change) {
    changes.add("approve " + id + " by " + change.by() + text(change));
    return change(id, "approve", change, c -> with(c, TaskState.DONE, null, c.assignee(), change, change.by(), "approved"));
  }

  @Override
  public TaskCard requeue(String id, TaskChange change) {
    changes.add("requeue " + id + " by " + change.by() + (change.assignee() == null ? "" : " to " + change.assignee())
        + text(change));
    return change(id, "requeue", change, c -> with(c, TaskState.TODO, null,
        change.assignee() == null ? c.assignee() : Assignee.parse(change.assignee()), change, change.by(), "re-queued"));
  }

  @Override
  public TaskCard move(String id, TaskChange change) {
    changes.add("move " + id + " to " + (change.to() == null ? "?" : change.to().word()) + " by " + change.by()
        + text(change));
    return change(id, "move", change, c -> with(c, change.to(), change.to() == TaskState.BLOCKED ? change.text() : null,
        c.assignee(), null, change.by(), "moved to " + change.to().label()));
  }

  @Override
  public TaskCard assign(String id, TaskChange change) {
    changes.add("assign " + id + " to " + change.assignee() + " by " + change.by());
    return change(id, "assign", change, c -> {
      Assignee a = Assignee.parse(change.assignee());
      return with(c, c.state(), c.reason(), a, null, change.by(), "assigned to " + (a == null ? "nobody" : a.text()));
    });
  }

  @Override
  public TaskCard comment(String id, TaskChange change) {
    changes.add("comment " + id + " by " + change.by() + ": " + change.text());
    return change(id, "comment", change, c -> with(c, c.state(), c.reason(), c.assignee(), change, change.by(), "commented"));
  }

  private static String text(TaskChange change) {
    return change.text() == null ? "" : ": " + change.text();
  }

  private void fail() {
    String why = failing;
    if (why != null) {
      throw new TaskBoardException(why);
    }
  }

  private TaskCard answered(TaskCard c) {
    if (loseAnswers) {
      throw new TaskBoardException("Temporal did not answer in time");
    }
    return c;
  }

  /** One change: the workflow's refusal, or {@code apply}'s card saved. */
  private TaskCard change(String id, String update, TaskChange change, java.util.function.UnaryOperator<TaskCard> apply) {
    fail();
    TaskCard next;
    synchronized (tasks) {
      TaskCard c = tasks.get(id);
      if (c == null) {
        throw new TaskBoardException("there is no task " + id + " in colony " + colony);
      }
      if (c.state() == TaskState.DONE) { // its run is over: a move or a re-queue starts the next, as the real board does
        if (!update.equals("move") && !update.equals("requeue")) {
          throw new TaskBoardException("task " + id + " is Done: move it to To Do to reopen it");
        }
        try {
          next = TaskCards.reopened(c, change, update.equals("requeue"), now());
        } catch (IllegalArgumentException e) {
          throw new TaskBoardException(e.getMessage());
        }
        tasks.put(id, next);
        return answered(next);
      }
      String refusal = TaskRules.refusal(c, update, change);
      if (refusal != null) {
        throw new TaskBoardException(refusal);
      }
      next = apply.apply(c);
      tasks.put(id, next);
    }
    return answered(next);
  }

  private TaskCard with(TaskCard c, TaskState state, String reason, Assignee assignee, TaskChange comment, String by,
      String what) {
    long now = now();
    List<TaskComment> comments = new ArrayList<>(c.comments());
    if (comment != null && comment.text() != null && !comment.text().isBlank()) {
      comments.add(new TaskComment(comment.by(), comment.text(), now));
    }
    List<TaskEvent> log = new ArrayList<>(c.log());
    log.add(new TaskEvent(now, by, what));
    return new TaskCard(c.colony(), c.id(), c.title(), c.body(), c.priority(), c.labels(), assignee, state, reason,
        state == TaskState.TODO ? null : c.worker(), c.claimToken(), c.attempts(), c.createdAtMillis(), state == c.state() ? c.stateSinceMillis() : now, now,
        comments, c.issueUrl(), c.work(), c.sessions(), log);
  }
}
