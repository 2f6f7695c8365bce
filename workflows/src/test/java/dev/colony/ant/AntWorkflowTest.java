package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.Outcome;
import dev.colony.mailbox.Mail;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.TriggerSpec;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ant's loop, row by row (run, classify, back off, wait), on Temporal's time-skipping test environment. */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class AntWorkflowTest {
  private static final String QUEUE = "test";

  private TestWorkflowEnvironment env;
  private Fakes.ScriptedSessions sessions;
  private Fakes.RecordingChat chat;
  private WorkflowClient client;

  @BeforeEach
  void setUp() {
    sessions = new Fakes.ScriptedSessions();
    chat = new Fakes.RecordingChat();
    env = Fakes.environment(QUEUE, sessions, chat, new Fakes.FixedWorkspace());
    sessions.clock = env::currentTimeMillis;
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private AntWorkflow start(AntSpec spec) {
    return Fakes.start(client, QUEUE, spec);
  }

  /** Continuous ant that sleeps an hour after each success, so tests control how far it runs. */
  private static AntSpec ant(String name) {
    return Fakes.withPoll(Fakes.spec(name), 3600);
  }

  private void advance(Duration d) {
    env.sleep(d);
  }

  /** Waits (real time, bounded) for background workers; virtual time does not move meanwhile. */
  private List<Long> gapsSeconds() {
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < sessions.startedAt.size(); i++) {
      gaps.add(Math.round((sessions.startedAt.get(i) - sessions.startedAt.get(i - 1)) / 1000.0));
    }
    return gaps;
  }

  @Test
  void transientCrashesBackOffExponentiallyWithCapThenSuccessResetsCounter() {
    for (int i = 0; i < 6; i++) {
      sessions.then(Outcome.TRANSIENT, "boom");
    }
    sessions.then(Outcome.SUCCESS, "all good");
    sessions.then(Outcome.TRANSIENT, "again");
    // then a billing error parks the ant, so nothing runs past the script
    sessions.fallback = () -> SessionResult.of(Outcome.BILLING, "card declined");
    AntWorkflow ant = start(ant("worker"));
    advance(Duration.ofMinutes(75));
    eventually(() -> sessions.requests.size() >= 8, "sessions.requests.size() >= 8");
    // 10, 20, 40, 80, then the 5 minute cap (twice); the success is followed by the hour of
    // poll_interval sleep, then a crash that counts from 1 again.
    assertEquals(List.of(10L, 20L, 40L, 80L, 300L, 300L, 3600L), gapsSeconds().subList(0, 7));
    eventually(() -> chat.texts().size() >= 9, "chat.texts().size() >= 9");
    List<String> texts = chat.texts();
    assertEquals("🐜 **worker** is starting up.", texts.get(0));
    assertEquals("❌ **worker** crashed: boom. Restarting in 10s…", texts.get(1));
    assertEquals("❌ **worker** crashed: boom. Restarting in 20s…", texts.get(2));
    assertEquals("❌ **worker** crashed: boom. Restarting in 40s…", texts.get(3));
    assertEquals("❌ **worker** crashed: boom. Restarting in 80s…", texts.get(4));
    assertEquals("❌ **worker** crashed: boom. Restarting in 300s…", texts.get(5));
    assertEquals("❌ **worker** crashed: boom. Restarting in 300s…", texts.get(6));
    assertEquals("✅ **worker** finished session 7: all good", texts.get(7));
    // The counter restarted at 0 after the success: the next crash waits 10 s again.
    assertEquals("❌ **worker** crashed: again. Restarting in 10s…", texts.get(8));
    eventually(() -> ant.status().paused(), "ant.status().paused()");
    assertEquals(9, ant.status().sessions());
    // the billing pause left the counter where the crash put it
    assertEquals(1, ant.status().consecutiveErrors());
  }

  @Test
  void permanentErrorsBackOffWithTheirOwnMessage() {
    sessions.then(Outcome.PERMANENT, "invalid model name").then(Outcome.PERMANENT, "invalid model name");
    start(ant("perm"));
    advance(Duration.ofSeconds(31));
    eventually(() -> sessions.requests.size() >= 3, "sessions.requests.size() >= 3");
    assertEquals(List.of(10L, 20L), gapsSeconds().subList(0, 2));
    eventually(() -> chat.texts().size() >= 3, "chat.texts().size() >= 3");
    assertEquals("🚫 **perm** encountered a permanent error: invalid model name. Restarting in 10s…",
        chat.texts().get(1));
    assertEquals("🚫 **perm** encountered a permanent error: invalid model name. Restarting in 20s…",
        chat.texts().get(2));
  }

  @Test
  void maxTurnsRestartsAtOnceSilentlyAndResetsTheCounter() {
    sessions.then(Outcome.TRANSIENT, "a").then(Outcome.TRANSIENT, "b")
        .then(Outcome.MAX_TURNS, "turn limit").then(Outcome.TRANSIENT, "c");
    AntWorkflow ant = start(ant("long"));
    advance(Duration.ofSeconds(45));
    eventually(() -> sessions.requests.size() >= 5, "sessions.requests.size() >= 5");
    assertEquals(List.of(10L, 20L, 0L, 10L), gapsSeconds().subList(0, 4));
    eventually(() -> chat.texts().size() >= 4, "chat.texts().size() >= 4");
    assertTrue(chat.texts().stream().noneMatch(t -> t.contains("turn limit")), chat.texts().toString());
    assertEquals("❌ **long** crashed: c. Restarting in 10s…", chat.texts().get(3));
    // the 5th session (a success) resets the counter once the workflow has seen its result
    eventually(() -> ant.status().sessions() == 5, "ant.status().sessions() == 5");
    assertEquals(0, ant.status().consecutiveErrors());
  }

  @Test
  void rateLimitWaitsExactlyUntilResetElseBacksOff() {
    sessions.then(() -> SessionResult.rateLimited("429", env.currentTimeMillis() + 95_000));
    sessions.then(() -> SessionResult.rateLimited("429", null));
    AntWorkflow ant = start(ant("limited"));
    eventually(() -> sessions.requests.size() >= 1, "sessions.requests.size() >= 1");
    eventually(() -> ant.status().state() == Lifecycle.COOLING_DOWN, "ant.status().state() == Lifecycle.COOLING_DOWN");
    AntStatus waiting = ant.status();
    assertEquals(0, waiting.consecutiveErrors());
    assertEquals(sessions.startedAt.get(0) + 95_000, Instant.parse(waiting.nextWakeTime()).toEpochMilli(), 1000);
    advance(Duration.ofSeconds(110));
    eventually(() -> sessions.requests.size() >= 3, "sessions.requests.size() >= 3");
    assertEquals(List.of(95L, 10L), gapsSeconds().subList(0, 2));
    eventually(() -> chat.texts().size() >= 3, "chat.texts().size() >= 3");
    assertEquals("⏳ **limited** is rate limited. Resuming in 95s…", chat.texts().get(1));
    assertEquals("⏳ **limited** is rate limited. Resuming in 10s…", chat.texts().get(2));
  }

  @Test
  void billingAuthAndBudgetPauseWithoutTimerUntilResumed() {
    record Case(Outcome outcome, String text) {}
    List<Case> cases = List.of(
        new Case(Outcome.BILLING, "💳 **payer** has a billing error — check your account with the model provider. Paused until resumed."),
        new Case(Outcome.AUTH, "🔐 **payer** could not authenticate — check its credentials. Paused until resumed."),
        new Case(Outcome.BUDGET, "💰 **payer** went over its USD budget cap. Paused until resumed."));
    sessions.then(Outcome.TRANSIENT, "flaky");
    for (Case c : cases) {
      sessions.then(c.outcome(), "blocked");
    }
    AntWorkflow ant = start(ant("payer"));
    advance(Duration.ofSeconds(11));
    int expectedSessions = 2;
    for (Case c : cases) {
      final int n = expectedSessions;
      eventually(() -> sessions.requests.size() == n, "sessions.requests.size() == n");
      eventually(() -> ant.status().state() == Lifecycle.PAUSED, "ant.status().state() == Lifecycle.PAUSED");
      AntStatus st = ant.status();
      assertTrue(st.paused());
      assertEquals(c.outcome().configName(), st.pauseReason());
      assertNull(st.nextWakeTime());
      // The crash counter is untouched by blocking errors.
      assertEquals(1, st.consecutiveErrors());
      assertNoPendingTimer(ant);
      advance(Duration.ofDays(30));
      assertEquals(n, sessions.requests.size(), "a paused ant must not run");
      eventually(() -> chat.texts().contains(c.text()), "chat.texts().contains(c.text())");
      ant.resume();
      expectedSessions++;
    }
    eventually(() -> sessions.requests.size() == 5, "sessions.requests.size() == 5");
    eventually(() -> chat.texts().stream().filter(t -> t.equals("▶️ **payer** resuming.")).count() == 3, "chat.texts().stream().filter(t -> t.equals(\"▶️ **payer** resuming.\")).count() == 3");
  }

  private void assertNoPendingTimer(AntWorkflow ant) {
    WorkflowStub stub = WorkflowStub.fromTyped(ant);
    List<HistoryEvent> events = client.fetchHistory(stub.getExecution().getWorkflowId()).getEvents();
    long started = events.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED).count();
    long ended = events.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_FIRED
        || e.getEventType() == EventType.EVENT_TYPE_TIMER_CANCELED).count();
    assertEquals(started, ended, "no timer may be pending while paused");
  }

  @Test
  void resumeCutsABackoffShort() {
    for (int i = 0; i < 5; i++) {
      sessions.then(Outcome.TRANSIENT, "down");
    }
    AntWorkflow ant = start(ant("eager"));
    advance(Duration.ofSeconds(151));
    eventually(() -> sessions.requests.size() == 5, "sessions.requests.size() == 5");
    eventually(() -> ant.status().state() == Lifecycle.COOLING_DOWN, "ant.status().state() == Lifecycle.COOLING_DOWN");
    // From the fifth session's start (the test server's clock, as the fake records it): reading
    // "now" after the wait began raced the time-skipping server, which may skip ahead meanwhile.
    long fifth = sessions.startedAt.get(4);
    long wake = Instant.parse(ant.status().nextWakeTime()).toEpochMilli();
    assertEquals(fifth + 300_000, wake, 2000);
    ant.resume();
    eventually(() -> sessions.requests.size() == 6, "sessions.requests.size() == 6");
    assertTrue(sessions.startedAt.get(5) < wake - 60_000, "resume must end the 5 minute wait at once");
  }

  @Test
  void pauseTakesEffectAfterTheCurrentSessionAndIsAcknowledgedAtOnce() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    sessions.thenBlockUntil(release, "first");
    AntWorkflow ant = start(Fakes.spec("busy"));
    eventually(() -> sessions.requests.size() == 1, "sessions.requests.size() == 1");
    ant.pause();
    eventually(() -> chat.texts().contains("⏸️ **busy** will pause after the current session."), "chat.texts().contains(\"⏸️ **busy** will pause after the current session.\")");
    assertTrue(ant.status().state().sessionLive(), ant.status().state().toString());
    release.countDown();
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "ant.status().state() == Lifecycle.PAUSED");
    // when the pending pause takes effect the operator is told (workflow version 1)
    eventually(() -> chat.texts().contains("⏸️ **busy** paused."), "chat.texts().contains(\"⏸️ **busy** paused.\")");
    advance(Duration.ofHours(5));
    assertEquals(1, sessions.requests.size());
    assertEquals("operator", ant.status().pauseReason());
    ant.resume();
    eventually(() -> sessions.requests.size() >= 2, "sessions.requests.size() >= 2");
  }

  @Test
  void messageResumesAPausedAntAndIsDeliveredInTheNextPrompt() {
    sessions.then(Outcome.AUTH, "bad key");
    AntWorkflow ant = start(ant("helper"));
    eventually(() -> ant.status().paused(), "ant.status().paused()");
    ant.message(Mail.of("Refactor the auth module"));
    eventually(() -> sessions.requests.size() == 2, "sessions.requests.size() == 2");
    assertEquals(List.of("Refactor the auth module"), sessions.requests.get(1).messages());
    eventually(() -> chat.texts().contains("▶️ **helper** resuming."), "chat.texts().contains(\"▶️ **helper** resuming.\")");
    assertFalse(ant.status().paused());
  }

  @Test
  void messagesSurviveACrashAndClearDiscardsThem() {
    sessions.then(Outcome.TRANSIENT, "crash");
    AntWorkflow ant = start(ant("keeper"));
    eventually(() -> ant.status().state() == Lifecycle.WAITING || ant.status().state() == Lifecycle.COOLING_DOWN, "ant.status().state() == Lifecycle.WAITING || ant.status().state() == Lifecycle.COOLING_...");
    ant.pause();
    ant.message(Mail.of("one"));
    ant.message(Mail.of("two"));
    // the messages resumed the paused ant and cut its backoff short: the next sessions get both,
    // in order (the second may come after the first session has started with the first)
    eventually(() -> sessions.deliveredMessages().stream().skip(1).flatMap(List::stream).count() >= 2, "sessions.deliveredMessages().stream().skip(1).flatMap(List::stream).count() >= 2");
    assertEquals(List.of("one", "two"),
        sessions.deliveredMessages().stream().skip(1).flatMap(List::stream).toList());
    ant.pause();
    eventually(() -> ant.status().state() == Lifecycle.PAUSED || ant.status().state() == Lifecycle.WAITING, "ant.status().state() == Lifecycle.PAUSED || ant.status().state() == Lifecycle.WAITING");
    ant.clear();
    eventually(() -> chat.texts().stream().anyMatch(t -> t.startsWith("🧹 **keeper** discarded")), "chat.texts().stream().anyMatch(t -> t.startsWith(\"🧹 **keeper** discarded\"))");
    assertEquals(0, ant.status().queueDepth());
  }

  @Test
  void failedSessionPutsItsMessagesBackForTheNextOne() {
    sessions.then(Outcome.SUCCESS, "first").then(Outcome.TRANSIENT, "lost").then(Outcome.SUCCESS, "ok");
    AntWorkflow ant = start(ant("retry"));
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "ant.status().state() == Lifecycle.WAITING");
    ant.message(Mail.of("fix bug 12"));
    eventually(() -> sessions.requests.size() == 2, "sessions.requests.size() == 2");
    eventually(() -> ant.status().state() == Lifecycle.COOLING_DOWN, "ant.status().state() == Lifecycle.COOLING_DOWN");
    assertEquals(1, ant.status().queueDepth());
    advance(Duration.ofSeconds(11));
    eventually(() -> sessions.requests.size() == 3, "sessions.requests.size() == 3");
    assertEquals(List.of("fix bug 12"), sessions.requests.get(2).messages());
  }

  @Test
  void stopEndsTheWorkflow() {
    AntWorkflow ant = start(ant("quitter"));
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "ant.status().state() == Lifecycle.WAITING");
    ant.stop();
    WorkflowStub.fromTyped(ant).getResult(Void.class);
    eventually(() -> chat.texts().contains("⏹️ **quitter** stopped."), "chat.texts().contains(\"⏹️ **quitter** stopped.\")");
  }

  @Test
  void continueAsNewKeepsCountersQueuePauseStateAndStats() {
    AntSpec spec = ant("marathon").withContinueAsNewEvery(2);
    sessions.then(Outcome.SUCCESS, "1").then(Outcome.TRANSIENT, "2").then(Outcome.MAX_TURNS, "3")
        .then(Outcome.TRANSIENT, "4").then(Outcome.BILLING, "5");
    AntWorkflow ant = start(spec);
    String firstRun = WorkflowStub.fromTyped(ant).getExecution().getRunId();
    advance(Duration.ofHours(2));
    eventually(() -> sessions.requests.size() == 5, "sessions.requests.size() == 5");
    eventually(() -> ant.status().paused(), "ant.status().paused()");
    ant.message(Mail.of("while paused"));
    // a new typed stub follows the latest run of the workflow id
    AntWorkflow latest = client.newWorkflowStub(AntWorkflow.class, spec.workflowId());
    eventually(() -> sessions.requests.size() == 6, "sessions.requests.size() == 6");
    assertEquals(List.of("while paused"), sessions.requests.get(5).messages());
    eventually(() -> latest.status().sessions() == 6, "latest.status().sessions() == 6");
    AntStatus status = latest.status();
    assertEquals(6, status.sessions());
    AntStats stats = latest.stats();
    assertEquals(6, stats.sessions());
    assertEquals(2, stats.sessionsByOutcome().get("transient"));
    assertEquals(1, stats.sessionsByOutcome().get("billing"));
    String currentRun = client.newUntypedWorkflowStub(spec.workflowId()).describe().getExecution().getRunId();
    assertNotEquals(firstRun, currentRun, "the ant should have continued as new");
    // the start message is posted once per ant, not once per run
    assertEquals(1, chat.texts().stream().filter(t -> t.startsWith("🐜")).count());
    // idempotency keys never repeat across runs
    assertEquals(chat.posts.size(), chat.posts.stream().map(p -> p.idempotencyKey()).distinct().count());
  }

  @Test
  void continueAsNewKeepsAPendingBackoffDeadline() {
    AntSpec spec = ant("deadline").withContinueAsNewEvery(1);
    sessions.then(Outcome.TRANSIENT, "x").then(Outcome.TRANSIENT, "y");
    AntWorkflow ant = start(spec);
    advance(Duration.ofSeconds(35));
    eventually(() -> sessions.requests.size() >= 3, "sessions.requests.size() >= 3");
    assertEquals(List.of(10L, 20L), gapsSeconds().subList(0, 2));
  }

  @Test
  void scheduledAntRunsOnCronTicksAndWhenAHumanWrites() {
    AntSpec spec = Fakes.withSchedule(Fakes.spec("cron"), "0 9 * * *", List.of());
    AntWorkflow ant = start(spec);
    eventually(() -> ant.status().state() == Lifecycle.WAITING && ant.status().nextWakeTime() != null, "ant.status().state() == Lifecycle.WAITING && ant.status().nextWakeTime() != null");
    Instant tick = Instant.parse(ant.status().nextWakeTime());
    assertEquals(9, tick.atZone(java.time.ZoneOffset.UTC).getHour());
    assertEquals(0, tick.atZone(java.time.ZoneOffset.UTC).getMinute());
    assertEquals(0, sessions.requests.size());
    ant.message(Mail.of("run now please"));
    eventually(() -> sessions.requests.size() == 1, "sessions.requests.size() == 1");
    advance(Duration.ofDays(2));
    eventually(() -> sessions.requests.size() >= 3, "sessions.requests.size() >= 3");
    for (int i = 1; i < 3; i++) {
      Instant at = Instant.ofEpochMilli(sessions.startedAt.get(i));
      assertEquals(9, at.atZone(java.time.ZoneOffset.UTC).getHour());
    }
  }

  @Test
  void triggerOnlyAntWaitsForAMessageWithNoTimer() {
    AntSpec spec = Fakes.withSchedule(Fakes.spec("listener"), null,
        List.of(new TriggerSpec(TriggerSpec.Type.DISCORD_COMMAND, null)));
    AntWorkflow ant = start(spec);
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "ant.status().state() == Lifecycle.WAITING");
    advance(Duration.ofDays(3));
    assertEquals(0, sessions.requests.size());
    assertNoPendingTimer(ant);
    ant.message(Mail.of("answer this"));
    eventually(() -> sessions.requests.size() == 1, "sessions.requests.size() == 1");
  }

  private io.temporal.common.SearchAttributes attributes(String workflowId) {
    return client.newUntypedWorkflowStub(workflowId).describe().getTypedSearchAttributes();
  }

  @Test
  void stateIsPublishedToVisibilityAsItChanges() {
    sessions.then(Outcome.TRANSIENT, "flaky").then(Outcome.BILLING, "card declined");
    AntSpec spec = ant("seen");
    AntWorkflow ant = start(spec);
    eventually(() -> ant.status().state() == Lifecycle.COOLING_DOWN, "ant.status().state() == Lifecycle.COOLING_DOWN");
    eventually(() -> "cooling_down".equals(attributes(spec.workflowId()).get(AntSearchAttributes.STATE)), "\"cooling_down\".equals(attributes(spec.workflowId()).get(AntSearchAttributes.STATE))");
    var a = attributes(spec.workflowId());
    assertEquals("test", a.get(AntSearchAttributes.COLONY));
    assertEquals("seen", a.get(AntSearchAttributes.ANT));
    assertEquals(1L, a.get(AntSearchAttributes.SESSIONS));
    assertEquals(1L, a.get(AntSearchAttributes.ERRORS));
    assertEquals("transient", a.get(AntSearchAttributes.LAST_OUTCOME));
    assertEquals(Instant.parse(ant.status().nextWakeTime()), a.get(AntSearchAttributes.NEXT_WAKE).toInstant());
    assertEquals(false, a.get(AntSearchAttributes.NEEDS_HUMAN));
    assertEquals("continuous", a.get(AntSearchAttributes.WAKES_ON));

    advance(Duration.ofSeconds(11));
    eventually(() -> Boolean.TRUE.equals(attributes(spec.workflowId()).get(AntSearchAttributes.NEEDS_HUMAN)), "Boolean.TRUE.equals(attributes(spec.workflowId()).get(AntSearchAttributes.NEEDS_HUMAN))");
    a = attributes(spec.workflowId());
    assertEquals("paused", a.get(AntSearchAttributes.STATE));
    assertEquals(true, a.get(AntSearchAttributes.PAUSED));
    assertEquals("billing", a.get(AntSearchAttributes.PAUSE_REASON));
    assertEquals(2L, a.get(AntSearchAttributes.SESSIONS));
    assertFalse(a.containsKey(AntSearchAttributes.NEXT_WAKE), "no timer while paused");

    ant.message(Mail.of("try again"));
    eventually(() -> sessions.requests.size() == 3, "sessions.requests.size() == 3");
    eventually(() -> Boolean.FALSE.equals(attributes(spec.workflowId()).get(AntSearchAttributes.PAUSED)), "Boolean.FALSE.equals(attributes(spec.workflowId()).get(AntSearchAttributes.PAUSED))");
    a = attributes(spec.workflowId());
    assertFalse(a.containsKey(AntSearchAttributes.PAUSE_REASON));
    assertEquals(false, a.get(AntSearchAttributes.NEEDS_HUMAN));

    var d = client.newUntypedWorkflowStub(spec.workflowId()).describe();
    assertEquals("an ant under test", d.getMemo(AntSearchAttributes.MEMO_DESCRIPTION, String.class));
    assertEquals("command", d.getMemo(AntSearchAttributes.MEMO_ENGINE, String.class));
  }

  @Test
  void activitiesCarrySummariesForTheWebUi() {
    sessions.then(Outcome.SUCCESS, "done");
    AntSpec spec = ant("named");
    AntWorkflow ant = start(spec);
    eventually(() -> ant.status().sessions() == 1, "ant.status().sessions() == 1");
    eventually(() -> chat.texts().size() >= 2, "chat.texts().size() >= 2");
    List<String> summaries = new ArrayList<>();
    List<String> local = new ArrayList<>();
    for (HistoryEvent e : client.fetchHistory(spec.workflowId()).getEvents()) {
      if (e.hasUserMetadata() && e.getUserMetadata().hasSummary()) {
        String summary = io.temporal.common.converter.DefaultDataConverter.STANDARD_INSTANCE.fromPayload(
            e.getUserMetadata().getSummary(), String.class, String.class);
        (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ? summaries : local).add(summary);
      }
    }
    // One activity task per session: the session prepares its workspace itself (the lean cycle).
    assertEquals(List.of("claim a host", "session 1 · command"), summaries);
    // Posts are local activities: a marker each, with its summary.
    assertTrue(local.contains("post · 🐜 named is starting up."), local.toString());
  }

  @Test
  void aBatchTooBigForOneSessionIsSplitAndTheRestRunsAtOnce() {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    sessions.thenBlockUntil(release, "first");
    AntWorkflow ant = start(ant("reader"));
    eventually(() -> sessions.requests.size() == 1, "sessions.requests.size() == 1");
    String big = "m".repeat(15_000);
    for (int i = 0; i < 10; i++) {
      ant.message(Mail.of(i + big));
    }
    eventually(() -> ant.status().queueDepth() == 10, "ant.status().queueDepth() == 10");
    release.countDown();
    try {
      eventually(() -> sessions.requests.size() >= 4, "sessions.requests.size() >= 4");
    } catch (AssertionError e) {
      throw new AssertionError(sessions.deliveredMessages().stream().map(List::size).toList() + " " + ant.status()
          + " " + chat.texts(), e);
    }
    List<Integer> sizes = sessions.requests.subList(1, 4).stream().map(r -> r.messages().size()).toList();
    assertEquals(List.of(4, 4, 2), sizes, "at most 64,000 characters a session, in order");
    assertTrue(sessions.requests.get(3).messages().get(1).startsWith("9"));
    // the rest ran at once, not after the hour of poll_interval sleep
    assertTrue(sessions.startedAt.get(3) - sessions.startedAt.get(1) < 5_000, gapsSeconds().toString());
    eventually(() -> ant.status().queueDepth() == 0 && ant.status().state() == Lifecycle.WAITING, "ant.status().queueDepth() == 0 && ant.status().state() == Lifecycle.WAITING");
  }

  @Test
  void instructionsThatKeepFailingSessionsAreDroppedWithANoticeNotRetriedForEver() {
    sessions.then(Outcome.SUCCESS, "first");
    AntWorkflow ant = start(ant("stuck"));
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "ant.status().state() == Lifecycle.WAITING");
    sessions.then(Outcome.TRANSIENT, "E2BIG").then(Outcome.TRANSIENT, "E2BIG").then(Outcome.TRANSIENT, "E2BIG");
    ant.message(Mail.of("poison"));
    advance(Duration.ofMinutes(3));
    eventually(() -> sessions.requests.size() >= 5, "sessions.requests.size() >= 5");
    assertEquals(List.of("poison"), sessions.requests.get(1).messages());
    assertEquals(List.of("poison"), sessions.requests.get(2).messages());
    assertEquals(List.of("poison"), sessions.requests.get(3).messages());
    assertEquals(List.of(), sessions.requests.get(4).messages(), "dropped after three failed sessions");
    eventually(() -> chat.texts().stream().anyMatch(t -> t.startsWith(
        "📭 **stuck** dropped 1 queued message after 3 failed sessions in a row carried it: \"poison\"")), "chat.texts().stream().anyMatch(t -> t.startsWith( \"📭 **stuck** dropped 1 queued message...");
    assertEquals(0, ant.status().queueDepth());
  }

  @Test
  void controlCharactersAreRemovedFromMessagesAtTheSignal() {
    sessions.then(Outcome.AUTH, "bad key");
    AntWorkflow ant = start(ant("clean"));
    eventually(() -> ant.status().paused(), "ant.status().paused()");
    ant.message(Mail.of("fix\u0000 this\u001b[31m now\n\tplease\u0007"));
    ant.message(Mail.of("\u0000\u0001"));
    eventually(() -> sessions.requests.size() == 2, "sessions.requests.size() == 2");
    assertEquals(List.of("fix this[31m now\n\tplease"), sessions.requests.get(1).messages());
  }

  @Test
  void anAntParksAtItsConsecutiveErrorThresholdAndResumeUnparksItWithCountersReset() {
    AntSpec spec = Fakes.withErrorPolicy(ant("parker"), new dev.colony.errorpolicy.ErrorPolicy(2, 60, 3, null));
    sessions.then(Outcome.TRANSIENT, "a").then(Outcome.TRANSIENT, "b").then(Outcome.PERMANENT, "c");
    AntWorkflow ant = start(spec);
    advance(Duration.ofSeconds(10));
    eventually(() -> ant.status().state() == Lifecycle.PARKED, "ant.status().state() == Lifecycle.PARKED");
    assertEquals(3, sessions.requests.size());
    assertEquals(List.of(2L, 4L), gapsSeconds().subList(0, 2), "the configured backoff");
    AntStatus s = ant.status();
    assertTrue(s.paused());
    assertEquals("errors", s.pauseReason());
    assertNoPendingTimer(ant);
    eventually(() -> chat.texts().stream().anyMatch(t -> t.startsWith("🛑 **parker** is parked after 3 failed sessions in a row")), "chat.texts().stream().anyMatch(t -> t.startsWith(\"🛑 **parker** is parked after 3 failed...");
    advance(Duration.ofHours(6));
    assertEquals(3, sessions.requests.size(), "parked: no sessions, no timer");
    eventually(() -> Boolean.TRUE.equals(client.newUntypedWorkflowStub(spec.workflowId()).describe()
        .getTypedSearchAttributes().get(AntSearchAttributes.NEEDS_HUMAN)), "Boolean.TRUE.equals(client.newUntypedWorkflowStub(spec.workflowId()).describe() .getTyp...");
    ant.resume();
    eventually(() -> sessions.requests.size() == 4, "sessions.requests.size() == 4");
    eventually(() -> ant.status().consecutiveErrors() == 0 && ant.status().state() == Lifecycle.WAITING, "ant.status().consecutiveErrors() == 0 && ant.status().state() == Lifecycle.WAITING");
  }

  @Test
  void theTotalErrorThresholdCountsFailuresAcrossSuccesses() {
    AntSpec spec = Fakes.withErrorPolicy(Fakes.withPoll(Fakes.spec("total"), 1),
        new dev.colony.errorpolicy.ErrorPolicy(0, 0, null, 3));
    sessions.then(Outcome.TRANSIENT, "1").then(Outcome.SUCCESS, "ok").then(Outcome.TRANSIENT, "2")
        .then(Outcome.SUCCESS, "ok").then(Outcome.BILLING, "card").then(Outcome.TRANSIENT, "3");
    AntWorkflow ant = start(spec);
    advance(Duration.ofMinutes(2));
    eventually(() -> ant.status().paused() && "billing".equals(ant.status().pauseReason()), "ant.status().paused() && \"billing\".equals(ant.status().pauseReason())");
    ant.resume(); // a billing pause does not count, and resuming it does not reset the counters
    advance(Duration.ofMinutes(2));
    eventually(() -> ant.status().state() == Lifecycle.PARKED, "ant.status().state() == Lifecycle.PARKED");
    assertEquals(6, sessions.requests.size());
    assertTrue(chat.texts().stream().anyMatch(t -> t.contains("3 failed sessions in all (max_total_errors 3)")), chat.texts().toString());
  }

  /**
   * A session that ends (here: by itself) while one of its dangerous-call confirmations is open:
   * the request is denied at once, "the session ended", and its waiting handler returns, so stop
   * (which waits for every handler) ends the ant without waiting for confirmation_timeout.
   */
  @Test
  void aConfirmationStillOpenWhenItsSessionEndsIsDeniedAtOnceAndStopDoesNotWaitForIt() throws Exception {
    AntSpec spec = ant("asker");
    List<io.temporal.client.WorkflowUpdateHandle<dev.colony.autonomy.ConfirmationDecision>> asked =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    sessions.then(() -> {
      WorkflowStub self = client.newUntypedWorkflowStub(spec.workflowId());
      // The agent asked, then its session ended anyway (an engine that gave up on the tool call).
      asked.add(self.startUpdate("confirm", io.temporal.client.WorkflowUpdateStage.ACCEPTED,
          dev.colony.autonomy.ConfirmationDecision.class,
          new dev.colony.autonomy.ConfirmationRequest(1, "k1", "Bash", "git push --force", "pushes to a remote")));
      return SessionResult.of(Outcome.SUCCESS, "gave up");
    });
    AntWorkflow ant = start(spec);
    eventually(() -> ant.status().sessions() == 1, "ant.status().sessions() == 1");
    long ended = env.currentTimeMillis();
    dev.colony.autonomy.ConfirmationDecision d;
    try {
      d = asked.get(0).getResultAsync().get(20, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the confirm update still waits 20 s after its session ended", e);
    }
    assertFalse(d.approved());
    assertEquals("the session ended", d.note(), d.toString());
    assertTrue(env.currentTimeMillis() - ended < 60_000, "denied when the session ended, not at its timeout");
    assertTrue(ant.status().confirmations().isEmpty());
    eventually(() -> chat.texts().contains("⌛ **asker**: request #1 denied: its session ended before anyone answered."), "chat.texts().contains(\"⌛ **asker**: request #1 denied: its session ended before anyone ...");
    ant.stop();
    WorkflowStub.fromTyped(ant).getResult(Void.class);
    // When the run ended is read from its history, not from env.currentTimeMillis(): getResult
    // unlocks time skipping, and once the run has closed the test server may run its clock through
    // the timeout timers the run's activities left behind (the session's start-to-close, 3720 s;
    // the host claim's unset schedule-to-close, 10 years) before getResult locks it again.
    List<HistoryEvent> events = client.fetchHistory(spec.workflowId()).getEvents();
    HistoryEvent closed = events.get(events.size() - 1);
    assertEquals(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, closed.getEventType());
    long closedAt = closed.getEventTime().getSeconds() * 1000 + closed.getEventTime().getNanos() / 1_000_000;
    assertTrue(closedAt - ended < 60_000, "stop waited " + (closedAt - ended) / 1000
        + " s for a request of an ended session");
    // Nor did a timer end the run: not the request's confirmation_timeout, not the poll interval.
    assertEquals(List.of(), events.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_FIRED)
        .map(HistoryEvent::getEventId).toList(), "timers that fired");
  }

  /** A pause asked for during a session wins over the backoff its failure would start: paused, no timer, no session. */
  @Test
  void aPauseAskedDuringASessionThatFailsShowsPausedAndStaysPaused() {
    for (Outcome failure : List.of(Outcome.TRANSIENT, Outcome.RATE_LIMIT)) {
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      sessions.then(() -> {
        try {
          release.await(2, java.util.concurrent.TimeUnit.MINUTES); // bounded: never outlives the test
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return SessionResult.of(failure, "went wrong");
      });
      String name = "pausing-" + failure.configName().replace('_', '-');
      int before = sessions.requests.size();
      AntWorkflow ant = start(ant(name));
      eventually(() -> ant.status().state().sessionLive(), "ant.status().state().sessionLive()");
      ant.pause();
      eventually(() -> chat.texts().contains("⏸️ **" + name + "** will pause after the current session."), "chat.texts().contains(\"⏸️ **\" + name + \"** will pause after the current session.\")");
      release.countDown();
      eventually(() -> chat.texts().contains("⏸️ **" + name + "** paused."), "chat.texts().contains(\"⏸️ **\" + name + \"** paused.\")");
      eventually(() -> ant.status().sessions() == 1, "ant.status().sessions() == 1");
      AntStatus st = ant.status();
      assertEquals(Lifecycle.PAUSED, st.state(), failure + ": " + st);
      assertTrue(st.paused());
      assertEquals("operator", st.pauseReason());
      assertNull(st.nextWakeTime(), "no backoff timer while paused");
      advance(Duration.ofHours(2));
      assertEquals(before + 1, sessions.requests.size(), "a paused ant must not run");
      assertEquals(Lifecycle.PAUSED, ant.status().state());
      assertNoPendingTimer(ant);
      ant.resume();
      eventually(() -> sessions.requests.size() == before + 2, "sessions.requests.size() == before + 2");
      // Stop once that session has ended, not while its result may be on its way: a stop then
      // cancels an activity the server has just completed, which the real server ignores but the
      // test server refuses (ACTIVITY_UNKNOWN), leaving its clock locked, so the next loop's
      // advance() never returns.
      eventually(() -> ant.status().sessions() == 2, "ant.status().sessions() == 2");
      ant.stop();
    }
  }

  /** True when {@code text} encodes to UTF-8 as a prompt file is written: strictly, no replacement. */
  private static boolean encodable(String text) {
    try {
      java.nio.charset.StandardCharsets.UTF_8.newEncoder().encode(java.nio.CharBuffer.wrap(text));
      return true;
    } catch (java.nio.charset.CharacterCodingException e) {
      return false;
    }
  }

  /**
   * Half an emoji (a lone surrogate) sent through the documented signal API, as
   * {@code temporal workflow signal --name message --input '"\ud83d"'} sends it, beside a healthy
   * message: neither poisons the queue. The text is cleaned where it enters the workflow, every
   * session starts, and both instructions reach the agent.
   */
  @Test
  void aLoneSurrogateFromTheSignalApiPoisonsNoSessionAndNoHealthyMessageIsDropped() {
    // Sessions that write their prompt file as the command engine does: strict UTF-8.
    sessions.fallback = () -> {
      var r = sessions.requests.get(sessions.requests.size() - 1);
      return r.messages().stream().allMatch(AntWorkflowTest::encodable) ? SessionResult.of(Outcome.SUCCESS, "done")
          : SessionResult.of(Outcome.TRANSIENT, "cannot write the prompt file: Input length = 1");
    };
    AntSpec spec = Fakes.withSchedule(Fakes.spec("poisoned"), null,
        List.of(new TriggerSpec(TriggerSpec.Type.DISCORD_COMMAND, null)));
    AntWorkflow ant = start(spec);
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "ant.status().state() == Lifecycle.WAITING");
    var json = io.temporal.api.common.v1.Payload.newBuilder()
        .putMetadata("encoding", com.google.protobuf.ByteString.copyFromUtf8("json/plain"))
        .setData(com.google.protobuf.ByteString.copyFromUtf8("\"look at this \\ud83d\"")).build();
    client.newUntypedWorkflowStub(spec.workflowId()).signal("message", new io.temporal.common.converter.RawValue(json));
    ant.message(Mail.of("run the tests"));
    advance(Duration.ofMinutes(10));
    eventually(() -> sessions.deliveredMessages().stream().flatMap(List::stream).anyMatch(m -> m.equals("run the tests"))
        && ant.status().queueDepth() == 0 && ant.status().state() == Lifecycle.WAITING, "sessions.deliveredMessages().stream().flatMap(List::stream).anyMatch(m -> m.equals(\"run...");
    List<String> delivered = sessions.deliveredMessages().stream().flatMap(List::stream).toList();
    AntStats stats = ant.stats();
    assertNull(stats.sessionsByOutcome().get("transient"), "no session failed: " + stats.sessionsByOutcome()
        + ", sessions were given " + escaped(sessions.deliveredMessages()) + ", chat said " + escaped(chat.texts()));
    assertTrue(delivered.contains("look at this \ufffd"), "the cleaned message reached the agent: " + escaped(delivered));
  }

  /** Non-ASCII as \\uXXXX, so a failure message with half an emoji survives the report. */
  private static String escaped(Object o) {
    StringBuilder sb = new StringBuilder();
    for (char c : String.valueOf(o).toCharArray()) {
      sb.append(c < 128 ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return sb.toString();
  }

  /** A batch that keeps failing is split: the instruction the agent cannot take is dropped alone, the others run. */
  @Test
  void aBadInstructionIsDroppedAloneAndTheHealthyOnesQueuedWithItRun() {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    sessions.thenBlockUntil(release, "first");
    sessions.fallback = () -> {
      var r = sessions.requests.get(sessions.requests.size() - 1);
      return r.messages().contains("poison") ? SessionResult.of(Outcome.TRANSIENT, "E2BIG")
          : SessionResult.of(Outcome.SUCCESS, "done");
    };
    AntWorkflow ant = start(ant("sorter"));
    eventually(() -> sessions.requests.size() == 1, "sessions.requests.size() == 1");
    ant.message(Mail.of("poison"));
    ant.message(Mail.of("healthy"));
    eventually(() -> ant.status().queueDepth() == 2, "ant.status().queueDepth() == 2");
    release.countDown();
    advance(Duration.ofMinutes(30));
    eventually(() -> chat.texts().stream().anyMatch(t -> t.startsWith("📭 **sorter** dropped 1 queued message")), "chat.texts().stream().anyMatch(t -> t.startsWith(\"📭 **sorter** dropped 1 queued message\"))");
    eventually(() -> sessions.deliveredMessages().contains(List.of("healthy")), "sessions.deliveredMessages().contains(List.of(\"healthy\"))");
    // the first session, and the healthy instruction's own
    eventually(() -> Integer.valueOf(2).equals(ant.stats().sessionsByOutcome().get("success")), "Integer.valueOf(2).equals(ant.stats().sessionsByOutcome().get(\"success\"))");
    assertTrue(chat.texts().stream().noneMatch(t -> t.contains("dropped 2")), chat.texts().toString());
    assertTrue(chat.texts().stream().anyMatch(t -> t.startsWith("📭 **sorter** dropped 1 queued message after 3 failed "
        + "sessions in a row carried it: \"poison\"")), chat.texts().toString());
    eventually(() -> ant.status().queueDepth() == 0, "ant.status().queueDepth() == 0");
  }
}
