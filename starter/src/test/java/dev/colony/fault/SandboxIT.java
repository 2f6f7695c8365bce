package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile ant on the real dev server, its worker a separate process: it tries each door of its
 * sandbox (the colony's secrets and files, its peer's workspace, Temporal's frontend and the Web
 * UI on loopback, any loopback port, private and metadata addresses, killing its worker) and finds
 * each shut, and the worker's {@code /metrics} counts what its walls refused; its peer and the worker go on; and a worker killed with {@code kill -9} while the ant
 * left a detached child running leaves no process of the session behind.
 */
@Timeout(600)
class SandboxIT {
  private static final Path FIXTURE = Path.of("src/test/resources/sandbox-colony").toAbsolutePath();

  @TempDir
  Path tmp;

  private Cluster cluster;

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster);
  }

  @Test
  void aHostileAgentFindsEveryDoorShutAndLeavesNothingBehind() throws Exception {
    cluster = new Cluster(tmp, FIXTURE).startServer("dev");
    Path mallory = cluster.dir.resolve(".colony/workspaces/mallory");
    Path alice = cluster.dir.resolve(".colony/workspaces/alice");
    try (ServerSocket other = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      // The worker checks the ant's ${VAR}s when it starts; the real values (its own pid) follow.
      Files.writeString(cluster.dir.resolve(".env"), "PROBE_PORTS=\nPEER_WORKSPACE=/nonexistent\nWORKER_PID=0000\n");
      int metricsPort = Cluster.freePort();
      Cluster.WorkerProcess worker = cluster.startWorker("w1", cluster.target(), "--metrics-port", Integer.toString(metricsPort));
      Files.writeString(cluster.dir.resolve(".env"), "SECRET_TOKEN=s3cr3t-value-of-the-colony\n"
          + "PROBE_PORTS=" + cluster.port + " " + cluster.uiPort + " " + other.getLocalPort() + "\n"
          + "PEER_WORKSPACE=" + alice + "\n"
          + "WORKER_PID=" + worker.process().pid() + "\n");
      try {
        cluster.cli("start", cluster.dir.toString());
        cluster.cli("send", "walls/alice", "write your notes");
        eventually(Duration.ofSeconds(90), () -> Files.exists(alice.resolve("notes.txt")), "alice wrote her notes");
        cluster.cli("send", "walls/mallory", "try the doors");
        Path doors = mallory.resolve("doors.txt");
        // The file as it was when it held every door: mallory's next session (its queued message)
        // writes it anew, so reading it again could find it empty.
        java.util.concurrent.atomic.AtomicReference<String> tried = new java.util.concurrent.atomic.AtomicReference<>("");
        eventually(Duration.ofSeconds(120), () -> {
          tried.set(Cluster.read(doors));
          return tried.get().lines().anyMatch(l -> l.contains("kill-worker"));
        }, () -> "mallory tried every door; doors: " + tried.get());
        String found = tried.get();
        List<String> open = found.lines().filter(l -> l.startsWith("OPEN")).toList();
        assertEquals(List.of(), open, "every door shut:\n" + found);
        assertTrue(found.lines().count() >= 24, found);
        assertTrue(found.contains("shut loopback-" + cluster.port), found); // Temporal's frontend
        assertRefusalsCounted(metricsPort);
        assertTrue(worker.process().isAlive(), "the worker lives");
        assertFalse(Files.exists(alice.resolve("pwned.txt")));
        assertFalse(Cluster.read(cluster.dir.resolve("ants/mallory.yaml")).contains("autonomy"));
        eventually(Duration.ofSeconds(60), () -> cluster.statusSays("walls/mallory", "last outcome:       success"),
            "mallory's session ended");
        // The detached child it left ended with its session.
        eventually(Duration.ofSeconds(20), SandboxIT::noOrphan, "no process of mallory's session is left");
        // The peer goes on.
        int before = sessions("walls/alice");
        cluster.cli("send", "walls/alice", "again");
        eventually(Duration.ofSeconds(60), () -> sessions("walls/alice") > before, "alice ran another session");
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
      }
    }
  }

  @Test
  void aWorkerKilledMidSessionLeavesNoProcessOfTheSandboxBehind() throws Exception {
    cluster = new Cluster(tmp, FIXTURE).startServer("dev");
    Path script = cluster.dir.resolve("scripts/hostile.sh");
    // A long session that leaves a detached child, then waits.
    Files.writeString(script, "#!/bin/bash\ncat >/dev/null\nsetsid nohup bash -c 'exec -a colony-sandbox-orphan sleep 600'"
        + " >/dev/null 2>&1 &\nexec -a colony-sandbox-agent sleep 600\n");
    Files.writeString(cluster.dir.resolve(".env"), "PROBE_PORTS=\nPEER_WORKSPACE=/nonexistent\nWORKER_PID=0000\n");
    Cluster.WorkerProcess worker = cluster.startWorker("w1");
    try {
      cluster.cli("start", cluster.dir.toString());
      cluster.cli("send", "walls/mallory", "start");
      eventually(Duration.ofSeconds(90), () -> running("colony-sandbox-orphan") && running("colony-sandbox-agent"),
          "the session and its detached child run");
      Cluster.kill9(worker);
      eventually(Duration.ofSeconds(30), () -> !running("colony-sandbox-orphan") && !running("colony-sandbox-agent"),
          "nothing of the session outlives its worker");
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
    }
  }

  /**
   * The worker's {@code /metrics} counts what mallory's walls refused: each connection the egress
   * proxy refused (the metadata address: one a session; its requests to loopback names never reach
   * the proxy, {@code NO_PROXY} sends them to the sandbox's own loopback) and each request on its
   * channel (mail as alice, pause, resume, approve, a peer's status: 5 a session); the watchdog's
   * series is there; every label is a config name or a closed set's word.
   */
  private static void assertRefusalsCounted(int port) throws Exception {
    String series = "{ant=\"mallory\",colony=\"walls\"";
    java.util.concurrent.atomic.AtomicReference<String> body = new java.util.concurrent.atomic.AtomicReference<>("");
    eventually(Duration.ofSeconds(30), () -> {
      body.set(scrape(port));
      double connections = value(body.get(), "colony_sandbox_refused_connections_total" + series + "}");
      double channel = value(body.get(), "colony_sandbox_refusals_total" + series + ",kind=\"channel\"}");
      return connections >= 1 && channel == 5 * connections;
    }, () -> "the worker counted mallory's refusals:\n" + body.get().lines()
        .filter(l -> l.startsWith("colony_")).collect(java.util.stream.Collectors.joining("\n")));
    assertEquals(-1, value(body.get(), "colony_sandbox_refusals_total" + series + ",kind=\"path\"}"), "no grant refused");
    assertTrue(value(body.get(), "colony_watchdog_interruptions_total" + series + ",engine=\"command\"}") == 0,
        "the watchdog's series, nothing interrupted:\n" + body.get());
    java.util.regex.Pattern allowed = java.util.regex.Pattern.compile(
        "(ant=\"(alice|mallory)\"|colony=\"walls\"|engine=\"command\"|kind=\"(path|channel)\")");
    for (String line : body.get().lines().filter(l -> l.startsWith("colony_watchdog") || l.startsWith("colony_sandbox")).toList()) {
      String labels = line.substring(line.indexOf('{') + 1, line.indexOf('}'));
      for (String label : labels.split(",")) {
        assertTrue(allowed.matcher(label).matches(), "a label outside the closed sets: " + line);
      }
    }
  }

  /** A series' value in a scrape (its full name and labels as written), or -1 when it is not there. */
  private static double value(String body, String series) {
    return body.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
        .findFirst().orElse(-1);
  }

  private static String scrape(int port) {
    try {
      var r = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
          java.net.URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      return r.body();
    } catch (java.io.IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** The ant's session count, as {@code colony status} says; -1 when it cannot be read. */
  private int sessions(String ant) {
    try {
      var m = java.util.regex.Pattern.compile("(?m)^  sessions:\\s+(\\d+)").matcher(cluster.cli("status", ant));
      return m.find() ? Integer.parseInt(m.group(1)) : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  private static boolean noOrphan() {
    return !running("colony-sandbox-orphan");
  }

  /** Whether a process whose argv[0] is {@code marker} runs (its /proc cmdline: Java's info() shows the executable). */
  static boolean running(String marker) {
    return ProcessHandle.allProcesses().anyMatch(h -> {
      try {
        byte[] cmd = Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
        String argv0 = new String(cmd, java.nio.charset.StandardCharsets.UTF_8).split("\0", 2)[0];
        return h.isAlive() && argv0.equals(marker);
      } catch (java.io.IOException | RuntimeException gone) {
        return false;
      }
    });
  }
}
