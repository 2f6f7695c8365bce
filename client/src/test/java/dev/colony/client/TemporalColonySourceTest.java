package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.autonomy.Decide;
import dev.colony.mailbox.Mail;
import dev.colony.overseer.Turn;
import dev.colony.overseer.TurnReport;
import dev.colony.spec.AntSpec;
import dev.colony.testing.Specs;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Temporal side against the in-memory server (which has no visibility list, so the lists are
 * checked against the dev server by hand, see docs/console.md): the signals an action sends and who
 * is recorded sending them, the turns read from {@code reportTurns} updates, the long poll, the config.
 */
@Timeout(60)
class TemporalColonySourceTest {
  private static final dev.colony.client.Verbs VERBS = dev.colony.client.Verbs.named();
  TestWorkflowEnvironment env;
  WorkflowClient client;
  TemporalColonySource source;
  AntWorkflow alpha;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    env.newWorker("q").registerWorkflowImplementationTypes(dev.colony.client.FakeAnt.class);
    env.start();
    client = env.getWorkflowClient();
    alpha = client.newWorkflowStub(AntWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue("q")
        .setWorkflowId("ant/hello/alpha").build());
    WorkflowClient.start(alpha::run, new AntRun(Specs.ant("alpha").colony("hello").build(), null));
    source = new TemporalColonySource(client, "hello", "http://ui");
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private List<HistoryEvent> signals() {
    return client.fetchHistory("ant/hello/alpha").getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).toList();
  }

  private <T> T input(HistoryEvent e, Class<T> type) {
    return client.getOptions().getDataConverter().fromPayloads(0,
        Optional.of(e.getWorkflowExecutionSignaledEventAttributes().getInput()), type, type);
  }

  @Test
  void mergeQueueCallsAreCountedWithTheOthers() {
    long before = source.calls();
    assertThrows(NoSuchElementException.class, () -> source.merges().decide("app",
        new dev.colony.merge.MergeDecision("alpha-1", "approve", "@Ada")));
    assertTrue(source.calls() > before, "the decide update is a call to Temporal: " + source.callsByMethod());
    assertTrue(source.callsByMethod().getOrDefault("UpdateWorkflowExecution", 0L) >= 1, source.callsByMethod().toString());
  }

  @Test
  void taskBoardCallsAreCountedWithTheOthers() {
    long before = source.calls();
    long describes = source.callsByMethod().getOrDefault("DescribeWorkflowExecution", 0L);
    try {
      source.board(dev.colony.task.TaskSettings.defaults()).get("no-such-task");
    } catch (RuntimeException absent) {
      // no such task: the call was made all the same
    }
    assertTrue(source.calls() > before, "reading a task is a call to Temporal: " + source.callsByMethod());
    assertTrue(source.callsByMethod().getOrDefault("DescribeWorkflowExecution", 0L) > describes, source.callsByMethod().toString());
  }

  @Test
  void actionsAreTheCliSignalsSentAsTheOperator() {
    long before = source.callsByMethod().getOrDefault("SignalWorkflowExecution", 0L);
    source.act("alpha", VERBS.action("pause", null, null, null), new Actor("Ada", "console"));
    source.act("alpha", VERBS.action("urgent", "stop and test", null, null), new Actor("Ada", "console"));
    source.act("alpha", VERBS.action("deny", null, 3, "too risky"), new Actor("Grace", "console"));
    // the in-memory server writes a signal that came during a workflow task when the task completes
    dev.colony.testing.Eventually.eventually(() -> signals().size() == 3, "the three signals in the history");
    List<HistoryEvent> s = signals();
    assertEquals(List.of("pause", "message", "decide"),
        s.stream().map(e -> e.getWorkflowExecutionSignaledEventAttributes().getSignalName()).toList());
    assertEquals(List.of("console:Ada", "console:Ada", "console:Grace"),
        s.stream().map(e -> e.getWorkflowExecutionSignaledEventAttributes().getIdentity()).toList());
    Mail mail = input(s.get(1), Mail.class);
    assertEquals("stop and test", mail.text());
    assertTrue(mail.urgent());
    assertEquals(new Decide(3, false, "Grace (console)", "too risky"), input(s.get(2), Decide.class),
        "the decider as every surface records it: name (surface)");
    assertEquals(before + 3, source.callsByMethod().get("SignalWorkflowExecution"), "each signal counted once");
    assertThrows(IllegalArgumentException.class, () -> VERBS.action("send", " ", null, null));
    assertThrows(NoSuchElementException.class,
        () -> source.act("nobody", VERBS.action("pause", null, null, null), new Actor("Ada", "console")));
  }

  @Test
  void theAntItsConfigAndItsLiveTurns() {
    ColonySource.Detail d = source.ant("alpha");
    assertEquals("ant/hello/alpha", d.workflowId());
    assertEquals("alpha", d.row().name());
    assertTrue(d.row().running());
    assertNull(d.row().card(), "no card: tolerated");
    assertTrue(d.webUiUrl().startsWith("http://ui/namespaces/"), d.webUiUrl());
    assertNull(source.ant("nobody"));
    assertEquals("do the work", ((AntSpec) source.config("alpha")).instructions());

    alpha.reportTurns(new TurnReport(1, List.of(Turn.tool("Bash", "ls", "README.md", false)), List.of(), 0));
    assertEquals(List.of("Bash"), source.live("alpha").turns().stream().map(Turn::name).toList());
    alpha.reportTurns(new TurnReport(2, List.of(Turn.text("tests pass")), List.of(), 0));
    ColonySource.Live live = source.live("alpha");
    assertEquals(2, live.session(), "the last session's turns only");
    assertEquals(List.of("tests pass"), live.turns().stream().map(Turn::input).toList());
    // The history long poll (waitTurns) is not checked here: the in-memory server fails a
    // waitNewEvent read with a page token (IndexOutOfBoundsException in TestWorkflowService).
  }

  @Test
  void queriesQuoteTheColonyName() {
    assertTrue(TemporalColonySource.filterQuery(ColonySource.Filter.WORKING).toString()
        .startsWith("AntState IN ('building_prompt'"));
    assertEquals("", TemporalColonySource.filterQuery(ColonySource.Filter.ALL).toString());
    assertEquals("WorkflowType = 'TaskWorkflow' AND ColonyName = 'it\\'s' AND TaskUpdatedAt >= '2026-11-25T21:00:00Z'",
        TemporalColonySource.tasksChangedQuery("it's", java.time.Instant.parse("2026-11-25T21:00:00Z").toEpochMilli()));
  }

  @Test
  void runningAntsAreReadByNameAndOnlyRunningOnes() {
    // Names that are not ant names never reach a query (nothing to quote wrongly, nothing to read).
    assertEquals(java.util.Set.of(), source.running(List.of("not an ant", "'; drop")));
  }
}
