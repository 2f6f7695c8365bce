package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.Outcome;
import dev.colony.overseer.EvaluationRequest;
import dev.colony.overseer.OverseerActivities;
import dev.colony.overseer.OverseerSpec;
import dev.colony.overseer.Pattern;
import dev.colony.overseer.Turn;
import dev.colony.overseer.TurnReply;
import dev.colony.overseer.TurnReport;
import dev.colony.overseer.Verdict;
import dev.colony.overseer.Whisper;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import io.temporal.activity.Activity;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The overseer on the time-skipping test server: the session fake plays an engine
 * (it reports turns with the real {@code reportTurns} update and records the whispers it gets,
 * as the agent would at its next turn); the evaluation activity plays scripted verdicts.
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class OverseerTest {
  private static final String QUEUE = "llm-supervisor";
  static final OverseerSpec SUPERVISOR = new OverseerSpec("anthropic", "claude-test", "off", 20, 5, 3, 600);

  private TestWorkflowEnvironment env;
  private TurnSessions sessions;
  private Judge judge;
  private Fakes.RecordingChat chat;
  private WorkflowClient client;

  /** An engine's view: each session reports its batches of turns in order and keeps what it is whispered. */
  static final class TurnSessions implements SessionActivities {
    /** Per session, its batches; a session with no script reports nothing. */
    final Deque<List<TurnReport>> script = new ConcurrentLinkedDeque<>();
    final List<SessionRequest> requests = new CopyOnWriteArrayList<>();
    /** Every whisper the "agent" received, rendered, in order. */
    final List<String> agentSaw = new CopyOnWriteArrayList<>();
    final List<TurnReply> replies = new CopyOnWriteArrayList<>();
    /** After its script, a session runs (heartbeating) until it is cancelled. */
    volatile boolean blockAfterScript;
    final List<Integer> cancelled = new CopyOnWriteArrayList<>();
    /** Whether a session acknowledges the whispers of its last reply (an engine that took another turn). */
    volatile boolean ackLast = true;
    private final AtomicInteger ids = new AtomicInteger();

    TurnSessions then(List<TurnReport> batches) {
      script.add(batches);
      return this;
    }

    @Override
    public SessionResult runSession(SessionRequest request) {
      requests.add(request);
      List<TurnReport> batches = script.poll();
      if (batches != null) {
        var ctx = Activity.getExecutionContext();
        WorkflowStub ant = ctx.getWorkflowClient().newUntypedWorkflowStub(ctx.getInfo().getWorkflowId());
        List<String> acks = new ArrayList<>();
        for (TurnReport b : batches) {
          TurnReport report = new TurnReport(request.session(), b.turns(), acks, b.silentSeconds(), b.last());
          TurnReply reply = ant.startUpdate(UpdateOptions.newBuilder(TurnReply.class).setUpdateName("reportTurns")
              .setUpdateId("t" + ids.incrementAndGet()).setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
              report).getResult();
          replies.add(reply);
          acks = new ArrayList<>();
          for (Whisper w : reply.whispers()) {
            agentSaw.add(w.rendered());
            acks.add(w.id());
          }
        }
        if (ackLast && !acks.isEmpty()) {
          ant.startUpdate(UpdateOptions.newBuilder(TurnReply.class).setUpdateName("reportTurns")
              .setUpdateId("t" + ids.incrementAndGet()).setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
              new TurnReport(request.session(), List.of(), acks, 0)).getResult();
        }
      }
      if (blockAfterScript) {
        blockAfterScript = false;
        long end = System.nanoTime() + java.time.Duration.ofMinutes(2).toNanos(); // bounded: never outlives the test
        while (System.nanoTime() < end) {
          try {
            Activity.getExecutionContext().heartbeat(null);
            Thread.sleep(20); // not a wait: a session that runs until cancelled, heartbeating
          } catch (io.temporal.client.ActivityCompletionException e) {
            cancelled.add(request.session());
            throw e;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        }
        throw new IllegalStateException("session " + request.session() + " was never cancelled");
      }
      return SessionResult.of(Outcome.SUCCESS, "session " + request.session() + " done");
    }
  }

  /** The evaluation activity with scripted answers; OK once the script is spent. */
  static final class Judge implements OverseerActivities {
    final Deque<Supplier<Verdict>> script = new ConcurrentLinkedDeque<>();
    final List<EvaluationRequest> requests = new CopyOnWriteArrayList<>();

    Judge then(Pattern p, String whisper) {
      script.add(() -> new Verdict(p, whisper, p + " seen in the window"));
      return this;
    }

    Judge thenFail(String message) {
      script.add(() -> {
        throw ApplicationFailure.newNonRetryableFailure(message, "SupervisorCallRefused");
      });
      return this;
    }

    @Override
    public Verdict evaluate(EvaluationRequest request) {
      requests.add(request);
      Supplier<Verdict> next = script.poll();
      return next == null ? Verdict.ok() : next.get();
    }
  }

  static List<Turn> turns(int n, String command) {
    List<Turn> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Turn.tool("Bash", command, "error: build failed", true));
    }
    return out;
  }

  static TurnReport batch(int n) {
    return new TurnReport(0, turns(n, "mvn test"), List.of(), 0);
  }

  @BeforeEach
  void setUp() {
    sessions = new TurnSessions();
    judge = new Judge();
    chat = new Fakes.RecordingChat();
    env = Fakes.environment(QUEUE, sessions, judge, chat, new Fakes.FixedWorkspace());
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private AntSpec supervised(String name) {
    return Fakes.spec(name).withOverseer(SUPERVISOR);
  }

  /** An event-driven ant: one session per message, so each test drives sessions one at a time. */
  private AntSpec onDemand(String name) {
    return Fakes.withSchedule(supervised(name), null, List.of(new dev.colony.spec.TriggerSpec(
        dev.colony.spec.TriggerSpec.Type.GITHUB_ISSUE, List.of()))).withOverseer(SUPERVISOR);
  }

  private AntStatus settled(AntWorkflow ant, int sessionsRun) {
    eventually(() -> {
      AntStatus s = ant.status();
      return s.sessions() >= sessionsRun && !s.state().name().equals("RUNNING")
          && !s.state().name().equals("SPAWNING") && !s.state().name().equals("BUILDING_PROMPT")
          && !s.state().name().equals("INITIALIZING");
    }, "session " + sessionsRun + " finished");
    return ant.status();
  }

  @Test
  void okEvaluationsStayQuiet() {
    sessions.then(List.of(batch(5), batch(5)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("calm"));
    ant.message(dev.colony.mailbox.Mail.of("build the thing"));
    AntStatus s = settled(ant, 1);
    assertEquals(2, judge.requests.size(), "one evaluation per 5 turns");
    assertEquals(5, judge.requests.get(0).window().size());
    assertEquals(10, judge.requests.get(1).window().size(), "the window keeps the last 20 turns");
    assertTrue(judge.requests.get(0).task().contains("build the thing"), judge.requests.get(0).task());
    assertTrue(sessions.agentSaw.isEmpty(), "no whisper for OK: " + sessions.agentSaw);
    assertFalse(s.paused());
    assertTrue(s.overseer().contains("2 evaluations (last OK)"), s.overseer());
    assertTrue(chat.texts().stream().noneMatch(t -> t.contains("ESCALATION") || t.contains("CORRECTION")));
  }

  /**
   * The turns a session ends with are evaluated even when fewer than eval_interval: an agent that
   * outran a slow evaluation, or a short session, is not left unwatched. The verdict comes after
   * the session: its whisper waits for the next session's prompt.
   */
  @Test
  void theTurnsASessionEndsWithAreEvaluated() {
    judge.then(Pattern.OK, "").then(Pattern.SPIRALING, "You keep running mvn test.");
    sessions.then(List.of(batch(5), new TurnReport(0, turns(2, "mvn test"), List.of(), 0, true)));
    sessions.ackLast = false; // the session is over: nothing takes the last answer's whispers
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("short"));
    ant.message(dev.colony.mailbox.Mail.of("fix the build"));
    settled(ant, 1);
    eventually(() -> judge.requests.size() == 2, "the last two turns evaluated");
    assertEquals(7, judge.requests.get(1).window().size(), "the window holds the session's last turns");
    eventually(() -> ant.status().overseer().contains("2 evaluations (last SPIRALING)"), "the verdict counted");
    sessions.then(List.of());
    ant.message(dev.colony.mailbox.Mail.of("go on"));
    eventually(() -> sessions.requests.size() == 2, "session 2");
    assertEquals(List.of("[CORRECTION] You keep running mvn test."), sessions.requests.get(1).whispers(),
        "the whisper reaches the next session's prompt");
  }

  @Test
  void whisperThenStrongerWhisperThenEscalateWithPause() {
    judge.then(Pattern.SPIRALING, "You ran mvn test 5 times; read the first error instead.")
        .then(Pattern.SPIRALING, "Still the same command.")
        .then(Pattern.SPIRALING, "No change.");
    sessions.then(List.of(batch(5), batch(5), batch(5)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("loop"));
    ant.message(dev.colony.mailbox.Mail.of("fix the build"));
    AntStatus s = settled(ant, 1);

    assertEquals(3, sessions.agentSaw.size(), sessions.agentSaw.toString());
    assertEquals("[CORRECTION] You ran mvn test 5 times; read the first error instead.", sessions.agentSaw.get(0));
    assertTrue(sessions.agentSaw.get(1).startsWith("[CORRECTION] Notice 2 of 2"), sessions.agentSaw.get(1));
    assertTrue(sessions.agentSaw.get(1).contains("Change your approach now"), sessions.agentSaw.get(1));
    assertTrue(sessions.agentSaw.get(2).startsWith("[ESCALATION] Still retrying the same approach"),
        sessions.agentSaw.get(2));
    assertEquals(2, judge.requests.get(2).strikes(), "the model is told the ladder's step");

    assertTrue(s.paused());
    assertEquals("escalation", s.pauseReason());
    assertEquals(Lifecycle.PAUSED, s.state());
    assertTrue(s.overseer().contains("1 escalation"), s.overseer());
    List<String> posts = chat.texts();
    assertTrue(posts.stream().anyMatch(t -> t.startsWith("🚨 [ESCALATION] **loop** appears stuck (SPIRALING)")),
        posts.toString());
    assertTrue(posts.stream().noneMatch(t -> t.contains("read the first error")), "whispers never reach chat");

    // A human resumes: the next message runs and the ladder starts again.
    sessions.then(List.of(batch(5)));
    judge.then(Pattern.SPIRALING, "again");
    ant.resume();
    ant.message(dev.colony.mailbox.Mail.of("try another way"));
    eventually(() -> sessions.agentSaw.size() == 4, "the whisper after resume");
    assertEquals("[CORRECTION] again", sessions.agentSaw.get(3), "a fresh ladder starts at step 1");
  }

  @Test
  void aCleanEvaluationResetsTheLadder() {
    judge.then(Pattern.DRIFT, "Back to the task.").then(Pattern.OK, "").then(Pattern.DRIFT, "Back again.")
        .then(Pattern.SHALLOW, "Think first.");
    sessions.then(List.of(batch(5), batch(5), batch(5), batch(5)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("wanderer"));
    ant.message(dev.colony.mailbox.Mail.of("write docs"));
    AntStatus s = settled(ant, 1);
    assertEquals(List.of("[CORRECTION] Back to the task.", "[CORRECTION] Back again.",
        "[THINK_DEEPER] Notice 2 of 2: you are still taking complex decisions without enough reasoning. Think first."
            + " Change your approach now; if you cannot make progress, stop and say what blocks you."),
        sessions.agentSaw);
    assertFalse(s.paused(), "never escalated: the OK in between reset the ladder");
  }

  @Test
  void aFailingEvaluationIsSkippedAndCounted() {
    judge.thenFail("Anthropic API answered 401: invalid x-api-key").then(Pattern.SPIRALING, "Stop looping.");
    sessions.then(List.of(batch(5), batch(5)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("unlucky"));
    ant.message(dev.colony.mailbox.Mail.of("go"));
    AntStatus s = settled(ant, 1);
    assertEquals(List.of("[CORRECTION] Stop looping."), sessions.agentSaw);
    assertTrue(s.overseer().contains("1 skipped (Anthropic API answered 401"), s.overseer());
    assertTrue(s.overseer().contains("1 evaluation (last SPIRALING)"), s.overseer());
    assertEquals("success", s.lastOutcome(), "the ant is not stopped by its supervisor's failure");
  }

  @Test
  void silenceIsStallingWithoutAskingTheModel() {
    sessions.then(List.of(batch(2), new TurnReport(0, List.of(), List.of(), 700)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("quiet"));
    ant.message(dev.colony.mailbox.Mail.of("go"));
    settled(ant, 1);
    assertEquals(0, judge.requests.size(), "no model call for a silence");
    assertEquals(1, sessions.agentSaw.size(), sessions.agentSaw.toString());
    assertTrue(sessions.agentSaw.get(0).startsWith("[CORRECTION] Nothing meaningful has happened"),
        sessions.agentSaw.get(0));
  }

  @Test
  void whispersTheSessionDidNotTakeGoIntoTheNextPrompt() {
    judge.then(Pattern.SPIRALING, "Read the error.");
    sessions.ackLast = false; // the session ends right after the whisper came: no later turn took it
    sessions.then(List.of(batch(5)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("brief"));
    ant.message(dev.colony.mailbox.Mail.of("one"));
    settled(ant, 1);
    ant.message(dev.colony.mailbox.Mail.of("two"));
    settled(ant, 2);
    assertEquals(List.of("[CORRECTION] Read the error."), sessions.requests.get(1).whispers());
    ant.message(dev.colony.mailbox.Mail.of("three"));
    settled(ant, 3);
    assertEquals(List.of(), sessions.requests.get(2).whispers(), "delivered once");
  }

  @Test
  void abortInterruptsTheSessionAndDropsItsTaskAndTheQueue() {
    sessions.then(List.of(batch(5)));
    sessions.blockAfterScript = true;
    AntWorkflow ant = Fakes.start(client, QUEUE, withHeartbeat(onDemand("busy"), 2));
    ant.message(dev.colony.mailbox.Mail.of("the task"));
    eventually(() -> sessions.replies.size() == 1, "running");
    ant.message(dev.colony.mailbox.Mail.of("more work"));
    assertEquals(1, ant.status().queueDepth());
    ant.abort();
    eventually(() -> sessions.cancelled.size() == 1, "the session was interrupted");
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "waiting again");
    AntStatus s = ant.status();
    assertEquals(0, s.queueDepth(), "abort drops the queue");
    assertEquals("aborted", s.lastOutcome());
    assertTrue(chat.texts().stream().anyMatch(t -> t.equals(
        "🗑️ **busy** aborted its current task (interrupting the session) and dropped 1 queued instruction.")),
        chat.texts().toString());
    assertTrue(chat.texts().stream().noneMatch(t -> t.contains("urgent")), "not announced as an urgent message");
    ant.message(dev.colony.mailbox.Mail.of("fresh"));
    eventually(() -> sessions.requests.size() == 2, "next session");
    SessionRequest next = sessions.requests.get(1);
    assertEquals(List.of("fresh"), next.messages(), "neither the aborted task nor the queue come back");
    assertNull(next.resumeConversation());
  }

  static AntSpec withHeartbeat(AntSpec s, long seconds) {
    return s.toBuilder().heartbeatTimeoutSeconds(seconds).build();
  }

  @Test
  void abortAnswersAnEscalation() {
    judge.then(Pattern.DRIFT, "a").then(Pattern.DRIFT, "b").then(Pattern.DRIFT, "c");
    sessions.then(List.of(batch(5), batch(5), batch(5)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("drifter"));
    ant.message(dev.colony.mailbox.Mail.of("the task"));
    // Answered once the session is over (a session still running is interrupted: see the test above).
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "escalated and paused");
    assertEquals("escalation", ant.status().pauseReason());
    ant.abort();
    eventually(() -> !ant.status().paused(), "abort lets it go on");
    assertTrue(ant.status().overseer().contains("ladder 0/3"), ant.status().overseer());
    try {
      eventually(() -> chat.texts().stream().anyMatch(t -> t.startsWith("🗑️ **drifter** aborted its current task")
          && t.endsWith("; resuming.")), "the abort is announced");
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ": " + chat.texts(), e);
    }
  }

  @Test
  void reportsAreRefusedForANotRunningSessionWithOrWithoutOverseer() {
    AntWorkflow ant = Fakes.start(client, QUEUE, Fakes.withSchedule(Fakes.spec("plain"), null,
        List.of(new dev.colony.spec.TriggerSpec(dev.colony.spec.TriggerSpec.Type.GITHUB_ISSUE, List.of()))));
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "waiting");
    WorkflowStub stub = WorkflowStub.fromTyped(ant);
    var e = assertThrows(WorkflowUpdateException.class, () -> stub.update("reportTurns", TurnReply.class,
        new TurnReport(1, List.of(Turn.text("hi")), List.of(), 0)));
    // Every ant takes its running session's turns (the console shows them live), but only then.
    assertTrue(String.valueOf(e.getCause().getMessage()).contains("is not running"), e.getCause().getMessage());

    AntWorkflow sup = Fakes.start(client, QUEUE, onDemand("idle"));
    eventually(() -> sup.status().state() == Lifecycle.WAITING, "waiting");
    var e2 = assertThrows(WorkflowUpdateException.class, () -> WorkflowStub.fromTyped(sup).update("reportTurns",
        TurnReply.class, new TurnReport(1, turns(150, "x"), List.of(), 0)));
    assertNotNull(e2.getCause());
    assertTrue(e2.getCause().getMessage().contains("is not running"), e2.getCause().getMessage());

    // During a session: a report no engine would send (oversized fields, a flood of ids) is refused.
    sessions.then(List.of(batch(1)));
    sessions.blockAfterScript = true;
    AntWorkflow busy = Fakes.start(client, QUEUE, OverseerTest.withHeartbeat(onDemand("target"), 2));
    busy.message(dev.colony.mailbox.Mail.of("go"));
    eventually(() -> sessions.replies.size() == 1, "running");
    WorkflowStub target = WorkflowStub.fromTyped(busy);
    int session = busy.status().sessions() + 1;
    for (TurnReport hostile : List.of(
        new TurnReport(session, List.of(new Turn("tool", "Bash", "x".repeat(1_000_000), null, false)), List.of(), 0),
        new TurnReport(session, turns(101, "y"), List.of(), 0),
        new TurnReport(session, List.of(), List.of("w".repeat(40)), 0))) {
      var refused = assertThrows(WorkflowUpdateException.class, () -> target.update("reportTurns", TurnReply.class, hostile));
      assertNotNull(refused.getCause());
    }
    String history = client.fetchHistory("ant/test/target").toJson(false);
    assertFalse(history.contains("x".repeat(1000)), "a refused report leaves no trace in the history");
    busy.stop();
  }

  @Test
  void theLadderSurvivesContinueAsNew() {
    judge.then(Pattern.SPIRALING, "first").then(Pattern.SPIRALING, "second");
    sessions.then(List.of(batch(5))).then(List.of(batch(5)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("longlived").withContinueAsNewEvery(1));
    ant.message(dev.colony.mailbox.Mail.of("one"));
    settled(ant, 1);
    ant.message(dev.colony.mailbox.Mail.of("two"));
    eventually(() -> sessions.agentSaw.size() == 2, "second whisper");
    assertEquals("[CORRECTION] first", sessions.agentSaw.get(0));
    assertTrue(sessions.agentSaw.get(1).startsWith("[CORRECTION] Notice 2 of 2"), sessions.agentSaw.get(1));
    assertEquals(10, judge.requests.get(1).window().size(), "the window came over with continue-as-new");
  }

  /** Records the overseer's paths (whispers, an escalation pause, abort, a skipped evaluation) for the replay guard. */
  @Test
  @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordLlmSupervisor() throws Exception {
    judge.then(Pattern.SPIRALING, "a").thenFail("Anthropic API answered 401").then(Pattern.SPIRALING, "b")
        .then(Pattern.SPIRALING, "c");
    sessions.then(List.of(batch(5), batch(5), batch(5), batch(5), new TurnReport(0, List.of(), List.of(), 700)));
    AntWorkflow ant = Fakes.start(client, QUEUE, onDemand("recorded"));
    ant.message(dev.colony.mailbox.Mail.of("the task"));
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "escalated and paused");
    ant.abort();
    ant.message(dev.colony.mailbox.Mail.of("next"));
    settled(ant, 2);
    ant.stop();
    WorkflowStub.fromTyped(ant).getResult(Void.class);
    HistoryReplayTest.write("llm-supervisor.json", client.fetchHistory("ant/test/recorded"));
  }

  /** The supervisor's own model calls cost money: they count in the ant's spend and budget, and status says so. */
  @Test
  void theOverseersModelCallsCountInTheAntsSpendAndBudget() {
    judge.script.add(() -> Verdict.ok().costing(0.40));
    judge.script.add(() -> Verdict.ok().costing(0.40));
    sessions.then(List.of(batch(5), batch(5)));
    AntSpec base = onDemand("frugal");
    AntSpec spec = Fakes.withErrorPolicy(base, new dev.colony.errorpolicy.ErrorPolicy(0, 0, null, null, 0, 0, 0.50, null,
        "UTC")).withOverseer(SUPERVISOR);
    AntWorkflow ant = Fakes.start(client, QUEUE, spec);
    ant.message(dev.colony.mailbox.Mail.of("build the thing"));
    settled(ant, 1);
    eventually(() -> ant.stats().costReported(), "the supervisor's cost counted");
    AntStats stats = ant.stats();
    assertEquals(0.80, stats.costUsd(), 1e-9, "the session cost nothing; its two evaluations $0.40 each");
    assertEquals(0.80, stats.spentTodayUsd(), 1e-9);
    assertEquals(0.80, stats.overseerCostUsd(), 1e-9);
    eventually(() -> ant.status().paused(), "paused by the daily cap the evaluations reached");
    AntStatus s = ant.status();
    assertEquals("budget", s.pauseReason());
    assertTrue(s.budget().startsWith("today $0.80 of $0.50"), s.budget());
    assertTrue(s.overseer().contains("2 evaluations (last OK), $0.80 spent"), s.overseer());
  }
}
