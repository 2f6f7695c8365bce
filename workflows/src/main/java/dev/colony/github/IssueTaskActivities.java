package dev.colony.github;

import dev.colony.trigger.IssueEvent;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * GitHub issues as tasks on the board (triggers with {@code as: task}), run by any worker of the
 * colony: through the board's client, so a task made from an issue is made as the CLI makes one.
 */
@ActivityInterface
public interface IssueTaskActivities {
  /**
   * Makes the issue's task ({@code TaskIds.forIssue(repo, n)}) for {@code assignee} (as written:
   * {@code alpha}, {@code pool:docs}, {@code @alice}) unless it exists: repeated polls, webhook
   * deliveries and retries make it once. Answers {@code added} or {@code exists}.
   */
  @ActivityMethod(name = "AddIssueTask")
  String add(String colony, IssueEvent issue, String assignee);

  /**
   * Moves the closed issue's task to Done. Answers {@code done}, {@code already} (Done before), or
   * {@code none} (no task was made of it).
   */
  @ActivityMethod(name = "CloseIssueTask")
  String close(String colony, IssueEvent issue);

  /**
   * The reopened issue's task, Done when its issue closed, back to To Do. Answers {@code reopened},
   * {@code open} (not Done: nothing to do), or {@code none} (no task was made of it).
   */
  @ActivityMethod(name = "ReopenIssueTask")
  String reopen(String colony, IssueEvent issue);
}
