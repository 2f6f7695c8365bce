package dev.colony.trigger;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.colony.github.GithubActivities;
import dev.colony.github.IssuePage;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
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

  /** Open issues as the fake GitHub lists them. */
  static final class FakeGithub implements GithubActivities {
    final List<IssueEvent> open = new CopyOnWriteArrayList<>();
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public IssuePage listOpenIssues(String colonyDir, String tokenVar, String repo, String etag) {
      calls.add("open");
      return new IssuePage(false, "e" + open.size(), List.copyOf(open), 0);
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

  /** Every committed watcher history replays against today's RepoWatcherImpl. */
  @Test
  void everyCommittedWatcherHistoryReplays() throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.walk(HISTORIES)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertFalse(files.isEmpty(), "no committed histories under " + HISTORIES);
    for (Path f : files) {
      try {
        WorkflowReplayer.replayWorkflowExecution(WorkflowExecutionHistory.fromJson(Files.readString(f)),
            RepoWatcherImpl.class);
      } catch (Exception e) {
        throw new AssertionError(HISTORIES.relativize(f) + " no longer replays", e);
      }
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
        Files.createDirectories(HISTORIES);
        Files.writeString(HISTORIES.resolve(name + ".json"),
            env.getWorkflowClient().fetchHistory(RepoWatcher.workflowId("c", "acme/app")).toJson(true));
      }
    }
  }
}
