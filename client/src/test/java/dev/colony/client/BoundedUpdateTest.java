package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BoundedUpdate} against the in-memory Temporal: an answer, a validator's sentence, a
 * missing workflow as the one {@link BoundedUpdate.NotRunning}, and a workflow no worker serves
 * given up at the bound it was given (not the default), with the one no-worker sentence.
 */
@Timeout(60)
class BoundedUpdateTest {
  @WorkflowInterface
  public interface Tally {
    @WorkflowMethod
    void run();

    @UpdateMethod
    int add(int n);

    @UpdateValidatorMethod(updateName = "add")
    void validateAdd(int n);
  }

  public static class TallyImpl implements Tally {
    private int total;

    @Override
    public void run() {
      Workflow.await(() -> false);
    }

    @Override
    public int add(int n) {
      total += n;
      return total;
    }

    @Override
    public void validateAdd(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("a tally only grows: " + n + " is negative");
      }
    }
  }

  TestWorkflowEnvironment env;
  WorkflowClient client;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    env.newWorker("served").registerWorkflowImplementationTypes(TallyImpl.class);
    env.start();
    client = env.getWorkflowClient();
    start("tally/acme/one", "served");
  }

  private void start(String id, String taskQueue) {
    Tally t = client.newWorkflowStub(Tally.class, WorkflowOptions.newBuilder().setTaskQueue(taskQueue).setWorkflowId(id).build());
    WorkflowClient.start(t::run);
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void anAppliedUpdateAnswersAndARefusedOneSaysTheValidatorsSentence() {
    BoundedUpdate u = new BoundedUpdate(client, "acme");
    assertEquals(2, u.call("tally/acme/one", "add", 2, Integer.class));
    assertEquals(5, u.call("tally/acme/one", "add", 3, Integer.class));
    var refused = assertThrows(BoundedUpdate.Refused.class, () -> u.call("tally/acme/one", "add", -1, Integer.class));
    assertEquals("a tally only grows: -1 is negative", refused.getMessage());
    assertEquals(6, u.call("tally/acme/one", "add", 1, Integer.class), "the refused one changed nothing");
  }

  @Test
  void aMissingWorkflowIsTheOneNotRunningAnswer() {
    BoundedUpdate u = new BoundedUpdate(client, "acme");
    var missing = assertThrows(BoundedUpdate.NotRunning.class, () -> u.call("tally/acme/none", "add", 1, Integer.class));
    assertEquals("workflow tally/acme/none is not running", missing.getMessage());
    assertTrue(missing.getCause() instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.NOT_FOUND,
        "Temporal's NOT_FOUND is the cause: " + missing.getCause());
  }

  @Test
  void noWorkerIsGivenUpAtTheBoundItWasGiven() {
    start("tally/acme/unserved", "nobody-polls-this");
    Duration bound = Duration.ofSeconds(2);
    long t0 = System.nanoTime();
    var late = assertThrows(BoundedUpdate.NoWorker.class,
        () -> new BoundedUpdate(client, "acme").within(bound).call("tally/acme/unserved", "add", 1, Integer.class));
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertEquals("no worker answered within 2 s: is a worker (colony dev / colony worker) running for colony acme?",
        late.getMessage());
    assertTrue(took.compareTo(bound.minusMillis(200)) >= 0, "gave up before its bound: " + took);
    assertTrue(took.compareTo(BoundedUpdate.ANSWER_WITHIN) < 0, "waited for the default bound, not the one given: " + took);
  }

  @Test
  void temporalsWordsAreRepeatedBounded() {
    assertEquals("Temporal answered UNAVAILABLE: down", BoundedUpdate.temporalSaid(
        new RuntimeException(new StatusRuntimeException(Status.UNAVAILABLE.withDescription("down")))));
  }
}
