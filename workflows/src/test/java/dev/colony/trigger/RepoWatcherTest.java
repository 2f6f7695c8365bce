package dev.colony.trigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.github.GithubActivities;
import dev.colony.github.IssuePage;
import dev.colony.github.IssueTaskActivities;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** The repository watcher on the time-skipping server, with fake GitHub and board activities. */
@Timeout(120)
class RepoWatcherTest {
  static final Path HISTORIES = Path.of("src/test/resources/watcher-histories");

  /** Open issues as the fake GitHub lists them, and closed ones with their update times. */
  static final class FakeGithub implements GithubActivities {
    final List<IssueEvent> open = new CopyOnWriteArrayList<>();
    final Map<IssueEvent, String> closed = new ConcurrentHashMap<>();
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public IssuePage listOpenIssues(String colonyDir, String tokenVar, String repo, String etag) {
      calls.add("open");
      return new IssuePage(false, "e" + open.size(), List.copyOf(open), 0);
    }

    @Override
    public IssuePage listClosedIssues(String colonyDir, String tokenVar, String repo, String since, String etag) {
      calls.add("closed since " + since);
      List<Map.Entry<IssueEvent, String>> after = closed.entrySet().stream()
          .filter(e -> e.getValue().compareTo(since) >= 0).sorted(Map.Entry.comparingByValue()).toList();
      String tag = "c" + after.size() + since;
      if (tag.equals(etag)) {
        return new IssuePage(true, etag, List.of(), 0);
      }
      return new IssuePage(false, tag, after.stream().map(Map.Entry::getKey).toList(), 0,
          after.isEmpty() ? null : after.get(after.size() - 1).getValue());
    }
  }

  /** The board's side: which issues have tasks, and in which column; every call recorded. */
  static final class FakeIssueTasks implements IssueTaskActivities {
    final Map<String, String> tasks = new ConcurrentHashMap<>();
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public String add(String colony, IssueEvent issue, String assignee) {
      calls.add("add " + issue.key() + " for " + assignee);
      return tasks.putIfAbsent(dev.colony.task.TaskIds.forIssue(issue.repo(), issue.number()), "todo") == null
          ? "added" : "exists";
    }

    @Override
    public String close(String colony, IssueEvent issue) {
      calls.add("close " + issue.key());
      String id = dev.colony.task.TaskIds.forIssue(issue.repo(), issue.number());
      String was = tasks.replace(id, "done");
      return was == null ? "none" : was.equals("done") ? "already" : "done";
    }

    @Override
    public String reopen(String colony, IssueEvent issue) {
      calls.add("reopen " + issue.key());
      String id = dev.colony.task.TaskIds.forIssue(issue.repo(), issue.number());
      String was = tasks.get(id);
      if (was == null) {
        return "none";
      }
      return tasks.replace(id, "done", "todo") ? "reopened" : "open";
    }
  }

  static IssueEvent issue(int n, String... labels) {
    return new IssueEvent("acme/app", n, "Issue " + n, "https://github.com/acme/app/issues/" + n, List.of(labels), "b");
  }

  static IssueEvent closedIssue(int n, String... labels) {
    return new IssueEvent("acme/app", n, "Issue " + n, "https://github.com/acme/app/issues/" + n, List.of(labels), "b",
        true);
  }

