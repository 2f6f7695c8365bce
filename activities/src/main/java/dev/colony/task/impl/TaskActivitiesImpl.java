package dev.colony.task.impl;

import dev.colony.ant.AntWorkflow;
import dev.colony.board.TaskQueries;
import dev.colony.client.Rpc;
import dev.colony.client.VisibilityQuery;
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
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
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
  /** The most of an ant's own In Progress tasks read (it holds one at a time). */
  static final int MAX_MINE = 100;

  /** Visibility as {@link #find} reads it: the candidates a query lists, in any order, page by page. */
  interface Listing {
    Stream<TaskCandidate> list(String query, boolean mine);
  }

  private final WorkflowClient client;
  private final String namespace;
  private final Listing listing;
  private final LongSupplier clock;
  private final Ants ants;
  private final java.util.Random random;

  public TaskActivitiesImpl(WorkflowClient client, String namespace) {
    this(client, namespace, null, System::currentTimeMillis, null, new java.util.Random());
  }

  /** With the visibility {@code listing} and {@code ants} given (tests, the bench); {@code null}: the client's. */
  TaskActivitiesImpl(WorkflowClient client, String namespace, Listing listing, LongSupplier clock, Ants ants,
      java.util.Random random) {
    this.client = client;
    this.namespace = namespace;
    this.listing = listing != null ? listing
        : (query, mine) -> client.listExecutions(query).map(m -> candidate(m, mine)).filter(Objects::nonNull);
    this.clock = clock;
    this.ants = ants != null ? ants : ants(client);
    this.random = random;
  }

  /**
   * The ant's own In Progress task, then the best To Do tasks it may take, at most {@code limit}.
   * Visibility lists newest first and cannot sort by the rank aging gives, so every To Do task the
   * ant may take is read (in pages) and only the best {@code limit} kept: the oldest tasks of a
   * board of any size are seen, and aging's order holds.
   */
  @Override
  public List<TaskCandidate> find(FindTasks f) {
    VisibilityQuery tasks = TaskQueries.tasksOf(f.colony()).running();
    int limit = Math.max(0, f.limit());
    Comparator<TaskCandidate> order = TaskOrder.order(clock.getAsLong(), f.agingSeconds());
    // The worst kept on top, so a better one read later takes its place.
    PriorityQueue<TaskCandidate> best = new PriorityQueue<>(order.reversed());
    Consumer<TaskCandidate> keep = c -> {
      if (limit == 0) {
        return;
      }
      if (best.size() < limit) {
        best.add(c);
      } else if (order.compare(c, best.peek()) < 0) {
        best.poll();
        best.add(c);
      }
    };
    String mineQuery = tasks.eq("TaskState", TaskState.IN_PROGRESS.word())
        .eq("TaskTags", TaskSearchAttributes.workerTag(f.ant())).toString();
    // The ant's own tasks are read while the To Do pages are (two visibility calls at once, not one after the other).
    java.util.concurrent.CompletableFuture<List<TaskCandidate>> mine = f.takerTags().isEmpty()
        ? java.util.concurrent.CompletableFuture.completedFuture(null)
        : java.util.concurrent.CompletableFuture.supplyAsync(() -> readMine(mineQuery), LOOKS);
    if (!f.takerTags().isEmpty()) {
      try (Stream<TaskCandidate> todo = listing.list(tasks.eq("TaskState", TaskState.TODO.word())
          .in("TaskTags", f.takerTags()).toString(), false)) {
        todo.forEach(keep);
      }
    }
    List<TaskCandidate> own;
    try {
      own = f.takerTags().isEmpty() ? readMine(mineQuery) : mine.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    own.forEach(keep);
    List<TaskCandidate> out = new ArrayList<>(best);
    out.sort(order);
    return List.copyOf(out);
  }

  /** Where a look's second visibility call runs (virtual threads: they wait on gRPC). */
  private static final java.util.concurrent.Executor LOOKS = command -> Thread.ofVirtual().name("task-look").start(command);

  private List<TaskCandidate> readMine(String query) {
    try (Stream<TaskCandidate> mine = listing.list(query, true)) {
      return mine.limit(MAX_MINE).toList();
    }
  }

  private static TaskCandidate candidate(WorkflowExecutionMetadata m, boolean mine) {
    String[] id = taskId(m.getExecution().getWorkflowId());
    if (id == null) {
      return null;
    }
    TaskCard card = TaskQueries.card(m);
    Priority p = Priority.parse(m.getTypedSearchAttributes().get(TaskSearchAttributes.PRIORITY));
    long queued = card != null ? card.stateSinceMillis() : m.getStartTime().toEpochMilli();
    return new TaskCandidate(id[1], p == null ? Priority.NORMAL : p, queued, mine);
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
  public ClaimResult take(FindTasks find, Claim claim) {
    for (TaskCandidate c : find(find)) {
      ClaimResult r = claim(find.colony(), c.id(), claim);
      if (r != null && r.taken()) {
        return r;
      }
    }
    return ClaimResult.refused("no task to take");
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
      if (Rpc.notFound(e)) {
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
      if (Rpc.notFound(e)) {
        return new TaskReply(false, TaskState.DONE, "task " + taskId + " is gone (Done, or removed)");
      }
      throw e;
    }
  }

  /**
   * A task in To Do tells at most this many of the ants waiting for work that take its pool: one
   * task needs one ant, and a few cover an ant that takes another task first. The others find it
   * at their own next look (before a session, or {@code TaskDesk.RECHECK} while waiting).
   */
  static final int ANNOUNCE_WAKES = 4;
  /** The waiting ants read (one visibility page) to pick those {@link #ANNOUNCE_WAKES} from at random. */
  static final int ANNOUNCE_SAMPLE = 200;

  /**
   * Tells the ants that may take a task now in To Do: the ant it is assigned to by name (that one
   * looks at the board only when woken, so whatever it is doing), and for a pool or {@code *} at
   * most {@link #ANNOUNCE_WAKES} ants taking it: those that wait for work first
   * ({@code AntState = 'waiting'}: a wake ends their wait), then, when fewer wait, busy ones (their
   * wake ends their next wait at once), each picked at random among the first
   * {@link #ANNOUNCE_SAMPLE} so that tasks added together wake different ants. One task costs at
   * most two visibility pages and a few signals however big the colony.
   * The ants told are heartbeat details: a retried attempt tells no ant twice.
   */
  @Override
  public int announce(String colony, List<String> takeTags) {
    if (takeTags.isEmpty()) {
      return 0;
    }
    ActivityExecutionContext context = context();
    Set<String> told = new TreeSet<>();
    if (context != null) {
      context.getHeartbeatDetails(String[].class).ifPresent(d -> told.addAll(List.of(d)));
      // An ant woken now looks at visibility: wait (briefly) until it lists this task in To Do,
      // or the ant finds nothing and waits for its next look.
      awaitListed(context.getInfo().getWorkflowId());
    }
    Set<String> byName = new TreeSet<>();
    List<String> pools = new ArrayList<>();
    for (String tag : takeTags) {
      if (tag.startsWith(TAKE_ANT)) {
        byName.add(AntIds.workflowId(colony, tag.substring(TAKE_ANT.length())));
      } else {
        pools.add(tag);
      }
    }
    for (String id : byName) {
      if (!told.contains(id)) {
        wake(id, told, context);
      }
    }
    if (!pools.isEmpty()) {
      long poolWakes = told.stream().filter(id -> !byName.contains(id)).count();
      VisibilityQuery takers = VisibilityQuery.where().eq("WorkflowType", AntIds.WORKFLOW_TYPE).running()
          .eq("ColonyName", colony).in("AntTakes", pools);
      poolWakes = wakeSome(takers.eq("AntState", "waiting").toString(), poolWakes, told, context);
      // Fewer waiting than that (or not yet shown as waiting: an ant that looked just before the
      // task came): busy ones too. Their wake is kept, so their next wait ends at once with a look.
      wakeSome(takers.toString(), poolWakes, told, context);
    }
    return told.size();
  }

  /** Wakes ants the query lists, at random among one page of them, until {@link #ANNOUNCE_WAKES}. */
  private long wakeSome(String query, long woken, Set<String> told, ActivityExecutionContext context) {
    if (woken >= ANNOUNCE_WAKES) {
      return woken;
    }
    List<String> sample;
    try (Stream<String> ids = ants.waiting(query)) {
      sample = new ArrayList<>(ids.limit(ANNOUNCE_SAMPLE).filter(id -> !told.contains(id)).toList());
    }
    Collections.shuffle(sample, random);
    for (String id : sample) {
      if (woken >= ANNOUNCE_WAKES) {
        break;
      }
      if (wake(id, told, context)) {
        woken++;
      }
    }
    return woken;
  }

  private static final String TAKE_ANT = dev.colony.task.Assignee.takeAnt("");
  /** How long an announcement waits for visibility to list its task in To Do before telling ants anyway. */
  static final long LISTED_WITHIN_MILLIS = 3_000;

  private void awaitListed(String taskWorkflowId) {
    if (taskWorkflowId == null || !taskWorkflowId.startsWith("task/")) {
      return;
    }
    String query = VisibilityQuery.where().eq("WorkflowId", taskWorkflowId).eq("TaskState", TaskState.TODO.word())
        .toString();
    long until = System.currentTimeMillis() + LISTED_WITHIN_MILLIS;
    while (!ants.listed(query) && System.currentTimeMillis() < until) {
      try {
        Thread.sleep(25);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Signals {@code tasksWaiting} to one ant; false when it is not running (it ended meanwhile). */
  private boolean wake(String workflowId, Set<String> told, ActivityExecutionContext context) {
    if (!ants.wake(workflowId)) {
      return false;
    }
    told.add(workflowId);
    if (context != null) {
      context.heartbeat(told.toArray(String[]::new));
    }
    return true;
  }

  private static ActivityExecutionContext context() {
    try {
      return Activity.getExecutionContext();
    } catch (RuntimeException e) {
      return null; // called outside an activity (tests, the bench)
    }
  }

  /** The ants as {@link #announce} reaches them: the waiting ones a query lists, and a signal to one. */
  interface Ants {
    Stream<String> waiting(String query);

    /** Whether visibility lists a workflow the query names. */
    boolean listed(String query);

    /** Signals {@code tasksWaiting}; false when the ant is not running. */
    boolean wake(String workflowId);
  }

  private static Ants ants(WorkflowClient client) {
    return new Ants() {
      @Override
      public Stream<String> waiting(String query) {
        // One page of the sample's size: the SDK's listing would read a whole (larger) page.
        return client.getWorkflowServiceStubs().blockingStub().listWorkflowExecutions(
                io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest.newBuilder()
                    .setNamespace(client.getOptions().getNamespace()).setQuery(query).setPageSize(ANNOUNCE_SAMPLE)
                    .build())
            .getExecutionsList().stream().map(e -> e.getExecution().getWorkflowId());
      }

      @Override
      public boolean listed(String query) {
        return client.getWorkflowServiceStubs().blockingStub().countWorkflowExecutions(
            io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest.newBuilder()
                .setNamespace(client.getOptions().getNamespace()).setQuery(query).build()).getCount() > 0;
      }

      @Override
      public boolean wake(String workflowId) {
        try {
          client.newWorkflowStub(AntWorkflow.class, workflowId).tasksWaiting();
          return true;
        } catch (RuntimeException e) {
          if (!Rpc.notFound(e)) {
            throw e;
          }
          return false; // it ended between the list and the signal
        }
      }
    };
  }

  @Override
  public boolean antRunning(String colony, String ant) {
    try {
      return client.newUntypedWorkflowStub(AntIds.workflowId(colony, ant)).describe().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (RuntimeException e) {
      if (Rpc.notFound(e)) {
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
      if (Rpc.notFound(e)) {
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
      if (!Rpc.notFound(e)) {
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
