package dev.colony.cli;

import dev.colony.client.AntRow;
import dev.colony.ant.AntRun;
import dev.colony.ant.AntStats;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.common.SearchAttributes;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import dev.colony.spec.AntIds;
import dev.colony.spec.AntSpec;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.api.filter.v1.WorkflowTypeFilter;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowClient;
import dev.colony.client.Rpc;
import dev.colony.client.VisibilityQuery;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** Finding, starting and addressing ant workflows. */
final class Ants {
  /** The largest page Temporal's visibility serves by default. */
  private static final int LIST_PAGE = 1000;

  private Ants() {}

  /** A running ant: its workflow id and the parts of it. */
  record Ref(String colony, String ant, String workflowId) {}

  /**
   * Starts the ant, or, when it already runs, hands it the (possibly new) spec: signal-with-start
   * with the {@code configure} signal, so running {@code colony start} twice never makes two ants.
   * An ant that ran before and was stopped starts with what that run spent ({@link #previousSpend}):
   * a stop and a start neither lift its budget caps nor wipe its cost ledger.
   */
  static WorkflowExecution start(WorkflowClient client, String taskQueue, AntSpec spec) {
    return start(client, taskQueue, spec, previousSpend(client, spec.workflowId()));
  }

  /**
   * What the ant's last run spent, when that run has ended (stopped, terminated, failed): its memo
   * card's cost ledger and budget windows (the run writes the card before it ends). Null when the
   * ant never ran, or runs now (then the start only hands it the spec). One describe.
   */
  static dev.colony.budget.CarriedSpend previousSpend(WorkflowClient client, String workflowId) {
    io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse d;
    try {
      d = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
          io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
              .setNamespace(client.getOptions().getNamespace())
              .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build());
    } catch (StatusRuntimeException e) {
      if (Rpc.notFound(e)) {
        return null;
      }
      throw e;
    }
    var info = d.getWorkflowExecutionInfo();
    if (info.getStatus() == io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return null;
    }
    dev.colony.visibility.AntCard card = dev.colony.visibility.AntCard.fromMemo(info.getMemo().getFieldsMap(),
        client.getOptions().getDataConverter());
    dev.colony.budget.CarriedSpend carried = dev.colony.budget.CarriedSpend.fromCard(card);
    return carried == null || carried.nothing() ? null : carried;
  }

  static WorkflowExecution start(WorkflowClient client, String taskQueue, AntSpec spec,
      dev.colony.budget.CarriedSpend carried) {
    AntWorkflow ant = client.newWorkflowStub(AntWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(spec.workflowId())
        .setTaskQueue(taskQueue)
        // Listable at once, before the ant's first workflow task publishes the rest.
        .setTypedSearchAttributes(SearchAttributes.newBuilder()
            .set(AntSearchAttributes.COLONY, spec.colony())
            .set(AntSearchAttributes.ANT, spec.name())
            .set(AntSearchAttributes.STATE, "initializing")
            .build())
        .setMemo(dev.colony.visibility.AntSearchAttributes.memo(spec))
        .setStaticSummary("ant " + spec.name() + " of colony " + spec.colony() + " · " + spec.engine().configName())
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .build());
    BatchRequest request = client.newSignalWithStartRequest();
    request.add(ant::run, new AntRun(spec, null, carried));
    request.add(ant::configure, spec);
    return client.signalWithStart(request);
  }

  /**
   * Every running ant (of {@code colony}, when not null), sorted by colony then name, read from
   * visibility: one paginated ListWorkflowExecutions on a real Temporal, no worker involved.
   * The in-memory server has no such call: there, open workflows are listed and described.
   */
  static List<AntRow> list(Temporal t, String colony) {
    return list(t, colony, null, Integer.MAX_VALUE);
  }

  /** The visibility query for running ants (of {@code colony}, when not null), narrowed by {@code filter}. */
  static VisibilityQuery query(String colony, VisibilityQuery filter) {
    VisibilityQuery q = AntRow.ants(colony).running();
    return filter == null ? q : q.and(filter);
  }

  /**
   * Running ants matching {@code filter} (a visibility query, or null for all), at most about
   * {@code limit} of them (whole pages). The in-memory server ignores the filter and the limit.
   */
  static List<AntRow> list(Temporal t, String colony, VisibilityQuery filter, int limit) {
    TreeMap<String, AntRow> found = new TreeMap<>();
    String query = query(colony, filter).toString();
    try {
      ByteString token = ByteString.EMPTY;
      var converter = t.client.getOptions().getDataConverter();
      do {
        ListWorkflowExecutionsResponse r = t.stubs.blockingStub().listWorkflowExecutions(
            ListWorkflowExecutionsRequest.newBuilder().setNamespace(t.namespace).setQuery(query)
                .setPageSize(Math.min(LIST_PAGE, Math.max(1, limit))).setNextPageToken(token).build());
        for (var info : r.getExecutionsList()) {
          add(found, AntRow.of(new WorkflowExecutionMetadata(info, converter)));
        }
        token = r.getNextPageToken();
      } while (!token.isEmpty() && found.size() < limit);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
      listByDescribing(t, found);
    }
    if (colony != null) {
      found.values().removeIf(r -> !r.colony().equals(colony));
    }
    return new ArrayList<>(found.values());
  }

  /** How many running ants (of {@code colony}) match {@code filter}; null on the in-memory server. */
  static Long count(Temporal t, String colony, VisibilityQuery filter) {
    try {
      return t.stubs.blockingStub().countWorkflowExecutions(CountWorkflowExecutionsRequest.newBuilder()
          .setNamespace(t.namespace).setQuery(query(colony, filter).toString()).build()).getCount();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        return null;
      }
      throw e;
    }
  }

  private static void listByDescribing(Temporal t, TreeMap<String, AntRow> found) {
    List<String> ids = new ArrayList<>();
    ByteString token = ByteString.EMPTY;
    do {
      ListOpenWorkflowExecutionsResponse r = t.stubs.blockingStub().listOpenWorkflowExecutions(
          ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace(t.namespace)
              .setTypeFilter(WorkflowTypeFilter.newBuilder().setName(AntIds.WORKFLOW_TYPE))
              .setMaximumPageSize(1000)
              .setNextPageToken(token).build());
      r.getExecutionsList().forEach(i -> ids.add(i.getExecution().getWorkflowId()));
      token = r.getNextPageToken();
    } while (!token.isEmpty());
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(16, ids.size())));
    try {
      List<Future<AntRow>> rows = new ArrayList<>();
      for (String id : ids) {
        rows.add(pool.submit(() -> AntRow.of(t.client.newUntypedWorkflowStub(id).describe())));
      }
      for (Future<AntRow> f : rows) {
        try {
          add(found, f.get());
        } catch (ExecutionException e) {
          if (!Rpc.notFound(e.getCause())) { // ended meanwhile
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new UserError("interrupted");
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static void add(TreeMap<String, AntRow> found, AntRow row) {
    if (AntIds.parse(row.workflowId()) != null) {
      found.put(row.workflowId(), row);
    }
  }

  /**
   * Resolves what the user typed to a running ant: {@code colony/ant} (checked with one describe),
   * or a bare ant name that must match exactly one running ant (optionally within {@code colony}).
   */
  static Ref resolve(Temporal t, String name, String colony) {
    if (name.contains("/")) {
      // No describe first: the call that follows (a signal, a query) says NOT_FOUND itself when
      // the ant is not running, and a command is one round trip shorter. See notRunning.
      String[] parts = name.split("/", 2);
      return new Ref(parts[0], parts[1], AntIds.workflowId(parts[0], parts[1]));
    }
    // One visibility call filtered by the name (two rows tell "one" from "several"): a command
    // about one ant costs the same at 10 ants and at 10,000. Listing every ant cost 1.5-3 s at 3,000.
    List<Ref> matches = list(t, colony, VisibilityQuery.where().eq("AntName", name), 2).stream()
        .filter(r -> r.ant().equals(name)) // the in-memory server ignores the filter
        .map(r -> new Ref(r.colony(), r.ant(), r.workflowId()))
        .toList();
    if (matches.size() == 1) {
      return matches.get(0);
    }
    if (matches.isEmpty()) {
      // Only on this error path: a few running ants, as a hint.
      List<AntRow> some = list(t, colony, null, HINT + 1);
      String names = some.isEmpty() ? "none" : String.join(", ",
          some.stream().limit(HINT).map(r -> r.colony() + "/" + r.ant()).toList()) + (some.size() > HINT ? ", ..." : "");
      throw new UserError("no running ant named '" + name + "' at " + t.address
          + " (running: " + names + ")");
    }
    throw new UserError("ant name '" + name + "' is used by several colonies; write it as "
        + String.join(" or ", matches.stream().map(r -> r.colony() + "/" + r.ant()).toList()));
  }

  /** Running ants named in the "no running ant named" hint. */
  private static final int HINT = 10;

  /**
   * Runs an SDK call (and the SDK's retries of it) under a gRPC deadline {@code d} from now: the
   * SDK's retry loop stops at the calling context's deadline, so a server that dies mid-command
   * costs at most {@code d}, and the command names the cause (see ColonyCli: lost connection, or
   * did not answer in time).
   */
  static <T> T within(java.time.Duration d, java.util.function.Supplier<T> call) {
    io.grpc.Context.CancellableContext ctx = io.grpc.Context.current()
        .withDeadlineAfter(d.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS, DEADLINES);
    io.grpc.Context previous = ctx.attach();
    try {
      return call.get();
    } finally {
      ctx.detach(previous);
      ctx.cancel(null);
    }
  }

  /** Fires the deadlines of {@link #within}; a daemon, so that it never holds the CLI open. */
  private static final java.util.concurrent.ScheduledExecutorService DEADLINES =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread th = new Thread(r, "colony-deadlines");
        th.setDaemon(true);
        return th;
      });

  /** Whether the workflow {@code workflowId} exists and runs (one describe, within {@link #SIGNAL_WITHIN}). */
  static boolean isRunning(Temporal t, String workflowId) {
    try {
      return within(SIGNAL_WITHIN, () -> t.client.newUntypedWorkflowStub(workflowId).describe().getStatus())
          == io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (RuntimeException e) {
      if (Rpc.notFound(e)) {
        return false;
      }
      throw e;
    }
  }

  /** How long the one describe of {@link #row} may take: what is left of status ANT's 2 s. */
  static final java.time.Duration ROW_WITHIN = java.time.Duration.ofMillis(1500);

  /**
   * One ant's visibility row (DescribeWorkflowExecution returns its search attributes): one try
   * that ends within {@link #ROW_WITHIN}. The SDK's describe retries an unreachable server for a
   * minute, which is what {@code status ANT} waited when the server died mid-command.
   */
  static AntRow row(Temporal t, Ref ref) {
    try {
      return AntRow.of(describe(t, ref.workflowId()));
    } catch (StatusRuntimeException e) {
      if (Rpc.notFound(e)) {
        throw new UserError("no ant " + ref.colony() + "/" + ref.ant() + " at " + t.address);
      }
      throw e;
    }
  }

  /** One DescribeWorkflowExecution, one try, ending within {@link #ROW_WITHIN}: no SDK retry loop. */
  private static io.temporal.client.WorkflowExecutionDescription describe(Temporal t, String workflowId) {
    var r = t.stubs.blockingStub().withDeadlineAfter(ROW_WITHIN.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
        .describeWorkflowExecution(io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(t.namespace).setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
            .build());
    return new io.temporal.client.WorkflowExecutionDescription(r, t.client.getOptions().getDataConverter());
  }

  static AntWorkflow stub(Temporal t, Ref ref) {
    return t.client.newWorkflowStub(AntWorkflow.class, ref.workflowId());
  }

  static AntStatus status(Temporal t, Ref ref) {
    try {
      return stub(t, ref).status();
    } catch (WorkflowException e) {
      if (!Rpc.notFound(e)) {
        throw e;
      }
      throw new UserError("ant " + ref.colony() + "/" + ref.ant() + " is not running");
    }
  }

  static AntStats stats(Temporal t, Ref ref) {
    return stub(t, ref).stats();
  }

  /** An ant's live answer to both of its queries. */
  record Live(AntStatus status, AntStats stats) {}

  /**
   * Asks the ant's worker for its status and stats, both at once, each call one attempt that ends
   * {@code within} from now: null when no worker answered by then (dead, wedged, or replaying a
   * long history). The SDK's own query call retries a timed-out attempt for a minute, which is
   * what a user waited when a worker had just died.
   */
  static Live live(Temporal t, Ref ref, java.time.Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    var stub = t.stubs.futureStub().withDeadline(io.grpc.Deadline.after(within.toNanos(),
        java.util.concurrent.TimeUnit.NANOSECONDS));
    var status = stub.queryWorkflow(queryRequest(t, ref, "status"));
    var stats = stub.queryWorkflow(queryRequest(t, ref, "stats"));
    try {
      return new Live(answer(t, status, deadline, AntStatus.class), answer(t, stats, deadline, AntStats.class));
    } catch (ExecutionException e) {
      if (Rpc.notFound(e.getCause())) {
        throw notRunning(t, ref);
      }
      return null; // timed out, rejected or failed: the caller falls back to visibility
    } catch (java.util.concurrent.TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UserError("interrupted");
    } finally {
      status.cancel(true);
      stats.cancel(true);
    }
  }

  private static io.temporal.api.workflowservice.v1.QueryWorkflowRequest queryRequest(Temporal t, Ref ref, String type) {
    return io.temporal.api.workflowservice.v1.QueryWorkflowRequest.newBuilder().setNamespace(t.namespace)
        .setExecution(WorkflowExecution.newBuilder().setWorkflowId(ref.workflowId()))
        .setQuery(io.temporal.api.query.v1.WorkflowQuery.newBuilder().setQueryType(type))
        .build();
  }

  private static <T> T answer(Temporal t,
      com.google.common.util.concurrent.ListenableFuture<io.temporal.api.workflowservice.v1.QueryWorkflowResponse> call,
      long deadline, Class<T> type)
      throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
    var r = call.get(Math.max(1, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
    if (r.hasQueryRejected() || !r.hasQueryResult()) {
      throw new ExecutionException(new IllegalStateException("query rejected"));
    }
    return t.client.getOptions().getDataConverter().fromPayloads(0, java.util.Optional.of(r.getQueryResult()), type, type);
  }

  /**
   * Why a call to {@code ref} found no running workflow, in the user's terms: no such ant, or it
   * ended (and how). One describe, made only after the call failed.
   */
  static UserError notRunning(Temporal t, Ref ref) {
    try {
      var d = describe(t, ref.workflowId());
      if (d.getStatus() != io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        return new UserError("ant " + ref.colony() + "/" + ref.ant() + " is not running (it is "
            + d.getStatus().name().replace("WORKFLOW_EXECUTION_STATUS_", "").toLowerCase() + ")");
      }
      return new UserError("ant " + ref.colony() + "/" + ref.ant() + " ended while it was being asked; try again");
    } catch (StatusRuntimeException e) {
      if (Rpc.notFound(e)) {
        return new UserError("no ant " + ref.colony() + "/" + ref.ant() + " at " + t.address);
      }
      throw e;
    }
  }

  /** Runs {@code call} on the ant; a workflow that is not there becomes {@link #notRunning}'s one line. */
  /**
   * How long one signal may take, retries included: the SDK retries an unreachable server for a
   * minute, which is what {@code pause} waited when the server died mid-command. A healthy server
   * answers in milliseconds; one busy starting 3,000 ants took 6.2 s, hence the margin.
   */
  static final java.time.Duration SIGNAL_WITHIN = java.time.Duration.ofSeconds(10);

  static void signal(Temporal t, Ref ref, java.util.function.Consumer<AntWorkflow> call) {
    try {
      within(SIGNAL_WITHIN, () -> {
        call.accept(stub(t, ref));
        return null;
      });
    } catch (WorkflowException e) {
      if (Rpc.notFound(e)) {
        throw notRunning(t, ref);
      }
      throw e;
    }
  }
}
