package dev.colony.cli;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.board.TemporalTaskBoard;
import dev.colony.fault.Cluster;
import dev.colony.task.Assignee;
import dev.colony.task.Claim;
import dev.colony.task.ClaimResult;
import dev.colony.task.FindTasks;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCandidate;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskReply;
import dev.colony.task.TaskReport;
import dev.colony.task.TaskSettings;
import dev.colony.task.TaskState;
import dev.colony.task.impl.TaskActivitiesImpl;
import dev.colony.worker.ColonyWorker;
import dev.colony.worker.WorkerSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The board end to end on the real Temporal dev server (Colony's flags, so its search attributes):
 * tasks added, listed and read with no worker involved, changed through a worker's TaskWorkflow,
 * claimed by two ants at once, reopened from Done; and the sentence a change gets with no worker.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TaskBoardIT {
  private static final String COLONY = "board";

  @TempDir
  static Path tmp;

  private static DevServer server;
  private static Temporal temporal;
  private static ColonyWorker worker;
  private static TaskBoard board;
  private static TaskActivitiesImpl ants;

  @BeforeAll
  static void startServerAndWorker() throws Exception {
    // No CLI is a failure naming bin/temporal.sh, never a skip (a bare mvn verify would pass without this test).
    TemporalCli cli = new TemporalCli(Path.of(Cluster.temporalCli()));
    server = DevServer.start(cli, Cluster.freePort(), Cluster.freePort(), null, tmp.resolve("server.log"));
    temporal = Temporal.connect(server.address(), "default");
    worker = ColonyWorker.start(temporal.client, new WorkerSettings(dev.colony.spec.AntIds.taskQueue(COLONY), true,
        post -> {}, "task-board-it", null));
    board = new TemporalTaskBoard(temporal.client, COLONY, TaskSettings.defaults());
    ants = new TaskActivitiesImpl(temporal.client, "default");
  }

  @AfterAll
  static void stop() throws Exception {
    if (worker != null) {
      worker.close(java.time.Duration.ZERO);
    }
    if (temporal != null) {
      temporal.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static NewTask task(String title, List<String> labels, Assignee a, TaskState state, Priority p) {
    return new NewTask(null, title, "body of " + title, p, labels, a, state, null, "cli");
  }

  private static TaskChange by(String text) {
    return new TaskChange("cli", null, null, text);
  }

  private static String refusal(Runnable change) {
    return assertThrows(TaskBoardException.class, change::run).getMessage();
  }

  private static List<String> ids(List<TaskCard> cards) {
    return cards.stream().map(TaskCard::id).toList();
  }

  @Test
  void tasksAreAddedListedFilteredAndReadFromVisibility() {
    TaskCard docs = board.add(task("Write the guide", List.of("Docs"), null, null, Priority.NORMAL));
    TaskCard mine = board.add(task("Fix login", List.of(), Assignee.ant("alpha"), TaskState.TODO, Priority.HIGH));
    TaskCard later = board.add(task("Someday", List.of("docs"), null, TaskState.BACKLOG, Priority.LOW));
    assertTrue(docs.id().matches("[23456789abcdefghjkmnpqrstuvwxyz]{6}"), docs.id());
    assertEquals(List.of("docs"), docs.labels());
    assertEquals(TaskState.TODO, docs.state());

    eventually(() -> board.list(new TaskBoard.Filter(null, null, "docs", null, 100)).size() == 2, "both docs tasks listed");
    assertEquals(List.of(later.id(), docs.id()), ids(board.list(new TaskBoard.Filter(null, null, "docs", null, 100))),
        "newest change first");
    assertEquals(List.of(mine.id()), ids(board.list(new TaskBoard.Filter(null, "alpha", null, null, 100))));
    assertEquals(List.of(later.id()), ids(board.list(new TaskBoard.Filter(TaskState.BACKLOG, null, "docs", null, 100))));
    assertEquals(1, board.list(new TaskBoard.Filter(null, null, "docs", null, 1)).size());

    eventually(() -> board.get(mine.id()).log().size() == 1 && board.get(mine.id()).updatedAtMillis() > 0,
        "the workflow's own card");
    assertEquals("Fix login", board.get(mine.id()).title());
    assertEquals(Priority.HIGH, board.get(mine.id()).priority());
    assertNull(board.get("nosuch"));

    assertEquals("a task needs a title", refusal(() -> board.add(task(" ", List.of(), null, null, null))));
    assertEquals("the title has 201 characters, at most 200 are allowed",
        refusal(() -> board.add(task("t".repeat(201), List.of(), null, null, null))));
    assertEquals("'bad label' is not a label (letters, digits, '.', '_' and '-', up to 32)",
        refusal(() -> board.add(task("x", List.of("bad label"), null, null, null))));
    assertEquals("a new task starts in the Backlog or To Do, not Done",
        refusal(() -> board.add(task("x", List.of(), null, TaskState.DONE, null))));
    assertEquals("'Bad Id' is not a task id (lower-case letters, digits, '.', '_' and '-', up to 100)",
        refusal(() -> board.get("Bad Id")));

    // An issue's task is made once: the second add answers the first card.
    String issue = TaskIds.forIssue("acme/app", 7);
    NewTask fromIssue = new NewTask(issue, "Crash on start", "stack", null, List.of("bug"), null, null,
        "https://github.com/acme/app/issues/7", "github");
    TaskCard first = board.add(fromIssue);
    TaskCard again = board.add(fromIssue);
    assertEquals(first.id(), again.id());
    assertEquals("Crash on start", again.title());
    eventually(() -> board.add(fromIssue).equals(board.get(issue)), "the second add answers the existing card");
    assertEquals(1, board.list(new TaskBoard.Filter(null, null, "bug", null, 10)).size());
    assertEquals("task plain-id already exists in colony board", refusal(() -> {
      NewTask plain = new NewTask("plain-id", "t", null, null, null, null, null, null, "cli");
      board.add(plain);
      board.add(plain);
    }));
  }

  @Test
  void changesAreAppliedByTheWorkflowAndRefusalsSayWhy() {
    TaskCard t = board.add(task("Review me", List.of("backend"), null, null, Priority.NORMAL));
    assertEquals("task " + t.id() + " is To Do, not In Review: only a task in review can be approved",
        refusal(() -> board.approve(t.id(), by(null))));
    assertEquals("a comment needs a text", refusal(() -> board.comment(t.id(), by(""))));
    assertEquals("'no body' is not a name for an ant (letters, digits, '.', '_' and '-', up to 64)",
        refusal(() -> board.assign(t.id(), new TaskChange("cli", null, "no body", null))));
    assertEquals("there is no task nosuch in colony board", refusal(() -> board.comment("nosuch", by("hi"))));

    ClaimResult taken = ants.claim(COLONY, t.id(), new Claim("alpha", "ant/board/alpha#1",
        Assignee.takerTags("alpha", List.of("backend"))));
    assertTrue(taken.taken(), taken.why());
    eventually(() -> ids(board.list(new TaskBoard.Filter(TaskState.IN_PROGRESS, null, null, "alpha", 10)))
        .equals(List.of(t.id())), "listed by its worker");
    assertEquals("a move to Blocked needs a reason",
        refusal(() -> board.move(t.id(), new TaskChange("cli", TaskState.BLOCKED, null, null))));
    assertEquals(TaskState.BLOCKED, board.move(t.id(), new TaskChange("cli", TaskState.BLOCKED, null, "needs a key")).state());
    TaskReply late = ants.report(COLONY, t.id(), new TaskReport(TaskReport.Kind.SUBMITTED, "alpha",
        "ant/board/alpha#1", "done", null, null, false));
    assertEquals("task " + t.id() + " is no longer held by this claim (it is Blocked)", late.why());

    TaskCard requeued = board.requeue(t.id(), new TaskChange("@alice", null, "beta", "use the new key"));
    assertEquals(TaskState.TODO, requeued.state());
    assertEquals(Assignee.ant("beta"), requeued.assignee());
    assertEquals("use the new key", board.comment(t.id(), by("and hurry")).comments().get(0).text());
    ants.claim(COLONY, t.id(), new Claim("beta", "ant/board/beta#1", Assignee.takerTags("beta", List.of())));
    TaskReply submitted = ants.report(COLONY, t.id(), new TaskReport(TaskReport.Kind.SUBMITTED, "beta",
        "ant/board/beta#1", "key rotated", null, null, false));
    assertEquals(TaskState.IN_REVIEW, submitted.state());
    assertEquals(TaskState.DONE, board.approve(t.id(), by("good")).state());

    // Done ends the run; approve again is refused, a move to To Do starts the next run from the card.
    eventually(() -> temporal.client.newUntypedWorkflowStub(TaskIds.workflowId(COLONY, t.id())).describe().getStatus()
        == io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED, "the run completed");
    assertEquals("task " + t.id() + " is Done: move it to To Do to reopen it",
        refusal(() -> board.approve(t.id(), by(null))));
    assertEquals("task " + t.id() + " is already Done",
        refusal(() -> board.move(t.id(), new TaskChange("cli", TaskState.DONE, null, null))));
    String doneRun = temporal.client.newUntypedWorkflowStub(TaskIds.workflowId(COLONY, t.id())).describe()
        .getExecution().getRunId();
    TaskCard reopened = board.move(t.id(), new TaskChange("cli", TaskState.TODO, null, "not fixed after all"));
    assertEquals(TaskState.TODO, reopened.state());
    assertNotEquals(doneRun, temporal.client.newUntypedWorkflowStub(TaskIds.workflowId(COLONY, t.id())).describe()
        .getExecution().getRunId());
    TaskCard commented = board.comment(t.id(), by("reopened"));
    assertEquals(TaskState.TODO, commented.state());
    assertTrue(commented.comments().stream().anyMatch(c -> c.text().equals("use the new key")), "the card carried over");
    eventually(() -> board.list(new TaskBoard.Filter(null, null, "backend", null, 10)).stream()
        .filter(c -> c.id().equals(t.id())).count() == 1, "listed once");
  }

  @Test
  void twoAntsClaimingOneTaskAtOnceOneWins() throws Exception {
    TaskCard t = board.add(task("Contested", List.of("race"), null, null, Priority.HIGH));
    eventually(() -> ants.find(new FindTasks(COLONY, "gamma", Assignee.takerTags("gamma", List.of("race")), 3600, 10))
        .stream().anyMatch(c -> c.id().equals(t.id())), "found by a taker of race");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<ClaimResult>> claims = new ArrayList<>();
    for (String ant : List.of("gamma", "delta")) {
      claims.add(pool.submit(() -> {
        go.await();
        return ants.claim(COLONY, t.id(), new Claim(ant, "ant/board/" + ant + "#1",
            Assignee.takerTags(ant, List.of("race"))));
      }));
    }
    go.countDown();
    List<ClaimResult> results = new ArrayList<>();
    for (Future<ClaimResult> f : claims) {
      results.add(f.get(30, TimeUnit.SECONDS));
    }
    pool.shutdown();
    assertEquals(1, results.stream().filter(ClaimResult::taken).count(), results.toString());
    String winner = board.get(t.id()).worker();
    ClaimResult lost = results.stream().filter(r -> !r.taken()).findFirst().orElseThrow();
    assertEquals("task " + t.id() + " is In Progress (taken by " + winner + "), not To Do", lost.why());

    // The winner's claim repeated (its activity retried): the same brief, and its task comes first.
    ClaimResult retried = ants.claim(COLONY, t.id(), new Claim(winner, "ant/board/" + winner + "#1",
        Assignee.takerTags(winner, List.of("race"))));
    assertTrue(retried.taken());
    assertEquals(results.stream().filter(ClaimResult::taken).findFirst().orElseThrow().brief(), retried.brief());
    eventually(() -> {
      List<TaskCandidate> found = ants.find(new FindTasks(COLONY, winner, Assignee.takerTags(winner, List.of("race")),
          3600, 10));
      return !found.isEmpty() && found.get(0).id().equals(t.id()) && found.get(0).mine();
    }, "the winner's own task first");
    assertEquals("task nosuch is gone (Done, or removed)",
        ants.claim(COLONY, "nosuch", new Claim("gamma", "g#9", List.of("take:any"))).why());
    // The task's side, for ants that are not there: not running, nobody to tell, nothing to withdraw from.
    assertEquals(false, ants.antRunning(COLONY, "gamma"));
    assertEquals(0, ants.announce(COLONY, List.of("take:pool:race")));
    ants.withdraw(COLONY, "gamma", t.id());
  }

  @Test
  void theConsolesLivePollReadsEveryTaskChangedInItsWindow() throws Exception {
    // More tasks change in one window than one read used to take (1,000): the console's live poll reads them all.
    TaskBoard burst = new TemporalTaskBoard(temporal.client, "burst", TaskSettings.defaults());
    long since = System.currentTimeMillis() - 1_000;
    int n = 1_100;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      List<java.util.concurrent.Future<TaskCard>> adds = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        int k = i;
        adds.add(pool.submit(() -> burst.add(task("burst " + k, List.of(), null, TaskState.BACKLOG, Priority.NORMAL))));
      }
      for (var f : adds) {
        f.get(2, java.util.concurrent.TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    var console = new dev.colony.client.TemporalColonySource(temporal.client, "burst", null);
    eventually(java.time.Duration.ofSeconds(60), () -> burst.list(TaskBoard.Filter.all(2_000)).size() == n, "visibility has them all");
    List<TaskCard> changed = console.tasksChangedSince(since);
    assertEquals(n, changed.stream().map(TaskCard::id).distinct().count(), "every task changed in the window is read");
  }

  @Test
  void theConsolesLivePollPagesThroughEveryAntChangedInItsWindow() throws Exception {
    // 1,100 ants changed at once (started with their card and AntUpdatedAt, no worker): more than one
    // page of the console's changed-ants read; every page together holds every one of them.
    long now = System.currentTimeMillis();
    int n = 1_100;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      List<java.util.concurrent.Future<?>> starts = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        String name = String.format("ant-%04d", i);
        starts.add(pool.submit(() -> {
          io.temporal.common.SearchAttributes sa = io.temporal.common.SearchAttributes.newBuilder()
              .set(dev.colony.visibility.AntSearchAttributes.COLONY, "swarm")
              .set(dev.colony.visibility.AntSearchAttributes.ANT, name)
              .set(dev.colony.visibility.AntSearchAttributes.STATE, "waiting")
              .set(io.temporal.common.SearchAttributeKey.forOffsetDateTime("AntUpdatedAt"),
                  java.time.OffsetDateTime.ofInstant(java.time.Instant.ofEpochMilli(now), java.time.ZoneOffset.UTC))
              .build();
          temporal.client.newUntypedWorkflowStub("AntWorkflow", io.temporal.client.WorkflowOptions.newBuilder()
              .setWorkflowId("ant/swarm/" + name).setTaskQueue("nobody-polls-this").setTypedSearchAttributes(sa).build())
              .start();
          return null;
        }));
      }
      for (var f : starts) {
        f.get(2, java.util.concurrent.TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    var console = new dev.colony.client.TemporalColonySource(temporal.client, "swarm", null);
    eventually(java.time.Duration.ofSeconds(60), () -> console.counts().total() == n, "visibility has them all");
    java.util.Set<String> seen = new java.util.HashSet<>();
    int pages = 0;
    String token = null;
    do {
      var page = console.changedSince(now - 5_000, token);
      page.rows().forEach(r -> seen.add(r.name()));
      token = page.next();
      pages++;
    } while (token != null && pages < 100);
    assertTrue(pages >= 2, "one window, several pages: " + pages);
    assertEquals(n, seen.size(), "every ant changed in the window is on a page");
    assertTrue(console.callsByMethod().getOrDefault("ListWorkflowExecutions", 0L) >= pages, console.callsByMethod().toString());
  }

  @Test
  void aChangeWithNoWorkerSaysSoWithinTenSeconds() {
    TaskBoard idle = new TemporalTaskBoard(temporal.client, "idle", TaskSettings.defaults());
    TaskCard t = idle.add(task("Nobody home", List.of(), null, null, null));
    eventually(() -> idle.get(t.id()) != null, "readable without a worker");
    long t0 = System.nanoTime();
    assertEquals("no worker answered within 10 s: is a worker (colony dev / colony worker) running for colony idle?",
        refusal(() -> idle.comment(t.id(), by("hello?"))));
    long seconds = (System.nanoTime() - t0) / 1_000_000_000;
    assertTrue(seconds >= 9 && seconds < 20, seconds + " s");
  }
}
