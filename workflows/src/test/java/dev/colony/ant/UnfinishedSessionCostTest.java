package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.errorpolicy.Outcome;
import dev.colony.mailbox.Mail;
import dev.colony.overseer.TurnReport;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.visibility.AntCard;
import io.temporal.activity.Activity;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.ActivityCompletionException;
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
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The sessions that end without a result saying their cost (stopped, interrupted, a worker that
 * died mid-session) are charged what their engine reported spending while they ran (the turn
 * reports carry it), so the budget caps see the runaway sessions they exist for.
 */
@Timeout(120)
class UnfinishedSessionCostTest {
  private static final String QUEUE = "unfinished";

  /** Each attempt reports {@link #spent} through {@code reportTurns}, then does what {@link #mode} says. */
  static final class Sessions implements SessionActivities {
    enum Mode { RUN_UNTIL_CANCELLED, CRASH_FIRST_ATTEMPT }

    final List<SessionRequest> requests = new CopyOnWriteArrayList<>();
    volatile Mode mode = Mode.RUN_UNTIL_CANCELLED;
    volatile double spent;
    volatile double resultCost;

    @Override
    public SessionResult runSession(SessionRequest request) {
      var ctx = Activity.getExecutionContext();
      int attempt = ctx.getInfo().getAttempt();
      if (attempt == 1) {
        requests.add(request);
      }
      ctx.getWorkflowClient().newWorkflowStub(AntWorkflow.class, ctx.getInfo().getWorkflowId())
          .reportTurns(new TurnReport(request.session(), List.of(), List.of(), 0, attempt, spent));
      if (mode == Mode.CRASH_FIRST_ATTEMPT) {
        if (attempt == 1) {
          throw new IllegalStateException("the worker died"); // retried, as a worker crash is
        }
        return new SessionResult(Outcome.SUCCESS, "done", null, 1, resultCost, 0, 0, 0, null, null);
      }
      long end = System.nanoTime() + Duration.ofMinutes(2).toNanos(); // bounded: never outlives the test
      while (System.nanoTime() < end) {
        try {
          ctx.heartbeat(null);
          Thread.sleep(20); // not a wait: a session that runs until cancelled, heartbeating
        } catch (ActivityCompletionException e) {
          throw e;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new RuntimeException(e);
        }
      }
      throw new IllegalStateException("never cancelled");
    }
  }

  private TestWorkflowEnvironment env;
  private WorkflowClient client;
  private final Sessions sessions = new Sessions();

  @BeforeEach
  void setUp() {
    env = Fakes.environment(QUEUE, sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
    client = env.getWorkflowClient();
    // The spend counts in one UTC day: skip past midnight first when it is close.
    long midnight = LocalDate.ofInstant(Instant.ofEpochMilli(env.currentTimeMillis()), ZoneOffset.UTC).plusDays(1)
        .atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    if (midnight - env.currentTimeMillis() < Duration.ofHours(1).toMillis()) {
      env.sleep(Duration.ofMillis(midnight - env.currentTimeMillis() + 60_000));
    }
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private AntSpec spec(String name, Double dailyCap) {
    AntSpec s = Fakes.withPoll(Fakes.spec(name), 3600).toBuilder().heartbeatTimeoutSeconds(2).build();
    return Fakes.withErrorPolicy(s, new ErrorPolicy(0, 0, null, null, 0, 0, dailyCap, null, "UTC"));
  }

  @Test
  void anInterruptedSessionIsChargedWhatItReportedAndTheCapSeesIt() {
    sessions.spent = 0.8;
    AntWorkflow ant = Fakes.start(client, QUEUE, spec("runaway", 0.5));
    eventually(() -> sessions.requests.size() == 1, "the session runs");
    ant.message(new Mail("stop that, do this", true, null, "u1"));
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "paused by the daily cap after the interrupt");
    assertEquals("budget", ant.status().pauseReason());
    assertEquals(0.8, ant.stats().spentTodayUsd(), 1e-9);
    assertEquals(1, sessions.requests.size(), "no session after the cap");
  }

  @Test
  void aStoppedSessionIsChargedAndTheStoppedRunsCardKeepsIt() {
    sessions.spent = 0.4;
    AntSpec spec = spec("stopped", null);
    AntWorkflow ant = Fakes.start(client, QUEUE, spec);
    eventually(() -> sessions.requests.size() == 1, "the session runs");
    ant.stop();
    eventually(() -> client.newUntypedWorkflowStub(spec.workflowId()).describe().getStatus()
        == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED, "the run ended");
    var d = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder().setWorkflowId(spec.workflowId()))
            .build());
    AntCard card = AntCard.fromMemo(d.getWorkflowExecutionInfo().getMemo().getFieldsMap(),
        client.getOptions().getDataConverter());
    assertEquals(0.4, card.costTodayUsd(), 1e-9, "the ledger counts the stopped session");
  }

  @Test
  void anAttemptWhoseWorkerDiedCountsBesideTheAttemptThatFinished() {
    sessions.mode = Sessions.Mode.CRASH_FIRST_ATTEMPT;
    sessions.spent = 0.5; // attempt 1 spent this before its worker died; attempt 2 reports its own
    sessions.resultCost = 0.5;
    AntWorkflow ant = Fakes.start(client, QUEUE, spec("retried", null));
    eventually(() -> ant.stats().sessionsByOutcome().getOrDefault("success", 0) == 1, "the session succeeded");
    assertEquals(1.0, ant.stats().spentTodayUsd(), 1e-9, "both attempts' spend");
    assertTrue(ant.stats().costUsd() >= 1.0 - 1e-9, String.valueOf(ant.stats().costUsd()));
  }

  /**
   * Records the paths that charge a reported spend (the {@code charge-reported-spend} marker: an
   * interrupted session capped by it, a stopped session) for the replay guard.
   */
  @Test
  @EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordHistories() throws Exception {
    anInterruptedSessionIsChargedWhatItReportedAndTheCapSeesIt();
    sessions.requests.clear();
    aStoppedSessionIsChargedAndTheStoppedRunsCardKeepsIt();
    java.nio.file.Path dir = HistoryReplayTest.HISTORIES.resolve("1.5-costs");
    java.nio.file.Files.createDirectories(dir);
    java.nio.file.Files.writeString(dir.resolve("interrupted-session-charged.json"),
        client.fetchHistory("ant/test/runaway").toJson(true));
    java.nio.file.Files.writeString(dir.resolve("stopped-session-charged.json"),
        client.fetchHistory("ant/test/stopped").toJson(true));
  }
}
