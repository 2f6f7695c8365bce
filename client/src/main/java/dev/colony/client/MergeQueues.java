package dev.colony.client;

import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.MergeQueueState;
import dev.colony.merge.MergeQueueWorkflow;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A colony's merge queues from a surface (the CLI, the console, the MCP servers, the board): started with their
 * settings (signal-with-start of {@code configure}), listed and read from their memo (no worker
 * needed), and changed by updates bounded by {@link #ANSWER_WITHIN} (a person waits for the answer).
 * Every failure is one {@link MergeQueueException} whose {@link MergeQueueException#kind} a surface
 * maps to its own answer (the console: a 404, a 409, a 503; an MCP tool: its error result).
 */
public final class MergeQueues {
  /** How long a change waits for a worker to apply it. */
  public static final Duration ANSWER_WITHIN = BoundedUpdate.ANSWER_WITHIN;
  /** How long one page of the listing may take. */
  static final Duration LIST_WITHIN = Duration.ofSeconds(10);
  /** The workflow type of every queue. */
  public static final String WORKFLOW_TYPE = "MergeQueue";
  /** The most queues a listing reads: more than any colony has repositories. */
  static final int MAX_LISTED = 1000;

  private final WorkflowClient client;
  private final String colony;
  private final String identity;

  /** The queues of {@code colony}, changed as the client's identity. */
  public MergeQueues(WorkflowClient client, String colony) {
    this(client, colony, null);
  }

  private MergeQueues(WorkflowClient client, String colony, String identity) {
    this.client = client;
    this.colony = colony;
    this.identity = identity;
  }

  /** The same queues, changed as {@code who} (the history's record of who decided: {@code console:@Ada}). */
  public MergeQueues as(String who) {
    return new MergeQueues(client, colony, who);
  }

  /** What went wrong, for a surface to answer in its own terms; the message is the sentence to show. */
  public enum Kind {
    /** No such queue runs in the colony. */
    NO_QUEUE,
    /** The queue refused the change (its validator's sentence). */
    REFUSED,
    /** No worker applied the change in time: it was not applied. */
    NO_WORKER,
    /** Temporal answered something else, or a start or a read failed. */
    FAILED
  }

  /** A refusal or a failure, as one sentence. */
  public static final class MergeQueueException extends RuntimeException {
    private final Kind kind;

    public MergeQueueException(String message) {
      this(Kind.FAILED, message, null);
    }

    public MergeQueueException(Kind kind, String message, Throwable cause) {
      super(message, cause);
      this.kind = kind;
    }

    public Kind kind() {
      return kind;
    }
  }

  /** The visibility query of the colony's running queues. */
  public static String runningQuery(String colony) {
    return VisibilityQuery.where().eq("WorkflowType", WORKFLOW_TYPE).eq("ColonyName", colony).running().toString();
  }

  /** The card a queue starts with, before its worker first writes one. */
  public static MergeCard emptyCard(MergeRepo r) {
    return new MergeCard(r.colony(), r.name(), r.target(), r.land(), r.review(), null, List.of(), List.of(), Map.of(),
        Map.of(), Map.of(), 0, 0);
  }

  /**
   * Whether {@code card} only names a queue whose card could not be read (its worker has not written
   * it yet: a queue an ant's submit started; or a newer release's card): no target, no items.
   */
  public static boolean unread(MergeCard card) {
    return card.target() == null;
  }

  /**
   * Starts the queue with these settings, or sends them to the running one (signal-with-start of
   * {@code configure}): idempotent, on {@code taskQueue}, with {@code ColonyName} and its first card.
   */
  public WorkflowExecution start(String taskQueue, MergeRepo repo) {
    MergeQueueWorkflow w = client.newWorkflowStub(MergeQueueWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(repo.workflowId())
        .setTaskQueue(taskQueue)
        .setTypedSearchAttributes(SearchAttributes.newBuilder().set(AntSearchAttributes.COLONY, repo.colony()).build())
        .setMemo(Map.of(MergeCard.MEMO, emptyCard(repo)))
        .setStaticSummary("merge queue " + repo.name() + " → " + repo.target())
        .build());
    BatchRequest req = client.newSignalWithStartRequest();
    req.add(w::run, MergeQueueState.start(repo));
    req.add(w::configure, repo);
    try {
      return client.signalWithStart(req);
    } catch (RuntimeException e) {
      throw failure("starting merge queue " + repo.name(), e);
    }
  }

  /**
   * The cards of the colony's running queues, sorted by repository name, one per queue (a queue that
   * continued as new may be listed twice for a moment: the newest card wins). A queue whose card
   * cannot be read is named by an {@link #unread} card.
   */
  public List<MergeCard> cards() {
    List<MergeCard> out = new ArrayList<>();
    com.google.protobuf.ByteString token = com.google.protobuf.ByteString.EMPTY;
    var converter = client.getOptions().getDataConverter();
    try {
      do {
        var request = io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace()).setQuery(runningQuery(colony))
            .setPageSize(100).setNextPageToken(token).build();
        var page = client.getWorkflowServiceStubs().blockingStub()
            .withDeadlineAfter(LIST_WITHIN.toMillis(), TimeUnit.MILLISECONDS).listWorkflowExecutions(request);
        for (var info : page.getExecutionsList()) {
          MergeCard c = card(new WorkflowExecutionMetadata(info, converter), info.getExecution().getWorkflowId());
          if (out.size() < MAX_LISTED) {
            out.add(c);
          }
        }
        token = page.getNextPageToken();
      } while (!token.isEmpty() && out.size() < MAX_LISTED);
    } catch (io.grpc.StatusRuntimeException e) {
      if (e.getStatus().getCode() != io.grpc.Status.Code.UNIMPLEMENTED) {
        throw failure("listing the merge queues of colony " + colony, e);
      }
      out.clear();
      out.addAll(openByDescribing()); // the in-memory server: no visibility queries
    } catch (RuntimeException e) {
      throw failure("listing the merge queues of colony " + colony, e);
    }
    TreeMap<String, MergeCard> byRepo = new TreeMap<>();
    for (MergeCard c : out) {
      byRepo.merge(c.repo(), c, (a, b) -> unread(a) != unread(b) ? (unread(a) ? b : a)
          : a.updatedAt() >= b.updatedAt() ? a : b);
    }
    return List.copyOf(byRepo.values());
  }

  /** The in-memory server's way: the open MergeQueue runs, this colony's by id, each described. */
  private List<MergeCard> openByDescribing() {
    String prefix = MergeQueueWorkflow.workflowId(colony, "");
    List<String> ids = new ArrayList<>();
    com.google.protobuf.ByteString token = com.google.protobuf.ByteString.EMPTY;
    do {
      var r = client.getWorkflowServiceStubs().blockingStub()
          .withDeadlineAfter(LIST_WITHIN.toMillis(), TimeUnit.MILLISECONDS)
          .listOpenWorkflowExecutions(io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest.newBuilder()
              .setNamespace(client.getOptions().getNamespace())
              .setTypeFilter(io.temporal.api.filter.v1.WorkflowTypeFilter.newBuilder().setName(WORKFLOW_TYPE))
              .setMaximumPageSize(1000).setNextPageToken(token).build());
      r.getExecutionsList().stream().map(i -> i.getExecution().getWorkflowId()).filter(id -> id.startsWith(prefix))
          .forEach(ids::add);
      token = r.getNextPageToken();
    } while (!token.isEmpty() && ids.size() < MAX_LISTED);
    List<MergeCard> out = new ArrayList<>();
    for (String id : ids) {
      card(id.substring(prefix.length())).ifPresent(out::add);
    }
    return out;
  }

  /** The names of the colony's running queues. */
  public List<String> names() {
    return cards().stream().map(MergeCard::repo).toList();
  }

  /** The card of queue {@code name}; empty when there is no such queue (or it is not running). */
  public Optional<MergeCard> card(String name) {
    String id = MergeQueueWorkflow.workflowId(colony, name);
    WorkflowExecutionDescription d;
    try {
      d = client.newUntypedWorkflowStub(id).describe();
    } catch (RuntimeException e) {
      if (Rpc.notFound(e)) {
        return Optional.empty();
      }
      throw failure("reading merge queue " + name, e);
    }
    if (d.getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return Optional.empty();
    }
    return Optional.of(card(d, id));
  }

  /** The queue's memo card; an {@link #unread} one named by its id ({@code merge/<colony>/<name>}) when there is none. */
  private MergeCard card(WorkflowExecutionMetadata m, String id) {
    MergeCard c;
    try {
      c = m.getMemo(MergeCard.MEMO, MergeCard.class, MergeCard.class);
    } catch (RuntimeException e) {
      c = null;
    }
    if (c != null && c.repo() != null) {
      return c;
    }
    String name = id.substring(id.lastIndexOf('/') + 1);
    return new MergeCard(colony, name, null, null, false, null, List.of(), List.of(), Map.of(), Map.of(), Map.of(), 0, 0);
  }

  /**
   * Submits an ant's branch: the queue is started (or given its settings) first, then asked with
   * the {@code submit} update.
   */
  public SubmitReply submit(String taskQueue, MergeRepo repo, Submission s) {
    start(taskQueue, repo);
    return update(repo.name(), "submit", s);
  }

  /** A human's decision on an item of queue {@code name}: one bounded update, the queue's answer. */
  public SubmitReply decide(String name, MergeDecision d) {
    return update(name, "decide", d);
  }

  /** Tells the colony's running queues a task was approved; best effort. Returns how many were told. */
  public int taskApproved(String taskId) {
    int n = 0;
    for (String name : names()) {
      try {
        client.newUntypedWorkflowStub(MergeQueueWorkflow.workflowId(colony, name)).signal("taskApproved", taskId);
        n++;
      } catch (RuntimeException e) {
        // it ended meanwhile, or the server is gone: the queue also asks the board itself
      }
    }
    return n;
  }

  /** One update of a running queue, bounded: refused with the validator's sentence, or answered. */
  private SubmitReply update(String name, String update, Object arg) {
    BoundedUpdate call = new BoundedUpdate(client, colony).within(ANSWER_WITHIN);
    try {
      return (identity == null ? call : call.as(identity))
          .call(MergeQueueWorkflow.workflowId(colony, name), update, arg, SubmitReply.class);
    } catch (BoundedUpdate.NotRunning e) {
      throw new MergeQueueException(Kind.NO_QUEUE, "there is no merge queue " + name + " in colony " + colony, e);
    } catch (BoundedUpdate.Unreachable e) {
      throw new MergeQueueException(Kind.FAILED, "asking merge queue " + name + " failed: " + e.getMessage(), e);
    } catch (BoundedUpdate.Refused e) {
      throw new MergeQueueException(Kind.REFUSED, e.getMessage(), e.getCause());
    } catch (BoundedUpdate.NoWorker e) {
      throw new MergeQueueException(Kind.NO_WORKER, e.getMessage(), e);
    }
  }

  private static MergeQueueException failure(String what, Throwable e) {
    if (e instanceof MergeQueueException m) {
      return m;
    }
    return new MergeQueueException(Kind.FAILED, what + " failed: " + BoundedUpdate.temporalSaid(e), e);
  }
}
