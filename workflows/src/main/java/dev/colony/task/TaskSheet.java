package dev.colony.task;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The task's workflow's own copy of its card, changed in place by the handlers and published as
 * the immutable {@link TaskCard}. It owns the bounded lists (comments, sessions, log: the oldest go
 * first) and the bookkeeping of a move (state since, the claim let go), so no handler forgets one.
 */
final class TaskSheet {
  final String colony;
  final String id;
  String title;
  String body;
  Priority priority;
  List<String> labels;
  Assignee assignee;
  TaskState state;
  String reason;
  String worker;
  String claimToken;
  int attempts;
  final long createdAtMillis;
  long stateSinceMillis;
  long updatedAtMillis;
  final List<TaskComment> comments = new ArrayList<>();
  String issueUrl;
  TaskWork work;
  final List<TaskSessionLink> sessions = new ArrayList<>();
  final List<TaskEvent> log = new ArrayList<>();

  private TaskSheet(String colony, String id, long createdAtMillis) {
    this.colony = colony;
    this.id = id;
    this.createdAtMillis = createdAtMillis;
  }

  /** A new task, its text cleaned and bounded (it may come from anyone who can start a workflow). */
  static TaskSheet fresh(String colony, NewTask t, long now) {
    TaskSheet s = new TaskSheet(colony, t.id(), now);
    String title = TaskText.bounded(t.title(), TaskLimits.TITLE);
    s.title = title == null ? "(untitled)" : title;
    s.body = TaskText.bounded(t.body(), TaskLimits.BODY);
    s.priority = t.priority() == null ? Priority.NORMAL : t.priority();
    s.labels = TaskText.labels(t.labels());
    s.assignee = t.assignee();
    s.state = t.state() == null || t.state() == TaskState.IN_PROGRESS ? TaskState.TODO : t.state();
    s.issueUrl = TaskText.url(t.issueUrl());
    s.stateSinceMillis = now;
    s.updatedAtMillis = now;
    s.event(now, TaskText.by(t.by()), "added to " + s.state.label());
    return s;
  }

  /** The card a previous run carried (continue-as-new, or a reopened Done task). */
  static TaskSheet of(TaskCard c) {
    TaskSheet s = new TaskSheet(c.colony(), c.id(), c.createdAtMillis());
    s.title = c.title();
    s.body = c.body();
    s.priority = c.priority();
    s.labels = new ArrayList<>(c.labels());
    s.assignee = c.assignee();
    s.state = c.state() == null ? TaskState.TODO : c.state();
    s.reason = c.reason();
    s.worker = c.worker();
    s.claimToken = c.claimToken();
    s.attempts = c.attempts();
    s.stateSinceMillis = c.stateSinceMillis();
    s.updatedAtMillis = c.updatedAtMillis();
    s.comments.addAll(c.comments());
    s.issueUrl = c.issueUrl();
    s.work = c.work();
    s.sessions.addAll(c.sessions());
    s.log.addAll(c.log());
    return s;
  }

  TaskCard card() {
    return new TaskCard(colony, id, title, body, priority, labels, assignee, state, reason, worker, claimToken, attempts,
        createdAtMillis, stateSinceMillis, updatedAtMillis, comments, issueUrl, work, sessions, log);
  }

  /** To {@code to}, with a note (the reason when Blocked); leaving In Progress lets the claim go. */
  void moveTo(TaskState to, String by, String note, long now) {
    if (to != state) {
      stateSinceMillis = now;
    }
    if (state == TaskState.IN_PROGRESS && to != TaskState.IN_PROGRESS) {
      claimToken = null;
    }
    state = to;
    reason = note;
    event(now, by, "moved to " + to.label() + (note == null ? "" : ": " + TaskText.bounded(note, 200)));
  }

  void comment(String author, String text, long now) {
    comments.add(new TaskComment(author, text, now));
    while (comments.size() > TaskLimits.COMMENTS) {
      comments.remove(0);
    }
    touch(now);
  }

  void session(TaskSessionLink link) {
    sessions.add(link);
    while (sessions.size() > TaskLimits.SESSIONS) {
      sessions.remove(0);
    }
  }

  void event(long now, String by, String what) {
    log.add(new TaskEvent(now, by, what));
    while (log.size() > TaskLimits.LOG) {
      log.remove(0);
    }
    touch(now);
  }

  void touch(long now) {
    updatedAtMillis = now;
  }

  /** The TaskTags values: who may take it, its assignee and labels, and its worker while In Progress. */
  List<String> tags() {
    TreeSet<String> t = new TreeSet<>(Assignee.tags(assignee, labels));
    if (state == TaskState.IN_PROGRESS && worker != null) {
      t.add(TaskSearchAttributes.workerTag(worker));
    }
    return List.copyOf(t);
  }

  /** Only the tags that say which ants may take it (what AnnounceTask looks for). */
  List<String> takeTags() {
    return Assignee.tags(assignee, labels).stream().filter(t -> t.startsWith("take:")).toList();
  }

  boolean takenBy(List<String> takerTags) {
    List<String> mine = takeTags();
    return takerTags.stream().anyMatch(mine::contains);
  }

  TaskBrief brief() {
    return new TaskBrief(colony, id, title, body, priority, labels, comments, issueUrl, claimToken,
        work == null ? null : work.base(), attempts);
  }
}
