package dev.colony.trigger;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Watches one repository for a colony: one poller however many ants watch it. It polls open
 * issues with conditional requests, takes issues pushed by the webhook, and signals each
 * subscribed ant the issues that match its labels. Ants keep the durable record of what they
 * handled, so a repeat (poll after webhook, overlap, replay) never wakes an ant twice. An issue
 * matching an {@code as: task} trigger becomes a task instead (once: its id is the issue's), and
 * while any trigger makes tasks the watcher also polls closed issues: a closed issue's task moves
 * to Done.
 */
@WorkflowInterface
public interface RepoWatcher {
  @WorkflowMethod(name = "RepoWatcher")
  void run(WatchState state);

  /** An ant's interest (sent by {@code colony start}); replaces that ant's earlier one. */
  @SignalMethod(name = "subscribe")
  void subscribe(Subscription subscription);

  /** An issue pushed by GitHub's webhook. */
  @SignalMethod(name = "issue")
  void issue(IssueEvent event);

  @QueryMethod(name = "subscriptions")
  List<Subscription> subscriptions();

  /**
   * What a watcher carries over continue-as-new.
   *
   * @param forwarded {@code antWorkflowId|owner/repo#n} already signalled (bounded, oldest dropped)
   * @param tasked {@code owner/repo#n} already made tasks (bounded, oldest dropped)
   * @param closedSince the {@code since} of the next poll of closed issues (ISO-8601), null before the first
   * @param closedEtag the ETag of the last poll of closed issues
   * @param closedTasks {@code owner/repo#n} whose closing moved their task to Done: reopened, the
   *     task goes back to To Do (bounded, oldest dropped; absent in older payloads)
   */
  record WatchState(String colony, String repo, String colonyDir, String tokenVar, long pollSeconds,
      List<Subscription> subscriptions, String etag, List<String> forwarded, List<String> tasked,
      String closedSince, String closedEtag, List<String> closedTasks) {
    public WatchState {
      subscriptions = subscriptions == null ? List.of() : List.copyOf(subscriptions);
      forwarded = forwarded == null ? List.of() : List.copyOf(forwarded);
      tasked = tasked == null ? List.of() : List.copyOf(tasked);
      closedTasks = closedTasks == null ? List.of() : List.copyOf(closedTasks);
    }

    public WatchState(String colony, String repo, String colonyDir, String tokenVar, long pollSeconds,
        List<Subscription> subscriptions, String etag, List<String> forwarded, List<String> tasked,
        String closedSince, String closedEtag) {
      this(colony, repo, colonyDir, tokenVar, pollSeconds, subscriptions, etag, forwarded, tasked, closedSince,
          closedEtag, List.of());
    }

    public WatchState(String colony, String repo, String colonyDir, String tokenVar, long pollSeconds,
        List<Subscription> subscriptions, String etag, List<String> forwarded) {
      this(colony, repo, colonyDir, tokenVar, pollSeconds, subscriptions, etag, forwarded, List.of(), null, null,
          List.of());
    }
  }

  static String workflowId(String colony, String repo) {
    return "colony-github/" + colony + "/" + repo.toLowerCase(java.util.Locale.ROOT);
  }

  /** Move to the worker deployment's current version (sent by {@code colony upgrade}). */
  @SignalMethod(name = "upgrade")
  void upgrade();
}
