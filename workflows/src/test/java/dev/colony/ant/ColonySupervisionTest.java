package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.supervision.ColonyEvent;
import dev.colony.supervision.ColonyRun;
import dev.colony.supervision.ColonyWorkflow;
import dev.colony.supervision.ColonyWorkflowImpl;
import dev.colony.supervision.GroupSpec;
import dev.colony.supervision.Strategy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Supervision on the time-skipping server: a colony supervisor, its groups, and real ant workflows. */
@Timeout(180)
class ColonySupervisionTest {
  private static final String QUEUE = "colony";

  /** Sessions scripted per ant; an unscripted session succeeds. Records every request. */
  static final class PerAntSessions implements SessionActivities {
    final Map<String, Deque<Outcome>> scripts = new ConcurrentHashMap<>();
    final Map<String, Double> cost = new ConcurrentHashMap<>();
    final List<SessionRequest> requests = new CopyOnWriteArrayList<>();
    /** Ants whose next session returns nothing at all (a buggy engine): the ant's workflow code fails on it. */
    final Map<String, java.util.concurrent.atomic.AtomicInteger> nulls = new ConcurrentHashMap<>();
    /** Ants whose session activity crashes (an exception, as a dying worker would leave). */
    final Map<String, java.util.concurrent.atomic.AtomicInteger> crashes = new ConcurrentHashMap<>();

    void then(String ant, Outcome... outcomes) {
      scripts.computeIfAbsent(ant, a -> new ConcurrentLinkedDeque<>()).addAll(List.of(outcomes));
    }

    long sessionsOf(String ant) {
      return requests.stream().filter(r -> r.spec().name().equals(ant)).count();
    }

    @Override
    public SessionResult runSession(SessionRequest request) {
      var crash = crashes.get(request.spec().name());
      if (crash != null && crash.getAndDecrement() > 0) {
        throw new IllegalStateException("the worker lost the agent");
      }
      requests.add(request);
      var none = nulls.get(request.spec().name());
      if (none != null && none.getAndDecrement() > 0) {
        return null;
      }
      Outcome o = scripts.getOrDefault(request.spec().name(), new ConcurrentLinkedDeque<>()).poll();
      return new SessionResult(o == null ? Outcome.SUCCESS : o, o == null ? "done" : "boom", null, 1,
          cost.getOrDefault(request.spec().name(), 0.0), 0, 0, 0,
          "conv-" + request.spec().name() + "-" + request.session(), null);
    }
  }

  /** A webhook endpoint that is down: every delivery fails (and Temporal retries it). */
  static final class DownWebhook implements dev.colony.webhook.WebhookActivities {
    final List<Long> attempts = new CopyOnWriteArrayList<>();

    @Override
    public void deliver(dev.colony.webhook.WebhookDelivery d) {
      attempts.add(d.event().seq());
      throw io.temporal.failure.ApplicationFailure.newFailure("the webhook answered 503", "WebhookRefused");
    }
  }

  private TestWorkflowEnvironment env;
  private PerAntSessions sessions;
  private DownWebhook webhook;
  private Fakes.RecordingChat chat;
  private WorkflowClient client;

  @BeforeEach
  void setUp() {
    sessions = new PerAntSessions();
    chat = new Fakes.RecordingChat();
    webhook = new DownWebhook();
    env = Fakes.environment(QUEUE, sessions, chat, new Fakes.FixedWorkspace(), webhook);
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }


  /** A continuous ant sleeping an hour between sessions, parked at its first failure. */
  private static AntSpec ant(String name) {
    return Fakes.withErrorPolicy(Fakes.withPoll(Fakes.spec(name), 3600), new ErrorPolicy(0, 0, 1, null));
  }

  private ColonyWorkflow startColony(List<GroupSpec> groups) {
    return startColony(groups, null);
  }

  private ColonyWorkflow startColony(List<GroupSpec> groups, ColonyRun.Webhook hook) {
    ColonyWorkflow colony = client.newWorkflowStub(ColonyWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(ColonyWorkflow.workflowId("test")).setTaskQueue(QUEUE).build());
    WorkflowClient.start(colony::run, ColonyRun.fresh("test", groups, null, hook));
    return colony;
  }

  private List<String> types(ColonyWorkflow colony) {
    return colony.events(0).stream().map(e -> e.type() + ":" + (e.ant() == null ? e.group() : e.ant())).toList();
  }

