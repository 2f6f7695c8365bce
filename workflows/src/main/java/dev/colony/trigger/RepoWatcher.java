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
 * handled, so a repeat (poll after webhook, overlap, replay) never wakes an ant twice.
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
   */
  record WatchState(String colony, String repo, String colonyDir, String tokenVar, long pollSeconds,
      List<Subscription> subscriptions, String etag, List<String> forwarded) {
    public WatchState {
      subscriptions = subscriptions == null ? List.of() : List.copyOf(subscriptions);
      forwarded = forwarded == null ? List.of() : List.copyOf(forwarded);
    }
  }

  static String workflowId(String colony, String repo) {
    return "colony-github/" + colony + "/" + repo.toLowerCase(java.util.Locale.ROOT);
  }

  /** Move to the worker deployment's current version (sent by {@code colony upgrade}). */
  @SignalMethod(name = "upgrade")
  void upgrade();
}
