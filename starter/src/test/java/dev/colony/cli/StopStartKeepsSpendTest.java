package dev.colony.cli;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.ant.Lifecycle;
import dev.colony.chat.ChatActivities;
import dev.colony.chat.ChatPost;
import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntSearchAttributes;
import dev.colony.workspace.WorkspaceActivities;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code colony stop} then {@code colony start} of a capped ant, on the time-skipping test server:
 * the new run starts with what the stopped run spent, so the cap still holds and the costs stay.
 */
@Timeout(120)
class StopStartKeepsSpendTest {
  private static final String QUEUE = "stop-start";

  /** Every session succeeds at once and costs {@link #cost}. */
  static final class Sessions implements SessionActivities {
    final List<SessionRequest> requests = new CopyOnWriteArrayList<>();
    volatile double cost;

    @Override
    public SessionResult runSession(SessionRequest request) {
      requests.add(request);
      return new SessionResult(Outcome.SUCCESS, "done", null, 1, cost, 0, 0, 0, null, null);
    }
  }

  static final class Chat implements ChatActivities {
    @Override
    public void post(ChatPost post) {}
  }

  static final class Workspace implements WorkspaceActivities {
    @Override
    public String prepareWorkspace(AntSpec spec) {
      return "/tmp/ws/" + spec.name();
    }

    @Override
    public String claimHost() {
      return "";
    }

    @Override
    public boolean hostPolling(String queue) {
      return false;
    }
  }

  private TestWorkflowEnvironment env;
  private WorkflowClient client;
  private final Sessions sessions = new Sessions();

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    var worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class, dev.colony.supervision.ColonyWorkflowImpl.class);
    worker.registerActivitiesImplementations(sessions, new Chat(), new Workspace());
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private AntCard card(String workflowId) {
    var d = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build());
    return AntCard.fromMemo(d.getWorkflowExecutionInfo().getMemo().getFieldsMap(), client.getOptions().getDataConverter());
  }

  private WorkflowExecutionStatus status(String workflowId) {
    return client.newUntypedWorkflowStub(workflowId).describe().getStatus();
  }

  @Test
  void aStoppedAndStartedAntIsStillCappedAndKeepsItsCosts() {
    sessions.cost = 0.6;
    ErrorPolicy caps = new ErrorPolicy(0, 0, null, null, 0, 0, 1.0, null, "UTC");
    AntSpec spec = dev.colony.testing.Specs.ant("spender").colony("money").build().toBuilder()
        .pollIntervalSeconds(600).errorPolicy(caps).build();
    // Two sessions and two hours in one UTC day: skip past midnight first when it is close.
    long midnight = nextMidnight(env.currentTimeMillis());
    if (midnight - env.currentTimeMillis() < Duration.ofHours(3).toMillis()) {
      env.sleep(Duration.ofMillis(midnight - env.currentTimeMillis() + 60_000));
    }
    Ants.start(client, QUEUE, spec);
    AntWorkflow ant = client.newWorkflowStub(AntWorkflow.class, spec.workflowId());
    eventually(() -> sessions.requests.size() == 1, "first session");
    env.sleep(Duration.ofSeconds(601));
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "paused by the daily cap");
    assertEquals("budget", ant.status().pauseReason());

    ant.stop();
    eventually(() -> status(spec.workflowId()) == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
        "the stopped run ended");
    Ants.start(client, QUEUE, spec);
    eventually(() -> status(spec.workflowId()) == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
        "started again");
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "still capped after the start");
    assertEquals("budget", ant.status().pauseReason());
    assertTrue(ant.status().budget().startsWith("today $1.20 of $1.00"), ant.status().budget());
    env.sleep(Duration.ofHours(1));
    assertEquals(2, sessions.requests.size(), "no session while over the cap, stop and start or not");
    AntCard card = card(spec.workflowId());
    assertEquals(1.2, card.costTodayUsd(), 1e-9, "the console's card keeps today's spend");
    assertEquals(1.2, card.ledger().stream().mapToDouble(AntCard.DayCost::usd).sum(), 1e-9, "and the ledger");
    assertEquals(2, card.ledger().stream().mapToInt(AntCard.DayCost::sessions).sum());
  }

  private static long nextMidnight(long millis) {
    return LocalDate.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC).plusDays(1)
        .atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
  }
}
