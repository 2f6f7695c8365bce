package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import org.junit.jupiter.api.Timeout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntWorkflowImpl;
import dev.colony.ant.Lifecycle;
import dev.colony.cli.NextReleaseWorker;
import dev.colony.mailbox.Mail;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrading a running colony (docs/operations.md, "Upgrading Colony"): ants run on version 1.0 of the worker
 * deployment, each in the middle of something (a session, a rate-limit wait, a pause, a pending
 * confirmation, sessions back to back with messages arriving); a worker of the next release,
 * whose workflow issues a command today's does not, is deployed as 1.1, and {@code colony upgrade}
 * moves the colony. Every ant must reach 1.1 with no non-determinism, no lost or doubled signal
 * or session, and 1.0 must drain so that its worker can be stopped.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class UpgradeIT {
  private static final Duration LONG = Duration.ofSeconds(90);
  private static final String DEPLOYMENT = "upg";
  private static final List<String> ANTS = List.of("alpha", "beta", "gamma", "delta", "epsilon");

  @TempDir
  Path tmp;

  private Cluster cluster;

  @BeforeEach
  void setUp() throws Exception {
    cluster = new Cluster(tmp).startServer("dev");
  }

  @AfterEach
  void tearDown() throws Exception {
    cluster.close();
  }

  @Test
  void everyAntMovesToTheNextReleaseWithNothingLostOrDoubledAndTheOldVersionDrains() throws Exception {
    Files.writeString(cluster.dir.resolve(".env"), "COLONY_CLAUDE_BIN=" + cluster.dir.resolve("fake-claude.sh") + "\n");
    Cluster.WorkerProcess v1 = cluster.startWorker("v1", cluster.target(), "--build-id", "1.0", "--deployment", DEPLOYMENT);
    String first = cluster.cli("upgrade", "--build-id", "1.0", "--deployment", DEPLOYMENT, "--wait", "0");
    assertTrue(first.contains("upg:1.0 is now the current version"), first);

    cluster.mode("alpha", 2, "block");
    cluster.mode("beta", 2, "ratelimit");
    Files.writeString(cluster.control("beta").resolve("reset-in"), "20");
    cluster.start(ANTS.toArray(String[]::new));
    await(() -> cluster.startsOf("alpha", 2) == 1);
    await(() -> status("beta").state() == Lifecycle.COOLING_DOWN);
    await(() -> status("gamma").sessions() >= 1);
    cluster.ant("gamma").pause();
    await(() -> status("gamma").state() == Lifecycle.PAUSED);
    await(() -> status("epsilon").confirmations().size() == 1);
    await(() -> status("delta").sessions() >= 2);
    for (String ant : ANTS) {
      assertEquals("1.0", buildIdOf("ant/fault/" + ant), ant);
    }
    int gammaSessions = status("gamma").sessions();

    Cluster.WorkerProcess v2 = cluster.startWorkerWith(NextReleaseWorker.class.getName(), "v2", cluster.target(),
        "--build-id", "1.1", "--deployment", DEPLOYMENT);
    cluster.ant("delta").message(new Mail("sent before the upgrade", false, null, "m-before"));
    Cluster.CliRun upgrade = cluster.cliRun("upgrade", "--build-id", "1.1", "--deployment", DEPLOYMENT, "--wait", "0");
    cluster.ant("delta").message(new Mail("sent during the upgrade", false, null, "m-during"));
    cluster.ant("delta").message(new Mail("sent during the upgrade", false, null, "m-during")); // a repeat: dropped
    assertTrue(upgrade.out().contains("upg:1.1 is now the current version (was upg:1.0)"), upgrade.out());
    // Five ants and the supervisor, less any that moved by itself in the meantime (the server tells a
    // run on the next workflow task matching dispatches, a timer's for instance).
    assertTrue(upgrade.out().matches("(?s).*told [1-6] running workflow\\(s\\).*"), upgrade.out());

    // The idle ones move at once: delta between sessions, gamma paused (and still paused), beta
    // in its rate-limit wait (which still ends when it would have).
    await(() -> "1.1".equals(buildIdOf("ant/fault/gamma")) && "1.1".equals(buildIdOf("ant/fault/beta"))
        && "1.1".equals(buildIdOf("ant/fault/delta")) && "1.1".equals(buildIdOf("colony/fault")));
    assertEquals(Lifecycle.PAUSED, status("gamma").state());
    assertEquals(gammaSessions, status("gamma").sessions());
    await(() -> status("beta").sessions() >= 3);
    // The busy ones stay on 1.0 until what they do is over.
    assertEquals("1.0", buildIdOf("ant/fault/alpha"));
    assertEquals("1.0", buildIdOf("ant/fault/epsilon"));
    cluster.release("alpha", 2);
    int pending = status("epsilon").confirmations().get(0).id();
    cluster.cli("approve", "epsilon", Integer.toString(pending), "--by", "erin");
    cluster.ant("gamma").resume();

    Cluster.CliRun drained = cluster.cliRun("upgrade", "--build-id", "1.1", "--deployment", DEPLOYMENT, "--wait", "90");
    assertEquals(0, drained.code(), drained.out());
    assertTrue(drained.out().contains("no workflow is left on an older version"), drained.out());
    for (String ant : ANTS) {
      assertEquals("1.1", buildIdOf("ant/fault/" + ant), ant);
    }
    // The old release's worker has nothing left: it stops, and the colony goes on without it.
    v1.process().destroy();
    assertTrue(v1.process().waitFor(30, TimeUnit.SECONDS), "the 1.0 worker stops on SIGTERM");
    await(() -> status("gamma").sessions() > gammaSessions);
    await(() -> status("alpha").sessions() >= 3 && status("epsilon").sessions() >= 1);
    int delta = status("delta").sessions();
    await(() -> status("delta").sessions() >= delta + 2);

    // Nothing lost or doubled: each session started once, each message reached exactly one prompt.
    assertEquals(1, cluster.startsOf("alpha", 2));
    assertEquals(1, cluster.startsOf("alpha", 3));
    assertEquals(1, promptsContaining("delta", "sent before the upgrade"));
    assertEquals(1, promptsContaining("delta", "sent during the upgrade"));
    for (String ant : ANTS) {
      for (var s : cluster.starts(ant)) {
        assertEquals(1, cluster.startsOf(ant, s.session()), ant + " session " + s.session() + " started twice");
      }
    }
    assertEquals(1, cluster.chat().stream().filter(l -> l.startsWith("[beta] ⏳ **beta** is rate limited")).count(),
        String.join("\n", cluster.chat()));
    assertEquals(1, cluster.chat().stream().filter(l -> l.startsWith("[epsilon] ⚙️ **epsilon** wants to use Bash")).count());
    assertEquals(1, cluster.count("[epsilon] ✅ **epsilon**: request #" + pending + " approved by erin."),
        String.join("\n", cluster.chat()));

    // No run failed a workflow task; 1.0's runs replay on today's code, and the new runs carry the
    // next release's extra timer.
    for (String ant : ANTS) {
      List<WorkflowExecutionHistory> runs = runs("ant/fault/" + ant);
      assertTrue(runs.size() >= 2, ant + ": continued as new onto 1.1");
      boolean sawNext = false;
      for (WorkflowExecutionHistory h : runs) {
        for (HistoryEvent e : h.getEvents()) {
          // UNHANDLED_COMMAND is the server refusing a completion (here: the continue-as-new) because
          // a signal came meanwhile; the task runs again with the signal, which is how none is lost.
          // Any other cause (a non-determinism above all) is a failure.
          assertFalse(e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
                  && e.getWorkflowTaskFailedEventAttributes().getCause()
                      != io.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
              ant + ": a workflow task failed: " + e);
        }
        boolean next = h.getEvents().stream().anyMatch(e -> e.hasTimerStartedEventAttributes()
            && e.getUserMetadata().getSummary().getData().toStringUtf8().contains(NextReleaseWorker.MARK));
        if (next) {
          sawNext = true;
        } else {
          dev.colony.testing.Replay.history(h, AntWorkflowImpl.class);
        }
      }
      assertTrue(sawNext, ant + ": no run of the next release");
    }
    for (Cluster.WorkerProcess w : List.of(v1, v2)) {
      String log = Cluster.read(w.log());
      assertFalse(log.contains("NonDeterministic"), w.name() + ": " + log);
    }
  }

  /**
   * Once the deployment has a current version, the server routes every task of the queue to that
   * version's workers: a plain (unversioned) worker polls but gets nothing, and its ants stayed
   * 'initializing' with no word why. The worker says so when it starts, and status names the reason.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aPlainWorkerOnAQueueWithACurrentVersionSaysItGetsNoTasksAndStatusNamesWhy() throws Exception {
    Cluster.WorkerProcess v1 = cluster.startWorker("v1", cluster.target(), "--build-id", "1.0", "--deployment", DEPLOYMENT);
    cluster.cli("upgrade", "--build-id", "1.0", "--deployment", DEPLOYMENT, "--wait", "0");
    cluster.start("alpha");
    // The current version's worker counts as polling: no warning while it runs.
    // (A worker too busy to answer within 1.5 s, under load, is an honest answer, not this defect.)
    String served = cluster.cli("status", "alpha");
    assertFalse(served.contains("no worker of the current version"), served);
    v1.process().destroy();
    assertTrue(v1.process().waitFor(30, TimeUnit.SECONDS), "the 1.0 worker stops on SIGTERM");

    Cluster.WorkerProcess plain = cluster.startWorker("plain", cluster.target());
    String reason = "task queue '" + cluster.queue() + "' belongs to worker deployment '" + DEPLOYMENT
        + "' whose current version is '" + DEPLOYMENT + ":1.0'";
    String log = Cluster.read(plain.log());
    assertTrue(log.contains(reason + ": this unversioned worker gets no tasks"), log);
    assertTrue(log.contains("--deployment " + DEPLOYMENT + " --build-id"), log);

    cluster.start("beta");
    // The stopped 1.0 worker's last poll counts as alive for WorkerCheck.ALIVE_WITHIN: the reason
    // shows once it is older than that.
    eventually(LONG, () -> {
      try {
        return cluster.cli("status").contains(reason);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }, "{ try { return cluster.cli(\"status\").contains(reason); } catch (Exception e) { throw ne...");
    for (String[] args : List.of(new String[] {"status"}, new String[] {"status", "beta"}, new String[] {"status", "alpha"})) {
      String out = cluster.cli(args);
      assertTrue(out.contains(reason) && out.contains("no worker of that version is polling"),
          String.join(" ", args) + ": " + out);
    }
  }

  /**
   * Without Worker Versioning (colony dev's workers replay every open run on the code they run),
   * {@code colony upgrade --unversioned} moves every running workflow to a new run before a deploy:
   * the idle ones at once (a paused ant still paused), a busy one once its session is over. After
   * it no run begun before is open, which is what lets the next release drop old paths.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 5, unit = TimeUnit.MINUTES)
  void withoutVersioningEveryRunMovesToANewRunBeforeADeploy() throws Exception {
    Files.writeString(cluster.dir.resolve(".env"), "COLONY_CLAUDE_BIN=" + cluster.dir.resolve("fake-claude.sh") + "\n");
    cluster.startWorker("plain", cluster.target());
    cluster.mode("alpha", 2, "block");
    cluster.start("alpha", "gamma");
    await(() -> cluster.startsOf("alpha", 2) == 1);
    await(() -> status("gamma").sessions() >= 1);
    cluster.ant("gamma").pause();
    await(() -> status("gamma").state() == Lifecycle.PAUSED);
    int gammaSessions = status("gamma").sessions();
    String alphaRun = runIdOf("ant/fault/alpha");
    String gammaRun = runIdOf("ant/fault/gamma");
    String colonyRun = runIdOf("colony/fault");

    Cluster.CliRun told = cluster.cliRun("upgrade", "--unversioned", "--wait", "0");
    assertTrue(told.out().matches("(?s).*told [3-9] running workflow\\(s\\).*"), told.out());
    assertEquals(1, told.code(), "alpha's session still runs: " + told.out());
    await(() -> !gammaRun.equals(runIdOf("ant/fault/gamma")) && !colonyRun.equals(runIdOf("colony/fault")));
    assertEquals(Lifecycle.PAUSED, status("gamma").state());
    assertEquals(gammaSessions, status("gamma").sessions());
    assertEquals(alphaRun, runIdOf("ant/fault/alpha"), "a run moves only once its session is over");
    cluster.release("alpha", 2);
    await(() -> !alphaRun.equals(runIdOf("ant/fault/alpha")));
    assertEquals(1, cluster.startsOf("alpha", 2));

    Cluster.CliRun moved = cluster.cliRun("upgrade", "--unversioned", "--wait", "90");
    assertEquals(0, moved.code(), moved.out());
    assertTrue(moved.out().contains("runs in a run begun after this call"), moved.out());
    assertEquals(Lifecycle.PAUSED, status("gamma").state());
  }

  private String runIdOf(String workflowId) {
    return cluster.client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build())
        .getWorkflowExecutionInfo().getExecution().getRunId();
  }

  /** {@code eventually}, failing with every workflow's version and the processes' logs. */
  private void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    try {
      eventually(LONG, condition, "condition");
    } catch (AssertionError e) {
      StringBuilder sb = new StringBuilder("versions:");
      for (String id : List.of("colony/fault", "ant/fault/alpha", "ant/fault/beta", "ant/fault/gamma",
          "ant/fault/delta", "ant/fault/epsilon")) {
        sb.append(' ').append(id).append('=').append(buildIdOf(id));
      }
      throw new AssertionError(e.getMessage() + "\n" + sb + "\n" + cluster.diagnostics(), e);
    }
  }

  private dev.colony.ant.AntStatus status(String ant) {
    return cluster.status(ant);
  }

  private long promptsContaining(String ant, String text) throws Exception {
    long n = 0;
    for (var s : cluster.starts(ant)) {
      if (cluster.prompt(ant, s.session()).contains(text)) {
        n++;
      }
    }
    return n;
  }

  /** The build id of the deployment version the workflow's current run is on ("" when none yet). */
  private String buildIdOf(String workflowId) {
    var info = cluster.client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build()).getWorkflowExecutionInfo();
    return info.getVersioningInfo().getDeploymentVersion().getBuildId();
  }

  /** Every run of a workflow, oldest first. */
  private List<WorkflowExecutionHistory> runs(String workflowId) {
    List<WorkflowExecutionHistory> out = new ArrayList<>();
    cluster.client.listExecutions("WorkflowId = '" + workflowId + "'").forEach(m ->
        out.add(cluster.client.fetchHistory(workflowId, m.getExecution().getRunId())));
    return out;
  }
}
