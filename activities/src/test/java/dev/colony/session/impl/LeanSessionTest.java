package dev.colony.session.impl;

import static dev.colony.testing.Eventually.DEFAULT;
import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.ant.Lifecycle;
import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChatActivitiesImpl;
import dev.colony.config.ColonyLoader;
import dev.colony.config.LoadedColony;
import dev.colony.engine.Engine;
import dev.colony.engine.command.CommandEngine;
import dev.colony.spec.AntSpec;
import dev.colony.spec.EngineKind;
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lean session cycle with the real session activity and the command engine: the session
 * prepares the ant's workspace itself (where the worker keeps worktrees), a workspace that cannot
 * be prepared is a failed session the supervisor backs off from, and the agent is announced only
 * when it runs long enough for anyone to see it running.
 */
@org.junit.jupiter.api.Timeout(120)
class LeanSessionTest {
  @TempDir
  Path dir;

  private TestWorkflowEnvironment env;
  private final List<String> posts = new CopyOnWriteArrayList<>();
  private final List<String> prepared = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
    SessionActivitiesImpl.workspaceRetryMillis = 2000;
  }

  private AntWorkflow start(String argv, SessionActivitiesImpl.Workspaces workspaces) throws Exception {
    return start(argv, workspaces, "");
  }

  private AntWorkflow start(String argv, SessionActivitiesImpl.Workspaces workspaces, String defaults)
      throws Exception {
    Files.writeString(dir.resolve("colony.yaml"), "name: lean\ndefaults:\n  poll_interval: 1h\n" + defaults);
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/worker.yaml"), "name: worker\ndescription: works\ninstructions: work\n"
        + "engine: command\ncommand:\n  argv: " + argv + "\n");
    LoadedColony colony = ColonyLoader.load(dir);
    AntSpec spec = colony.ant("worker").orElseThrow();
    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    SessionActivitiesImpl sessions = new SessionActivitiesImpl(Map.<EngineKind, Engine>of(EngineKind.COMMAND,
        new CommandEngine()), (ChatPost p) -> posts.add(p.text()), new PrintStream(PrintStream.nullOutputStream()))
        .withWorkspaces(workspaces);
    worker.registerActivitiesImplementations(sessions, new WorkspaceActivitiesImpl(),
        new ChatActivitiesImpl((ChatPost p) -> posts.add(p.text())));
    env.start();
    AntWorkflow stub = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(stub::run, new AntRun(spec, null));
    return stub;
  }

  private SessionActivitiesImpl.Workspaces into(Path root) {
    return spec -> {
      prepared.add(spec.name());
      return Files.createDirectories(root.resolve(spec.name()));
    };
  }

  private List<HistoryEvent> history() {
    return env.getWorkflowClient().fetchHistory("ant/lean/worker").getEvents();
  }

  private long count(EventType type) {
    return history().stream().filter(e -> e.getEventType() == type).count();
  }

  @Test
  void theSessionPreparesItsWorkspaceOnTheHostAndTheAgentRunsThere() throws Exception {
    Path root = dir.resolve("host-disk");
    AntWorkflow ant = start("[\"sh\", \"-c\", \"pwd > where.txt\"]", into(root));
    eventually(DEFAULT, () -> ant.status().sessions() == 1, () -> "ant.status().sessions() == 1" + "; posts: " + posts);
    assertEquals(List.of("worker"), prepared);
    assertEquals(root.resolve("worker").toRealPath().toString(),
        Files.readString(root.resolve("worker/where.txt")).strip());
    assertEquals(List.of("ClaimHost", "RunSession"), history().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName()).toList(),
        "one activity task for the session (after the host claim): no workspace activity of its own");
    eventually(DEFAULT, () -> posts.stream().anyMatch(p -> p.startsWith("✅ **worker** finished session 1")), () -> "posts.stream().anyMatch(p -> p.startsWith(\"✅ **worker** finished session 1\"))" + "; posts: " + posts);
    assertEquals(0, count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
        "an agent that ends within a second is never announced: no signal, no workflow task");
  }

  @Test
  void anAgentThatRunsLongerIsAnnouncedAsRunning() throws Exception {
    AntWorkflow ant = start("[\"sh\", \"-c\", \"sleep 3\"]", into(dir.resolve("disk")));
    eventually(DEFAULT, () -> ant.status().state() == Lifecycle.RUNNING, () -> "ant.status().state() == Lifecycle.RUNNING" + "; posts: " + posts);
    eventually(DEFAULT, () -> ant.status().sessions() == 1, () -> "ant.status().sessions() == 1" + "; posts: " + posts);
    assertEquals(1, history().stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
        && e.getWorkflowExecutionSignaledEventAttributes().getSignalName().equals("sessionStarted")).count());
  }

  @Test
  void aWorkspaceThatCannotBePreparedIsAFailedSessionWithItsReason() throws Exception {
    SessionActivitiesImpl.workspaceRetryMillis = 10;
    AntWorkflow ant = start("[\"true\"]", spec -> {
      prepared.add(spec.name());
      throw new IOException("disk full");
    });
    eventually(DEFAULT, () -> ant.status().state() == Lifecycle.COOLING_DOWN, () -> "ant.status().state() == Lifecycle.COOLING_DOWN" + "; posts: " + posts);
    assertEquals(3, prepared.size(), "tried three times within the session");
    assertEquals(1, ant.status().consecutiveErrors());
    assertTrue(ant.status().lastDetail().contains("workspace setup failed: disk full"), ant.status().lastDetail());
    assertFalse(posts.isEmpty());
  }

  @Test
  void theWorkspaceRetriesWaitWithinTheHeartbeatTimeoutSoTemporalNeverRetriesALiveSession() throws Exception {
    // The waits between workspace attempts (2 s, then 4 s) are longer than a 1 s heartbeat timeout:
    // a silent wait made Temporal count the live session as dead and start it again elsewhere.
    AntWorkflow ant = start("[\"true\"]", spec -> {
      prepared.add(spec.name());
      throw new IOException("disk full");
    }, "  heartbeat_timeout: 1s\n");
    eventually(DEFAULT, () -> ant.status().state() == Lifecycle.COOLING_DOWN, () -> "ant.status().state() == Lifecycle.COOLING_DOWN" + "; posts: " + posts);
    assertEquals(3, prepared.size(), "three attempts in one session: " + prepared);
    List<Integer> attempts = history().stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
        .map(e -> e.getActivityTaskStartedEventAttributes().getAttempt()).toList();
    assertEquals(List.of(1, 1), attempts, "the host claim and the session, each in one attempt");
    assertEquals(0, count(EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT));
    assertTrue(ant.status().lastDetail().contains("workspace setup failed: disk full"), ant.status().lastDetail());
  }

  @Test
  void aSetupSlowerThanTheHeartbeatTimeoutStillRunsTheSessionOnce() throws Exception {
    // A loaded host: the workspace (and the walls, git before the session) take longer than the
    // heartbeat timeout. Silent, the session was counted dead and started again while it ran.
    Path root = dir.resolve("slow-disk");
    AntWorkflow ant = start("[\"sh\", \"-c\", \"echo ran >> runs.txt\"]", spec -> {
      prepared.add(spec.name());
      Thread.sleep(3500); // a slow disk, not a wait for a condition
      return Files.createDirectories(root.resolve(spec.name()));
    }, "  heartbeat_timeout: 1s\n");
    eventually(DEFAULT, () -> ant.status().sessions() == 1, () -> "one session; posts: " + posts);
    assertEquals(List.of("worker"), prepared, "prepared once");
    assertEquals("ran\n", Files.readString(root.resolve("worker/runs.txt")), "the agent ran once");
    assertEquals(0, count(EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT));
  }
}
