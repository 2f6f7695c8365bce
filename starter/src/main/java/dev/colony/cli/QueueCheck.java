package dev.colony.cli;

import dev.colony.client.AntRow;
import dev.colony.client.VisibilityQuery;
import dev.colony.spec.AntIds;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.client.WorkflowExecutionMetadata;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Two colonies must never share a task queue: a worker runs every workflow on the queues it polls,
 * so a worker started for one colony would run the other's sessions (with its own directory,
 * tokens and chat). {@code start} and {@code worker} ask visibility which other colonies' ants
 * run on the queue they are about to use, and refuse.
 */
final class QueueCheck {
  private QueueCheck() {}

  /**
   * Colonies other than {@code colony} with running ants on {@code queue}: one visibility call
   * (a page of at most 100 ants). Empty when the server cannot say (the in-memory server).
   */
  static Set<String> othersOn(Temporal t, String queue, String colony) {
    String query = Ants.query(null, VisibilityQuery.where().eq("TaskQueue", queue).notEq("ColonyName", colony)).toString();
    Set<String> others = new TreeSet<>();
    try {
      var r = t.stubs.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS).listWorkflowExecutions(
          ListWorkflowExecutionsRequest.newBuilder().setNamespace(t.namespace).setQuery(query).setPageSize(100).build());
      var converter = t.client.getOptions().getDataConverter();
      r.getExecutionsList().forEach(i -> others.add(AntRow.of(new WorkflowExecutionMetadata(i, converter)).colony()));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
    }
    others.remove(colony);
    return others;
  }

  /** The refusal for {@code colony} on {@code queue} that {@code others} already use, or null. */
  static String refusal(String queue, String colony, Set<String> others) {
    if (others.isEmpty()) {
      return null;
    }
    return "task queue '" + queue + "' already runs ants of colony '" + String.join("', '", others)
        + "': a worker of either colony would run the other's sessions. Give colony '" + colony
        + "' a queue of its own: leave out --task-queue (its own is '" + AntIds.taskQueue(colony) + "')";
  }

  /**
   * Task queues other than {@code queue} on which ants of {@code colony} run: one visibility call
   * (a page of at most 100 ants). Ants started before each colony had its own queue stay on
   * 'colony' until they are started again. Empty when the server cannot say (the in-memory server).
   */
  static Set<String> elsewhere(Temporal t, String queue, String colony) {
    String query = Ants.query(colony, VisibilityQuery.where().notEq("TaskQueue", queue)).toString();
    Set<String> queues = new TreeSet<>();
    try {
      var r = t.stubs.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS).listWorkflowExecutions(
          ListWorkflowExecutionsRequest.newBuilder().setNamespace(t.namespace).setQuery(query).setPageSize(100).build());
      r.getExecutionsList().forEach(i -> queues.add(i.getTaskQueue()));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
    }
    queues.remove(queue);
    queues.remove("");
    return queues;
  }

  /** The line a worker of {@code colony} polling {@code queue} prints when its ants run elsewhere, or null. */
  static String elsewhereNote(Temporal t, String queue, String colony) {
    return elsewhereNote(queue, colony, elsewhere(t, queue, colony));
  }

  /** The line a worker polling {@code queue} prints when ants of {@code colony} run on {@code others}, or null. */
  static String elsewhereNote(String queue, String colony, Set<String> others) {
    if (others.isEmpty()) {
      return null;
    }
    return "running ants of colony '" + colony + "' are on task queue '" + String.join("', '", others) + "', not '" + queue
        + "' that this worker polls: run them with a worker started with --task-queue " + others.iterator().next()
        + (others.size() > 1 ? " (one per queue)" : "") + " (or 'colony stop' them and 'colony start' them on '" + queue
        + "', which starts them over: queue, counters and pauses are not carried)";
  }

  /**
   * For a worker: refuses a shared queue it would take by default, but only warns when the queue
   * was asked for with --task-queue (the way to serve ants started on the old shared 'colony'
   * queue, whose other colony's ants this worker would run too).
   */
  static String refuseSharedUnlessAsked(Temporal t, String queue, String colony, boolean asked) {
    if (!asked) {
      refuseShared(t, queue, colony);
      return null;
    }
    String refusal = refusal(queue, colony, othersOn(t, queue, colony));
    return refusal == null ? null : "warning: " + refusal + "; running anyway, as --task-queue asked";
  }

  /** Refuses, with one line, when another colony's ants run on {@code queue}. */
  static void refuseShared(Temporal t, String queue, String colony) {
    String refusal = refusal(queue, colony, othersOn(t, queue, colony));
    if (refusal != null) {
      throw new UserError(refusal);
    }
  }
}