  @Test
  void aFailureOfTheAntsOwnWorkflowCodeParksItAndItsSupervisorRestartsIt() {
    ColonyWorkflow colony = startColony(List.of(new GroupSpec("solo", Strategy.ONE_FOR_ONE, List.of("buggy"), 3, 60)));
    sessions.nulls.put("buggy", new java.util.concurrent.atomic.AtomicInteger(1));
    AntWorkflow buggy = Fakes.start(client, QUEUE, ant("buggy"));
    eventually(() -> types(colony).contains("agent_restarted:buggy"), "restarted: " + types(colony));
    assertEquals("agent_parked:buggy", types(colony).get(0));
    assertTrue(colony.events(0).get(0).reason().startsWith("fatal error: "), colony.events(0).get(0).reason());
    eventually(() -> sessions.sessionsOf("buggy") == 2, "the restart ran a session");
    eventually(() -> buggy.status().state() == Lifecycle.WAITING, "healthy again: " + buggy.status());
    assertEquals(null, buggy.status().pauseReason());
    eventually(() -> chat.texts().stream().anyMatch(t -> t.startsWith("🛑 **buggy** is parked after a fatal error in its "
        + "workflow")), chat.texts().toString());
  }

  @Test
  void anAntAloneParkedByAFatalErrorWaitsForAHuman() {
    sessions.nulls.put("alone", new java.util.concurrent.atomic.AtomicInteger(1));
    AntWorkflow alone = Fakes.start(client, QUEUE, ant("alone"));
    eventually(() -> alone.status().state() == Lifecycle.PARKED, "parked");
    assertEquals("fatal", alone.status().pauseReason());
    alone.resume();
    eventually(() -> sessions.sessionsOf("alone") == 2, "resumed by hand");
  }

  @Test
  void restForOneRestartsTheFailedAntAndTheOnesAfterItThenTheBreakerTrips() {
    ColonyWorkflow colony = startColony(List.of(new GroupSpec("pipeline", Strategy.REST_FOR_ONE,
        List.of("a", "b", "c"), 1, 60)));
    sessions.then("b", Outcome.SUCCESS, Outcome.TRANSIENT);
    AntWorkflow a = Fakes.start(client, QUEUE, ant("a"));
    AntWorkflow b = Fakes.start(client, QUEUE, ant("b"));
    AntWorkflow c = Fakes.start(client, QUEUE, ant("c"));
    eventually(() -> sessions.sessionsOf("a") == 1 && sessions.sessionsOf("b") == 1 && sessions.sessionsOf("c") == 1, "every ant ran once");
    eventually(() -> b.status().state() == Lifecycle.WAITING, "b sleeps after its first session");
    b.resume(); // cut b's sleep: its second session fails and parks it
    eventually(() -> types(colony).contains("agent_restarted:c"), "c restarted: " + types(colony));
    assertEquals(List.of("agent_parked:b", "agent_restarted:b", "agent_restarted:c"), types(colony));
    eventually(() -> sessions.sessionsOf("b") == 3 && sessions.sessionsOf("c") == 2, "b and c ran afresh");
    assertEquals(1, sessions.sessionsOf("a"), "a is before b in the group: untouched");
    eventually(() -> chat.texts().contains("♻️ **c** restarted by its supervisor (resuming its conversation): "
        + "b failed (rest_for_one)."), chat.texts().toString());
    // recovery: resume: c's fresh session continues its last conversation
    SessionRequest cAgain = sessions.requests.stream().filter(r -> r.spec().name().equals("c")).toList().get(1);
    assertEquals("conv-c-1", cAgain.resumeConversation());

    // A second failure within the window trips the breaker: b stays parked, nothing restarts.
    sessions.then("b", Outcome.TRANSIENT);
    eventually(() -> b.status().state() == Lifecycle.WAITING, "b sleeps after its restarted session");
    b.resume();
    eventually(() -> types(colony).contains("restart_limit_exceeded:pipeline"), types(colony).toString());
    eventually(() -> b.status().state() == Lifecycle.PARKED, "b stays parked");
    assertEquals(List.of("pipeline"), colony.failedGroups());
    assertTrue(types(colony).contains("agent_failed:b"));
    long cSessions = sessions.sessionsOf("c");
    // An operator resets the group: its ants restart, b un-parks.
    colony.reset(null);
    eventually(() -> b.status().state() != Lifecycle.PARKED, "b un-parked by the reset");
    eventually(() -> sessions.sessionsOf("c") > cSessions, "c restarted by the reset");
    assertTrue(colony.failedGroups().isEmpty());
    assertTrue(types(colony).contains("group_reset:pipeline"));
    ColonyEvent last = colony.events(0).get(colony.events(0).size() - 1);
    assertEquals("rest_for_one", last.strategy());
  }

