package dev.colony.merge;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One repository's merge queue ({@code merge/<colony>/<repo>}): a long-lived workflow that lands
 * its ants' work on the target one item at a time, and holds the path claims of conflict-aware
 * scheduling. Every change is an update (validated, answered) or a signal; the memo
 * {@value MergeCard#MEMO} is its card.
 */
@WorkflowInterface
public interface MergeQueueWorkflow {
  /** The failure type of an update refused in its handler (the book changed since its validation). */
  String REFUSED = "MergeRefused";

  static String workflowId(String colony, String repo) {
    return "merge/" + colony + "/" + repo;
  }

  /** Runs the queue; {@code state} carries the book across continue-as-new. */
  @WorkflowMethod(name = "MergeQueue")
  void run(MergeQueueState state);

  /** New settings from the config (the next item uses them). */
  @SignalMethod(name = "configure")
  void configure(MergeRepo repo);

  /** Land this ant's branch: opens an item, or joins the ant's open one. */
  @UpdateMethod(name = "submit")
  SubmitReply submit(Submission submission);

  @UpdateValidatorMethod(updateName = "submit")
  void validateSubmit(Submission submission);

  /**
   * A human's decision on an item (by id, or by ant name for its open item): {@code approve}
   * (review done), {@code retry} (NEEDS_HUMAN or REWORK back in line, tries reset), {@code cancel}.
   */
  @UpdateMethod(name = "decide")
  SubmitReply decide(MergeDecision decision);

  @UpdateValidatorMethod(updateName = "decide")
  void validateDecide(MergeDecision decision);

  /** A task was approved (best effort, from the board): its AWAITING_REVIEW item may land. */
  @SignalMethod(name = "taskApproved")
  void taskApproved(String taskId);

  /** Conflict-aware scheduling: claim paths before work starts. */
  @UpdateMethod(name = "claimPaths")
  PathReply claimPaths(PathClaim claim);

  @UpdateValidatorMethod(updateName = "claimPaths")
  void validateClaimPaths(PathClaim claim);

  /** The ant's work on its claimed paths ended without anything to land (or the ant stopped). */
  @SignalMethod(name = "releasePaths")
  void releasePaths(String ant);

  /** Move to a newer release at the next safe point (continue-as-new). */
  @SignalMethod(name = "upgrade")
  void upgrade();

  @QueryMethod(name = "card")
  MergeCard card();
}
