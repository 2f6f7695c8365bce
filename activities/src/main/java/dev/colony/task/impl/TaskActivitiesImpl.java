package dev.colony.task.impl;

import dev.colony.ant.AntWorkflow;
import dev.colony.board.TaskQueries;
import dev.colony.spec.AntIds;
import dev.colony.task.Claim;
import dev.colony.task.ClaimResult;
import dev.colony.task.FindTasks;
import dev.colony.task.TaskActivities;
import dev.colony.task.TaskCandidate;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskOrder;
import dev.colony.task.TaskReply;
import dev.colony.task.TaskReport;
import dev.colony.task.TaskSearchAttributes;
import dev.colony.task.TaskState;
import dev.colony.task.Priority;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowUpdateStage;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The board's calls made for workflows (see {@link TaskActivities}): visibility lists, updates to
 * tasks, signals to ants. A claim's update id is its token, so Temporal itself answers a retried
 * claim with the first one's result; a refusal and a task that is gone are answers, not failures
 * (failures are retried: they mean Temporal could not be asked).
 */
public final class TaskActivitiesImpl implements TaskActivities {
  private static final Logger log = LoggerFactory.getLogger(TaskActivitiesImpl.class);
  /** The most To Do tasks read to pick from: beyond, the oldest ones wait for the next search. */
  static final int MAX_SCANNED = 2_000;

  private final WorkflowClient client;
  private final String namespace;

