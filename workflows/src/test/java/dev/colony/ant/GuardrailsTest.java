package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.errorpolicy.Outcome;
import dev.colony.mailbox.Mail;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import io.temporal.activity.Activity;
import io.temporal.client.ActivityCompletionException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The guardrails on the time-skipping test server: urgent interrupts, budgets, the mailbox. */
@Timeout(180)
class GuardrailsTest {
  private static final String QUEUE = "guardrails";

  private TestWorkflowEnvironment env;
  private Sessions sessions;
  private Fakes.RecordingChat chat;
  private WorkflowClient client;

  /**
   * Sessions that succeed at once, except those told to run until cancelled: they heartbeat, and
   * when the cancellation reaches them they stop (as an agent does within its grace period).
   */
  static final class Sessions implements SessionActivities {
    final List<SessionRequest> requests = new CopyOnWriteArrayList<>();
    final List<Integer> cancelled = new CopyOnWriteArrayList<>();
    volatile boolean runUntilCancelled;
    volatile double cost;

    @Override
    public SessionResult runSession(SessionRequest request) {
      requests.add(request);
      if (runUntilCancelled) {
        runUntilCancelled = false;
        long end = System.nanoTime() + java.time.Duration.ofMinutes(2).toNanos(); // bounded: never outlives the test
        while (System.nanoTime() < end) {
          try {
            Activity.getExecutionContext().heartbeat(null);
            Thread.sleep(20); // not a wait: a session that runs until cancelled, heartbeating
          } catch (ActivityCompletionException e) {
            cancelled.add(request.session());
            throw e;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
          }
        }
        throw new IllegalStateException("session " + request.session() + " was never cancelled");
      }
      return new SessionResult(Outcome.SUCCESS, "done", null, 1, cost, 0, 0, 0, null, null);
    }
  }

  @BeforeEach
  void setUp() {
    sessions = new Sessions();
    chat = new Fakes.RecordingChat();
    env = Fakes.environment(QUEUE, sessions, chat, new Fakes.FixedWorkspace());
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private AntWorkflow start(AntSpec spec) {
    return Fakes.start(client, QUEUE, spec);
  }

  private static AntSpec eventDriven(String name, ErrorPolicy supervision) {
    AntSpec s = Fakes.withSchedule(Fakes.spec(name), null,
        List.of(new dev.colony.spec.TriggerSpec(dev.colony.spec.TriggerSpec.Type.GITHUB_ISSUE, List.of("never"))));
    return Fakes.withErrorPolicy(s, supervision);
  }

  @Test
  void anUrgentMessageInterruptsTheSessionAndTheNextStartsWithItFirst() {
    sessions.runUntilCancelled = true;
    AntSpec s = Fakes.withPoll(Fakes.spec("busy"), 3600);
    // Cancellation reaches an activity with a heartbeat, which the SDK sends at most every 0.8 x
    // the heartbeat timeout: a short timeout keeps the test quick.
    AntWorkflow ant = start(s.toBuilder().heartbeatTimeoutSeconds(2).build());
    ant.message(Mail.of("ordinary work"));
    eventually(() -> sessions.requests.size() == 1, "first session");
    // The first session may have started before "ordinary work" arrived: then that is queued too.
    int given = sessions.requests.get(0).messages().size();
    ant.message(Mail.of("later, not urgent"));
    eventually(() -> ant.status().queueDepth() == 2 - given, "queued");
    assertTrue(sessions.cancelled.isEmpty(), "a plain message never interrupts");
    ant.message(new Mail("the build is red, fix it first", true, null, "u1"));
    eventually(() -> sessions.requests.size() == 2, "the next session");
    assertEquals(List.of(1), sessions.cancelled);
    // the urgent message first, then what the interrupted session was given, then the rest
    assertEquals(List.of("the build is red, fix it first", "ordinary work", "later, not urgent"),
        sessions.requests.get(1).messages());
    assertEquals(2, sessions.requests.get(1).session(), "the interrupted session used up its number");
    eventually(() -> chat.texts().contains("⚡ **busy** interrupted session 1; the next one starts with the urgent message."), "interrupt notice");
    assertTrue(chat.texts().contains("⚡ **busy** got an urgent message: interrupting session 1 to start on it."));
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "sleeping after the success");
    assertEquals(0, ant.status().consecutiveErrors(), "an interrupt is not an error");
    assertEquals(1, ant.stats().sessionsByOutcome().get("interrupted"));
    // the same id again is dropped
    ant.message(new Mail("the build is red, fix it first", true, null, "u1"));
    ant.message(Mail.of("a check that the signal above was handled"));
    // a message wakes the ant: the next session gets the new message only
    eventually(() -> sessions.requests.size() == 3, "a session for the new message");
    assertEquals(List.of("a check that the signal above was handled"), sessions.requests.get(2).messages());
  }

