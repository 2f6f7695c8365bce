package dev.colony.merge.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.Activities;
import dev.colony.board.TaskBoard;
import dev.colony.merge.LandMode;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDeskActivities;
import dev.colony.merge.MergeQueueWorkflow;
import dev.colony.merge.MergeQueueWorkflowImpl;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.SubmitReply;
import dev.colony.merge.Submission;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The desk's updates with start against a real queue workflow on the test environment, without
 * time skipping: an idle queue sets no timer, so a time-skipping server jumps to the queue's
 * execution timeout (the test server's default, ten years) whenever nothing else runs, ends the
 * run as timed out, and the next update with start opens a new run. That was the "stale" card
 * (one item of two) this test once polled past: a new run, not a query that read before an update.
 */
@Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class MergeDeskActivitiesImplTest {
  static final String QUEUE = "desk-test";
  static final MergeRepo REPO = new MergeRepo("test", "app", "/r", "main", LandMode.REBASE, List.of(), 600, false,
      true, 3, 3600, "/c", "/c/s", null, null);

  /** A workflow that calls the desk as an ant would, and says what came back. */
  @WorkflowInterface
  public interface Caller {
    @WorkflowMethod
    String call(String what, String ant, int priority);
  }

  public static final class CallerImpl implements Caller {
    @Override
    public String call(String what, String ant, int priority) {
      MergeDeskActivities desk = Workflow.newActivityStub(MergeDeskActivities.class,
          ActivityOptions.newBuilder(Activities.MERGE_DESK)
              .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(2).build()).build());
      try {
        switch (what) {
          case "submit" -> {
            SubmitReply r = desk.submit(REPO, new Submission(ant, "", "colony/" + ant, null, priority, "ant", false));
            return r.itemId() + " " + r.state();
          }
          case "claim" -> {
            PathReply r = desk.claimPaths(REPO, new PathClaim(ant, List.of("src/**"), null, null));
            return r.granted() ? "granted" : "held by " + r.holder();
          }
          default -> {
            desk.releasePaths(REPO, ant);
            return "released";
          }
        }
      } catch (ActivityFailure f) {
        ApplicationFailure a = (ApplicationFailure) f.getCause();
        return "refused (" + a.getType() + ", " + (a.isNonRetryable() ? "final" : "retryable") + "): "
            + a.getOriginalMessage();
      }
    }
  }

  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance(
        io.temporal.testing.TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    client = env.getWorkflowClient();
    Worker w = env.newWorker(QUEUE);
    w.registerWorkflowImplementationTypes(MergeQueueWorkflowImpl.class, CallerImpl.class);
    TaskBoard noBoard = (TaskBoard) Proxy.newProxyInstance(TaskBoard.class.getClassLoader(),
        new Class<?>[] {TaskBoard.class}, (p, m, a) -> null);
    w.registerActivitiesImplementations(new MergeDeskActivitiesImpl(client, colony -> noBoard));
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private String call(String what, String ant, int priority) {
    Caller c = client.newWorkflowStub(Caller.class, WorkflowOptions.newBuilder().setTaskQueue(QUEUE).build());
    return c.call(what, ant, priority);
  }

  @Test
  void theFirstSubmissionStartsTheQueueAndTheNextOnesJoinIt() {
    assertEquals("released", call("release", "alpha", 2), "no queue yet: nothing held, no failure");
    assertEquals("alpha-1 AWAITING_REVIEW", call("submit", "alpha", 2));
    String run = client.newUntypedWorkflowStub(REPO.workflowId()).describe().getExecution().getRunId();
    assertEquals("alpha-1 AWAITING_REVIEW", call("submit", "alpha", 1), "joined");
    assertEquals("beta-1 AWAITING_REVIEW", call("submit", "beta", 2));
    var d = client.newUntypedWorkflowStub(REPO.workflowId()).describe();
    assertEquals("test", d.getTypedSearchAttributes().get(AntSearchAttributes.COLONY));
    assertEquals(run, d.getExecution().getRunId(), "every submission went to the one running queue");
    assertEquals(io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, d.getStatus());
    MergeQueueWorkflow queue = client.newWorkflowStub(MergeQueueWorkflow.class, REPO.workflowId());
    // Read at once, no polling: a completed update's effect is on the next query's card.
    MergeCard card = queue.card();
    assertEquals(2, card.items().size(), card.items().toString());
    assertEquals(1, card.items().stream().filter(i -> i.id().equals("alpha-1")).findFirst().orElseThrow().priority());
  }

  @Test
  void claimsGoThroughTheQueueAndARefusalIsFinalWithTheQueuesSentence() {
    assertEquals("granted", call("claim", "alpha", 2));
    assertEquals("held by alpha", call("claim", "beta", 2));
    assertEquals("released", call("release", "alpha", 2));
    String refused = call("submit", "gamma", 7);
    assertTrue(refused.startsWith("refused (MergeRefused, final): priority 7 is out of range"), refused);
  }
}
