package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.autonomy.Decide;
import dev.colony.errorpolicy.Backoff;
import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.supervision.AntFailure;
import dev.colony.testing.RecordingMetrics;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The counters and timers workflow code emits through {@link AntMetrics}, read from a Tally scope set on
 * the test environment (as a worker's Prometheus reporter would get them): each fact once per session,
 * equal to the ant's own counters; nothing while a history replays; labels from closed sets only, never
 * a session's or a confirmation's text.
 */
@Timeout(180)
class AntMetricsTest {
  private static final String QUEUE = "metrics";
  /** What a hostile agent might answer, shaped to break a label or a scrape; none of it may become a label. */
  private static final String HOSTILE = "ok\"} 1\n# TYPE colony_sessions counter\ncolony_sessions{outcome=\"owned\" "
      + "token=sk-live-0123456789";

  private static TestWorkflowEnvironment environment(RecordingMetrics metrics, Object... activities) {
    return environment(metrics.scope(), activities);
  }

  private static TestWorkflowEnvironment environment(com.uber.m3.tally.Scope scope, Object... activities) {
    var env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setMetricsScope(scope).build());
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class, dev.colony.supervision.ColonyWorkflowImpl.class);
    worker.registerActivitiesImplementations(activities);
    env.start();
    return env;
  }

  /** A run through a failure, a rate limit and a success; its history and what the ant counted itself. */
  private record Run(WorkflowExecutionHistory history, AntStats stats, AntSpec spec) {}

  private static Run failRateLimitSucceed(RecordingMetrics metrics) {
    return failRateLimitSucceed(metrics.scope(), metrics::finish);
  }

  private static Run failRateLimitSucceed(com.uber.m3.tally.Scope scope, Runnable finish) {
    Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
    TestWorkflowEnvironment env = environment(scope, sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
    try {
      sessions.then(Outcome.TRANSIENT, HOSTILE)
          .then(() -> SessionResult.rateLimited(HOSTILE, env.currentTimeMillis() + 30_000))
          .then(() -> new SessionResult(Outcome.SUCCESS, HOSTILE, null, 3, 0.25, 100, 20, 0, HOSTILE, HOSTILE));
      AntSpec spec = Fakes.withPoll(Fakes.spec("counter"), 3600);
      AntWorkflow ant = Fakes.start(env.getWorkflowClient(), QUEUE, spec);
      env.sleep(Duration.ofMinutes(2)); // a 10 s backoff, a 30 s rate limit; then an hour's poll interval
      eventually(() -> ant.stats().sessions() == 3 && ant.status().state() == Lifecycle.WAITING, "three sessions");
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      // A query on the closed run replays its whole history on the worker: it counts nothing either.
      AntStats stats = ant.stats();
      return new Run(env.getWorkflowClient().fetchHistory(spec.workflowId()), stats, spec);
    } finally {
      env.close();
      finish.run();
    }
  }

  @Test
  void eachSessionIsCountedOnceWithItsOutcomeUsageCostAndWait() {
    RecordingMetrics metrics = new RecordingMetrics();
    Run run = failRateLimitSucceed(metrics);
    AntStats stats = run.stats();

    assertEquals(3, stats.sessions());
    assertEquals(3, metrics.count(AntMetrics.SESSIONS_STARTED, "colony", "test", "ant", "counter", "engine", "command"));
    TreeMap<String, Long> byOutcome = new TreeMap<>();
    stats.sessionsByOutcome().forEach((k, v) -> byOutcome.put(k, (long) v));
    assertEquals(Map.of("rate_limit", 1L, "success", 1L, "transient", 1L), byOutcome);
    assertEquals(byOutcome, metrics.countsBy(AntMetrics.SESSIONS, "outcome"), "sessions by outcome, as the ant counts them");
    assertEquals(3, metrics.timerMillis(AntMetrics.SESSION_DURATION).size(), "one duration per session");
    assertTrue(metrics.named(AntMetrics.SESSION_DURATION).stream().noneMatch(p -> p.tags().containsKey("ant")),
        "the duration has no ant label");

    assertEquals(stats.turns(), metrics.count(AntMetrics.SESSION_TURNS));
    assertEquals(3, stats.turns());
    assertEquals(stats.inputTokens(), metrics.count(AntMetrics.TOKENS, "type", "input"));
    assertEquals(stats.outputTokens(), metrics.count(AntMetrics.TOKENS, "type", "output"));
    assertEquals(120, metrics.count(AntMetrics.TOKENS));
    assertEquals(Math.round(stats.costUsd() * 1e6), metrics.count(AntMetrics.COST));
    assertEquals(250_000, metrics.count(AntMetrics.COST), "$0.25 in micro-dollars");

    assertEquals(1, metrics.count(AntMetrics.WAITS, "kind", "backoff"));
    assertEquals(1, metrics.count(AntMetrics.WAITS, "kind", "rate_limit"));
    assertEquals(List.of(Backoff.delay(1, run.spec().errorPolicy()).toMillis()),
        metrics.timerMillis(AntMetrics.WAIT_PLANNED, "kind", "backoff"));
    List<Long> rateLimit = metrics.timerMillis(AntMetrics.WAIT_PLANNED, "kind", "rate_limit");
    assertEquals(1, rateLimit.size());
    assertTrue(rateLimit.get(0) > 0 && rateLimit.get(0) <= 30_000, "until the reset: " + rateLimit);

    MetricLabels.assertClosed(metrics, Set.of("counter"), Set.of());
  }

  /**
   * Through Temporal's Micrometer reporter (what a worker's Prometheus registry is fed by): the counters
   * arrive as counters and the durations as timers (a Tally histogram would be dropped there).
   */
  @Test
  void theMicrometerReporterGetsTheCountersAndTheTimers() {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    com.uber.m3.tally.Scope scope = new com.uber.m3.tally.RootScopeBuilder()
        .reporter(new io.temporal.common.reporter.MicrometerClientStatsReporter(registry))
        .reportEvery(com.uber.m3.util.Duration.ofMillis(100));
    failRateLimitSucceed(scope, () -> {
      try {
        scope.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertEquals(1.0, registry.get(AntMetrics.SESSIONS).tag("outcome", "success").tag("ant", "counter").counter().count());
    assertEquals(3.0, registry.get(AntMetrics.SESSIONS_STARTED).counter().count());
    assertEquals(250_000.0, registry.get(AntMetrics.COST).counter().count());
    assertEquals(3, registry.get(AntMetrics.SESSION_DURATION).timers().stream().mapToLong(t -> t.count()).sum());
    assertEquals(Backoff.delay(1, ErrorPolicy.DEFAULTS).toMillis(), (long) registry.get(AntMetrics.WAIT_PLANNED)
        .tag("kind", "backoff").timer().totalTime(java.util.concurrent.TimeUnit.MILLISECONDS));
  }

  @Test
  void aReplayOfTheHistoryCountsNothing() throws Exception {
    RecordingMetrics live = new RecordingMetrics();
    Run run = failRateLimitSucceed(live);
    assertEquals(3, live.count(AntMetrics.SESSIONS), "the live run counted");

    RecordingMetrics replayed = new RecordingMetrics();
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setMetricsScope(replayed.scope()).build())) {
      Worker worker = env.newWorker("replay");
      worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
      WorkflowReplayer.replayWorkflowExecution(run.history(), worker);
    } finally {
      replayed.finish();
    }
    // The replaying worker reported to this scope (the one the workflow's own scope derives from)...
    assertFalse(replayed.timerMillis("temporal_workflow_task_replay_latency", "workflow_type", "AntWorkflow",
        "task_queue", "replay").isEmpty(), "the replay ran on the recording scope");
    // ...and the workflow code, re-run through all three sessions, counted nothing.
    assertEquals(List.of(), replayed.named("colony_"), "a replay re-runs every session's code and counts none");
  }

  @Test
  void confirmationsAndABudgetPauseAreCountedOnceEach() {
    RecordingMetrics metrics = new RecordingMetrics();
    Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
    TestWorkflowEnvironment env = environment(metrics, sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
    try {
      WorkflowClient client = env.getWorkflowClient();
      ErrorPolicy caps = new ErrorPolicy(0, 0, null, null, 0, 0, 1.0, null, "UTC");
      AntSpec spec = Fakes.withErrorPolicy(Fakes.withPoll(Fakes.spec("asker"), 3600), caps).toBuilder()
          .confirmationTimeoutSeconds(2).build();
      sessions.then(() -> {
        AntWorkflow self = client.newWorkflowStub(AntWorkflow.class, spec.workflowId());
        int n = sessions.requests.get(sessions.requests.size() - 1).session();
        ConfirmationDecision approved = self.confirm(new ConfirmationRequest(n, "k1", HOSTILE, HOSTILE, HOSTILE));
        // The same request again (a retried attempt): it finds its decision, and is not asked twice.
        ConfirmationDecision again = self.confirm(new ConfirmationRequest(n, "k1", HOSTILE, HOSTILE, HOSTILE));
        ConfirmationDecision denied = self.confirm(new ConfirmationRequest(n, "k2", "Bash", "rm -rf /", "deletes"));
        ConfirmationDecision timedOut = self.confirm(new ConfirmationRequest(n, "k3", "Bash", "git push", "pushes"));
        // Asked and left open: the session's end denies it.
        WorkflowStub.fromTyped(self).startUpdate("confirm", WorkflowUpdateStage.ACCEPTED, ConfirmationDecision.class,
            new ConfirmationRequest(n, "k4", "Bash", "curl", "network"));
        String said = approved.approved() + " " + again.approved() + " " + denied.approved() + " " + timedOut.approved();
        return new SessionResult(Outcome.SUCCESS, said, null, 1, 1.2, 0, 0, 0, null, null);
      });
      AntWorkflow ant = Fakes.start(client, QUEUE, spec);
      eventually(() -> ant.status().confirmations().size() == 1, "the first request");
      ant.decide(new Decide(1, true, HOSTILE, HOSTILE));
      eventually(() -> ant.status().confirmations().stream().anyMatch(c -> c.id() == 2), "the second request");
      ant.decide(new Decide(2, false, "dana", null));
      // The third waits out its 2 s timeout; the fourth is denied when the session ends; $1.20 > $1.00 pauses it.
      eventually(() -> ant.status().paused() && "budget".equals(ant.status().pauseReason()), "paused by its budget");
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
    } finally {
      env.close();
      metrics.finish();
    }
    assertEquals(4, metrics.count(AntMetrics.CONFIRMATIONS_REQUESTED, "ant", "asker"));
    assertEquals(Map.of("approved", 1L, "denied", 1L, "session_ended", 1L, "timed_out", 1L),
        metrics.countsBy(AntMetrics.CONFIRMATIONS_DECIDED, "decision"));
    for (String decision : List.of("approved", "denied", "timed_out", "session_ended")) {
      assertEquals(1, metrics.timerMillis(AntMetrics.CONFIRMATION_ANSWER, "decision", decision).size(), decision);
    }
    List<Long> timedOut = metrics.timerMillis(AntMetrics.CONFIRMATION_ANSWER, "decision", "timed_out");
    assertTrue(timedOut.get(0) >= 2_000, "answered by its timeout, 2 s after it was asked: " + timedOut);
    assertEquals(Map.of("daily", 1L), metrics.countsBy(AntMetrics.BUDGET_PAUSES, "window"));
    assertEquals(1, metrics.count(AntMetrics.SUPERVISION_REPORTS, "kind", AntFailure.BUDGET));
    assertEquals(1_200_000, metrics.count(AntMetrics.COST));
    assertEquals(Map.of("success", 1L), metrics.countsBy(AntMetrics.SESSIONS, "outcome"));
    MetricLabels.assertClosed(metrics, Set.of("asker"), Set.of());
  }

  /** Sessions that end with no outcome of their own count too, so sessions started = sessions ended + running. */
  @Test
  void anInterruptedAnAbortedAndAStoppedSessionAreCountedAsEnded() {
    RecordingMetrics metrics = new RecordingMetrics();
    GuardrailsTest.Sessions sessions = new GuardrailsTest.Sessions();
    TestWorkflowEnvironment env = environment(metrics, sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
    try {
      sessions.runUntilCancelled = true;
      AntSpec spec = Fakes.withPoll(Fakes.spec("busy"), 3600).toBuilder().heartbeatTimeoutSeconds(2).build();
      AntWorkflow ant = Fakes.start(env.getWorkflowClient(), QUEUE, spec);
      eventually(() -> sessions.requests.size() == 1, "the first session");
      sessions.runUntilCancelled = true; // the next one too
      ant.message(new dev.colony.mailbox.Mail(HOSTILE, true, null, "u1")); // urgent: interrupts the first
      eventually(() -> sessions.requests.size() == 2 && sessions.cancelled.size() == 1, "the second session");
      sessions.runUntilCancelled = true; // and the third
      ant.abort(); // interrupts the second and drops its task
      eventually(() -> sessions.cancelled.size() == 2, "the second session aborted");
      ant.message(dev.colony.mailbox.Mail.of("more work")); // a third session (if none began already)
      eventually(() -> sessions.requests.size() == 3, "the third session");
      ant.stop(); // stops the third
      WorkflowStub.fromTyped(ant).getResult(Void.class);
      assertEquals(List.of(1, 2, 3), sessions.cancelled);
    } finally {
      env.close();
      metrics.finish();
    }
    assertEquals(3, metrics.count(AntMetrics.SESSIONS_STARTED));
    assertEquals(Map.of("aborted", 1L, "interrupted", 1L, "stopped", 1L), metrics.countsBy(AntMetrics.SESSIONS, "outcome"));
    assertEquals(3, metrics.timerMillis(AntMetrics.SESSION_DURATION).size());
    MetricLabels.assertClosed(metrics, Set.of("busy"), Set.of());
  }

  @Test
  void anAntParkedAfterRepeatedErrorsIsCountedOnce() {
    RecordingMetrics metrics = new RecordingMetrics();
    Fakes.ScriptedSessions sessions = new Fakes.ScriptedSessions();
    TestWorkflowEnvironment env = environment(metrics, sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace());
    try {
      sessions.then(Outcome.TRANSIENT, HOSTILE).then(Outcome.TRANSIENT, HOSTILE).then(Outcome.TRANSIENT, HOSTILE);
      AntSpec spec = Fakes.withErrorPolicy(Fakes.spec("parker"), new ErrorPolicy(2, 60, 3, null));
      AntWorkflow ant = Fakes.start(env.getWorkflowClient(), QUEUE, spec);
      env.sleep(Duration.ofMinutes(1)); // backoffs of 2 s and 4 s
      eventually(() -> ant.status().state() == Lifecycle.PARKED, "parked");
      env.sleep(Duration.ofHours(1));
      assertEquals(3, sessions.requests.size(), "parked: no more sessions");
      ant.stop();
      WorkflowStub.fromTyped(ant).getResult(Void.class);
    } finally {
      env.close();
      metrics.finish();
    }
    assertEquals(Map.of("transient", 3L), metrics.countsBy(AntMetrics.SESSIONS, "outcome"));
    assertEquals(3, metrics.count(AntMetrics.SESSIONS_STARTED));
    assertEquals(2, metrics.count(AntMetrics.WAITS, "kind", "backoff"));
    assertEquals(List.of(2_000L, 4_000L), metrics.timerMillis(AntMetrics.WAIT_PLANNED, "kind", "backoff"));
    assertEquals(Map.of("errors", 1L), metrics.countsBy(AntMetrics.PARKS, "reason"));
    assertEquals(1, metrics.count(AntMetrics.SUPERVISION_REPORTS, "kind", AntFailure.PARKED));
    MetricLabels.assertClosed(metrics, Set.of("parker"), Set.of());
  }

  /** AntMetrics is the one way workflow code emits metrics, and it emits no gauge and no histogram. */
  @Test
  void onlyAntMetricsAsksForTheMetricsScopeAndItSetsNoGauge() throws java.io.IOException {
    List<String> others = new java.util.ArrayList<>();
    try (Stream<java.nio.file.Path> files = java.nio.file.Files.walk(java.nio.file.Path.of("src/main/java"))) {
      for (java.nio.file.Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        String text = java.nio.file.Files.readString(f);
        if (text.contains("getMetricsScope") && !f.endsWith(java.nio.file.Path.of("dev/colony/ant/AntMetrics.java"))) {
          others.add(f.toString());
        }
      }
    }
    assertEquals(List.of(), others, "workflow code counts through AntMetrics only (docs/development.md)");
    String metrics = java.nio.file.Files.readString(java.nio.file.Path.of("src/main/java/dev/colony/ant/AntMetrics.java"));
    assertTrue(metrics.contains("Workflow.getMetricsScope()"));
    assertFalse(metrics.contains(".gauge(") || metrics.contains(".histogram("), "counters and timers only");
  }

  @Test
  void aNameThatIsNotAConfigNameNeverBecomesALabel() {
    assertEquals("my-ant_2.b", AntMetrics.name("my-ant_2.b"));
    for (String bad : new String[] {HOSTILE, "", "-lead", "a b", "x\"}", "x".repeat(101), null}) {
      assertEquals(AntMetrics.INVALID, AntMetrics.name(bad), String.valueOf(bad));
    }
  }

}
