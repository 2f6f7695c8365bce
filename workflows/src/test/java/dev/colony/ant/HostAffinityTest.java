package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.workspace.WorkspaceActivities;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Worker affinity on the time-skipping server: an ant claims a host, its workspace and sessions
 * run on that host's queue, and when the host stops polling for {@code move_after} the ant moves
 * to another host, losing nothing.
 */
@Timeout(180)
class HostAffinityTest {
  private static final String QUEUE = "colony";
  /**
   * Short: the test server does not skip time over a schedule-to-start timeout, so it passes in
   * real seconds. (A host dying mid-session is tested on the real server: HostsIT.)
   */
  private static final long MOVE_AFTER = 4;

  /** What one host ran: workspaces prepared and sessions, in order. */
  static final class Host implements SessionActivities, WorkspaceActivities {
    final String name;
    final List<String> workspaces = new CopyOnWriteArrayList<>();
    final List<SessionRequest> sessions = new CopyOnWriteArrayList<>();

    Host(String name) {
      this.name = name;
    }

    @Override
    public SessionResult runSession(SessionRequest request) {
      if (request.workspace() == null) {
        workspaces.add(request.spec().name()); // the lean cycle: the session prepares it on its host
      }
      sessions.add(request);
      return SessionResult.of(Outcome.SUCCESS, "done on " + name);
    }

    @Override
    public String prepareWorkspace(AntSpec spec) {
      workspaces.add(spec.name());
      return "/hosts/" + name + "/" + spec.name();
    }

    @Override
    public String claimHost() {
      throw new AssertionError("a claim runs where the ant's workflow does, not on a host queue");
    }

    @Override
    public boolean hostPolling(String queue) {
      throw new AssertionError("asked on the shared queue, not on a host queue");
    }
  }

  /** The shared queue's claim: hands out hosts in the order given. */
  static final class Claims implements WorkspaceActivities {
    final ConcurrentLinkedDeque<String> next = new ConcurrentLinkedDeque<>();
    final List<String> claimed = new CopyOnWriteArrayList<>();

    @Override
    public String prepareWorkspace(AntSpec spec) {
      throw new AssertionError("a workspace is prepared on the ant's host, not on the shared queue");
    }

    /** Hosts whose worker still polls (busy, not gone). */
    final java.util.Set<String> polling = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The host queues the ant asked about, in order: each ask follows a task that waited move_after. */
    final List<String> asked = new CopyOnWriteArrayList<>();

    @Override
    public boolean hostPolling(String queue) {
      asked.add(queue);
      return polling.contains(queue);
    }

    @Override
    public String claimHost() {
      String h = next.poll();
      claimed.add(h);
      return h;
    }
  }

