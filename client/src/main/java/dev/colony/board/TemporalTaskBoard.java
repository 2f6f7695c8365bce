package dev.colony.board;

import dev.colony.client.BoundedUpdate;
import dev.colony.client.VisibilityQuery;
import dev.colony.spec.AntIds;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskCards;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskRun;
import dev.colony.task.TaskSearchAttributes;
import dev.colony.task.TaskSettings;
import dev.colony.task.TaskState;
import dev.colony.task.TaskText;
import dev.colony.task.TaskWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The board on a Temporal namespace: tasks are {@code TaskWorkflow}s on the colony's task queue.
 * Reads are visibility and memos (no worker needed); a change is an update that a worker applies,
 * waited for {@link #ANSWER_WITHIN} at most, because a person is waiting for the answer.
 */
public final class TemporalTaskBoard implements TaskBoard {
  /** How long a change waits for a worker to apply it. */
  public static final Duration ANSWER_WITHIN = BoundedUpdate.ANSWER_WITHIN;
  /** The most tasks a list reads (it sorts them by last change: visibility cannot). */
  public static final int MAX_LISTED = 10_000;
  /** The letters of a made id: no 0/o, 1/l/i, so it is read aloud and typed back without doubt. */
  static final String ID_LETTERS = "23456789abcdefghjkmnpqrstuvwxyz";
  static final int ID_LENGTH = 6;
  private static final int ID_TRIES = 5;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final WorkflowClient client;
  private final String colony;
  private final TaskSettings settings;

  public TemporalTaskBoard(WorkflowClient client, String colony, TaskSettings settings) {
    this.client = client;
    this.colony = colony;
    this.settings = settings == null ? TaskSettings.defaults() : settings;
  }

  @Override
  public TaskCard add(NewTask task) {
    if (task == null) {
      throw new TaskBoardException("there is no task to add");
    }
    check(TaskText.titleProblem(task.title()));
    check(TaskText.bodyProblem(task.body()));
    check(TaskText.labelsProblem(task.labels()));
    check(TaskText.urlProblem(task.issueUrl()));
    TaskState state = task.state() == null ? TaskState.TODO : task.state();
    if (state != TaskState.TODO && state != TaskState.BACKLOG) {
      throw new TaskBoardException("a new task starts in the Backlog or To Do, not " + state.label());
    }
    if (task.id() != null) {
      checkId(task.id());
      TaskCard card = card(task, task.id(), state);
      try {
        start(card, new TaskRun(colony, withId(task, task.id(), state), null, settings),
            WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE);
        return card;
      } catch (WorkflowExecutionAlreadyStarted e) {
        if (task.id().startsWith("gh-")) {
          TaskCard existing = get(task.id()); // an issue's task is made once: this is it
          if (existing != null) {
            return existing;
          }
        }
        throw new TaskBoardException("task " + task.id() + " already exists in colony " + colony);
      }
    }
    for (int i = 0; i < ID_TRIES; i++) {
      String id = newId();
      TaskCard card = card(task, id, state);
      try {
        start(card, new TaskRun(colony, withId(task, id, state), null, settings),
            WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE);
        return card;
      } catch (WorkflowExecutionAlreadyStarted taken) {
        // that id was taken (one in 887 million per task): draw another
      }
    }
    throw new TaskBoardException("could not find a free task id in " + ID_TRIES + " tries");
  }

  private static NewTask withId(NewTask t, String id, TaskState state) {
    return new NewTask(id, t.title(), t.body(), t.priority(), t.labels(), t.assignee(), state, t.issueUrl(), t.by());
  }

  private TaskCard card(NewTask t, String id, TaskState state) {
    return TaskCards.fresh(colony, withId(t, id, state), System.currentTimeMillis());
  }

  static String newId() {
    StringBuilder sb = new StringBuilder(ID_LENGTH);
    for (int i = 0; i < ID_LENGTH; i++) {
      sb.append(ID_LETTERS.charAt(RANDOM.nextInt(ID_LETTERS.length())));
    }
    return sb.toString();
  }

  /**
   * Starts a task's run with its card already in the memo and search attributes, so it is listed
   * at once; on the colony's queue, like the colony's other long-lived workflows.
   */
  private void start(TaskCard card, TaskRun run, WorkflowIdReusePolicy reuse) {
    TaskWorkflow stub = client.newWorkflowStub(TaskWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(TaskIds.workflowId(colony, card.id()))
        .setTaskQueue(AntIds.taskQueue(colony))
        .setWorkflowIdReusePolicy(reuse)
        .setTypedSearchAttributes(attributes(card))
        .setMemo(Map.of(TaskCard.MEMO_KEY, card))
        .setStaticSummary("task " + card.id() + ": " + TaskText.bounded(card.title(), 100))
        .build());
    call("starting task " + card.id(), () -> WorkflowClient.start(stub::run, run));
  }

  private static SearchAttributes attributes(TaskCard c) {
    List<String> tags = new ArrayList<>(Assignee.tags(c.assignee(), c.labels()));
    if (c.state() == TaskState.IN_PROGRESS && c.worker() != null) {
      tags.add(TaskSearchAttributes.workerTag(c.worker()));
    }
    return SearchAttributes.newBuilder()
        .set(TaskSearchAttributes.COLONY, c.colony())
        .set(TaskSearchAttributes.STATE, c.state().word())
        .set(TaskSearchAttributes.PRIORITY, c.priority().word())
        .set(TaskSearchAttributes.TAGS, List.copyOf(new java.util.TreeSet<>(tags)))
        .set(TaskSearchAttributes.UPDATED_AT, OffsetDateTime.ofInstant(Instant.ofEpochMilli(c.updatedAtMillis()),
            ZoneOffset.UTC))
        .build();
  }

  @Override
  public List<TaskCard> list(Filter filter) {
    Filter f = filter == null ? Filter.all(100) : filter;
    if (f.limit() < 1 || f.limit() > MAX_LISTED) {
      throw new TaskBoardException("a list shows 1 to " + MAX_LISTED + " tasks, not " + f.limit());
    }
    VisibilityQuery query = query(f);
    // Open tasks first, then Done ones (closed runs) with what is left of the bound: many Done tasks
    // never push an open one off the board. One column reads only its newest `limit` (a board's
    // first cards); the whole board reads up to MAX_LISTED and sorts them by their last change.
    int bound = f.state() != null ? f.limit() : MAX_LISTED;
    List<TaskCard> cards = new java.util.ArrayList<>(call("listing the tasks of colony " + colony,
        () -> read(query.running().toString(), bound)));
    if (cards.size() < bound && (f.state() == null || f.state() == TaskState.DONE)) {
      int room = bound - cards.size();
      cards.addAll(call("listing the tasks of colony " + colony,
          () -> read(query.notEq("ExecutionStatus", "Running").toString(), room)));
    }
    // One card per task: a reopened task's Done run is listed beside its open one while visibility keeps it.
    Map<String, TaskCard> byId = new java.util.LinkedHashMap<>();
    cards.stream().sorted(Comparator.comparingLong(TaskCard::updatedAtMillis).reversed().thenComparing(TaskCard::id))
        .forEach(c -> byId.putIfAbsent(c.id(), c));
    return byId.values().stream().limit(f.limit()).toList();
  }

  /** The visibility query of the tasks {@code f} names (its limit aside); a bad filter is a sentence. */
  private VisibilityQuery query(Filter f) {
    VisibilityQuery q = TaskQueries.tasksOf(colony);
    try {
      if (f.state() != null) {
        q = q.eq("TaskState", f.state().word());
      }
      if (f.assignee() != null) {
        Assignee a = Assignee.parse(f.assignee());
        q = q.eq("TaskTags", Assignee.assigneeTag(a));
      }
      if (f.label() != null) {
        check(TaskText.labelsProblem(List.of(f.label())));
        q = q.eq("TaskTags", Assignee.labelTag(f.label().strip()));
      }
      if (f.worker() != null) {
        Assignee w = Assignee.parse(f.worker());
        if (w == null || w.kind() != Assignee.Kind.ANT) {
          throw new TaskBoardException("'" + TaskText.bounded(f.worker(), 64) + "' is not an ant's name");
        }
        q = q.eq("TaskTags", TaskSearchAttributes.workerTag(w.name()));
      }
    } catch (IllegalArgumentException e) {
      throw new TaskBoardException(e.getMessage());
    }
    return q;
  }

  /**
   * At most {@code bound} cards of {@code query}, in visibility's order, in pages no larger than
   * needed: a column's first 50 cards are one page of 50, not a page of 1,000 memos.
   */
  private List<TaskCard> read(String query, int bound) {
    List<TaskCard> out = new java.util.ArrayList<>();
    com.google.protobuf.ByteString token = com.google.protobuf.ByteString.EMPTY;
    var converter = client.getOptions().getDataConverter();
    do {
      var request = io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest.newBuilder()
          .setNamespace(client.getOptions().getNamespace()).setQuery(query)
          .setPageSize(Math.min(Math.max(1, bound - out.size()), 1000)).setNextPageToken(token).build();
      var page = client.getWorkflowServiceStubs().blockingStub()
          .withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS).listWorkflowExecutions(request);
      for (var info : page.getExecutionsList()) {
        TaskCard c = TaskQueries.card(new io.temporal.client.WorkflowExecutionMetadata(info, converter));
        if (c != null && out.size() < bound) {
          out.add(c);
        }
      }
      token = page.getNextPageToken();
    } while (!token.isEmpty() && out.size() < bound);
    return out;
  }

  @Override
  public long count(Filter filter) {
    String query = query(filter == null ? Filter.all(1) : filter).toString();
    return call("counting the tasks of colony " + colony, () -> client.countWorkflows(query).getCount());
  }

  @Override
  public TaskCard get(String id) {
    checkId(id);
    WorkflowExecutionDescription d = describe(id);
    return d == null ? null : TaskQueries.card(d);
  }

  private WorkflowExecutionDescription describe(String id) {
    try {
      return call("reading task " + id, () -> client.newUntypedWorkflowStub(TaskIds.workflowId(colony, id)).describe());
    } catch (TaskBoardException e) {
      if (dev.colony.client.Rpc.notFound(e.getCause())) {
        return null;
      }
      throw e;
    }
  }

  @Override
  public TaskCard approve(String id, TaskChange change) {
    TaskCard card = change(id, "approve", change);
    tellMergeQueues(id);
    return card;
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TemporalTaskBoard.class);

  /**
   * Best effort: the colony's running merge queues learn the task was approved, so its work
   * awaiting review may land now (each queue also asks the board itself while it waits).
   */
  private void tellMergeQueues(String id) {
    try {
      new dev.colony.client.MergeQueues(client, colony).taskApproved(id);
    } catch (RuntimeException e) {
      LOG.warn("task {} approved, but the merge queues of colony {} were not told: {}", id, colony, e.getMessage());
    }
  }

  @Override
  public TaskCard requeue(String id, TaskChange change) {
    return change(id, "requeue", change);
  }

  @Override
  public TaskCard move(String id, TaskChange change) {
    return change(id, "move", change);
  }

  @Override
  public TaskCard assign(String id, TaskChange change) {
    return change(id, "assign", change);
  }

  @Override
  public TaskCard comment(String id, TaskChange change) {
    return change(id, "comment", change);
  }

  /**
   * One update to a task: refused with the validator's sentence, or applied and answered with the
   * card. A task whose run is over (Done) takes a move or a re-queue only: that starts its next run.
   */
  private TaskCard change(String id, String update, TaskChange change) {
    checkId(id);
    if (change == null) {
      throw new TaskBoardException("there is no change to make");
    }
    WorkflowExecutionDescription d = describe(id);
    if (d == null) {
      throw new TaskBoardException("there is no task " + id + " in colony " + colony);
    }
    if (d.getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return reopen(id, update, change, TaskQueries.card(d));
    }
    try {
      return new BoundedUpdate(client, colony).within(ANSWER_WITHIN).call(TaskIds.workflowId(colony, id), update, change,
          TaskCard.class);
    } catch (BoundedUpdate.NotRunning e) {
      throw new TaskBoardException("task " + id + " ended while it was being changed: look at it again", e);
    } catch (BoundedUpdate.Unreachable e) {
      throw new TaskBoardException("changing task " + id + " failed: " + e.getMessage(), e);
    } catch (BoundedUpdate.Refused e) {
      throw new TaskBoardException(e.getMessage(), e.getCause());
    } catch (BoundedUpdate.NoWorker e) {
      throw new TaskBoardException(e.getMessage(), e);
    }
  }

  private TaskCard reopen(String id, String update, TaskChange change, TaskCard last) {
    boolean reopens = update.equals("move") || update.equals("requeue");
    if (last == null) {
      throw new TaskBoardException("task " + id + " has ended and left no card to reopen it from");
    }
    if (!reopens) {
      throw new TaskBoardException("task " + id + " is " + last.state().label() + ": move it to To Do to reopen it");
    }
    TaskCard next;
    try {
      next = TaskCards.reopened(last, change, update.equals("requeue"), System.currentTimeMillis());
    } catch (IllegalArgumentException e) {
      throw new TaskBoardException(e.getMessage());
    }
    try {
      start(next, new TaskRun(colony, null, next, settings), WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE);
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw new TaskBoardException("task " + id + " was reopened by someone else meanwhile: look at it again");
    }
    return next;
  }

  private static void check(String problem) {
    if (problem != null) {
      throw new TaskBoardException(problem);
    }
  }

  private static void checkId(String id) {
    if (id == null || !TaskIds.ID.matcher(id).matches()) {
      throw new TaskBoardException("'" + TaskText.bounded(String.valueOf(id), 40) + "' is not a task id (lower-case "
          + "letters, digits, '.', '_' and '-', up to 100)");
    }
  }

  /** Runs a call to Temporal; a failure to reach it becomes a sentence (WorkflowExecutionAlreadyStarted passes). */
  private <T> T call(String what, Supplier<T> c) {
    try {
      return c.get();
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw e;
    } catch (TaskBoardException e) {
      throw e;
    } catch (RuntimeException e) {
      throw failure(what, e);
    }
  }

  private TaskBoardException failure(String what, Throwable e) {
    io.grpc.StatusRuntimeException s = null;
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof io.grpc.StatusRuntimeException g) {
        s = g;
        break;
      }
    }
    String detail = s == null ? e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
        : s.getStatus().getCode() + (s.getStatus().getDescription() == null ? "" : ": " + s.getStatus().getDescription());
    return new TaskBoardException(what + " failed: Temporal answered " + TaskText.bounded(detail, 300), e);
  }
}
