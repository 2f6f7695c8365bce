package dev.colony.toolgate;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateStage;

/**
 * Asks through the ant's own workflow: the {@code confirm} Workflow Update, with the request key
 * as update id. The workflow posts the request, records who decided and when, and denies on
 * timeout; a retried attempt sending the same key attaches to the same request.
 */
public final class WorkflowConfirmer implements Confirmer {
  private final WorkflowStub ant;

  public WorkflowConfirmer(ActivityExecutionContext activity) {
    this.ant = activity.getWorkflowClient().newUntypedWorkflowStub(activity.getInfo().getWorkflowId());
  }

  @Override
  public ConfirmationDecision confirm(ConfirmationRequest request) {
    UpdateOptions<ConfirmationDecision> options = UpdateOptions.newBuilder(ConfirmationDecision.class)
        .setUpdateName("confirm")
        .setUpdateId("confirm/" + request.key())
        .setWaitForStage(WorkflowUpdateStage.COMPLETED)
        .build();
    return ant.startUpdate(options, request).getResult();
  }
}