  @Test
  void oneForAllRestartsEverySiblingAndAnAntInNoGroupOnlyItselfWhileTheWebhookIsDown() {
    ColonyWorkflow colony = startColony(List.of(new GroupSpec("team", Strategy.ONE_FOR_ALL, List.of("a", "b"), 3, 60)),
        new ColonyRun.Webhook("/tmp", "http://127.0.0.1:9/hook", null));
    sessions.then("a", Outcome.TRANSIENT);
    sessions.then("solo", Outcome.TRANSIENT);
    Fakes.start(client, QUEUE, ant("b"));
    eventually(() -> sessions.sessionsOf("b") == 1, "b ran");
    Fakes.start(client, QUEUE, ant("a"));
    Fakes.start(client, QUEUE, ant("solo"));
    eventually(() -> types(colony).containsAll(List.of("agent_restarted:a", "agent_restarted:b", "agent_restarted:solo")), types(colony).toString());
    eventually(() -> sessions.sessionsOf("b") == 2, "b restarted with its sibling");
    assertEquals(1, types(colony).stream().filter(t -> t.startsWith("agent_restarted:solo")).count());
    // every event went to the webhook, which keeps failing: retried, and nothing waited for it
    eventually(() -> webhook.attempts.stream().distinct().count() == colony.events(0).size(), "each event offered to the webhook: " + webhook.attempts);
    env.sleep(Duration.ofMinutes(5));
    eventually(() -> webhook.attempts.size() > colony.events(0).size(), "deliveries retried: " + webhook.attempts);
  }

  @Test
  void anAntWhoseSessionStopsAnsweringIsAFailureAndABudgetPauseOnlyAnEvent() {
    ColonyWorkflow colony = startColony(List.of());
    sessions.crashes.put("stuck", new java.util.concurrent.atomic.AtomicInteger(10)); // every retry of session 1
    AntWorkflow stuck = Fakes.start(client, QUEUE, Fakes.withPoll(Fakes.spec("stuck"), 3600));
    env.sleep(Duration.ofMinutes(5)); // the activity's ten attempts and their retry backoff
    eventually(() -> types(colony).contains("agent_restarted:stuck"), types(colony).toString());
    assertEquals(List.of("agent_unresponsive:stuck", "agent_restarted:stuck"), types(colony));
    assertTrue(colony.events(0).get(0).reason().startsWith("session 1 stopped answering: session failed: "),
        colony.events(0).get(0).reason());
    eventually(() -> sessions.sessionsOf("stuck") == 1, "restarted at once instead of backing off");
    assertEquals("success", stuck.status().lastOutcome());

    AntSpec spender = Fakes.withErrorPolicy(Fakes.withPoll(Fakes.spec("spender"), 3600),
        new ErrorPolicy(0, 0, null, null, 0, 0, 0.5, null, "UTC"));
    sessions.cost.put("spender", 1.0);
    Fakes.start(client, QUEUE, spender);
    eventually(() -> types(colony).contains("agent_budget:spender"), types(colony).toString());
    assertTrue(types(colony).stream().noneMatch(t -> t.equals("agent_restarted:spender")), "a budget pause is not restarted");
  }

  @Test
  void theEventDescriptionReadsLikeTheChat() {
    assertEquals("♻️ supervisor: agent restarted **c** (rest_for_one, group pipeline): b failed (rest_for_one)",
        new ColonyEvent(3, 0, "agent_restarted", "c", "pipeline", "rest_for_one",
            "b failed (rest_for_one)").describe());
  }

  /** Records an ant restarted by its supervisor, and the supervisor's own history, for the replay guard. */
  @Test
  @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordSupervision() throws Exception {
    restForOneRestartsTheFailedAntAndTheOnesAfterItThenTheBreakerTrips();
    AntWorkflow b = client.newWorkflowStub(AntWorkflow.class, "ant/test/b");
    b.stop();
    io.temporal.client.WorkflowStub.fromTyped(b).getResult(Void.class);
    HistoryReplayTest.write("supervision-ant-restarted.json", client.fetchHistory("ant/test/b"));
    HistoryReplayTest.write("supervision-colony.json", client.fetchHistory(ColonyWorkflow.workflowId("test")));
  }
}