  @Test
  void messagesFromOtherAntsSaySoAndKeepTheirOrder() {
    AntWorkflow ant = start(eventDriven("inbox", ErrorPolicy.DEFAULTS));
    eventually(() -> ant.status().state() == Lifecycle.WAITING, "waiting for a message");
    assertEquals("a message or a trigger", ant.status().stateReason());
    ant.pause();
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "paused");
    for (int i = 1; i <= 3; i++) {
      ant.message(new Mail("part " + i, false, "scout", "scout-" + i));
      ant.message(new Mail("part " + i, false, "scout", "scout-" + i)); // a retried send
    }
    eventually(() -> !sessions.requests.isEmpty(), "the paused ant resumes for a message");
    // The first session takes what has arrived when it starts; the rest follow at once.
    eventually(() -> sessions.requests.stream().mapToInt(r -> r.messages().size()).sum() == 3
        && ant.status().queueDepth() == 0 && ant.status().state() == Lifecycle.WAITING, "all delivered");
    List<String> delivered = sessions.requests.stream().flatMap(r -> r.messages().stream()).toList();
    assertEquals(List.of("[message from ant scout] part 1", "[message from ant scout] part 2",
        "[message from ant scout] part 3"), delivered);
  }

  @Test
  void aDailyCapPausesTheAntUntilTheNextDayAndSurvivesContinueAsNew() {
    sessions.cost = 0.6;
    ErrorPolicy caps = new ErrorPolicy(0, 0, null, null, 0, 0, 1.0, null, "UTC");
    AntSpec spec = Fakes.withErrorPolicy(Fakes.withPoll(Fakes.spec("spender"), 600), caps);
    spec = spec.toBuilder().continueAsNewEvery(1).errorPolicy(caps).build(); // continue as new after every session
    // The scenario needs a little over two hours of one UTC day: late in the evening (real time
    // is where the test server starts), skip to just after midnight first.
    long midnight = nextMidnight(env.currentTimeMillis());
    if (midnight - env.currentTimeMillis() < Duration.ofHours(3).toMillis()) {
      env.sleep(Duration.ofMillis(midnight - env.currentTimeMillis() + 60_000));
      midnight = nextMidnight(env.currentTimeMillis());
    }
    AntWorkflow ant = start(spec);
    eventually(() -> sessions.requests.size() == 1, "first session");
    env.sleep(Duration.ofSeconds(601));
    eventually(() -> sessions.requests.size() == 2, "second session");
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "paused by the cap");
    AntStatus s = ant.status();
    assertEquals("budget", s.pauseReason());
    assertTrue(s.budget().startsWith("today $1.20 of $1.00"), s.budget());
    eventually(() -> chat.texts().stream().anyMatch(t -> t.startsWith("💰 **spender** paused: daily budget $1.00 "
        + "reached ($1.20 spent). It resumes by itself at ")), "💰 notice");
    assertEquals(1.2, ant.stats().spentTodayUsd(), 1e-9, "the spend survived two continue-as-new");
    env.sleep(Duration.ofHours(2));
    assertEquals(2, sessions.requests.size(), "no session while over the cap");
    env.sleep(Duration.ofMillis(midnight - env.currentTimeMillis() + 1000));
    eventually(() -> sessions.requests.size() == 3, "resumed by itself in the new day");
    assertTrue(chat.texts().contains("▶️ **spender** resuming: its budget window rolled over."));
  }

  private static long nextMidnight(long millis) {
    return LocalDate.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC).plusDays(1)
        .atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
  }

  @Test
  void anOperatorCanResumeABudgetPauseEarly() {
    sessions.cost = 5;
    ErrorPolicy caps = new ErrorPolicy(0, 0, null, null, 0, 0, 1.0, null, "UTC");
    AntWorkflow ant = start(Fakes.withErrorPolicy(Fakes.withPoll(Fakes.spec("early"), 3600), caps));
    eventually(() -> ant.status().state() == Lifecycle.PAUSED, "paused by the cap");
    ant.resume();
    eventually(() -> sessions.requests.size() == 2, "one more session on resume");
  }

  /** Records the guardrails paths (urgent interrupt, duplicate mail, budget pause and resume) for the replay guard. */
  @Test
  @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordGuardrails() throws Exception {
    anUrgentMessageInterruptsTheSessionAndTheNextStartsWithItFirst();
    AntWorkflow busy = client.newWorkflowStub(AntWorkflow.class, "ant/test/busy");
    busy.stop();
    io.temporal.client.WorkflowStub.fromTyped(busy).getResult(Void.class);
    HistoryReplayTest.write("guardrails-urgent-and-mail.json", client.fetchHistory("ant/test/busy"));
    sessions.requests.clear();
    anOperatorCanResumeABudgetPauseEarly();
    env.sleep(Duration.ofHours(2));
    AntWorkflow early = client.newWorkflowStub(AntWorkflow.class, "ant/test/early");
    eventually(() -> early.status().state() == Lifecycle.PAUSED, "paused again by the cap");
    env.sleep(Duration.ofDays(1));
    eventually(() -> sessions.requests.size() >= 3, "resumed by itself the next day");
    early.stop();
    io.temporal.client.WorkflowStub.fromTyped(early).getResult(Void.class);
    HistoryReplayTest.write("guardrails-budget.json", client.fetchHistory("ant/test/early"));
  }
}
