package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.Outcome;
import dev.colony.overseer.Turn;
import dev.colony.overseer.TurnReply;
import dev.colony.overseer.TurnReport;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.supervision.AntFailure;
import dev.colony.supervision.ColonyCard;
import dev.colony.supervision.ColonyRun;
import dev.colony.supervision.ColonyWorkflow;
import dev.colony.supervision.GroupSpec;
import dev.colony.supervision.Strategy;
import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.activity.Activity;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.DataConverter;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console's cards: what an ant and the colony's supervisor publish in their memos (read back
 * as the console does, with DescribeWorkflowExecution and the data converter), AntUpdatedAt, the
 * cost ledger across continue-as-new, and the turns of an ant without an overseer.
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class ConsoleCardTest {
  private static final String QUEUE = "card";

  /** Sessions that cost what the script says; an ant named "talker" reports turns while it runs. */
  static final class CostlySessions implements SessionActivities {
    final ConcurrentLinkedDeque<Double> costs = new ConcurrentLinkedDeque<>();
    final List<SessionRequest> requests = new CopyOnWriteArrayList<>();
    final List<TurnReply> replies = new CopyOnWriteArrayList<>();

    @Override
    public SessionResult runSession(SessionRequest request) {
      requests.add(request);
      if (request.spec().name().equals("talker")) {
        // What TurnReporter does for an ant without an overseer: an update it does not wait on.
        var ctx = Activity.getExecutionContext();
        WorkflowStub ant = ctx.getWorkflowClient().newUntypedWorkflowStub(ctx.getInfo().getWorkflowId());
        replies.add(ant.update("reportTurns", TurnReply.class, new TurnReport(request.session(),
            List.of(Turn.tool("Bash", "ls", "a.txt", false), Turn.text("looked around")), List.of(), 0)));
      }
      if (request.spec().name().equals("broke")) {
        return SessionResult.of(Outcome.BILLING, "credit balance too low");
      }
      Double cost = costs.poll();
      return new SessionResult(Outcome.SUCCESS, "done " + request.session(), null, 3, cost == null ? 0 : cost,
          100, 20, 1000, null, null);
    }
  }

  private TestWorkflowEnvironment env;
  private CostlySessions sessions;
  private Fakes.RecordingChat chat;
  private WorkflowClient client;

  @BeforeEach
  void setUp() {
    sessions = new CostlySessions();
    chat = new Fakes.RecordingChat();
    env = Fakes.environment(QUEUE, sessions, chat, new Fakes.FixedWorkspace());
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private Map<String, Payload> memo(String workflowId) {
    var info = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace(client.getOptions().getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build())
        .getWorkflowExecutionInfo();
    return info.getMemo().getFieldsMap();
  }

  private DataConverter converter() {
    return client.getOptions().getDataConverter();
  }

  private AntCard card(AntSpec spec) {
    return AntCard.fromMemo(memo(spec.workflowId()), converter());
  }

  private OffsetDateTime updatedAt(AntSpec spec) {
    return client.newUntypedWorkflowStub(spec.workflowId()).describe().getTypedSearchAttributes()
        .get(AntSearchAttributes.UPDATED_AT);
  }

  private String runId(AntSpec spec) {
    return client.newUntypedWorkflowStub(spec.workflowId()).describe().getExecution().getRunId();
  }

  @Test
  void theCardAppearsInTheMemoAndChangesWithAPause() {
    sessions.costs.add(0.25);
    AntSpec spec = Fakes.withPoll(Fakes.spec("shown"), 3600);
    AntWorkflow ant = Fakes.start(client, QUEUE, spec);
    eventually(() -> card(spec) != null && card(spec).state().equals("waiting") && card(spec).recent().size() == 1,
        "the card shows the finished session and the wait");
    AntCard waiting = card(spec);
    assertEquals(AntCard.VERSION, waiting.version());
    assertEquals(1, waiting.session());
    assertEquals(false, waiting.sessionRunning());
    assertNotNull(waiting.sessionStartedMillis());
    assertTrue(waiting.doing().startsWith("next session at "), waiting.doing());
    assertNull(waiting.needsHuman());
    assertEquals(1, waiting.sessionsToday());
    assertEquals(0.25, waiting.costTodayUsd(), 1e-9);
    assertEquals(0.25, waiting.costMonthUsd(), 1e-9);
    assertEquals("UTC", waiting.budgetZone());
    assertEquals(1, waiting.ledger().size());
    assertEquals(waiting.costDay(), waiting.ledger().get(0).day());
    assertEquals(0.25, waiting.costOn(waiting.costDay()), 1e-9);
    AntCard.SessionRecord first = waiting.recent().get(0);
    assertEquals(1, first.number());
    assertEquals("success", first.outcome());
    assertEquals("done 1", first.summary());
    assertEquals(3, first.turns());
    assertEquals(0.25, first.costUsd(), 1e-9);
    assertEquals(runId(spec), first.runId(), "the run that ran it, for a Web UI link");
    assertNull(waiting.lastError());
    OffsetDateTime firstUpdate = updatedAt(spec);
    assertNotNull(firstUpdate, "AntUpdatedAt is set with the card");
    assertTrue(waiting.stateSinceMillis() > 0 && waiting.stateSinceMillis() <= env.currentTimeMillis());

    // An idle ant writes nothing: time passes, the card stays as it was.
    env.sleep(Duration.ofMinutes(30));
    assertEquals(waiting, card(spec));
    assertEquals(firstUpdate, updatedAt(spec));

    ant.pause();
    eventually(() -> card(spec).state().equals("paused"), "the card shows the pause");
    AntCard paused = card(spec);
    assertTrue(paused.revision() > waiting.revision(), paused.revision() + " after " + waiting.revision());
    assertEquals("paused by an operator", paused.doing());
    assertNull(paused.needsHuman(), "an operator's pause needs nobody");
    assertTrue(paused.stateSinceMillis() > waiting.stateSinceMillis());
    eventually(() -> updatedAt(spec).isAfter(firstUpdate), "AntUpdatedAt moves with the card");

    ant.message(dev.colony.mailbox.Mail.of("please look at the flaky test\nin module X"));
    eventually(() -> card(spec).recent().size() == 2, "the message woke it: a second session");
    ant.pause();
    ant.message(new dev.colony.mailbox.Mail("from another ant", false, "scout", null));
    eventually(() -> card(spec).queue().size() == 1 || card(spec).recent().size() == 3, "queued or run");
    ant.stop();
  }

  @Test
  void theCostLedgerAndTheLastSessionsSurviveContinueAsNew() {
    for (int i = 0; i < 3; i++) {
      sessions.costs.add(0.5);
    }
    AntSpec spec = Fakes.withPoll(Fakes.spec("ledger"), 12 * 3600).withContinueAsNewEvery(1);
    Fakes.start(client, QUEUE, spec);
    String firstRun = runId(spec);
    env.sleep(Duration.ofHours(30)); // sessions at 0h, 12h and 24h, one run each
    eventually(() -> sessions.requests.size() == 3, "three sessions");
    eventually(() -> card(spec) != null && card(spec).recent().size() == 3 && card(spec).state().equals("waiting"),
        "the card after the third session");
    AntCard c = card(spec);
    assertNotEquals(firstRun, runId(spec), "the ant continued as new");
    double usd = 0;
    int begun = 0;
    for (AntCard.DayCost d : c.ledger()) {
      usd += d.usd();
      begun += d.sessions();
    }
    assertEquals(1.5, usd, 1e-9, c.ledger().toString());
    assertEquals(3, begun, c.ledger().toString());
    assertTrue(c.ledger().size() >= 2, "30 hours span two days at least: " + c.ledger());
    assertEquals(c.ledger().get(c.ledger().size() - 1).day(), c.costDay());
    List<String> runs = new ArrayList<>();
    for (AntCard.SessionRecord r : c.recent()) {
      runs.add(r.runId());
    }
    assertEquals(3, runs.stream().distinct().count(), "each session ran in a run of its own: " + runs);
    assertEquals(List.of(1, 2, 3), c.recent().stream().map(AntCard.SessionRecord::number).toList());
    assertTrue(c.revision() >= 3, "the revision counts across runs: " + c.revision());
  }

  @Test
  void theSupervisionCardShowsGroupsBreakersAndEvents() {
    List<GroupSpec> groups = List.of(new GroupSpec("pair", Strategy.ONE_FOR_ALL, List.of("a", "b"), 2, 600));
    ColonyWorkflow colony = client.newWorkflowStub(ColonyWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(ColonyWorkflow.workflowId("test")).setTaskQueue(QUEUE).build());
    WorkflowClient.start(colony::run, ColonyRun.fresh("test", groups, null));
    String id = ColonyWorkflow.workflowId("test");
    eventually(() -> ColonyCard.fromMemo(memo(id), converter()) != null, "the first card");
    ColonyCard first = ColonyCard.fromMemo(memo(id), converter());
    assertEquals(1, first.groups().size());
    ColonyCard.Group pair = first.groups().get(0);
    assertEquals("one_for_all", pair.strategy());
    assertEquals(List.of("a", "b"), pair.ants());
    assertEquals(0, pair.restarts());
    assertEquals(2, pair.maxRestarts());
    assertEquals(600, pair.withinSeconds());
    assertEquals("closed", pair.breaker());
    assertTrue(first.events().isEmpty());

    for (int i = 0; i < 3; i++) {
      colony.antFailed(new AntFailure("a", "boom " + i, AntFailure.PARKED));
    }
    colony.antFailed(new AntFailure("solo", "alone", AntFailure.PARKED));
    eventually(() -> {
      ColonyCard c = ColonyCard.fromMemo(memo(id), converter());
      return c.groups().size() == 2 && c.groups().get(0).breaker().equals("open");
    }, "the breaker opened and the lone ant's group shows");
    ColonyCard c = ColonyCard.fromMemo(memo(id), converter());
    assertEquals(2, c.groups().get(0).restarts());
    assertEquals(2, c.groups().get(0).restartTimesMillis().size());
    assertEquals("solo", c.groups().get(1).name());
    assertEquals(1, c.groups().get(1).restarts());
    assertTrue(c.events().stream().anyMatch(e -> e.type().equals("restart_limit_exceeded")), c.events().toString());
    assertTrue(c.revision() > first.revision());

    // New groups are shown without a failure.
    colony.configure(List.of(new GroupSpec("pair", Strategy.REST_FOR_ONE, List.of("a", "b"), 2, 600)));
    eventually(() -> ColonyCard.fromMemo(memo(id), converter()).groups().get(0).strategy().equals("rest_for_one"),
        "the new strategy shows");

    // Many events: the card keeps the last 50.
    for (int i = 0; i < 30; i++) {
      colony.antFailed(new AntFailure("x" + i, "r", AntFailure.BUDGET));
    }
    eventually(() -> ColonyCard.fromMemo(memo(id), converter()).events().stream()
        .anyMatch(e -> "x29".equals(e.ant())), "the last event shows");
    assertTrue(ColonyCard.fromMemo(memo(id), converter()).events().size() <= ColonyCard.EVENTS_SHOWN);
  }

  @Test
  void anAntWithoutOverseerTakesTheTurnsOfItsRunningSession() {
    AntSpec spec = Fakes.withPoll(Fakes.spec("talker"), 3600);
    Fakes.start(client, QUEUE, spec);
    eventually(() -> sessions.replies.size() == 1, "the report was answered");
    assertTrue(sessions.replies.get(0).whispers().isEmpty());
    assertEquals(false, sessions.replies.get(0).evaluating());
    eventually(() -> card(spec) != null && card(spec).recent().size() == 1, "the session ended");
    long accepted = client.fetchHistory(spec.workflowId()).getEvents().stream()
        .filter(e -> e.hasWorkflowExecutionUpdateAcceptedEventAttributes()
            && e.getWorkflowExecutionUpdateAcceptedEventAttributes().getAcceptedRequest().getInput().getName()
                .equals("reportTurns"))
        .count();
    assertEquals(1, accepted, "the turns are in the run's history, where the console reads them");
  }

  @Test
  void aBillingPauseNeedsAHumanWithTheErrorAndResumeClearsIt() {
    AntSpec spec = Fakes.withPoll(Fakes.spec("broke"), 3600);
    AntWorkflow ant = Fakes.start(client, QUEUE, spec);
    eventually(() -> card(spec) != null && "billing".equals(card(spec).needsHuman()), "the card asks for a human");
    AntCard c = card(spec);
    assertEquals("paused", c.state());
    assertEquals("paused: billing error", c.doing());
    assertEquals("credit balance too low", c.needsHumanDetail());
    assertNotNull(c.needsHumanSinceMillis());
    assertEquals("billing: credit balance too low", c.lastError());
    assertEquals(c.recent().get(0).endMillis(), c.lastErrorMillis());
    ant.resume();
    eventually(() -> card(spec).revision() > c.revision() && card(spec).recent().size() == 2,
        "resumed: another session, which fails the same way");
    ant.stop();
  }
}
