package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.autonomy.Decide;
import dev.colony.errorpolicy.Outcome;
import dev.colony.notify.Notice;
import dev.colony.notify.NotifyActivities;
import dev.colony.notify.NotifyResult;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.NotifySpec;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Notices for phones, on the time-skipping test server: once per need, reminders, quiet hours, nothing after the answer. */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class NotifierTest {
  private static final String QUEUE = "notify";
  private static final NotifySpec NOTIFY = new NotifySpec(1800, 2, "http://ui", null, List.of(), null, null);

  /** Records notices; {@code held} says, from a notice's time, until when quiet hours hold it (0: not held). */
  static final class RecordingNotify implements NotifyActivities {
    final List<Notice> notices = new CopyOnWriteArrayList<>();
    volatile LongUnaryOperator held = at -> 0;
    /** While set, a notice is recorded and then waits for it to open (a slow ntfy server). */
    volatile java.util.concurrent.CountDownLatch gate;

    @Override
    public NotifyResult notify(Notice n) {
      notices.add(n);
      java.util.concurrent.CountDownLatch g = gate;
      if (g != null) {
        try {
          g.await(2, java.util.concurrent.TimeUnit.MINUTES); // bounded: never outlives the test
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      long until = n.previousAtMillis() > 0 ? 0 : held.applyAsLong(n.atMillis());
      return new NotifyResult(until > 0 ? 0 : 1, until);
    }
  }

  private TestWorkflowEnvironment env;
  private Fakes.ScriptedSessions sessions;
  private RecordingNotify notify;
  private WorkflowClient client;

  @BeforeEach
  void setUp() {
    sessions = new Fakes.ScriptedSessions();
    notify = new RecordingNotify();
    env = Fakes.environment(QUEUE, sessions, new Fakes.RecordingChat(), new Fakes.FixedWorkspace(), notify);
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

  private static AntSpec ant(String name, NotifySpec n) {
    return Fakes.withPoll(Fakes.spec(name), 3600).withNotify(n);
  }

  private List<Notice> of(String needPrefix) {
    return notify.notices.stream().filter(n -> n.need().startsWith(needPrefix)).toList();
  }

  @Test
  void aBillingPauseIsNoticedOnceThenRemindedAndNothingAfterTheResume() {
    sessions.then(Outcome.BILLING, "card declined");
    AntWorkflow ant = start(ant("payer", NOTIFY));
    eventually(() -> of("pause-billing").size() == 1, "the first notice");
    Notice first = of("pause-billing").get(0);
    assertEquals("billing", first.kind());
    assertFalse(first.urgent(), "billing waits for the end of quiet hours");
    assertEquals(0, first.round());
    assertTrue(first.text().startsWith("payer is paused: the agent's billing"), first.text());
    assertTrue(first.answer().contains("colony resume test/payer"), first.answer());
    assertEquals("/tmp", first.colonyDir());
    assertEquals(NOTIFY, first.spec());

    env.sleep(Duration.ofMinutes(29));
    assertEquals(1, of("pause-billing").size(), "no reminder before remind_after");
    env.sleep(Duration.ofMinutes(2));
    eventually(() -> of("pause-billing").size() == 2, "the first reminder");
    assertEquals(1, of("pause-billing").get(1).round());
    env.sleep(Duration.ofMinutes(31));
    eventually(() -> of("pause-billing").size() == 3, "the second reminder");
    env.sleep(Duration.ofDays(2));
    assertEquals(3, of("pause-billing").size(), "two reminders at most");

    ant.resume();
    eventually(() -> sessions.requests.size() == 2, "the session after the resume");
    env.sleep(Duration.ofHours(3));
    assertEquals(3, notify.notices.size(), "nothing after the answer");
  }

  @Test
  void aConfirmationIsNoticedAndItsReminderStopsOnceDecided() {
    String id = Fakes.spec("pusher").workflowId();
    sessions.then(() -> {
      AntWorkflow self = client.newWorkflowStub(AntWorkflow.class, id);
      var d = self.confirm(new ConfirmationRequest(1, "k1", "Bash", "git push origin main", "pushes to a remote"));
      return SessionResult.of(Outcome.SUCCESS, d.approved() ? "pushed" : "not pushed");
    });
    // While the session runs (it waits for the decision) the test server's clock runs in real time:
    // a reminder after 2 s.
    AntWorkflow ant = start(ant("pusher", new NotifySpec(2, 5, "http://ui", null, List.of(), null, null)));
    eventually(() -> of("request-").size() == 1, "the notice of the request");
    Notice n = of("request-").get(0);
    assertEquals("confirmation", n.kind());
    assertTrue(n.text().contains("wants to use Bash") && n.text().contains("git push origin main"), n.text());
    assertTrue(n.answer().startsWith("colony approve test/pusher 1"), n.answer());
    eventually(() -> of("request-").size() == 2, "a reminder after 2 s");
    assertEquals(1, of("request-").get(1).round());
    ant.decide(new Decide(1, true, "dana", null));
    eventually(() -> ant.status().confirmations().isEmpty(), "decided");
    int sent = of("request-").size();
    env.sleep(Duration.ofHours(1));
    assertEquals(sent, of("request-").size(), "no reminder once decided");
  }

  @Test
  void aNoticeHeldByQuietHoursIsSentWhenTheyEndAndUrgentOnesAreNot() {
    // Quiet for the next two hours from the first notice on; remind only after five.
    long[] firstAt = {0};
    notify.held = at -> {
      if (firstAt[0] == 0) {
        firstAt[0] = at;
      }
      return at < firstAt[0] + Duration.ofHours(2).toMillis() ? firstAt[0] + Duration.ofHours(2).toMillis() : 0;
    };
    sessions.then(Outcome.AUTH, "401");
    start(ant("locked", new NotifySpec(5 * 3600, 1, "http://ui", null, List.of(), null, null)));
    eventually(() -> of("pause-auth").size() == 1, "the first (held) notice");
    env.sleep(Duration.ofMinutes(119));
    assertEquals(1, of("pause-auth").size());
    env.sleep(Duration.ofMinutes(2));
    eventually(() -> of("pause-auth").size() == 2, "the held notice when quiet hours end");
    Notice late = of("pause-auth").get(1);
    assertEquals(0, late.round(), "the same notice, not a reminder");
    assertEquals(of("pause-auth").get(0).atMillis(), late.previousAtMillis());
    env.sleep(Duration.ofHours(3));
    eventually(() -> of("pause-auth").size() == 3, "the reminder, five hours after the first notice");
    assertEquals(1, of("pause-auth").get(2).round());
  }

  @Test
  void aBudgetCapAndAParkedCrashLoopAreUrgentAndAnAntWithoutNoticesSendsNone() {
    sessions.then(Outcome.BUDGET, "over");
    start(ant("spender", NOTIFY));
    eventually(() -> of("pause-budget").size() == 1, "the budget notice");
    assertTrue(of("pause-budget").get(0).urgent());
    assertTrue(Notifier.needsHuman("errors") && Notifier.needsHuman("escalation") && !Notifier.needsHuman("operator"));

    Fakes.ScriptedSessions quiet = sessions;
    quiet.then(Outcome.BILLING, "declined");
    start(Fakes.withPoll(Fakes.spec("silent"), 3600));
    eventually(() -> quiet.requests.size() >= 2, "the silent ant ran");
    env.sleep(Duration.ofHours(2));
    assertTrue(notify.notices.stream().noneMatch(n -> n.ant().equals("silent")), "no notices without integrations.notify");
  }

  /** What was pushed is carried over continue-as-new: an upgrade pushes nothing again, and the reminder keeps its time. */
  @Test
  void anUpgradedBillingPausedAntPushesItsNoticeOnceAndRemindsOnSchedule() {
    sessions.then(Outcome.BILLING, "card declined");
    AntSpec spec = ant("moved", NOTIFY);
    AntWorkflow ant = start(spec);
    eventually(() -> of("pause-billing").size() == 1, "the first notice");
    String firstRun = client.newUntypedWorkflowStub(spec.workflowId()).describe().getExecution().getRunId();
    env.sleep(Duration.ofMinutes(10));
    ant.upgrade(); // what `colony upgrade` sends: the ant continues as new at once
    eventually(() -> !firstRun.equals(
        client.newUntypedWorkflowStub(spec.workflowId()).describe().getExecution().getRunId()), "the new run");
    AntWorkflow latest = client.newWorkflowStub(AntWorkflow.class, spec.workflowId());
    eventually(() -> latest.status().paused(), "the new run is paused too");
    env.sleep(Duration.ofMinutes(15));
    assertEquals(1, of("pause-billing").size(), "pushed again after the upgrade: " + of("pause-billing"));
    env.sleep(Duration.ofMinutes(6)); // 31 minutes after the first notice: remind_after is 30
    eventually(() -> of("pause-billing").size() == 2, "the reminder, on the first run's schedule");
    assertEquals(1, of("pause-billing").get(1).round());
  }

  /**
   * Stop drains on the same rule as continue-as-new: nothing in flight. A notice being delivered
   * when stop comes is waited for (its activity completes in the run's history), not abandoned.
   */
  @Test
  void stopWaitsForANoticeInFlightAsContinueAsNewDoes() throws Exception {
    notify.gate = new java.util.concurrent.CountDownLatch(1);
    sessions.then(Outcome.BILLING, "card declined");
    AntSpec spec = ant("leaver", NOTIFY);
    AntWorkflow ant = start(spec);
    eventually(() -> of("pause-billing").size() == 1, "the notice is being delivered");
    ant.stop();
    io.temporal.client.WorkflowStub stub = io.temporal.client.WorkflowStub.fromTyped(ant);
    boolean closedWithTheNoticeInFlight;
    try {
      // A bounded wait for what must not happen: the run closing while the notice is delivered.
      stub.getResult(3, java.util.concurrent.TimeUnit.SECONDS, Void.class);
      closedWithTheNoticeInFlight = true;
    } catch (java.util.concurrent.TimeoutException expected) {
      closedWithTheNoticeInFlight = false;
    }
    notify.gate.countDown();
    stub.getResult(Void.class);
    var events = client.fetchHistory(spec.workflowId()).getEvents();
    long scheduled = events.stream().filter(e -> e.hasActivityTaskScheduledEventAttributes()
        && e.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("Notify")).count();
    long completed = events.stream().filter(e -> e.hasActivityTaskCompletedEventAttributes()).count();
    assertFalse(closedWithTheNoticeInFlight, "stop closed the run while a notice was being delivered");
    assertEquals(1, scheduled);
    assertTrue(completed >= 2, "the notice's activity completed in the run (claim a host, notify): " + completed);
  }
}