  @Test
  void aMatchingIssueBecomesOneTaskAndItsClosingMovesItToDone() {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("w");
      worker.registerWorkflowImplementationTypes(RepoWatcherImpl.class);
      FakeGithub github = new FakeGithub();
      FakeIssueTasks board = new FakeIssueTasks();
      github.open.add(issue(1, "bug"));
      github.open.add(issue(2, "question"));
      worker.registerActivitiesImplementations(github, board);
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      start(client, "w", new Subscription("ant/c/alpha", List.of(),
          List.of(new Subscription.TaskRoute(List.of("bug"), "pool:triage"))));
      RepoWatcher w = client.newWorkflowStub(RepoWatcher.class, RepoWatcher.workflowId("c", "acme/app"));

      // The bug becomes a task for the trigger's pool; the question does not; no ant is woken.
      env.sleep(Duration.ofSeconds(30));
      assertEquals(List.of("add acme/app#1 for pool:triage"), board.calls);
      // Polled again and again, pushed again by the webhook: still one task.
      env.sleep(Duration.ofMinutes(5));
      w.issue(issue(1, "bug"));
      env.sleep(Duration.ofSeconds(5));
      assertEquals(List.of("add acme/app#1 for pool:triage"), board.calls);
      assertTrue(github.calls.stream().filter(c -> c.startsWith("open")).count() >= 5, github.calls.toString());

      // A new issue pushed by the webhook: one more task at once.
      w.issue(issue(4, "bug", "ui"));
      env.sleep(Duration.ofSeconds(5));
      assertEquals(List.of("add acme/app#1 for pool:triage", "add acme/app#4 for pool:triage"), board.calls);

      // #1 closed (seen by the poll of closed issues), #4 closed (the webhook's `closed`): both Done.
      github.open.remove(issue(1, "bug"));
      github.closed.put(closedIssue(1, "bug"), java.time.Instant.ofEpochMilli(env.currentTimeMillis()).toString());
      env.sleep(Duration.ofMinutes(2));
      assertEquals("done", board.tasks.get("gh-acme-app-1"));
      w.issue(closedIssue(4, "bug", "ui"));
      env.sleep(Duration.ofSeconds(5));
      assertEquals("done", board.tasks.get("gh-acme-app-4"));
      // A closed issue that was never a task and matches no trigger costs nothing.
      github.closed.put(closedIssue(9, "question"), java.time.Instant.ofEpochMilli(env.currentTimeMillis()).toString());
      env.sleep(Duration.ofMinutes(10));
      // Once each, although GitHub's `since` is inclusive and lists the newest closure again.
      assertEquals(List.of("close acme/app#1", "close acme/app#4"),
          board.calls.stream().filter(c -> c.startsWith("close")).toList());
      assertEquals(2, board.calls.stream().filter(c -> c.startsWith("add")).count());
      assertTrue(github.calls.stream().anyMatch(c -> c.startsWith("closed since ")), github.calls.toString());
    }
  }

  @Test
  void aReopenedIssueReopensItsTaskOnce() {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("w");
      worker.registerWorkflowImplementationTypes(RepoWatcherImpl.class);
      FakeGithub github = new FakeGithub();
      FakeIssueTasks board = new FakeIssueTasks();
      github.open.add(issue(1, "bug"));
      github.open.add(issue(2, "bug"));
      worker.registerActivitiesImplementations(github, board);
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      start(client, "w", new Subscription("ant/c/alpha", List.of(),
          List.of(new Subscription.TaskRoute(List.of("bug"), "pool:triage"))));
      RepoWatcher w = client.newWorkflowStub(RepoWatcher.class, RepoWatcher.workflowId("c", "acme/app"));
      env.sleep(Duration.ofSeconds(30));
      assertEquals("todo", board.tasks.get("gh-acme-app-1"));

      // #1 closed (its task Done), then reopened on GitHub: listed open again by the poll.
      github.open.remove(issue(1, "bug"));
      github.closed.put(closedIssue(1, "bug"), java.time.Instant.ofEpochMilli(env.currentTimeMillis()).toString());
      env.sleep(Duration.ofMinutes(2));
      assertEquals("done", board.tasks.get("gh-acme-app-1"));
      github.closed.remove(closedIssue(1, "bug"));
      github.open.add(issue(1, "bug"));
      env.sleep(Duration.ofMinutes(2));
      assertEquals("todo", board.tasks.get("gh-acme-app-1"), "the reopened issue's task is back in To Do");
      // Polled again and again, and the webhook's `reopened` too: reopened once.
      w.issue(issue(1, "bug"));
      env.sleep(Duration.ofMinutes(5));
      assertEquals(List.of("reopen acme/app#1"), board.calls.stream().filter(c -> c.startsWith("reopen")).toList());
      // #2's task was finished by a human while its issue stays open: it is not reopened.
      board.tasks.put("gh-acme-app-2", "done");
      github.open.add(issue(3, "question")); // a change, so the open list is read again
      env.sleep(Duration.ofMinutes(3));
      assertEquals("done", board.tasks.get("gh-acme-app-2"));
      // Closed and reopened again (by the webhook this time): reopened again, once.
      w.issue(closedIssue(1, "bug"));
      env.sleep(Duration.ofSeconds(5));
      assertEquals("done", board.tasks.get("gh-acme-app-1"));
      w.issue(issue(1, "bug"));
      env.sleep(Duration.ofSeconds(5));
      assertEquals("todo", board.tasks.get("gh-acme-app-1"));
      assertEquals(2, board.calls.stream().filter(c -> c.startsWith("reopen")).count(), board.calls.toString());
    }
  }

  @Test
  void whatTheWatcherCarriesOverContinueAsNewStaysBounded() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("w");
      worker.registerWorkflowImplementationTypes(RepoWatcherImpl.class);
      FakeGithub github = new FakeGithub();
      FakeIssueTasks board = new FakeIssueTasks();
      github.open.add(issue(50_000, "bug"));
      worker.registerActivitiesImplementations(github, board);
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      // A watcher that ran long: three times as many keys as the bound, from its last run.
      int past = RepoWatcherImpl.MAX_FORWARDED * 3;
      List<String> forwarded = java.util.stream.IntStream.range(0, past)
          .mapToObj(i -> "ant/c/an-ant-with-a-long-name-" + i + "|acme/app#" + i).toList();
      List<String> tasked = java.util.stream.IntStream.range(0, past).mapToObj(i -> "acme/app#" + i).toList();
      RepoWatcher w = client.newWorkflowStub(RepoWatcher.class, WorkflowOptions.newBuilder()
          .setWorkflowId(RepoWatcher.workflowId("c", "acme/app")).setTaskQueue("w").build());
      BatchRequest req = client.newSignalWithStartRequest();
      req.add(w::run, new RepoWatcher.WatchState("c", "acme/app", "/tmp", "GITHUB_TOKEN", 60, List.of(), null,
          forwarded, tasked, null, null));
      req.add(w::subscribe, new Subscription("ant/c/alpha", List.of(),
          List.of(new Subscription.TaskRoute(List.of("bug"), "pool:triage"))));
      client.signalWithStart(req);
      env.sleep(Duration.ofSeconds(30));
      assertEquals(List.of("add acme/app#50000 for pool:triage"), board.calls);

      w.upgrade(); // continue as new now
      RepoWatcher.WatchState carried = nextRunInput(client);
      assertTrue(carried.forwarded().size() <= RepoWatcherImpl.MAX_FORWARDED, "forwarded: " + carried.forwarded().size());
      assertTrue(carried.tasked().size() <= RepoWatcherImpl.MAX_TASKED, "tasked: " + carried.tasked().size());
      assertTrue(carried.tasked().contains("acme/app#50000"), "the newest is kept");
      assertFalse(carried.tasked().contains("acme/app#0"), "the oldest is dropped");
      long chars = carried.forwarded().stream().mapToLong(String::length).sum()
          + carried.tasked().stream().mapToLong(String::length).sum();
      assertTrue(chars <= RepoWatcherImpl.MAX_FORWARDED_CHARS + RepoWatcherImpl.MAX_TASKED_CHARS, "chars: " + chars);
      // The next run goes on: the issue is not made a task again.
      env.sleep(Duration.ofMinutes(3));
      assertEquals(1, board.calls.stream().filter(c -> c.startsWith("add")).count(), board.calls.toString());
    }
  }

  /** The input of the watcher's newest run, once it is a run after the first. */
  private static RepoWatcher.WatchState nextRunInput(WorkflowClient client) {
    String id = RepoWatcher.workflowId("c", "acme/app");
    dev.colony.testing.Eventually.eventually(() -> client.fetchHistory(id).getEvents().get(0)
        .getWorkflowExecutionStartedEventAttributes().getContinuedExecutionRunId().isEmpty() == false, "the next run");
    var started = client.fetchHistory(id).getEvents().get(0).getWorkflowExecutionStartedEventAttributes();
    return client.getOptions().getDataConverter().fromPayloads(0, java.util.Optional.of(started.getInput()),
        RepoWatcher.WatchState.class, RepoWatcher.WatchState.class);
  }

  @Test
  void withoutTaskTriggersClosedIssuesAreNotPolled() {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("w");
      worker.registerWorkflowImplementationTypes(RepoWatcherImpl.class);
      FakeGithub github = new FakeGithub();
      FakeIssueTasks board = new FakeIssueTasks();
      github.open.add(issue(1, "never-matched"));
      worker.registerActivitiesImplementations(github, board);
      env.start();
      start(env.getWorkflowClient(), "w", new Subscription("ant/c/alpha", List.of(List.of("bug"))));
      env.getWorkflowClient().newWorkflowStub(RepoWatcher.class, RepoWatcher.workflowId("c", "acme/app"))
          .issue(closedIssue(3, "bug"));
      env.sleep(Duration.ofMinutes(5));
      assertTrue(github.calls.stream().allMatch(c -> c.equals("open")), github.calls.toString());
      assertEquals(List.of(), board.calls);
    }
  }

  @Test
  void anAntThatIsGoneIsDroppedAndTheWatcherGoesOn() {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("w");
      worker.registerWorkflowImplementationTypes(RepoWatcherImpl.class);
      FakeGithub github = new FakeGithub();
      github.open.add(issue(1, "bug"));
      worker.registerActivitiesImplementations(github, new FakeIssueTasks());
      env.start();
      start(env.getWorkflowClient(), "w", new Subscription("ant/c/gone", List.of(List.of("bug"))));
      env.sleep(Duration.ofMinutes(3));
      RepoWatcher w = env.getWorkflowClient().newWorkflowStub(RepoWatcher.class, RepoWatcher.workflowId("c", "acme/app"));
      assertEquals(List.of(), w.subscriptions());
      assertEquals(io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
          io.temporal.client.WorkflowStub.fromTyped(w).describe().getStatus());
    }
  }

  static RepoWatcher start(WorkflowClient client, String queue, Subscription sub) {
    RepoWatcher w = client.newWorkflowStub(RepoWatcher.class, WorkflowOptions.newBuilder()
        .setWorkflowId(RepoWatcher.workflowId("c", "acme/app")).setTaskQueue(queue).build());
    BatchRequest req = client.newSignalWithStartRequest();
    req.add(w::run, new RepoWatcher.WatchState("c", "acme/app", "/tmp", "GITHUB_TOKEN", 60, List.of(), null, List.of()));
    req.add(w::subscribe, sub);
    client.signalWithStart(req);
    return w;
  }

  /**
   * Every committed watcher history replays against today's RepoWatcherImpl, except those the
   * compatibility ledger leaves to older builds (each must fail only for want of a sunset change's
   * old path, and is reported as skipped).
   */
  @Test
  void everyCommittedWatcherHistoryReplays() throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.walk(HISTORIES)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertFalse(files.isEmpty(), "no committed histories under " + HISTORIES);
    var lastReplayedBy = dev.colony.testing.Sunset.lastReplayedBy();
    java.util.Set<String> needTheOldPath = new java.util.TreeSet<>();
    for (Path f : files) {
      String dir = "watcher-histories/" + HISTORIES.relativize(f).getName(0);
      try {
        // a minute's deadlock bound: a slow machine is not non-determinism (dev.colony.testing.Replay)
        dev.colony.testing.Replay.history(WorkflowExecutionHistory.fromJson(Files.readString(f)), RepoWatcherImpl.class);
      } catch (Exception e) {
        String sunset = dev.colony.testing.Sunset.changeNeeded(e);
        if (!lastReplayedBy.containsKey(dir) || sunset == null) {
          throw new AssertionError(HISTORIES.relativize(f) + " no longer replays", e);
        }
        System.out.println("RepoWatcherTest: " + dev.colony.testing.Sunset.skipped(HISTORIES.relativize(f).toString(),
            sunset, lastReplayedBy.get(dir)));
        needTheOldPath.add(dir);
      }
    }
    lastReplayedBy.keySet().removeIf(d -> !d.startsWith("watcher-histories/"));
    assertEquals(lastReplayedBy.keySet(), needTheOldPath,
        "the directories the ledger leaves to older builds, and those with a run that needs a sunset change's old path");
  }

  /** The watcher that makes tasks (change issue-tasks): a task made, webhook repeats, a closure polled and pushed. */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordIssueTasks() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("w");
      worker.registerWorkflowImplementationTypes(RepoWatcherImpl.class);
      FakeGithub github = new FakeGithub();
      github.open.add(issue(1, "bug"));
      worker.registerActivitiesImplementations(github, new FakeIssueTasks());
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      start(client, "w", new Subscription("ant/c/gone", List.of(List.of("question")),
          List.of(new Subscription.TaskRoute(List.of("bug"), "alpha"))));
      RepoWatcher w = client.newWorkflowStub(RepoWatcher.class, RepoWatcher.workflowId("c", "acme/app"));
      env.sleep(Duration.ofMinutes(2));
      w.issue(issue(1, "bug"));
      w.issue(issue(2, "bug"));
      w.issue(issue(3, "question"));
      env.sleep(Duration.ofMinutes(2));
      github.open.remove(issue(1, "bug"));
      github.closed.put(closedIssue(1, "bug"), java.time.Instant.ofEpochMilli(env.currentTimeMillis()).toString());
      w.issue(closedIssue(2, "bug"));
      env.sleep(Duration.ofMinutes(3));
      Files.createDirectories(HISTORIES);
      Files.createDirectories(HISTORIES.resolve("1.3-issue-tasks"));
      Files.writeString(HISTORIES.resolve("1.3-issue-tasks/issue-tasks-1.json"),
          client.fetchHistory(RepoWatcher.workflowId("c", "acme/app")).toJson(true));
    }
  }

  /**
   * Colony 1.x's watcher (before issues became tasks): polls, a webhook push, no matching ant;
   * and one whose subscribed ant is gone (that run failed on the signal: the replay must too).
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordWakeOnlyWatcher() throws Exception {
    for (String name : List.of("wake-only-1.x", "gone-ant-1.x")) {
      try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
        Worker worker = env.newWorker("w");
        worker.registerWorkflowImplementationTypes(RepoWatcherImpl.class);
        FakeGithub github = new FakeGithub();
        github.open.add(new IssueEvent("acme/app", 1, "Crash", "u1", List.of("bug"), "b"));
        worker.registerActivitiesImplementations(github);
        env.start();
        List<String> labels = name.startsWith("gone") ? List.of("bug") : List.of("never");
        start(env.getWorkflowClient(), "w", new Subscription("ant/c/gone", List.of(labels)));
        env.sleep(Duration.ofMinutes(3));
        if (!name.startsWith("gone")) {
          env.getWorkflowClient().newWorkflowStub(RepoWatcher.class, RepoWatcher.workflowId("c", "acme/app"))
              .issue(new IssueEvent("acme/app", 2, "Freeze", "u2", List.of("bug"), "b"));
          github.open.add(new IssueEvent("acme/app", 3, "Slow", "u3", List.of(), "b"));
          env.sleep(Duration.ofMinutes(3));
        }
        Files.createDirectories(HISTORIES.resolve("1.x"));
        Files.writeString(HISTORIES.resolve("1.x/" + name + ".json"),
            env.getWorkflowClient().fetchHistory(RepoWatcher.workflowId("c", "acme/app")).toJson(true));
      }
    }
  }
}
