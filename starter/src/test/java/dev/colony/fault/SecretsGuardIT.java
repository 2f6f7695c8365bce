package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The secrets guard: ants that use a secret in every field kind that may hold one (free text,
 * model, argv, env, outcome pattern, confirmation rules, repository URL and branch, git
 * identity, the colony's GitHub token) run on the real dev server with a worker process and an agent that prints all it
 * knows. Then every history event (payloads included), the workflow descriptions (memo, search
 * attributes, pending activities), every line the worker printed (logs and console chat) and the
 * CLI's output are searched for every secret value: none may appear.
 */
@Timeout(600)
class SecretsGuardIT {
  private static final Path FIXTURE = Path.of("src/test/resources/secrets-colony").toAbsolutePath();
  private static final List<String> VARIABLES = List.of("S_DESC", "S_INSTR", "S_MODEL", "S_ARGV", "S_DB_PASS",
      "S_PATTERN", "S_TOOL", "S_DANGER", "S_TOKEN", "S_BRANCH", "S_GIT_NAME", "S_GIT_MAIL", "S_GH_TOKEN");

  @TempDir
  Path tmp;

  private Cluster cluster;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void noSecretValueReachesHistoryPostsLogsOrStatus() throws Exception {
    cluster = new Cluster(tmp, FIXTURE).startServer("dev");
    Map<String, String> secrets = new LinkedHashMap<>();
    StringBuilder dotenv = new StringBuilder();
    String run = UUID.randomUUID().toString().substring(0, 8);
    for (String v : VARIABLES) {
      String value = "sv-" + v.substring(2).toLowerCase(java.util.Locale.ROOT).replace('_', '-') + "-" + run;
      secrets.put(v, value);
      dotenv.append(v).append('=').append(value).append('\n');
    }
    Files.writeString(cluster.dir.resolve(".env"), dotenv);

    List<String> texts = new ArrayList<>();
    Cluster.WorkerProcess worker = cluster.startWorker("w1");
    texts.add(cluster.cli("start", cluster.dir.toString()));
    try {
      eventually(Duration.ofSeconds(90), () -> cluster.status("leaky").sessions() >= 2, "cluster.status(\"leaky\").sessions() >= 2");
      eventually(Duration.ofSeconds(60), () -> Cluster.read(worker.log()).contains("workspace setup failed"), "Cluster.read(worker.log()).contains(\"workspace setup failed\")");
      // status answered by the worker (a query) and from the visibility store
      texts.add(cluster.cli("status"));
      texts.add(cluster.cli("status", "--json"));
      texts.add(cluster.cli("status", "fault/leaky"));
      texts.add(cluster.cli("status", "fault/cloner", "--json"));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
    }

    StringBuilder history = new StringBuilder();
    for (String ant : List.of("leaky", "cloner")) {
      String id = "ant/fault/" + ant;
      for (HistoryEvent event : cluster.client.fetchHistory(id).getEvents()) {
        // The text form shows every field, payload bytes decoded as text.
        history.append(event).append('\n');
      }
      history.append(cluster.client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
          DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
              .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id)).build()));
    }
    String log = Cluster.read(worker.log());

    Map<String, List<String>> leaks = new LinkedHashMap<>();
    scan(leaks, "history", history.toString(), secrets);
    scan(leaks, "worker output", log, secrets);
    for (int i = 0; i < texts.size(); i++) {
      scan(leaks, "cli output " + i, texts.get(i), secrets);
    }
    assertEquals(Map.of(), leaks, "secret values found");

    // The guard can fail: the agent did print the secrets, and they arrived masked.
    assertTrue(history.toString().contains("secrets: ${S_ARGV} ${S_DB_PASS} ${S_TOKEN}"), history::toString);
    // The URL's credentials never reach a message: the worker's own failure says the URL without them.
    assertTrue(log.contains("workspace setup failed") && log.contains("git fetch of http://127.0.0.1:9/org/repo.git"), log);
    assertTrue(log.contains("[leaky]"), "console chat is in the worker's output: " + log);
  }

  private static void scan(Map<String, List<String>> leaks, String where, String text, Map<String, String> secrets) {
    for (Map.Entry<String, String> s : secrets.entrySet()) {
      int at = text.indexOf(s.getValue());
      if (at >= 0) {
        String around = text.substring(Math.max(0, at - 120), Math.min(text.length(), at + 60));
        leaks.computeIfAbsent(where, k -> new ArrayList<>()).add(s.getKey() + " near: " + around);
      }
    }
  }
}
