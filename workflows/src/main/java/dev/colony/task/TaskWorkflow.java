package dev.colony.task;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One task, for its whole life ({@code task/<colony>/<id>}). Every change is an update, named
 * for what it does, so the Web UI's history of a task reads as its story; a validator refuses a
 * change that does not fit the task's state, and a refused update leaves no trace. The workflow
 * completes when the task is Done (a move out of Done starts a new run with the same id).
 * Handler names are public API ({@code temporal workflow update execute --name approve}).
 */
@WorkflowInterface
public interface TaskWorkflow {
  @WorkflowMethod(name = "TaskWorkflow")
  void run(TaskRun run);

  @UpdateMethod(name = "claim")
  ClaimResult claim(Claim claim);

  @UpdateValidatorMethod(updateName = "claim")
  void validateClaim(Claim claim);

  @UpdateMethod(name = "report")
  TaskReply report(TaskReport report);

  @UpdateValidatorMethod(updateName = "report")
  void validateReport(TaskReport report);

  /** In Review → Done. */
  @UpdateMethod(name = "approve")
  TaskCard approve(TaskChange change);

  @UpdateValidatorMethod(updateName = "approve")
  void validateApprove(TaskChange change);

  /** Back to To Do with a comment (which the next session's prompt carries); from In Progress, In Review or Blocked. */
  @UpdateMethod(name = "requeue")
  TaskCard requeue(TaskChange change);

  @UpdateValidatorMethod(updateName = "requeue")
  void validateRequeue(TaskChange change);

  /** To any column; to Blocked needs a reason; an ant working on it is told. */
  @UpdateMethod(name = "move")
  TaskCard move(TaskChange change);

  @UpdateValidatorMethod(updateName = "move")
  void validateMove(TaskChange change);

  @UpdateMethod(name = "assign")
  TaskCard assign(TaskChange change);

  @UpdateValidatorMethod(updateName = "assign")
  void validateAssign(TaskChange change);

  @UpdateMethod(name = "comment")
  TaskCard comment(TaskChange change);

  @UpdateValidatorMethod(updateName = "comment")
  void validateComment(TaskChange change);

  @QueryMethod(name = "task")
  TaskCard task();

  /**
   * {@code colony upgrade} sends it (as to every Colony workflow): the task continues as new, with
   * its card, onto the worker deployment's current version once no update is in flight.
   */
  @SignalMethod(name = "upgrade")
  void upgrade();
}
