package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import org.junit.jupiter.api.Timeout;
import java.util.concurrent.TimeUnit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/llm-supervisor on the real dev server, through the CLI and a worker process, with the
 * example's own stand-in model (a separate process speaking the Anthropic Messages API) on
 * loopback, so the worker's real Anthropic SDK makes every evaluation: the spiralling agent gets
 * two whispers in its whisper file, then the supervisor escalates (alert, colony event, pause with
 * reason escalation); `colony abort` lets it go on, and its next session behaves.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OverseerExampleIT {
  private static final Path EXAMPLE = Path.of("../examples/llm-supervisor").toAbsolutePath().normalize();

  @TempDir
  Path tmp;

  private Cluster cluster;
  private Process model;

  @AfterEach
  void tearDown() throws Exception {
    if (model != null) {
      model.destroyForcibly();
    }
    Cluster.closeAll(cluster);
  }

  @Test
  void whisperWhisperEscalateThenAbort() throws Exception {
    int port = Cluster.freePort();
    Path modelLog = tmp.resolve("model.log");
    model = new ProcessBuilder(Cluster.JAVA, EXAMPLE.resolve("FakeModel.java").toString(), Integer.toString(port))
        .redirectErrorStream(true).redirectOutput(modelLog.toFile()).start();
    eventually(Duration.ofSeconds(60), () -> Cluster.read(modelLog).contains("fake model on"), "Cluster.read(modelLog).contains(\"fake model on\")");

    cluster = new Cluster(tmp, EXAMPLE);
    // The key and the endpoint reach the worker through the colony's .env only.
    Files.writeString(cluster.dir.resolve(".env"),
        "ANTHROPIC_API_KEY=sk-ant-it-0123456789abcdef\nANTHROPIC_BASE_URL=http://127.0.0.1:" + port + "\n");
    cluster.startServer("dev");
    Cluster.WorkerProcess worker = cluster.startWorker("w1");
    cluster.cli("start", cluster.dir.toString());
    Path received = cluster.dir.resolve("logs/whispers-received.log");
    try {
      eventually(Duration.ofSeconds(90), () -> status().contains("paused (escalation)"), "status().contains(\"paused (escalation)\")");
      List<String> whispers = Files.readAllLines(received);
      assertEquals(3, whispers.size(), whispers.toString());
      assertTrue(whispers.get(0).startsWith("session 1: [CORRECTION] You have run the same command 3 times"),
          whispers.get(0));
      assertTrue(whispers.get(1).startsWith("session 1: [CORRECTION] Notice 2 of 2"), whispers.get(1));
      assertTrue(whispers.get(2).startsWith("session 1: [ESCALATION] Still retrying the same approach"),
          whispers.get(2));

      String status = cluster.cli("status", "llm-supervisor/looper");
      // The stand-in model reports 1 token in and 1 out per call: 3 calls at Sonnet's list price.
      assertTrue(status.contains("overseer:           claude-sonnet-4-6: 3 evaluations (last SPIRALING), $0.0001 spent, 2 whispers, "
          + "1 escalation; escalated (SPIRALING), awaiting a human"), status);
      String events = cluster.cli("observe", cluster.dir.toString(), "--once");
      assertTrue(events.contains("agent_escalated") && events.contains("SPIRALING"), events);
      String log = Cluster.read(worker.log());
      assertTrue(log.contains("🚨 [ESCALATION] **looper** appears stuck (SPIRALING)"), log);
      assertFalse(log.contains("[looper] [CORRECTION]"), "whispers are never posted");
      assertFalse(log.contains("sk-ant-it-0123456789abcdef"), "the key is never logged");

      assertTrue(cluster.cli("abort", "llm-supervisor/looper").contains("abort sent"));
      eventually(Duration.ofSeconds(60), () -> Cluster.read(worker.log())
          .contains("**looper** finished session 2: fixed the missing class"), "Cluster.read(worker.log()) .contains(\"**looper** finished session 2: fixed the missing ...");
      String after = cluster.cli("status", "llm-supervisor/looper");
      assertTrue(after.contains("paused:             no"), after);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nmodel:\n" + Cluster.read(modelLog) + "\n" + cluster.diagnostics(), e);
    }
    String history = cluster.client.fetchHistory("ant/llm-supervisor/looper").toJson(true);
    assertTrue(history.contains("reportTurns") && history.contains("EvaluateTurns"), "the supervisor is in the history");
    assertFalse(history.contains("sk-ant-it"), "the key never enters Temporal");
  }

  private String status() {
    try {
      return cluster.cli("status", "llm-supervisor/looper");
    } catch (Exception e) {
      return e.toString();
    }
  }
}
