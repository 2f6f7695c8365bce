package dev.colony.merge;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colony.ant.AntMetrics;
import dev.colony.ant.MetricLabels;
import dev.colony.merge.MergeFakes.FakeAnt;
import dev.colony.merge.MergeFakes.FakeAntImpl;
import dev.colony.merge.MergeFakes.FakeDesk;
import dev.colony.merge.MergeFakes.FakeGit;
import dev.colony.spec.AntIds;
import dev.colony.testing.RecordingMetrics;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the merge queue counts through {@link AntMetrics}: landings and their time, reworks by their
 * closed reason, test runs by result; once each, nothing on replay, labels colony and repo only.
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class MergeQueueMetricsTest {
  private static final String QUEUE = "merge-metrics";
  private static final String COLONY = "test";

  @Test
  void aLandingAConflictRedTestsAndAnItemPastItsTriesAreCountedOnceEachAndAReplayCountsNothing() throws Exception {
    MergeFakes.NEWS.clear();
    FakeGit git = new FakeGit();
    RecordingMetrics metrics = new RecordingMetrics();
    MergeRepo repo = MergeQueueWorkflowTest.repo(false, 2, LandMode.REBASE);
    io.temporal.common.WorkflowExecutionHistory history;
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setMetricsScope(metrics.scope()).build());
    try {
      AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker w = env.newWorker(QUEUE);
      w.registerWorkflowImplementationTypes(MergeQueueWorkflowImpl.class, FakeAntImpl.class);
      w.registerActivitiesImplementations(git, new FakeDesk());
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      for (String a : List.of("alpha", "beta", "gamma")) {
        FakeAnt ant = client.newWorkflowStub(FakeAnt.class, WorkflowOptions.newBuilder()
            .setWorkflowId(AntIds.workflowId(COLONY, a)).setTaskQueue(QUEUE).build());
        WorkflowClient.start(ant::run);
      }
      git.commit("alpha", "shared.txt");
      git.commit("beta", "shared.txt"); // conflicts once alpha landed
      git.commit("gamma", "red-test.txt"); // its tests fail
      git.gate = new Semaphore(0);
      MergeQueueWorkflow q = client.newWorkflowStub(MergeQueueWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(repo.workflowId()).setTaskQueue(QUEUE).build());
      WorkflowClient.start(q::run, MergeQueueState.start(repo));
      q.submit(new Submission("alpha", "", "colony/alpha", null, 3, "ant", false));
      eventually(() -> git.calls.contains("publish alpha"), "alpha is landing");
      q.submit(new Submission("beta", "", "colony/beta", null, 2, "ant", false));
      q.submit(new Submission("gamma", "", "colony/gamma", null, 1, "ant", false));
      git.gate.release(100);
      eventually(() -> MergeFakes.NEWS.getOrDefault(AntIds.workflowId(COLONY, "gamma"), List.of()).stream()
          .anyMatch(n -> n.kind() == MergeNews.Kind.REWORK), "gamma sent back");
      eventually(() -> q.card().items().stream().filter(i -> i.state() == ItemState.REWORK).count() == 2,
          "beta and gamma in rework");
      q.submit(new Submission("gamma", "", "colony/gamma", null, 1, "ant", false)); // red again: its second try
      eventually(() -> q.card().items().stream().anyMatch(i -> i.state() == ItemState.NEEDS_HUMAN),
          "gamma goes to a human after two tries");
      history = client.fetchHistory(repo.workflowId());
    } finally {
      env.close();
      metrics.finish();
    }
    assertEquals(1, metrics.count(AntMetrics.MERGE_LANDINGS, "colony", COLONY, "repo", "app"));
    assertEquals(1, metrics.timerMillis(AntMetrics.MERGE_LANDING, "repo", "app").size());
    assertEquals(Map.of("conflict", 1L, "tests_failed", 2L), metrics.countsBy(AntMetrics.MERGE_REWORKS, "reason"));
    assertEquals(Map.of("failed", 2L, "passed", 1L), metrics.countsBy(AntMetrics.MERGE_TESTS, "result"));
    assertEquals(1, metrics.count(AntMetrics.MERGE_NEEDS_HUMAN, "repo", "app"));
    MetricLabels.assertClosed(metrics, Set.of(), Set.of("app"));

    RecordingMetrics replayed = new RecordingMetrics();
    try (TestWorkflowEnvironment replay = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setMetricsScope(replayed.scope()).build())) {
      Worker worker = replay.newWorker("replay");
      worker.registerWorkflowImplementationTypes(MergeQueueWorkflowImpl.class);
      WorkflowReplayer.replayWorkflowExecution(history, worker);
    } finally {
      replayed.finish();
    }
    assertEquals(List.of(), replayed.named("colony_"), "a replay counts nothing");
  }
}
