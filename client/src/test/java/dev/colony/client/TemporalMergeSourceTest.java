package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.merge.ItemState;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.MergeQueueState;
import dev.colony.merge.MergeQueueWorkflow;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.SubmitReply;
import dev.colony.merge.Submission;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TemporalMergeSource} against the in-memory Temporal: a decision is the queue's
 * {@code decide} update with the operator's identity, the validator's refusal its sentence, a
 * missing queue a 404; the cards decoded from the memo (the in-memory server lists
 * them by describing).
 */
@Timeout(60)
class TemporalMergeSourceTest {
  /** A queue that answers decisions: refuses what its validator refuses, as the real one does. */
  public static class FakeQueue implements MergeQueueWorkflow {
    private final List<String> decided = new java.util.ArrayList<>();

    @Override
    public void run(MergeQueueState state) {
      Workflow.await(() -> false);
    }

    @Override
    public void configure(MergeRepo repo) {}

    @Override
    public SubmitReply submit(Submission submission) {
      return null;
    }

    @Override
    public void validateSubmit(Submission submission) {}

    @Override
    public SubmitReply decide(MergeDecision decision) {
      decided.add(decision.action() + " " + decision.item() + " by " + decision.by());
      return new SubmitReply(decision.item(), ItemState.QUEUED, 1, decision.item() + " is back in line (1st)");
    }

    @Override
    public void validateDecide(MergeDecision decision) {
      if (!decision.item().equals("alpha-3")) {
        throw new IllegalArgumentException("no open item '" + decision.item() + "' in the queue of app");
      }
    }

    @Override
    public void taskApproved(String taskId) {}

    @Override
    public PathReply claimPaths(PathClaim claim) {
      return null;
    }

    @Override
    public void validateClaimPaths(PathClaim claim) {}

    @Override
    public void releasePaths(String ant) {}

    @Override
    public void upgrade() {}

    @Override
    public MergeCard card() {
      return null;
    }
  }

  TestWorkflowEnvironment env;
  WorkflowClient client;
  TemporalMergeSource source;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    env.newWorker("q").registerWorkflowImplementationTypes(FakeQueue.class);
    env.start();
    client = env.getWorkflowClient();
    MergeQueueWorkflow q = client.newWorkflowStub(MergeQueueWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue("q")
        .setWorkflowId(MergeQueueWorkflow.workflowId("hello", "app")).build());
    WorkflowClient.start(q::run, (MergeQueueState) null);
    source = new TemporalMergeSource(client, "hello");
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void aDecisionIsTheQueuesUpdateAndItsRefusalItsSentence() {
    SubmitReply r = source.decide("app", new MergeDecision("alpha-3", "retry", "@Ada"));
    assertEquals(new SubmitReply("alpha-3", ItemState.QUEUED, 1, "alpha-3 is back in line (1st)"), r);
    var refused = assertThrows(MergeSource.Refused.class,
        () -> source.decide("app", new MergeDecision("beta-1", "cancel", "@Ada")));
    assertEquals("no open item 'beta-1' in the queue of app", refused.getMessage());
    var missing = assertThrows(NoSuchElementException.class,
        () -> source.decide("web", new MergeDecision("alpha-3", "retry", "@Ada")));
    assertEquals("no merge queue 'web' runs in colony 'hello'", missing.getMessage());
    // the operator's identity is the update's
    var events = client.fetchHistory(MergeQueueWorkflow.workflowId("hello", "app")).getEvents();
    var accepted = events.stream().filter(e -> e.hasWorkflowExecutionUpdateAcceptedEventAttributes()).toList();
    assertEquals(1, accepted.size(), "the refused one left no trace in the history");
    assertEquals("console:@Ada", accepted.get(0).getWorkflowExecutionUpdateAcceptedEventAttributes()
        .getAcceptedRequest().getMeta().getIdentity());
  }

  @Test
  void aQueueNoWorkerServesSaysTheOneNoWorkerSentenceAfterTheBound() {
    MergeQueueWorkflow q = client.newWorkflowStub(MergeQueueWorkflow.class, WorkflowOptions.newBuilder()
        .setTaskQueue("nobody-polls-this").setWorkflowId(MergeQueueWorkflow.workflowId("hello", "web")).build());
    WorkflowClient.start(q::run, (MergeQueueState) null);
    var late = assertThrows(ColonySource.SourceException.class,
        () -> source.decide("web", new MergeDecision("alpha-3", "retry", "@Ada")));
    // the same sentence the board and the CLI say
    assertEquals("no worker answered within 10 s: is a worker (colony dev / colony worker) running for colony hello?",
        late.getMessage());
  }

  @Test
  void theCardsAreReadFromTheMemoAndAQueueWithoutOneIsNotShown() {
    assertEquals(List.of(), source.cards(), "app has no card yet: not listed");
    MergeCard card = FakeMergeSource.card("web", List.of(FakeMergeSource.item("alpha-3", "alpha", ItemState.LANDING, "testing",
        0, null, null, 1000)), List.of(), Map.of(), Map.of(), Map.of());
    MergeQueueWorkflow q = client.newWorkflowStub(MergeQueueWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue("q")
        .setWorkflowId(MergeQueueWorkflow.workflowId("hello", "web")).setMemo(Map.of(MergeCard.MEMO, card)).build());
    WorkflowClient.start(q::run, (MergeQueueState) null);
    List<MergeCard> read = source.cards();
    assertEquals(List.of("web"), read.stream().map(MergeCard::repo).toList());
    assertEquals("testing", read.get(0).items().get(0).step());
    assertTrue(new TemporalColonySource(client, "hello", null).merges() instanceof TemporalMergeSource);
  }
}
