package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Determinism guard: every history committed under {@code src/test/resources/histories} (from
 * workflow tests and from the process-level fault tests; {@code baseline-1.0/} holds Colony 1.0's
 * baseline) must replay against today's AntWorkflowImpl, except the runs the compatibility ledger
 * leaves to older builds (they began before a change this release sunset: each is replayed, must
 * fail only for want of that old path, and is reported as skipped with the release that replays it). A change that alters command order fails here, in CI, before it can strand a
 * running ant. Record new histories with {@code -Dcolony.recordHistories=true}.
 */
@Timeout(180)
class HistoryReplayTest {
  static final Path HISTORIES = Path.of("src/test/resources/histories");

  @Test
  void everyCommittedHistoryReplays() throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.walk(HISTORIES)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertFalse(files.isEmpty(), "no committed histories under " + HISTORIES);
    // Every directory of histories/ the compatibility ledger names is replayed here, each with a history in it.
    assertEquals(new java.util.TreeSet<>(dev.colony.compat.Compatibility.HISTORIES.stream()
            .map(dev.colony.compat.Compatibility.History::dir).filter(d -> d.startsWith("histories/")).toList()),
        new java.util.TreeSet<>(files.stream().map(f -> "histories/" + HISTORIES.relativize(f).getName(0)).toList()),
        "the directories the ledger names and the ones replayed");
    // The SDK calls a workflow task that runs over 1 s of wall time a potential deadlock. A replay's
    // first task loads classes and builds Jackson's (de)serializers, which on a loaded machine (CI's
    // two test JVMs on two cores) takes longer: the replayer's worker allows a minute, so a slow
    // machine never reads as non-determinism, while a real NonDeterministicException still fails.
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("replay", io.temporal.worker.WorkerOptions.newBuilder()
          .setDefaultDeadlockDetectionTimeout(Duration.ofMinutes(1).toMillis()).build());
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class,
          dev.colony.supervision.ColonyWorkflowImpl.class, dev.colony.task.TaskWorkflowImpl.class,
          dev.colony.merge.MergeQueueWorkflowImpl.class);
      java.util.Map<String, String> lastReplayedBy = dev.colony.testing.Sunset.lastReplayedBy();
      java.util.Map<String, Integer> needTheOldPath = new java.util.TreeMap<>();
      for (Path f : files) {
        WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(Files.readString(f));
        String dir = "histories/" + HISTORIES.relativize(f).getName(0);
        try {
          WorkflowReplayer.replayWorkflowExecution(history, worker);
        } catch (Exception e) {
          String sunset = dev.colony.testing.Sunset.changeNeeded(e);
          if (!lastReplayedBy.containsKey(dir) || sunset == null) {
            throw new AssertionError(HISTORIES.relativize(f) + " no longer replays", e);
          }
          // Not this build's to replay: it began before a change whose old path this release dropped.
          System.out.println("HistoryReplayTest: " + dev.colony.testing.Sunset.skipped(HISTORIES.relativize(f).toString(),
              sunset, lastReplayedBy.get(dir)));
          needTheOldPath.merge(dir, 1, Integer::sum);
        }
      }
      // A directory the ledger says this build does not replay must need it (else it is replayed).
      lastReplayedBy.keySet().removeIf(d -> !d.startsWith("histories/"));
      assertEquals(lastReplayedBy.keySet(), needTheOldPath.keySet(),
          "the directories the ledger leaves to older builds, and those with a run that needs a sunset change's old path");
    }
  }

  /** The Web UI's timeline names each of the ant's timers ("next session in 5s"), never by its id alone. */
  @Test
  void everyTimerAndActivityInTheCommittedHistoriesHasASummary() throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.walk(HISTORIES)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    int timers = 0;
    for (Path f : files) {
      for (var e : WorkflowExecutionHistory.fromJson(Files.readString(f)).getEvents()) {
        boolean named = e.hasUserMetadata() && e.getUserMetadata().hasSummary()
            && !e.getUserMetadata().getSummary().getData().isEmpty();
        if (e.hasTimerStartedEventAttributes()) {
          timers++;
          assertTrue(named, HISTORIES.relativize(f) + ": timer " + e.getTimerStartedEventAttributes().getTimerId()
              + " (event " + e.getEventId() + ") has no summary");
        }
        if (e.hasActivityTaskScheduledEventAttributes()) {
          assertTrue(named, HISTORIES.relativize(f) + ": activity "
              + e.getActivityTaskScheduledEventAttributes().getActivityType().getName() + " (event " + e.getEventId()
              + ") has no summary");
        }
      }
    }
    assertTrue(timers > 0, "no timer in the committed histories");
  }

  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordSupervisorScenario() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      sessions.then(Outcome.SUCCESS, "first").then(Outcome.TRANSIENT, "crash")
          .then(Outcome.PERMANENT, "bad request").then(Outcome.MAX_TURNS, "limit")
          .then(() -> SessionResult.rateLimited("429", env.currentTimeMillis() + 30_000))
          .then(Outcome.BILLING, "card declined");
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
      env.start();
      var spec = Fakes.withPoll(Fakes.spec("recorded"), 60);
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      env.sleep(Duration.ofMinutes(5));
      ant.pause();
      ant.message(dev.colony.mailbox.Mail.of("from a human"));
      ant.clear();
      ant.message(dev.colony.mailbox.Mail.of("second instruction"));
      env.sleep(Duration.ofMinutes(2));
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      write("supervisor-scenario.json", env.getWorkflowClient().fetchHistory(spec.workflowId()));
    }
  }

  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordPauseDuringSession() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      sessions.thenBlockUntil(release, "long session");
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
      env.start();
      var spec = Fakes.withPoll(Fakes.spec("pauser"), 60);
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      eventually(() -> !sessions.requests.isEmpty(), "the session started");
      ant.pause();
      eventually(() -> ant.status().paused(), "the pause reached the running ant");
      release.countDown();
      eventually(() -> ant.status().state() == Lifecycle.PAUSED, "paused after the session");
      ant.resume();
      env.sleep(Duration.ofSeconds(30));
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      write("pause-during-session.json", env.getWorkflowClient().fetchHistory(spec.workflowId()));
    }
  }

  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordCronCatchUpAndGithubIssues() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(io.temporal.testing.TestEnvironmentOptions
        .newBuilder().setInitialTime(java.time.Instant.parse("2026-06-01T00:30:00Z")).build())) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      sessions.then(Outcome.SUCCESS, "tick").then(Outcome.TRANSIENT, "failed on the issue");
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
      env.start();
      var base = Fakes.withSchedule(Fakes.spec("ticker"), "0 * * * *",
          List.of(new dev.colony.spec.TriggerSpec(dev.colony.spec.TriggerSpec.Type.GITHUB_ISSUE, List.of("bug"))));
      var spec = base.toBuilder().githubRepos(List.of("acme/app")).continueAsNewEvery(100).build();
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      env.sleep(Duration.ofMinutes(40));
      ant.pause();
      env.sleep(Duration.ofHours(3));
      ant.resume();
      env.sleep(Duration.ofMinutes(5));
      var issue = new dev.colony.trigger.IssueEvent("acme/app", 7, "Crash", "u", List.of("bug"), "b");
      ant.githubIssue(issue);
      ant.githubIssue(issue);
      ant.githubIssue(new dev.colony.trigger.IssueEvent("acme/app", 8, "Question", "u", List.of(), "b"));
      env.sleep(Duration.ofMinutes(5));
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      write("cron-catch-up-and-issues.json", env.getWorkflowClient().fetchHistory(spec.workflowId()));
    }
  }

  /** Notices for phones (Notifier, change "notify-humans"): a billing pause, its notice, a reminder, the resume. */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordNotices() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      sessions.then(Outcome.SUCCESS, "first").then(Outcome.BILLING, "card declined");
      NotifierTest.RecordingNotify notify = new NotifierTest.RecordingNotify();
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace(), notify);
      env.start();
      var spec = Fakes.withPoll(Fakes.spec("notified"), 60)
          .withNotify(new dev.colony.spec.NotifySpec(600, 1, "http://localhost:8233", null, List.of(), null, null));
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      env.sleep(Duration.ofMinutes(2));
      eventually(() -> !notify.notices.isEmpty(), "the first notice");
      env.sleep(Duration.ofMinutes(11));
      eventually(() -> notify.notices.size() >= 2, "the reminder");
      ant.resume();
      env.sleep(Duration.ofSeconds(30));
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      write("notices.json", env.getWorkflowClient().fetchHistory(spec.workflowId()));
    }
  }

  /**
   * The console's cards (change "console-card"): an ant without an overseer whose session reports
   * its turns, with a cost, a pause and a message; and a colony supervisor's card through
   * failures, a tripped breaker and new groups.
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordConsoleCards() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class, dev.colony.supervision.ColonyWorkflowImpl.class);
      ConsoleCardTest.CostlySessions sessions = new ConsoleCardTest.CostlySessions();
      sessions.costs.add(0.25);
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
      env.start();
      var spec = Fakes.withPoll(Fakes.spec("talker"), 60);
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      eventually(() -> sessions.replies.size() == 1, "the turns were reported");
      env.sleep(Duration.ofMinutes(2));
      ant.pause();
      ant.message(dev.colony.mailbox.Mail.of("from a human"));
      env.sleep(Duration.ofMinutes(2));
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      write("console-card.json", env.getWorkflowClient().fetchHistory(spec.workflowId()));

      var groups = List.of(new dev.colony.supervision.GroupSpec("pair", dev.colony.supervision.Strategy.ONE_FOR_ALL,
          List.of("a", "b"), 2, 600));
      var colony = env.getWorkflowClient().newWorkflowStub(dev.colony.supervision.ColonyWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(dev.colony.supervision.ColonyWorkflow.workflowId("test"))
              .setTaskQueue("record").build());
      WorkflowClient.start(colony::run, dev.colony.supervision.ColonyRun.fresh("test", groups, null));
      for (int i = 0; i < 3; i++) {
        colony.antFailed(new dev.colony.supervision.AntFailure("a", "boom " + i, dev.colony.supervision.AntFailure.PARKED));
      }
      eventually(() -> colony.failedGroups().contains("pair"), "the breaker tripped");
      colony.configure(List.of(new dev.colony.supervision.GroupSpec("pair", dev.colony.supervision.Strategy.REST_FOR_ONE,
          List.of("a", "b"), 2, 600)));
      colony.reset(null);
      eventually(() -> colony.failedGroups().isEmpty(), "reset");
      env.sleep(Duration.ofMinutes(1));
      // Recorded while it still runs (a supervisor never ends; a termination does not replay).
      write("console-colony-card.json", env.getWorkflowClient().fetchHistory(
          dev.colony.supervision.ColonyWorkflow.workflowId("test")));
      WorkflowStub.fromTyped(colony).terminate("recorded");
    }
  }

  /**
   * The task board's ant side (TaskDesk, change "tasks"): a {@code when_idle: wait} ant takes a
   * task, fails a session on it (FAILED), succeeds (SUBMITTED with its work), waits for a task,
   * is woken by {@code tasksWaiting}, takes the next, is rate limited, and is stopped (RELEASED).
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordTaskTaken() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      var work = new dev.colony.task.TaskWork("colony/taker", "abc1234", "def5678",
          List.of(new dev.colony.task.TaskWork.Commit("def5678", "Fix the docs")), 1, 4, 1, List.of("README.md"));
      sessions.then(Outcome.TRANSIENT, "crash").then(() -> SessionResult.of(Outcome.SUCCESS, "Fixed it").withWork(work))
          .then(() -> SessionResult.rateLimited("429", env.currentTimeMillis() + 3_600_000));
      Fakes.FakeTasks board = new Fakes.FakeTasks();
      board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", dev.colony.task.Priority.HIGH, env.currentTimeMillis()));
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace(), board);
      env.start();
      var spec = Fakes.withPoll(Fakes.spec("taker"), 60).toBuilder()
          .tasks(new dev.colony.spec.TaskPolicy(List.of("docs"), true, 3, false, 3600)).build();
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      eventually(() -> board.reports.size() == 1, "FAILED");
      env.sleep(Duration.ofSeconds(15));
      eventually(() -> board.reports.size() == 2, "SUBMITTED");
      eventually(() -> ant.status().state() == Lifecycle.WAITING, "waiting for a task");
      env.sleep(Duration.ofMinutes(6));
      board.candidates.add(Fakes.FakeTasks.todo("p3q4rs", dev.colony.task.Priority.NORMAL, env.currentTimeMillis()));
      ant.tasksWaiting();
      eventually(() -> sessions.requests.size() == 3, "the second task's session");
      eventually(() -> ant.status().state() == Lifecycle.COOLING_DOWN, "rate limited");
      ant.taskWithdrawn("not-mine");
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      write("task-taken.json", env.getWorkflowClient().fetchHistory(spec.workflowId()));
    }
  }

  /**
   * A task's life (TaskWorkflow): announced, claimed, a failed session, a gone check while its ant
   * runs, submitted, re-queued with a comment, claimed again, submitted, approved: Done ends it.
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordTaskLife() throws Exception {
    var tasks = new dev.colony.task.TaskFakes.RecordingTasks();
    try (TestWorkflowEnvironment env = dev.colony.task.TaskFakes.environment(tasks)) {
      var t = dev.colony.task.TaskFakes.start(env.getWorkflowClient(),
          dev.colony.task.TaskFakes.task("k7m2qx", "Fix the docs", List.of("docs"), null),
          dev.colony.task.TaskSettings.defaults());
      eventually(() -> !tasks.announced.isEmpty(), "announced");
      var takes = List.of("docs");
      t.claim(dev.colony.task.TaskFakes.claim("alpha", "ant/test/alpha#1", takes));
      t.report(new dev.colony.task.TaskReport(dev.colony.task.TaskReport.Kind.FAILED, "alpha", "ant/test/alpha#1",
          "the build broke", new dev.colony.task.TaskSessionLink("alpha", 4, "transient", "the build broke", 0.12,
              env.currentTimeMillis()), null, false));
      env.sleep(Duration.ofMinutes(11));
      eventually(() -> tasks.askedRunning.size() == 1, "the gone check");
      var work = new dev.colony.task.TaskWork("colony/alpha", "abc123", "def456",
          List.of(new dev.colony.task.TaskWork.Commit("def456", "docs: fix the guide")), 1, 12, 3, List.of("docs/guide.md"));
      t.report(new dev.colony.task.TaskReport(dev.colony.task.TaskReport.Kind.SUBMITTED, "alpha", "ant/test/alpha#1",
          "fixed the guide", new dev.colony.task.TaskSessionLink("alpha", 5, "success", "fixed the guide", 0.3,
              env.currentTimeMillis()), work, false));
      t.requeue(new dev.colony.task.TaskChange("@alice", null, null, "also fix the links"));
      t.comment(dev.colony.task.TaskChange.comment("cli", "the links are in README.md"));
      t.claim(dev.colony.task.TaskFakes.claim("alpha", "ant/test/alpha#2", takes));
      t.report(new dev.colony.task.TaskReport(dev.colony.task.TaskReport.Kind.SUBMITTED, "alpha", "ant/test/alpha#2",
          "links fixed", null, work, false));
      t.approve(new dev.colony.task.TaskChange("@alice", null, null, "thanks"));
      WorkflowStub.fromTyped(t).getResult(Void.class);
      Path dir = HISTORIES.resolve(TASK_RECORDING);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("task-life.json"), env.getWorkflowClient().fetchHistory(
          dev.colony.task.TaskIds.workflowId(dev.colony.task.TaskFakes.COLONY, "k7m2qx")).toJson(true));
    }
  }

  /**
   * An ant with a merge queue (MergeDesk): it claims its paths and waits while another ant holds
   * them, submits after a session, moves its branch after its work landed, gets a rework as an
   * urgent message, and a need of a human; then it stops and gives its claim back.
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordAntWithMergeQueue() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      MergeDeskTest.RecordingQueue queue = new MergeDeskTest.RecordingQueue();
      MergeDeskTest.RecordingGit git = new MergeDeskTest.RecordingGit();
      NotifierTest.RecordingNotify notify = new NotifierTest.RecordingNotify();
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace(), queue,
          git, notify);
      env.start();
      queue.holder = "beta";
      var spec = Fakes.withPoll(Fakes.spec("merger"), 60).toBuilder()
          .workspace(new dev.colony.spec.WorkspaceSpec("/tmp/ws", "/tmp/repo", null, null, List.of("src/**")))
          .merge(new dev.colony.merge.MergeRepo("test", "app", "/tmp/repo", "main", dev.colony.merge.LandMode.REBASE,
              List.of("./test.sh"), 60, false, false, 3, 3600, "/tmp", "/tmp/scratch", null, null))
          .notices(new dev.colony.spec.NotifySpec(1800, 2, "http://ui", null, List.of(), null, null))
          .build();
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      eventually(() -> queue.claims.size() == 1, "the refused claim");
      queue.holder = null;
      ant.mergeNews(new dev.colony.merge.MergeNews(dev.colony.merge.MergeNews.Kind.PATHS_FREE, "app", null, null, null,
          List.of(), "main"));
      eventually(() -> queue.submissions.size() == 1, "the submission");
      ant.mergeNews(new dev.colony.merge.MergeNews(dev.colony.merge.MergeNews.Kind.LANDED, "app", "merger-1",
          "🔀 merger: 1 commit on main, tests 3 s", new dev.colony.merge.Landed("merger-1", "merger", null, "aaa1111",
              "bbb2222", "ccc3333", 1, 3000, 700, env.currentTimeMillis(), List.of("src/a.txt"), null), List.of(),
          "main"));
      ant.mergeNews(new dev.colony.merge.MergeNews(dev.colony.merge.MergeNews.Kind.REWORK, "app", "merger-2",
          "Your work conflicts with main in: src/a.txt", null, List.of("src/a.txt"), "main"));
      eventually(() -> sessions.requests.size() == 2 && git.syncs.size() == 1, "synced, then the rework's session");
      ant.mergeNews(new dev.colony.merge.MergeNews(dev.colony.merge.MergeNews.Kind.NEEDS_HUMAN, "app", "merger-2",
          "merger-2 needs a human after 3 tries", null, List.of(), "main"));
      eventually(() -> !notify.notices.isEmpty(), "the notice");
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      Path dir = HISTORIES.resolve(MERGE_RECORDING);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("ant-merge.json"), env.getWorkflowClient().fetchHistory(spec.workflowId()).toJson(true));
    }
  }

  /** Where the histories of ants that declare no paths are recorded (change "merge-undeclared"). */
  static final String UNDECLARED_RECORDING = "1.5-undeclared";

  /**
   * Two ants that declare no paths (change "merge-undeclared"): with undeclared: changed one reads
   * the files its branch changed on its host and submits them; with undeclared: everything the
   * other claims ** before its session, waits while it is held, and submits once it ran.
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordUndeclaredAnts() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      MergeDeskTest.RecordingQueue queue = new MergeDeskTest.RecordingQueue();
      MergeDeskTest.RecordingGit git = new MergeDeskTest.RecordingGit();
      git.changed = List.of("src/api/users.java");
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace(), queue,
          git, new NotifierTest.RecordingNotify());
      env.start();
      Path dir = HISTORIES.resolve(UNDECLARED_RECORDING);
      Files.createDirectories(dir);
      for (dev.colony.merge.Undeclared mode : dev.colony.merge.Undeclared.values()) {
        queue.holder = mode == dev.colony.merge.Undeclared.EVERYTHING ? "beta" : null;
        int before = queue.submissions.size();
        var spec = Fakes.withPoll(Fakes.spec("free-" + mode.configName()), 60).toBuilder()
            .workspace(new dev.colony.spec.WorkspaceSpec("/tmp/ws", "/tmp/repo", null, null, List.of()))
            .merge(new dev.colony.merge.MergeRepo("test", "app", "/tmp/repo", "main", dev.colony.merge.LandMode.REBASE,
                List.of("./test.sh"), 60, false, false, 3, 3600, "/tmp", "/tmp/scratch", null, null, mode))
            .build();
        AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
            WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
        WorkflowClient.start(ant::run, new AntRun(spec, null));
        if (mode == dev.colony.merge.Undeclared.EVERYTHING) {
          eventually(() -> !queue.claims.isEmpty(), "the refused claim of **");
          queue.holder = null;
          ant.mergeNews(new dev.colony.merge.MergeNews(dev.colony.merge.MergeNews.Kind.PATHS_FREE, "app", null, null,
              null, List.of(), "main"));
        }
        eventually(() -> queue.submissions.size() == before + 1, "the submission");
        ant.stop();
        WorkflowStub.fromTyped(ant).getResult(Void.class);
        Files.writeString(dir.resolve("ant-undeclared-" + mode.configName() + ".json"),
            env.getWorkflowClient().fetchHistory(spec.workflowId()).toJson(true));
      }
    }
  }

  /** Where this release's task histories are recorded (take-task, task-holder, held-once-notices). */
  static final String TASK_RECORDING_15 = "1.5-tasks";

  /**
   * An ant that takes its task in one local activity (change "take-task"): it takes a task, fails
   * it once at max_tries 1 (Blocked), and the Blocked notice, held by quiet hours, is sent when
   * they end (change "held-once-notices"); then it is stopped.
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordTaskTakenInOneCallAndABlockedNoticeAfterQuietHours() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      sessions.then(Outcome.TRANSIENT, "crash");
      Fakes.FakeTasks board = new Fakes.FakeTasks();
      board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", dev.colony.task.Priority.HIGH, env.currentTimeMillis()));
      NotifierTest.RecordingNotify notify = new NotifierTest.RecordingNotify();
      long[] firstAt = {0};
      notify.held = at -> {
        if (firstAt[0] == 0) {
          firstAt[0] = at;
        }
        return at < firstAt[0] + Duration.ofHours(2).toMillis() ? firstAt[0] + Duration.ofHours(2).toMillis() : 0;
      };
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace(), board,
          notify);
      env.start();
      var spec = Fakes.withPoll(Fakes.spec("taker"), 24 * 3600).toBuilder()
          .tasks(new dev.colony.spec.TaskPolicy(List.of("docs"), false, 1, false, 3600)).build()
          .withNotify(new dev.colony.spec.NotifySpec(600, 1, "http://localhost:8233", null, List.of(), null, null));
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      eventually(() -> board.reports.size() == 1, "BLOCKED");
      eventually(() -> notify.notices.size() == 1, "the held notice");
      env.sleep(Duration.ofMinutes(125));
      eventually(() -> notify.notices.size() == 2, "sent when the quiet hours end");
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      Path dir = HISTORIES.resolve(TASK_RECORDING_15);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("task-taken-blocked-quiet.json"),
          env.getWorkflowClient().fetchHistory(spec.workflowId()).toJson(true));
    }
  }

  /**
   * A task whose running ant no longer holds it (change "task-holder"): claimed, a gone check
   * while its ant holds it, two checks that it does not, back to To Do; claimed by another ant,
   * submitted, approved: Done ends it.
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordTaskHolderCheck() throws Exception {
    var tasks = new dev.colony.task.TaskFakes.RecordingTasks();
    try (TestWorkflowEnvironment env = dev.colony.task.TaskFakes.environment(tasks)) {
      var t = dev.colony.task.TaskFakes.start(env.getWorkflowClient(),
          dev.colony.task.TaskFakes.task("k7m2qx", "Fix the docs", List.of("docs"), null),
          dev.colony.task.TaskSettings.defaults());
      eventually(() -> !tasks.announced.isEmpty(), "announced");
      var takes = List.of("docs");
      t.claim(dev.colony.task.TaskFakes.claim("alpha", "ant/test/alpha#1", takes));
      env.sleep(Duration.ofMinutes(11));
      eventually(() -> tasks.askedRunning.size() == 1, "the first check: alpha holds it");
      tasks.antsHold.set(false);
      env.sleep(Duration.ofMinutes(10));
      eventually(() -> tasks.askedRunning.size() == 2, "one miss");
      env.sleep(Duration.ofMinutes(10));
      eventually(() -> t.task().state() == dev.colony.task.TaskState.TODO, "back to To Do");
      eventually(() -> tasks.announced.size() == 2, "announced again");
      t.claim(dev.colony.task.TaskFakes.claim("beta", "ant/test/beta#1", takes));
      t.report(new dev.colony.task.TaskReport(dev.colony.task.TaskReport.Kind.SUBMITTED, "beta", "ant/test/beta#1",
          "fixed", null, null, false));
      t.approve(new dev.colony.task.TaskChange("@alice", null, null, "thanks"));
      WorkflowStub.fromTyped(t).getResult(Void.class);
      Path dir = HISTORIES.resolve(TASK_RECORDING_15);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("task-holder.json"), env.getWorkflowClient().fetchHistory(
          dev.colony.task.TaskIds.workflowId(dev.colony.task.TaskFakes.COLONY, "k7m2qx")).toJson(true));
    }
  }

  /**
   * An ant with a merge queue that takes tasks gets a rework while its session works on another
   * task: the session goes on and reports its task, the rework runs as a session of its own (the
   * "merge-rework-item" marker) and the ant resubmits; then it stops.
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordReworkAsItsOwnSession() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker worker = env.newWorker("record");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
      MergeDeskTest.RecordingQueue queue = new MergeDeskTest.RecordingQueue();
      Fakes.FakeTasks board = new Fakes.FakeTasks();
      worker.registerActivitiesImplementations(sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace(), queue,
          new MergeDeskTest.RecordingGit(), board);
      env.start();
      board.candidates.add(Fakes.FakeTasks.todo("t2", dev.colony.task.Priority.NORMAL, env.currentTimeMillis()));
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      sessions.thenBlockUntil(release, "t2 done");
      var spec = Fakes.withPoll(Fakes.spec("reworker"), 60).toBuilder()
          .workspace(new dev.colony.spec.WorkspaceSpec("/tmp/ws", "/tmp/repo", null, null, List.of()))
          .merge(new dev.colony.merge.MergeRepo("test", "app", "/tmp/repo", "main", dev.colony.merge.LandMode.REBASE,
              List.of("./test.sh"), 60, false, false, 3, 3600, "/tmp", "/tmp/scratch", null, null))
          .tasks(new dev.colony.spec.TaskPolicy(List.of("docs"), false, 3, false, 0))
          .build();
      AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
          WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("record").build());
      WorkflowClient.start(ant::run, new AntRun(spec, null));
      eventually(() -> sessions.requests.size() == 1, "t2's session");
      ant.mergeNews(new dev.colony.merge.MergeNews(dev.colony.merge.MergeNews.Kind.REWORK, "app", "reworker-1",
          "Your work conflicts with main in: src/a.txt", null, List.of("src/a.txt"), "main"));
      eventually(() -> queue.submissions.isEmpty() && sessions.requests.size() == 1, "t2's session goes on");
      release.countDown();
      eventually(() -> board.reports.size() == 1 && queue.submissions.size() == 2, "t2 reported, the rework resubmitted");
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      Path dir = HISTORIES.resolve(REWORK_RECORDING);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("ant-rework.json"), env.getWorkflowClient().fetchHistory(spec.workflowId()).toJson(true));
    }
  }

  /** Where the rework-as-its-own-session histories are recorded. */
  static final String REWORK_RECORDING = "1.5-rework";

  /** Where merge queue histories are recorded: the merge queue's first release (issue 32). */
  static final String MERGE_RECORDING = "1.4-merge";

  /** Where task histories are recorded: the task board's first release (issue 31). */
  static final String TASK_RECORDING = "1.3-tasks";

  /**
   * Recorded histories go under {@link #RECORDING}: the ones recorded before the lean cycle stay
   * where they are, so both the old paths and today's keep being replayed. 1.1: runs with notices
   * for phones issue the "notify-humans" version marker and the Notify activity. 1.2: runs with
   * the console's cards issue the "console-card" marker, the card's memo and AntUpdatedAt. 1.3:
   * runs that take tasks from the board issue the "tasks" marker, AntTakes and the task activities.
   */
  static final String RECORDING = "1.3-tasks";

  static void write(String name, WorkflowExecutionHistory history) throws IOException {
    Path dir = HISTORIES.resolve(RECORDING);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(name), history.toJson(true));
  }
}
