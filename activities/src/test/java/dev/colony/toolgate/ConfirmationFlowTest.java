package dev.colony.toolgate;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.autonomy.Decide;
import dev.colony.chat.ChatActivities;
import dev.colony.chat.ChatPost;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.workspace.WorkspaceActivities;
import io.temporal.activity.Activity;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Human confirmation through the ant's own workflow, with the real gate and confirmer. */
@Timeout(180)
class ConfirmationFlowTest {
  private static final Map<String, Object> PUSH = Map.of("command", "git push origin main");

  private TestWorkflowEnvironment env;
  private final List<String> posts = Collections.synchronizedList(new ArrayList<>());
  private final List<ToolGate.Verdict> verdicts = new CopyOnWriteArrayList<>();
  /** Attempts of session 1 that should crash after asking (to simulate a worker dying). */
  private volatile int crashAttemptsUpTo;

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
  }

  private static AntSpec spec(Autonomy autonomy) {
    return spec(autonomy, 1800);
  }

  /** The fake sessions do not heartbeat: a long heartbeat timeout keeps Temporal from retrying them. */
  private static AntSpec spec(Autonomy autonomy, long confirmationTimeoutSeconds) {
    return AntSpec.builder().colony("c").name("pusher").description("d").instructions("i")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS)
        .discordChannel("ops").autonomy(autonomy).confirmation(ConfirmationSpec.NONE)
        .toolCalls(ToolCallLogging.IMPACTFUL).lmOutput(LmOutput.DISCORD).recovery(RecoveryPolicy.RESUME)
        .pollIntervalSeconds(3600).confirmationTimeoutSeconds(confirmationTimeoutSeconds)
        .sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(3600).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec("/tmp", null, null)).colonyDir("/tmp").sourceFile("ants/pusher.yaml").build();
  }

  private AntWorkflow start(AntSpec spec) {
    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    SessionActivities sessions = request -> {
      var ctx = Activity.getExecutionContext();
      ToolGate gate = new ToolGate(request.spec(), request.session(), new WorkflowConfirmer(ctx));
      if (!gate.intercepts()) {
        verdicts.add(new ToolGate.Verdict(true, "not intercepted"));
        return SessionResult.of(Outcome.SUCCESS, "ran without interception");
      }
      ToolGate.Verdict v = gate.check("Bash", PUSH);
      if (request.session() == 1 && ctx.getInfo().getAttempt() <= crashAttemptsUpTo) {
        throw new IllegalStateException("worker died");
      }
      verdicts.add(v);
      return SessionResult.of(Outcome.SUCCESS, v.allowed() ? "pushed" : "did not push");
    };
    ChatActivities chat = (ChatPost p) -> posts.add(p.text());
    WorkspaceActivities ws = WorkspaceActivities.anywhere(s -> "/tmp");
    worker.registerActivitiesImplementations(sessions, chat, ws);
    env.start();
    AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(ant::run, new AntRun(spec, null));
    return ant;
  }

  private long postsStartingWith(String prefix) {
    synchronized (posts) {
      return posts.stream().filter(p -> p.startsWith(prefix)).count();
    }
  }

  @Test
  void aHumanApprovesAndTheDecisionIsInTheHistory() throws Exception {
    AntWorkflow ant = start(spec(Autonomy.HUMAN));
    eventually(() -> ant.status().confirmations().size() == 1, "ant.status().confirmations().size() == 1");
    var pending = ant.status().confirmations().get(0);
    assertEquals(1, pending.id());
    assertEquals("Bash", pending.tool());
    assertEquals("`git push origin main`", pending.summary());
    eventually(() -> postsStartingWith("⚙️ **pusher** wants to use Bash (pushes to a git remote (git push)), request #1") == 1, "postsStartingWith(\"⚙️ **pusher** wants to use Bash (pushes to a git remote (git push)),...");
    ant.decide(new Decide(1, true, "alice", null));
    eventually(() -> verdicts.size() == 1, "verdicts.size() == 1");
    assertTrue(verdicts.get(0).allowed());
    eventually(() -> posts.contains("✅ **pusher**: request #1 approved by alice."), "posts.contains(\"✅ **pusher**: request #1 approved by alice.\")");
    assertTrue(ant.status().confirmations().isEmpty());
    List<HistoryEvent> events = env.getWorkflowClient().fetchHistory(spec(Autonomy.HUMAN).workflowId()).getEvents();
    assertTrue(events.stream().anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
        && e.getWorkflowExecutionSignaledEventAttributes().getSignalName().equals("decide")
        && e.getWorkflowExecutionSignaledEventAttributes().getInput().toString().contains("alice")));
    assertTrue(events.stream().anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED));
  }

  @Test
  void aHumanDenies() throws Exception {
    AntWorkflow ant = start(spec(Autonomy.HUMAN));
    eventually(() -> ant.status().confirmations().size() == 1, "ant.status().confirmations().size() == 1");
    ant.decide(new Decide(null, false, "bob", "not on a Friday"));
    eventually(() -> verdicts.size() == 1, "verdicts.size() == 1");
    assertFalse(verdicts.get(0).allowed());
    assertTrue(verdicts.get(0).message().contains("not approved: denied by bob (not on a Friday)"), verdicts.get(0).message());
    eventually(() -> posts.contains("❌ **pusher**: request #1 denied by bob."), "posts.contains(\"❌ **pusher**: request #1 denied by bob.\")");
  }

  @Test
  void nobodyAnsweringDeniesAtTheConfirmationTimeout() throws Exception {
    // The test server does not skip time while an activity runs, so this one waits 2 real seconds.
    AntWorkflow ant = start(spec(Autonomy.HUMAN, 2));
    eventually(() -> ant.status().confirmations().size() == 1, "ant.status().confirmations().size() == 1");
    long asked = env.currentTimeMillis();
    eventually(() -> verdicts.size() == 1, "verdicts.size() == 1");
    assertFalse(verdicts.get(0).allowed());
    assertTrue(verdicts.get(0).message().contains("nobody approved it in time"), verdicts.get(0).message());
    eventually(() -> posts.contains("⌛ **pusher**: nobody answered request #1 in time; denied."), "posts.contains(\"⌛ **pusher**: nobody answered request #1 in time; denied.\")");
    assertTrue(env.currentTimeMillis() - asked >= 1500, "denied before the timeout");
  }

  @Test
  void strictDeniesWithoutAskingAnyone() throws Exception {
    start(spec(Autonomy.STRICT));
    eventually(() -> verdicts.size() == 1, "verdicts.size() == 1");
    assertFalse(verdicts.get(0).allowed());
    assertTrue(verdicts.get(0).message().contains("autonomy: strict"), verdicts.get(0).message());
    assertEquals(0, postsStartingWith("⚙️"));
  }

  @Test
  void fullRegistersNoInterception() throws Exception {
    start(spec(Autonomy.FULL));
    eventually(() -> verdicts.size() == 1, "verdicts.size() == 1");
    assertEquals("not intercepted", verdicts.get(0).message());
    assertEquals(0, postsStartingWith("⚙️"));
  }

  @Test
  void aCrashedAttemptsRetryFindsTheSameRequestAndTheDecisionMadeMeanwhile() throws Exception {
    crashAttemptsUpTo = 1;
    AntWorkflow ant = start(spec(Autonomy.HUMAN));
    eventually(() -> ant.status().confirmations().size() == 1, "ant.status().confirmations().size() == 1");
    // the human answers while the first attempt is gone
    ant.decide(new Decide(1, true, "carol", null));
    eventually(() -> verdicts.size() == 1, "verdicts.size() == 1");
    assertTrue(verdicts.get(0).allowed(), "the retried attempt got the decision made for the first one");
    assertEquals(1, postsStartingWith("⚙️"), "asked once, not once per attempt");
  }
}
