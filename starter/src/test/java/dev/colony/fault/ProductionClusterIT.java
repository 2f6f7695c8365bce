package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.ant.Lifecycle;
import dev.colony.mailbox.Mail;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Colony on a production-shaped Temporal: the full server built from its Go module, PostgreSQL
 * for persistence and SQL visibility, frontend / history / matching / worker as separate
 * processes with 8 shards, mTLS on the frontend and a second frontend that takes API keys, all
 * brought up by {@code bin/cluster.sh} exactly as a user would. Services are killed with SIGKILL
 * mid-session and while ants wait; every ant must go on with nothing lost or doubled.
 */
@Timeout(600)
class ProductionClusterIT {
  private static final Duration LONG = Duration.ofSeconds(90);
  private static final ClusterScript SCRIPT = new ClusterScript(Path.of("target/prod-cluster"), 7633);
  private static final Path STATE = SCRIPT.state();
  private static Map<String, String> mtls;
  private static String address;

  @TempDir
  Path tmp;

  private Cluster cluster;
  private String queue;

  @BeforeAll
  static void up() throws Exception {
    SCRIPT.up();
    mtls = SCRIPT.env();
    address = mtls.get("TEMPORAL_ADDRESS");
  }

  @AfterAll
  static void down() throws Exception {
    script(Duration.ofMinutes(1), "down");
  }

