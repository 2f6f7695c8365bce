package dev.colony.task;

import java.util.List;

/**
 * The task an ant holds, as its workflow carries it (across continue-as-new) and its sessions
 * see it: the prompt renders it, the agent's environment names it ({@code COLONY_TASK_ID}, ...).
 *
 * @param token the claim that holds it (the task accepts the ant's reports with this token only)
 * @param baseCommit the ant's branch head when the task's first session began (null until then)
 * @param attempts failed sessions on it so far
 */
public record TaskBrief(String colony, String id, String title, String body, Priority priority, List<String> labels,
    List<TaskComment> comments, String issueUrl, String token, String baseCommit, int attempts) {
  public TaskBrief {
    labels = labels == null ? List.of() : List.copyOf(labels);
    comments = comments == null ? List.of() : List.copyOf(comments);
  }

  public TaskBrief withBase(String base) {
    return new TaskBrief(colony, id, title, body, priority, labels, comments, issueUrl, token, base, attempts);
  }

  public TaskBrief withAttempts(int n) {
    return new TaskBrief(colony, id, title, body, priority, labels, comments, issueUrl, token, baseCommit, n);
  }
}
