package dev.colony.testing;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;

/**
 * Replays a history against workflow implementations, the one way the tests do it outside
 * HistoryReplayTest. The SDK's own replayer calls a workflow task that runs over 1 s of wall time a
 * potential deadlock; a replay's first task loads classes and builds Jackson's (de)serializers,
 * which on a loaded machine (CI's two test JVMs and their servers on two cores) can take longer.
 * This replayer's worker allows a minute, so a slow machine never reads as non-determinism, while
 * a real NonDeterministicException still fails.
 */
public final class Replay {
  private Replay() {}

  public static void history(WorkflowExecutionHistory history, Class<?>... workflowImplementations) throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      Worker worker = env.newWorker("replay", WorkerOptions.newBuilder()
          .setDefaultDeadlockDetectionTimeout(Duration.ofMinutes(1).toMillis()).build());
      worker.registerWorkflowImplementationTypes(workflowImplementations);
      WorkflowReplayer.replayWorkflowExecution(history, worker);
    }
  }
}