  @BeforeEach
  void setUp(TestInfo info) throws Exception {
    String test = info.getTestMethod().orElseThrow().getName();
    // Each test its own colony and task queue: the cluster outlives the test.
    String name = "prod" + Integer.toHexString(test.hashCode() & 0xfffff);
    queue = "colony-" + name;
    cluster = new Cluster(tmp).external(address, mtls, ClusterScript.stubsOptions(mtls), queue, name);
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      for (String ant : List.of("alpha", "beta", "gamma", "delta")) {
        List<WorkflowExecutionHistory> histories;
        try {
          histories = cluster.histories(ant);
        } catch (RuntimeException notStarted) {
          continue;
        }
        for (WorkflowExecutionHistory h : histories) {
          dev.colony.testing.Replay.history(h, AntWorkflowImpl.class);
        }
        try {
          cluster.client.newUntypedWorkflowStub("ant/" + cluster.colonyName + "/" + ant).terminate("test over");
        } catch (RuntimeException alreadyClosed) {
          // stopped by the test
        }
      }
    } finally {
      cluster.close();
      // a service a test killed must not stay down for the next one
      for (String svc : List.of("history", "matching")) {
        script(Duration.ofSeconds(10), "start", svc);
      }
    }
  }

  private static ClusterScript.Run script(Duration limit, String... args) throws Exception {
    return SCRIPT.run(limit, args);
  }

  private AntStatus status(String ant) {
    return cluster.status(ant);
  }

  private long startsOf(String ant, int session) {
    return cluster.startsOf(ant, session);
  }

  /** Posts carrying a session number are unique by construction: none may repeat. */
  private void assertNoNumberedPostRepeats() {
    Map<String, Integer> seen = new HashMap<>();
    for (String l : cluster.chat()) {
      if (l.matches(".*(session \\d+|resets at \\d+).*") || l.contains("🐜")) {
        seen.merge(l, 1, Integer::sum);
      }
    }
    seen.forEach((l, n) -> assertEquals(1, n, "shown " + n + " times: " + l + "\n" + String.join("\n", cluster.chat())));
  }

  @Test
  void aColonyRunsOverMtlsAndIsDrivenAndListedFromSqlVisibilityWithoutAWorker() throws Exception {
    Cluster.WorkerProcess worker = cluster.startWorker("only");
    cluster.start("alpha", "delta");
    eventually(LONG, () -> status("delta").sessions() >= 2 && status("alpha").sessions() >= 2, "status(\"delta\").sessions() >= 2 && status(\"alpha\").sessions() >= 2");

    cluster.cli("pause", "alpha");
    eventually(LONG, () -> status("alpha").state() == Lifecycle.PAUSED, "status(\"alpha\").state() == Lifecycle.PAUSED");
    int paused = status("alpha").sessions();
    cluster.cli("send", "alpha", "over mTLS");
    // a message resumes a paused ant: it runs the next session with it
    eventually(LONG, () -> status("alpha").sessions() > paused, "status(\"alpha\").sessions() > paused");
    eventually(LONG, () -> {
      try {
        return cluster.prompt("alpha", paused + 1).contains("over mTLS");
      } catch (IOException e) {
        return false;
      }
    }, "{ try { return cluster.prompt(\"alpha\", paused + 1).contains(\"over mTLS\"); } catch (IOEx...");

    Cluster.kill9(worker);
    // Search attributes live in PostgreSQL: status lists every ant with no worker running.
    eventually(LONG, () -> {
      try {
        Cluster.CliRun r = cluster.cliRun("status", "--json");
        return r.out().contains("\"" + cluster.colonyName + "/alpha\"") || r.out().contains("\"alpha\"");
      } catch (Exception e) {
        return false;
      }
    }, "{ try { Cluster.CliRun r = cluster.cliRun(\"status\", \"--json\"); return r.out().contains(...");
    String json = cluster.cliRun("status", "--json").out();
    assertTrue(json.contains("alpha") && json.contains("delta"), json);
    assertFalse(json.contains("Exception"), json);
    assertNoNumberedPostRepeats();
  }

  /**
   * A namespace made just now has none of Colony's search attributes. {@code colony start} adds
   * them, and the cluster's frontends map them only at their next namespace refresh (up to 10 s):
   * the start must wait for that instead of failing ("has no mapping defined for search attribute").
   */
  @Test
  void aNewNamespaceGetsColonysSearchAttributesAndItsAntsStartAtOnce() throws Exception {
    String ns = "fresh-" + Long.toHexString(System.nanoTime() & 0xffffffL);
    cluster.stubs.blockingStub().registerNamespace(io.temporal.api.workflowservice.v1.RegisterNamespaceRequest
        .newBuilder().setNamespace(ns)
        .setWorkflowExecutionRetentionPeriod(com.google.protobuf.util.Durations.fromHours(24)).build());
    // The namespace itself is also known to the frontend only after a refresh.
    eventually(LONG, () -> {
      try {
        cluster.stubs.blockingStub().countWorkflowExecutions(io.temporal.api.workflowservice.v1
            .CountWorkflowExecutionsRequest.newBuilder().setNamespace(ns).build());
        return true;
      } catch (io.grpc.StatusRuntimeException notYet) {
        return false;
      }
    }, "{ try { cluster.stubs.blockingStub().countWorkflowExecutions(io.temporal.api.workflowse...");
    Cluster.CliRun start = cluster.cliRun("start", cluster.dir.toString(), "alpha", "delta", "--namespace", ns);
    assertEquals(0, start.code(), start.out());
    assertTrue(start.out().contains("started alpha") && start.out().contains("started delta"), start.out());
    // Both listed from visibility, by the attributes the start set.
    eventually(LONG, () -> cluster.stubs.blockingStub().countWorkflowExecutions(io.temporal.api.workflowservice.v1
        .CountWorkflowExecutionsRequest.newBuilder().setNamespace(ns)
        .setQuery("ColonyName = '" + cluster.colonyName + "' AND AntState = 'initializing'").build()).getCount() == 2, "cluster.stubs.blockingStub().countWorkflowExecutions(io.temporal.api.workflowservice.v1...");
    for (String id : List.of("ant/" + cluster.colonyName + "/alpha", "ant/" + cluster.colonyName + "/delta",
        "colony/" + cluster.colonyName)) {
      cluster.stubs.blockingStub().terminateWorkflowExecution(io.temporal.api.workflowservice.v1
          .TerminateWorkflowExecutionRequest.newBuilder().setNamespace(ns).setReason("test over")
          .setWorkflowExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder().setWorkflowId(id)).build());
    }
  }

  @Test
  void clientsWithoutTheRightCredentialsAreRefusedWithOneLine() throws Exception {
    Path certs = STATE.resolve("certs");
    String ca = certs.resolve("ca.pem").toString();
    String key = script(Duration.ofSeconds(10), "token").out().strip();
    String otherKey = script(Duration.ofSeconds(10), "token", "elsewhere:admin").out().strip();
    Path expired = expiredClientCertificate(certs);
    Path stranger = strangerCertificate();
    String apiKeyAddress = "localhost:" + SCRIPT.port(4);

    Map<String, List<String>> cases = new LinkedHashMap<>();
    cases.put("requires a client certificate (mTLS) and this client has none",
        List.of("--address", address, "--tls-ca-path", ca));
    cases.put("closed the connection before answering: it probably requires TLS", List.of("--address", address));
    // The internal frontend (the system worker's way in) is plaintext gRPC: a TLS client there.
    cases.put("does not speak TLS", List.of("--address", "localhost:" + SCRIPT.port(3), "--tls-ca-path", ca));
    cases.put("not signed by a CA this client trusts", List.of("--address", address,
        "--tls-cert-path", certs.resolve("client.pem").toString(), "--tls-key-path", certs.resolve("client.key").toString()));
    cases.put("refused the client certificate", List.of("--address", address, "--tls-ca-path", ca,
        "--tls-cert-path", expired.resolve("client.pem").toString(), "--tls-key-path", expired.resolve("client.key").toString()));
    cases.put("refused the client certificate ", List.of("--address", address, "--tls-ca-path", ca,
        "--tls-cert-path", stranger.resolve("client.pem").toString(), "--tls-key-path", stranger.resolve("client.key").toString()));
    cases.put("refused the API key", List.of("--address", apiKeyAddress, "--tls-ca-path", ca, "--api-key", otherKey));
    cases.put("requires credentials", List.of("--address", apiKeyAddress, "--tls-ca-path", ca));
    // The server's side: a certificate for another name, and an expired one.
    cases.put("the server's certificate is not issued for 'elsewhere.example'", List.of("--address", address,
        "--tls-ca-path", ca, "--tls-cert-path", certs.resolve("client.pem").toString(),
        "--tls-key-path", certs.resolve("client.key").toString(), "--tls-server-name", "elsewhere.example"));
    Path lapsed = expiredServerCertificate(certs);
    io.grpc.Server expiredServer = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .sslContext(GrpcSslContexts.forServer(lapsed.resolve("server.pem").toFile(), lapsed.resolve("server.key").toFile())
            .build())
        .build().start();
    cases.put("presented an expired certificate", List.of("--address", "localhost:" + expiredServer.getPort(),
        "--tls-ca-path", ca));
    try {
      assertRefusedWithOneLine(cases, key, otherKey);
    } finally {
      expiredServer.shutdownNow();
    }
    // The right key works, and is never printed, not even with --verbose.
    Cluster.CliRun ok = bareEnv(List.of("status", "--address", apiKeyAddress, "--tls-ca-path", ca, "-v"),
        Map.of("TEMPORAL_API_KEY", key));
    assertEquals(0, ok.code(), ok.out());
    assertFalse(ok.out().contains(key), ok.out());
  }

  private void assertRefusedWithOneLine(Map<String, List<String>> cases, String key, String otherKey) throws Exception {
    for (Map.Entry<String, List<String>> c : cases.entrySet()) {
      List<String> args = new java.util.ArrayList<>(List.of("status"));
      args.addAll(c.getValue());
      Cluster.CliRun r = bare(args);
      assertEquals(1, r.code(), c.getKey() + ": " + r.out());
      List<String> lines = r.out().lines().toList();
      assertEquals(1, lines.size(), c.getKey() + ": one line: " + r.out());
      assertTrue(lines.get(0).contains(c.getKey().strip()), c.getKey() + ": " + r.out());
      assertFalse(r.out().contains(otherKey) || r.out().contains(key), "a key leaked: " + r.out());
    }
  }

  /** The CLI with only the given arguments: no cluster environment, no task queue. */
  private Cluster.CliRun bare(List<String> args) throws Exception {
    return bareEnv(args, Map.of());
  }

  private Cluster.CliRun bareEnv(List<String> args, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(Cluster.jvm(args.toArray(String[]::new))).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("TEMPORAL_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "hung: " + out);
    return new Cluster.CliRun(p.exitValue(), out);
  }

  /** A client certificate from the cluster's own CA that expired yesterday. */
  private Path expiredClientCertificate(Path certs) throws Exception {
    Path d = Files.createDirectories(tmp.resolve("expired"));
    sh("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout client.key -out client.csr -subj /CN=late"
        + " && printf 'extendedKeyUsage=clientAuth\\n' > ext"
        + " && openssl x509 -req -in client.csr -CA '" + certs.resolve("ca.pem") + "' -CAkey '" + certs.resolve("ca.key")
        + "' -CAcreateserial -CAserial serial -days -1 -extfile ext -out client.pem", d);
    return d;
  }

  /** A server certificate for localhost from the cluster's own CA that expired yesterday. */
  private Path expiredServerCertificate(Path certs) throws Exception {
    Path d = Files.createDirectories(tmp.resolve("lapsed-server"));
    sh("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr -subj /CN=localhost"
        + " && printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > ext"
        + " && openssl x509 -req -in server.csr -CA '" + certs.resolve("ca.pem") + "' -CAkey '" + certs.resolve("ca.key")
        + "' -CAcreateserial -CAserial serial -days -1 -extfile ext -out server.pem", d);
    return d;
  }

  /** A client certificate from a CA the cluster has never heard of. */
  private Path strangerCertificate() throws Exception {
    Path d = Files.createDirectories(tmp.resolve("stranger"));
    sh("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout client.key -out client.pem"
        + " -subj /CN=stranger -days 30", d);
    return d;
  }

  private static void sh(String script, Path dir) throws Exception {
    Process p = new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
  }

  @Test
  void theHistoryServiceKilledMidSessionEveryAntGoesOnWithNothingLostOrDoubled() throws Exception {
    cluster.startWorker("only");
    cluster.mode("alpha", 2, "block");
    cluster.start("alpha", "delta");
    eventually(LONG, () -> startsOf("alpha", 2) >= 1, "startsOf(\"alpha\", 2) >= 1");
    eventually(LONG, () -> status("delta").sessions() >= 2, "status(\"delta\").sessions() >= 2");
    cluster.ant("alpha").message(Mail.of("queued before the crash"));
    eventually(LONG, () -> status("alpha").queueDepth() == 1, "status(\"alpha\").queueDepth() == 1");

    assertEquals(0, script(Duration.ofSeconds(10), "kill", "history").code());
    Thread.sleep(3000); // not a wait: how long the history service stays down (a simulated outage)
    assertEquals(0, script(Duration.ofSeconds(10), "start", "history").code());

    // The session in flight is still session 2 (its attempt may run once more if its heartbeat
    // deadline passed while history was down); the queued message is kept.
    eventually(LONG, () -> status("alpha").state() == Lifecycle.RUNNING, "status(\"alpha\").state() == Lifecycle.RUNNING");
    assertEquals(1, status("alpha").sessions());
    assertEquals(1, status("alpha").queueDepth());
    int delta = status("delta").sessions();
    cluster.release("alpha", 2);
    eventually(LONG, () -> status("alpha").sessions() >= 3 && status("alpha").queueDepth() == 0, "status(\"alpha\").sessions() >= 3 && status(\"alpha\").queueDepth() == 0");
    assertTrue(cluster.prompt("alpha", 3).contains("queued before the crash"), cluster.prompt("alpha", 3));
    assertTrue(startsOf("alpha", 2) <= 2, "session 2 started " + startsOf("alpha", 2) + " times");
    assertEquals(1, startsOf("alpha", 3));
    eventually(LONG, () -> status("delta").sessions() >= delta + 2, "status(\"delta\").sessions() >= delta + 2");
    assertNoNumberedPostRepeats();
    assertEquals(1, cluster.count("[alpha] ✅ **alpha** finished session 2: released session 2"),
        String.join("\n", cluster.chat()));
  }

  @Test
  void theMatchingServiceKilledWhileAntsWaitEveryAntGoesOnAndNoSignalIsLost() throws Exception {
    cluster.startWorker("only");
    cluster.mode("beta", 2, "ratelimit");
    Files.writeString(cluster.control("beta").resolve("reset-in"), "8");
    cluster.start("beta", "delta", "gamma");
    eventually(LONG, () -> status("beta").state() == Lifecycle.COOLING_DOWN && status("delta").sessions() >= 2, "status(\"beta\").state() == Lifecycle.COOLING_DOWN && status(\"delta\").sessions() >= 2");
    cluster.ant("gamma").pause();
    eventually(LONG, () -> status("gamma").state() == Lifecycle.PAUSED, "status(\"gamma\").state() == Lifecycle.PAUSED");
    int gamma = status("gamma").sessions();

    assertEquals(0, script(Duration.ofSeconds(10), "kill", "matching").code());
    // While matching is down: signals are written by history all the same.
    cluster.ant("delta").pause();
    cluster.ant("gamma").message(Mail.of("sent while matching was down"));
    Thread.sleep(3000); // not a wait: how long the matching service stays down (a simulated outage)
    assertEquals(0, script(Duration.ofSeconds(10), "start", "matching").code());

    // beta's rate-limit wait ends and it goes on; delta pauses; gamma, resumed by the message it
    // got while matching was down, runs it in its next session, exactly once.
    eventually(LONG, () -> status("beta").sessions() >= 3, "status(\"beta\").sessions() >= 3");
    eventually(LONG, () -> status("delta").state() == Lifecycle.PAUSED, "status(\"delta\").state() == Lifecycle.PAUSED");
    eventually(LONG, () -> status("gamma").sessions() >= gamma + 1 && startsOf("gamma", gamma + 1) == 1, "status(\"gamma\").sessions() >= gamma + 1 && startsOf(\"gamma\", gamma + 1) == 1");
    assertTrue(cluster.prompt("gamma", gamma + 1).contains("sent while matching was down"));
    assertEquals(1, startsOf("gamma", gamma + 1));
    cluster.ant("delta").resume();
    int d = status("delta").sessions();
    eventually(LONG, () -> status("delta").sessions() >= d + 1, "status(\"delta\").sessions() >= d + 1");
    assertEquals(1, cluster.chat().stream().filter(l -> l.startsWith("[beta] ⏳ **beta** is rate limited")).count(),
        String.join("\n", cluster.chat()));
    assertNoNumberedPostRepeats();
  }

  @Test
  void twoWorkersOnTwoHostsShareTheColony() throws Exception {
    // Twelve copies of delta, so that both hosts get some (all on one: 1 in 2,048).
    Path ants = cluster.dir.resolve("ants");
    String delta = Files.readString(ants.resolve("delta.yaml"));
    List<String> names = new java.util.ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      String n = "worker" + i;
      names.add(n);
      Files.writeString(ants.resolve(n + ".yaml"), delta.replace("name: delta", "name: " + n));
    }
    cluster.startWorker("a", cluster.target(), "--host", "a", "--workspace-root", tmp.resolve("host-a").toString());
    cluster.startWorker("b", cluster.target(), "--host", "b", "--workspace-root", tmp.resolve("host-b").toString());
    cluster.start(names.toArray(String[]::new));
    eventually(LONG, () -> names.stream().allMatch(n -> status(n).sessions() >= 2), "names.stream().allMatch(n -> status(n).sessions() >= 2)");
    Map<String, Long> perHost = new HashMap<>();
    for (String h : List.of("a", "b")) {
      perHost.put(h, cluster.client.listExecutions("ColonyName = '" + cluster.colonyName
          + "' AND ExecutionStatus = 'Running' AND AntHost = '" + h + "'").count());
    }
    assertEquals(12, perHost.get("a") + perHost.get("b"), perHost.toString());
    assertTrue(perHost.get("a") > 0 && perHost.get("b") > 0, "both hosts work: " + perHost);
    for (String n : names) {
      cluster.client.newUntypedWorkflowStub("ant/" + cluster.colonyName + "/" + n).terminate("test over");
    }
  }
}
