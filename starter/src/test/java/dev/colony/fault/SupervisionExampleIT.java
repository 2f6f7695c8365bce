package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/supervision on the real dev server, through the CLI: the builder fails three times;
 * the supervisor restarts it and the reviewer after it (rest_for_one) twice, then the breaker
 * trips; `colony observe` streams all of it; `colony resume --all` resets the group and the
 * builder works.
 */
@Timeout(600)
class SupervisionExampleIT {
  private static final Path EXAMPLE = Path.of("../examples/supervision").toAbsolutePath().normalize();

  @TempDir
  Path tmp;

  private Cluster cluster;
  private Process observer;

  @AfterEach
  void tearDown() throws Exception {
    if (observer != null) {
      observer.destroyForcibly();
    }
    Cluster.closeAll(cluster);
  }

  @Test
  void theBreakerTripsObserveStreamsItAndResumeAllResetsTheGroup() throws Exception {
    cluster = new Cluster(tmp, EXAMPLE).startServer("dev");
    Cluster.WorkerProcess worker = cluster.startWorker("w1");
    String started = cluster.cli("start", cluster.dir.toString());
    assertTrue(started.contains("supervisor colony/supervision: pipeline (rest_for_one, 3 ants, 2 restarts in 600s)"),
        started);
    Path observed = tmp.resolve("observe.log");
    observer = new ProcessBuilder(Cluster.jvm("observe", cluster.dir.toString(), "--address", cluster.address))
        .redirectErrorStream(true).redirectOutput(observed.toFile()).start();
    try {
      // agent_failed is the last event of the trip: wait for it, not for the one before it.
      eventually(Duration.ofSeconds(90), () -> Cluster.read(observed).contains("agent_failed"), "Cluster.read(observed).contains(\"agent_failed\")");
      List<String> types = Cluster.read(observed).lines().map(l -> l.split("\\s+")[1]).toList();
      assertEquals(List.of("agent_parked", "agent_restarted", "agent_restarted", "agent_parked", "agent_restarted",
          "agent_restarted", "agent_parked", "restart_limit_exceeded", "agent_failed"), types, Cluster.read(observed));
      assertTrue(Cluster.read(observed).contains("♻️ supervisor: agent restarted **reviewer** (rest_for_one, group "
          + "pipeline): builder failed (rest_for_one)"), Cluster.read(observed));
      String once = cluster.cli("observe", cluster.dir.toString(), "--once");
      assertEquals(9, once.lines().count(), once);
      assertTrue(cluster.cli("status", "supervision/builder").contains("state:              parked (errors)"));

      String resumed = cluster.cli("resume", "--all", cluster.dir.toString());
      assertTrue(resumed.contains("colony/supervision: failed groups reset (pipeline), their ants restarted"), resumed);
      assertTrue(resumed.contains("resume sent to 0 running ants"), resumed);
      eventually(Duration.ofSeconds(60), () -> Cluster.read(worker.log())
          .contains("[builder] ✅ **builder** finished session 4: builder did its part"), "Cluster.read(worker.log()) .contains(\"[builder] ✅ **builder** finished session 4: build...");
      eventually(Duration.ofSeconds(30), () -> Cluster.read(observed).contains("group_reset"), "Cluster.read(observed).contains(\"group_reset\")");
      throughout(Duration.ofSeconds(3),
          () -> !Cluster.read(worker.log()).contains("**builder** finished session 5"),
          () -> "one session after the reset, not two: " + Cluster.read(worker.log()));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nobserve:\n" + Cluster.read(observed) + "\n" + cluster.diagnostics(), e);
    }
    assertTrue(Cluster.read(tmp.resolve("observe.log")).lines().noneMatch(l -> l.contains("Exception")));
    Cluster.CliRun missing = cluster.cliRun("observe", tmp.resolve("nowhere").toString(), "--once");
    assertTrue(missing.code() != 0 && !missing.out().contains("\tat "), missing.out());
    observer.destroy();
    assertTrue(observer.waitFor(10, TimeUnit.SECONDS));
  }
}
