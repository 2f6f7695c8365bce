package dev.colony.cli;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import dev.colony.spec.AntIds;
import dev.colony.spec.AntSpec;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** Finding, starting and addressing ant workflows. */
final class Ants {
  private Ants() {}

  /** A running ant: its workflow id and the parts of it. */
  record Ref(String colony, String ant, String workflowId) {}

  /**
   * Starts the ant, or, when it already runs, hands it the (possibly new) spec: signal-with-start
   * with the {@code configure} signal, so running {@code colony start} twice never makes two ants.
   */
  static WorkflowExecution start(WorkflowClient client, String taskQueue, AntSpec spec) {
    AntWorkflow ant = client.newWorkflowStub(AntWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(spec.workflowId())
        .setTaskQueue(taskQueue)
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .build());
    BatchRequest request = client.newSignalWithStartRequest();
    request.add(ant::run, new AntRun(spec, null));
    request.add(ant::configure, spec);
    return client.signalWithStart(request);
  }

  /** Every running ant, sorted by colony then name. */
  static List<Ref> list(Temporal t) {
    TreeMap<String, Ref> found = new TreeMap<>();
    try {
      ByteString token = ByteString.EMPTY;
      do {
        ListWorkflowExecutionsResponse r = t.stubs.blockingStub().listWorkflowExecutions(
            ListWorkflowExecutionsRequest.newBuilder().setNamespace(t.namespace)
                .setQuery("WorkflowType = '" + AntIds.WORKFLOW_TYPE + "' AND ExecutionStatus = 'Running'")
                .setNextPageToken(token).build());
        r.getExecutionsList().forEach(i -> add(found, i));
        token = r.getNextPageToken();
      } while (!token.isEmpty());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
      // The embedded server only has the older listing API.
      ByteString token = ByteString.EMPTY;
      do {
        ListOpenWorkflowExecutionsResponse r = t.stubs.blockingStub().listOpenWorkflowExecutions(
            ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace(t.namespace)
                .setTypeFilter(WorkflowTypeFilter.newBuilder().setName(AntIds.WORKFLOW_TYPE))
                .setMaximumPageSize(1000)
                .setNextPageToken(token).build());
        r.getExecutionsList().forEach(i -> add(found, i));
        token = r.getNextPageToken();
      } while (!token.isEmpty());
    }
    return new ArrayList<>(found.values());
  }

  private static void add(TreeMap<String, Ref> found, WorkflowExecutionInfo info) {
    String id = info.getExecution().getWorkflowId();
    String[] parts = AntIds.parse(id);
    if (parts != null) {
      found.put(id, new Ref(parts[0], parts[1], id));
    }
  }

  /**
   * Resolves what the user typed to a running ant: {@code colony/ant} (checked with one describe),
   * or a bare ant name that must match exactly one running ant (optionally within {@code colony}).
   */
  static Ref resolve(Temporal t, String name, String colony) {
    if (name.contains("/")) {
      String[] parts = name.split("/", 2);
      Ref ref = new Ref(parts[0], parts[1], AntIds.workflowId(parts[0], parts[1]));
      requireRunning(t, ref);
      return ref;
    }
    List<Ref> running = list(t);
    List<Ref> matches = running.stream()
        .filter(r -> r.ant().equals(name) && (colony == null || r.colony().equals(colony)))
        .toList();
    if (matches.size() == 1) {
      return matches.get(0);
    }
    if (matches.isEmpty()) {
      String names = running.isEmpty() ? "none" : String.join(", ",
          running.stream().map(r -> r.colony() + "/" + r.ant()).toList());
      throw new UserError("no running ant named '" + name + "' at " + t.address
          + " (running: " + names + ")");
    }
    throw new UserError("ant name '" + name + "' is used by several colonies; write it as "
        + String.join(" or ", matches.stream().map(r -> r.colony() + "/" + r.ant()).toList()));
  }

  static AntWorkflow stub(Temporal t, Ref ref) {
    return t.client.newWorkflowStub(AntWorkflow.class, ref.workflowId());
  }

  static AntStatus status(Temporal t, Ref ref) {
    try {
      return stub(t, ref).status();
    } catch (WorkflowNotFoundException e) {
      throw new UserError("ant " + ref.colony() + "/" + ref.ant() + " is not running");
    }
  }

  static AntStats stats(Temporal t, Ref ref) {
    return stub(t, ref).stats();
  }

  /** Checks the ant exists and is running before signalling it. */
  private static void requireRunning(Temporal t, Ref ref) {
    try {
      WorkflowStub s = t.client.newUntypedWorkflowStub(ref.workflowId());
      var d = s.describe();
      if (d.getStatus() != io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        throw new UserError("ant " + ref.colony() + "/" + ref.ant() + " is not running (it is "
            + d.getStatus().name().replace("WORKFLOW_EXECUTION_STATUS_", "").toLowerCase() + ")");
      }
    } catch (WorkflowNotFoundException e) {
      throw new UserError("no ant " + ref.colony() + "/" + ref.ant() + " at " + t.address);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        throw new UserError("no ant " + ref.colony() + "/" + ref.ant() + " at " + t.address);
      }
      throw e;
    }
  }
}