  public TaskActivitiesImpl(WorkflowClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  @Override
  public List<TaskCandidate> find(FindTasks f) {
    String tasks = TaskQueries.tasksOf(f.colony()) + " AND ExecutionStatus = 'Running'";
    List<TaskCandidate> found = new ArrayList<>();
    client.listExecutions(tasks + " AND TaskState = 'in_progress' AND TaskTags = "
            + TaskQueries.literal(TaskSearchAttributes.workerTag(f.ant())))
        .limit(MAX_SCANNED).forEach(m -> add(found, m, true));
    if (!f.takerTags().isEmpty()) {
      client.listExecutions(tasks + " AND TaskState = 'todo' AND TaskTags IN " + TaskQueries.inList(f.takerTags()))
          .limit(MAX_SCANNED).forEach(m -> add(found, m, false));
    }
    List<TaskCandidate> sorted = TaskOrder.sort(found, System.currentTimeMillis(), f.agingSeconds());
    return List.copyOf(sorted.subList(0, Math.min(sorted.size(), Math.max(0, f.limit()))));
  }

  private static void add(List<TaskCandidate> out, WorkflowExecutionMetadata m, boolean mine) {
    String[] id = taskId(m.getExecution().getWorkflowId());
    if (id == null) {
      return;
    }
    TaskCard card = TaskQueries.card(m);
    Priority p = Priority.parse(m.getTypedSearchAttributes().get(TaskSearchAttributes.PRIORITY));
    long queued = card != null ? card.stateSinceMillis() : m.getStartTime().toEpochMilli();
    out.add(new TaskCandidate(id[1], p == null ? Priority.NORMAL : p, queued, mine));
  }

  /** {@code task/<colony>/<id>} -> {colony, id}; null for anything else. */
  static String[] taskId(String workflowId) {
    if (!workflowId.startsWith("task/")) {
      return null;
    }
    int slash = workflowId.indexOf('/', 5);
    return slash < 0 ? null : new String[] {workflowId.substring(5, slash), workflowId.substring(slash + 1)};
  }

  @Override
  public ClaimResult claim(String colony, String taskId, Claim claim) {
    try {
      return client.newUntypedWorkflowStub(TaskIds.workflowId(colony, taskId))
          .startUpdate(UpdateOptions.newBuilder(ClaimResult.class).setUpdateName("claim")
              .setUpdateId(claim.token()).setWaitForStage(WorkflowUpdateStage.COMPLETED).build(), claim)
          .getResult();
    } catch (RuntimeException e) {
      String why = TaskQueries.refusal(e);
      if (why != null) {
        return ClaimResult.refused(why);
      }
      if (TaskQueries.notFound(e)) {
        return ClaimResult.refused("task " + taskId + " is gone (Done, or removed)");
      }
      throw e;
    }
  }

  @Override
  public TaskReply report(String colony, String taskId, TaskReport report) {
    // The same report retried (its worker died) is answered once; two different reports never share an id.
    String updateId = "report:" + report.token() + ":" + report.kind() + ":"
        + (report.session() == null ? "-" : report.session().session()) + ":"
        + Integer.toHexString(java.util.Objects.hash(report.text(), report.done()));
    try {
      return client.newUntypedWorkflowStub(TaskIds.workflowId(colony, taskId))
          .startUpdate(UpdateOptions.newBuilder(TaskReply.class).setUpdateName("report").setUpdateId(updateId)
              .setWaitForStage(WorkflowUpdateStage.COMPLETED).build(), report)
          .getResult();
    } catch (RuntimeException e) {
      String why = TaskQueries.refusal(e);
      if (why != null) {
        return new TaskReply(false, null, why);
      }
      if (TaskQueries.notFound(e)) {
        return new TaskReply(false, TaskState.DONE, "task " + taskId + " is gone (Done, or removed)");
      }
      throw e;
    }
  }

  @Override
  public int announce(String colony, List<String> takeTags) {
    if (takeTags.isEmpty()) {
      return 0;
    }
    String ants = "WorkflowType = " + TaskQueries.literal(AntIds.WORKFLOW_TYPE) + " AND ExecutionStatus = 'Running'"
        + " AND ColonyName = " + TaskQueries.literal(colony) + " AND AntTakes IN " + TaskQueries.inList(takeTags);
    int told = 0;
    for (WorkflowExecutionMetadata m : (Iterable<WorkflowExecutionMetadata>) client.listExecutions(ants)::iterator) {
      try {
        client.newWorkflowStub(AntWorkflow.class, m.getExecution().getWorkflowId()).tasksWaiting();
        told++;
      } catch (RuntimeException e) {
        if (!TaskQueries.notFound(e)) {
          throw e;
        }
        // it ended between the list and the signal
      }
    }
    return told;
  }

  @Override
  public boolean antRunning(String colony, String ant) {
    try {
      return client.newUntypedWorkflowStub(AntIds.workflowId(colony, ant)).describe().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (RuntimeException e) {
      if (TaskQueries.notFound(e)) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public String antHolds(String colony, String ant, String taskId) {
    if (!antRunning(colony, ant)) {
      return HOLDS_GONE;
    }
    String held;
    try {
      held = client.newUntypedWorkflowStub(AntIds.workflowId(colony, ant)).query("taskHeld", String.class);
    } catch (RuntimeException e) {
      if (TaskQueries.notFound(e)) {
        return HOLDS_GONE;
      }
      // No worker answers, or a run of code without the query: cannot tell, so the ant keeps it.
      log.info("task {}: could not ask {} whether it holds it: {}", taskId, ant, e.getMessage());
      return HOLDS;
    }
    return held == null || held.equals("?") || held.equals(taskId) ? HOLDS : HOLDS_FREE;
  }

  static final String HOLDS = "holds";
  static final String HOLDS_FREE = "free";
  static final String HOLDS_GONE = "gone";

  @Override
  public void withdraw(String colony, String ant, String taskId) {
    try {
      client.newWorkflowStub(AntWorkflow.class, AntIds.workflowId(colony, ant)).taskWithdrawn(taskId);
    } catch (RuntimeException e) {
      if (!TaskQueries.notFound(e)) {
        throw e;
      }
      log.info("task {}: ant {} is not running, nothing to withdraw", taskId, ant);
    }
  }

  /** The namespace these calls go to (the client's). */
  public String namespace() {
    return namespace;
  }
}