  private TestWorkflowEnvironment env;
  private WorkerFactory factoryA;
  private WorkerFactory factoryB;
  private final Host a = new Host("a");
  private final Host b = new Host("b");
  private final Claims claims = new Claims();
  private final Fakes.RecordingChat chat = new Fakes.RecordingChat();

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    var shared = env.newWorker(QUEUE);
    shared.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    shared.registerActivitiesImplementations(claims, chat);
    // Each host is a worker factory of its own, so one can die alone.
    factoryA = WorkerFactory.newInstance(env.getWorkflowClient());
    factoryA.newWorker(WorkspaceActivities.hostQueue(QUEUE, "a")).registerActivitiesImplementations(a);
    factoryB = WorkerFactory.newInstance(env.getWorkflowClient());
    factoryB.newWorker(WorkspaceActivities.hostQueue(QUEUE, "b")).registerActivitiesImplementations(b);
    env.start();
    factoryA.start();
    factoryB.start();
  }

  @AfterEach
  void tearDown() {
    factoryA.shutdownNow();
    factoryB.shutdownNow();
    env.close();
  }

  private static AntSpec spec(String name) {
    AntSpec s = Fakes.withPoll(Fakes.spec(name), 60);
    return s.toBuilder().heartbeatTimeoutSeconds(3).workspace(new WorkspaceSpec("/tmp", null, null, MOVE_AFTER))
        .build();
  }

  private static void killHost(WorkerFactory f) {
    f.shutdownNow();
    f.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
  }

  @Test
  void sessionsStayOnTheClaimedHostAndMoveWhenItIsGone() throws Exception {
    claims.next.addAll(List.of("a", "b"));
    AntSpec spec = spec("mover");
    AntWorkflow ant = Fakes.start(env.getWorkflowClient(), QUEUE, spec);
    eventually(() -> a.sessions.size() == 1, "first session on host a");
    env.sleep(Duration.ofSeconds(61 * 3)); // three more poll intervals
    eventually(() -> a.sessions.size() >= 3, "later sessions on host a");
    assertTrue(b.sessions.isEmpty(), "nothing ran on host b while a lived");
    assertEquals(List.of("a"), claims.claimed, "one claim for all those sessions");
    assertEquals("a", ant.status().host());
    assertTrue(a.workspaces.size() >= 3 && b.workspaces.isEmpty());

    killHost(factoryA);
    int before = a.sessions.size();
    int sessionsBefore = ant.status().sessions();
    env.sleep(Duration.ofSeconds(61));
    eventually(() -> !b.sessions.isEmpty(), "the ant moved to host b");
    assertEquals(before, a.sessions.size());
    assertEquals(List.of("a", "b"), claims.claimed);
    eventually(() -> "b".equals(ant.status().host()), "status shows host b");
    assertEquals(sessionsBefore + 1, b.sessions.get(0).session(),
        "the session that found no host is not counted: the next one runs on b");
    assertTrue(chat.texts().stream().anyMatch(t -> t.startsWith("🚚") && t.contains("host a")), chat.texts().toString());
    assertEquals(0, ant.status().consecutiveErrors(), "a move is not an error");
    env.sleep(Duration.ofSeconds(61));
    eventually(() -> b.sessions.size() >= 2, "it stays on b");
    assertEquals(List.of("a", "b"), claims.claimed);

    ant.stop();
    WorkflowStub.fromTyped(ant).getResult(Void.class);
    if (Boolean.getBoolean("colony.recordHistories")) {
      HistoryReplayTest.write("host-affinity.json", env.getWorkflowClient().fetchHistory(spec.workflowId()));
    }
  }

  @Test
  void aBusyHostThatStillPollsIsWaitedForNotLeft() throws Exception {
    claims.next.addAll(List.of("c", "b"));
    claims.polling.add(WorkspaceActivities.hostQueue(QUEUE, "c")); // the server still sees c polling
    AntSpec spec = spec("patient");
    AntWorkflow ant = Fakes.start(env.getWorkflowClient(), QUEUE, spec);
    // A task waits move_after on c's queue; the ant then asks whether c still polls (yes: busy).
    String queueC = WorkspaceActivities.hostQueue(QUEUE, "c");
    eventually(Duration.ofSeconds(MOVE_AFTER * 5), () -> claims.asked.contains(queueC),
        "the ant asked whether host c still polls, after a task waited move_after on its queue");
    Host c = new Host("c");
    WorkerFactory factoryC = WorkerFactory.newInstance(env.getWorkflowClient());
    factoryC.newWorker(WorkspaceActivities.hostQueue(QUEUE, "c")).registerActivitiesImplementations(c);
    factoryC.start();
    try {
      eventually(() -> !c.sessions.isEmpty(), "the session ran on c once it caught up");
      assertEquals(List.of("c"), claims.claimed, "never moved");
      assertTrue(b.sessions.isEmpty());
      assertEquals(1, c.sessions.get(0).session());
      assertTrue(chat.texts().stream().noneMatch(t -> t.startsWith("🚚")), chat.texts().toString());
    } finally {
      killHost(factoryC);
    }
  }
}
