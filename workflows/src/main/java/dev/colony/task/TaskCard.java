package dev.colony.task;

import java.util.List;

/**
 * Everything about one task, as its workflow holds it and publishes it in its memo
 * ({@link #MEMO_KEY}): the board, {@code colony task show} and the console's drawer read it from
 * visibility, with no worker. Text is bounded where it enters ({@link TaskLimits}).
 *
 * @param assignee who it is for; null: nobody (taken by label or by an ant that takes "*")
 * @param worker the ant working on it (In Progress), or that last worked on it
 * @param claimToken the claim that holds it In Progress (an ant's claim is idempotent on it)
 * @param reason why it is Blocked, or the last note of a move (e.g. "alpha was stopped")
 * @param attempts failed sessions on it since it was last taken
 * @param issueUrl the GitHub issue it came from, or null
 * @param work commits its work produced on the worker's branch, or null
 */
public record TaskCard(
    String colony,
    String id,
    String title,
    String body,
    Priority priority,
    List<String> labels,
    Assignee assignee,
    TaskState state,
    String reason,
    String worker,
    String claimToken,
    int attempts,
    long createdAtMillis,
    long stateSinceMillis,
    long updatedAtMillis,
    List<TaskComment> comments,
    String issueUrl,
    TaskWork work,
    List<TaskSessionLink> sessions,
    List<TaskEvent> log) {
  public static final String MEMO_KEY = "task";

  public TaskCard {
    labels = labels == null ? List.of() : List.copyOf(labels);
    comments = comments == null ? List.of() : List.copyOf(comments);
    sessions = sessions == null ? List.of() : List.copyOf(sessions);
    log = log == null ? List.of() : List.copyOf(log);
    priority = priority == null ? Priority.NORMAL : priority;
  }
}
