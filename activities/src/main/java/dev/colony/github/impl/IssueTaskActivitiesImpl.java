package dev.colony.github.impl;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.github.IssueTaskActivities;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskState;
import dev.colony.text.SafeText;
import dev.colony.trigger.IssueEvent;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * GitHub issues as tasks, through the board's client ({@code TemporalTaskBoard} on a worker). The
 * task's id is the issue's ({@link TaskIds#forIssue}), so however often an issue is polled,
 * delivered or retried, one task is made; a board refusal that leaves the task in place (made by
 * an earlier attempt, or Done already) is an answer, not a failure.
 */
public final class IssueTaskActivitiesImpl implements IssueTaskActivities {
  /** Who the board records as adding and closing issue tasks. */
  static final String BY = "github";

  private final Function<String, TaskBoard> boards;

  /** {@code boards}: the board of a colony, by name. */
  public IssueTaskActivitiesImpl(Function<String, TaskBoard> boards) {
    this.boards = boards;
  }

  @Override
  public String add(String colony, IssueEvent issue, String assignee) {
    TaskBoard board = boards.apply(colony);
    String id = TaskIds.forIssue(issue.repo(), issue.number());
    if (board.get(id) != null) {
      return "exists";
    }
    Assignee who;
    try {
      who = Assignee.parse(assignee);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure("the trigger's 'to' " + e.getMessage(), "BadAssignee");
    }
    try {
      board.add(task(id, issue, who));
      return "added";
    } catch (TaskBoardException e) {
      if (board.get(id) != null) {
        return "exists"; // made meanwhile (another delivery of the same issue), or by an attempt that timed out
      }
      throw e;
    }
  }

  /** The task of {@code issue}: its title and body (cut to the board's bounds), its labels, its link. */
  static NewTask task(String id, IssueEvent issue, Assignee who) {
    String title = issue.title().isBlank() ? "Issue #" + issue.number() + " of " + issue.repo() : issue.title();
    if (title.length() > TaskLimits.TITLE) {
      title = SafeText.cut(title, TaskLimits.TITLE - 1) + "…";
    }
    String body = issue.body().length() > TaskLimits.BODY ? SafeText.cut(issue.body(), TaskLimits.BODY) : issue.body();
    List<String> labels = new ArrayList<>();
    for (String l : issue.labels()) {
      // GitHub's labels hold spaces, colons, emoji ("good first issue", "type: bug"): a task's label is
      // a word, so each becomes one ("good-first-issue", "type-bug"); one that cannot is left out.
      String label = SafeText.clean(l).strip().toLowerCase(java.util.Locale.ROOT)
          .replaceAll("[^a-z0-9._-]+", "-").replaceAll("^[._-]+|-+$", "");
      if (label.length() > TaskLimits.LABEL) {
        label = label.substring(0, TaskLimits.LABEL).replaceAll("-+$", "");
      }
      String word = label;
      if (dev.colony.task.TaskText.LABEL.matcher(word).matches() && labels.size() < TaskLimits.LABELS
          && !labels.contains(word)) {
        labels.add(word);
      }
    }
    return new NewTask(id, title, body, Priority.NORMAL, labels, who, TaskState.TODO,
        issue.url() == null || issue.url().isBlank() ? null : issue.url(), BY);
  }

  @Override
  public String reopen(String colony, IssueEvent issue) {
    TaskBoard board = boards.apply(colony);
    String id = TaskIds.forIssue(issue.repo(), issue.number());
    TaskCard card = board.get(id);
    if (card == null) {
      return "none";
    }
    if (card.state() != TaskState.DONE) {
      return "open";
    }
    try {
      board.move(id, new TaskChange(BY, TaskState.TODO, null, "issue " + issue.key() + " was reopened on GitHub"));
      return "reopened";
    } catch (TaskBoardException e) {
      TaskCard now = board.get(id);
      if (now != null && now.state() != TaskState.DONE) {
        return "open"; // reopened by an attempt whose answer was lost, or by a human
      }
      throw e;
    }
  }

  @Override
  public String close(String colony, IssueEvent issue) {
    TaskBoard board = boards.apply(colony);
    String id = TaskIds.forIssue(issue.repo(), issue.number());
    TaskCard card = board.get(id);
    if (card == null) {
      return "none";
    }
    if (card.state() == TaskState.DONE) {
      return "already";
    }
    try {
      board.move(id, new TaskChange(BY, TaskState.DONE, null, "issue " + issue.key() + " was closed on GitHub"));
      return "done";
    } catch (TaskBoardException e) {
      TaskCard now = board.get(id);
      if (now != null && now.state() == TaskState.DONE) {
        return "already";
      }
      throw e;
    }
  }
}
