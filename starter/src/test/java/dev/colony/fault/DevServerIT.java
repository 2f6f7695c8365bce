package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user of the real Temporal dev server relies on: {@code colony status} with every worker
 * dead, ant state in visibility, and the {@code temporal} CLI working on ants.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class DevServerIT {
  private static final Duration LONG = Duration.ofSeconds(60);

  @TempDir
  Path tmp;

  private Cluster cluster;

  @BeforeEach
  void setUp() throws Exception {
    cluster = new Cluster(tmp);
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  /** The CLI's stdout and stderr, and how long it took. */
  record Run(int code, String out, long millis) {}

  private Run colony(String... args) throws Exception {
    return colonyWith(List.of(), args);
  }

  private Run colonyWith(List<String> jvmFlags, String... args) throws Exception {
    List<String> full = new ArrayList<>(List.of(args));
    full.add("--address");
    full.add(cluster.address);
    List<String> cmd = new ArrayList<>(Cluster.jvm(full.toArray(String[]::new)));
    cmd.addAll(cmd.indexOf("-jar"), jvmFlags);
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    // A hang detector, not a performance claim (bench/status measures that): the old
    // query-based status hung about a minute with no worker.
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "colony " + String.join(" ", args) + " hung");
    return new Run(p.exitValue(), out, (System.nanoTime() - t0) / 1_000_000);
  }

  private Run temporal(String... args) throws Exception {
    List<String> full = new ArrayList<>(List.of(Cluster.temporalCli()));
    full.addAll(List.of(args));
    full.add("--address");
    full.add(cluster.address);
    Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "temporal " + String.join(" ", args) + " hung");
    return new Run(p.exitValue(), out, 0);
  }

  @Test
  void statusListsEveryAntWithItsStateAndNamesTheMissingWorkerWhenAllWorkersAreDead() throws Exception {
    cluster.startServer();
    Cluster.WorkerProcess worker = cluster.startWorker("only");
    cluster.mode("gamma", 1, "billing");
    cluster.start("alpha", "beta", "gamma", "delta");
    for (String a : List.of("alpha", "beta", "delta")) {
      eventually(LONG, () -> cluster.status(a).sessions() >= 1, "cluster.status(a).sessions() >= 1");
    }
    eventually(LONG, () -> cluster.status("gamma").paused(), "cluster.status(\"gamma\").paused()");
    cluster.cli("pause", "alpha");
    eventually(LONG, () -> cluster.status("alpha").paused(), "cluster.status(\"alpha\").paused()");
    Run live = colony("status");
    assertEquals(0, live.code(), live.out());
    assertTrue(!live.out().contains("no worker is polling"), live.out());

    Cluster.kill9(worker);
    // Its last poll is still fresh, so the status query is tried: it has one deadline (not the
    // SDK's minute of retries), then visibility answers.
    Run justDead = colony("status", "delta");
    assertEquals(0, justDead.code(), justDead.out());
    assertTrue(justDead.out().contains("from visibility: no worker answered the status query within 1.5 s"),
        justDead.out());
    // Signals never wait for a worker.
    Run pause = colony("pause", "beta");
    assertEquals(0, pause.code(), pause.out());
    Run table = colony("status");
    assertEquals(0, table.code(), table.out());
    for (String a : List.of("alpha", "beta", "gamma", "delta")) {
      assertTrue(table.out().contains("fault/" + a + " "), a + " missing:\n" + table.out());
    }
    String alphaLine = table.out().lines().filter(l -> l.startsWith("fault/alpha ")).findFirst().orElseThrow();
    assertTrue(alphaLine.matches("fault/alpha\\s+paused\\s+operator\\s.*"), alphaLine);
    String gammaLine = table.out().lines().filter(l -> l.startsWith("fault/gamma ")).findFirst().orElseThrow();
    assertTrue(gammaLine.matches("fault/gamma\\s+paused\\s+billing\\s.*needs a human.*"), gammaLine);

    // Once the dead worker's last poll is older than a live worker's re-poll interval, status
    // says so (a live worker re-polls every 10 s).
    eventually(LONG, () -> {
      try {
        return colony("status").out().contains(
            "no worker is polling task queue 'colony-fault' at " + cluster.address + ": start one with ./colony worker DIR");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }, "{ try { return colony(\"status\").out().contains( \"no worker is polling task queue 'colon...");
    Run json = colony("status", "--json");
    int brace = json.out().indexOf('{');
    JsonNode doc = new ObjectMapper().readTree(json.out().substring(brace, json.out().lastIndexOf('}') + 1));
    assertEquals(false, doc.get("workers").get("polling").asBoolean(true));
    assertEquals(4, doc.get("ants").size());
    // A big colony (here: more than 2 ants) shows only the ants that need attention, and a count.
    Run big = colonyWith(List.of("-Dcolony.status.tableLimit=2"), "status");
    assertEquals(0, big.code(), big.out());
    // (beta's pause waits for a worker to apply it, so visibility still shows it running)
    assertTrue(big.out().contains("fault/alpha ") && big.out().contains("fault/gamma "), big.out());
    assertTrue(!big.out().contains("fault/delta "), "a running ant was listed:\n" + big.out());
    assertTrue(big.out().contains("4 ants running; 2 shown (waiting for a human, paused or failing)"), big.out());
    Run all = colonyWith(List.of("-Dcolony.status.tableLimit=2"), "status", "--all");
    assertTrue(all.out().contains("fault/delta "), all.out());
    Run detail = colony("status", "gamma");
    assertEquals(0, detail.code(), detail.out());
    assertTrue(detail.out().contains("needs a human:      yes"), detail.out());
    assertTrue(detail.out().contains("from visibility"), detail.out());
    Files.writeString(Path.of("target/status-without-worker.txt"), table.out() + "\n(" + table.millis() + " ms)\n");
  }

  @Test
  void theTemporalCliSignalsQueriesAndListsAnts() throws Exception {
    cluster.startServer();
    cluster.startWorker("only");
    cluster.start("delta");
    eventually(LONG, () -> cluster.status("delta").sessions() >= 1, "cluster.status(\"delta\").sessions() >= 1");

    Run signal = temporal("workflow", "signal", "--workflow-id", "ant/fault/delta", "--name", "pause");
    assertEquals(0, signal.code(), signal.out());
    eventually(LONG, () -> cluster.status("delta").paused(), "cluster.status(\"delta\").paused()");
    Run query = temporal("workflow", "query", "--workflow-id", "ant/fault/delta", "--type", "status");
    assertEquals(0, query.code(), query.out());
    assertTrue(query.out().replace(" ", "").contains("\"paused\":true"), query.out());
    eventually(LONG, () -> {
      try {
        return temporal("workflow", "list", "--query", "AntState = 'paused'").out().contains("ant/fault/delta");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }, "{ try { return temporal(\"workflow\", \"list\", \"--query\", \"AntState = 'paused'\").out().con...");
    Run message = temporal("workflow", "signal", "--workflow-id", "ant/fault/delta", "--name", "message",
        "--input", "\"from the temporal cli\"");
    assertEquals(0, message.code(), message.out());
    eventually(LONG, () -> !cluster.status("delta").paused()
        && cluster.starts("delta").stream().anyMatch(s -> {
          try {
            return cluster.prompt("delta", s.session()).contains("from the temporal cli");
          } catch (java.io.IOException e) {
            return false;
          }
        }), "!cluster.status(\"delta\").paused() && cluster.starts(\"delta\").stream().anyMatch(s -> { t...");
    // Half an emoji (a lone surrogate) through the same documented door poisons nothing: it arrives
    // cleaned (U+FFFD), every session still starts, and the message sent after it runs too.
    Run half = temporal("workflow", "signal", "--workflow-id", "ant/fault/delta", "--name", "message",
        "--input", "\"half an emoji \\ud83d\"");
    assertEquals(0, half.code(), half.out());
    Run after = temporal("workflow", "signal", "--workflow-id", "ant/fault/delta", "--name", "message",
        "--input", "\"after the half emoji\"");
    assertEquals(0, after.code(), after.out());
    eventually(LONG, () -> {
      String prompts = cluster.starts("delta").stream().map(s -> {
        try {
          return cluster.prompt("delta", s.session());
        } catch (java.io.IOException e) {
          return "";
        }
      }).reduce("", String::concat);
      return prompts.contains("half an emoji \uFFFD") && prompts.contains("after the half emoji");
    }, "{ String prompts = cluster.starts(\"delta\").stream().map(s -> { try { return cluster.pro...");
    eventually(LONG, () -> {
      try {
        String running = temporal("workflow", "list", "--query", "ColonyName = 'fault' AND AntPaused = false").out();
        return running.contains("ant/fault/delta");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }, "{ try { String running = temporal(\"workflow\", \"list\", \"--query\", \"ColonyName = 'fault' ...");
  }

  /** {@code colony dev} as a process: its console output, and SIGTERM (what Ctrl-C amounts to). */
  private Process dev(Path log, String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("dev", cluster.dir.toString(), "--port", Integer.toString(cluster.port),
        "--ui-port", Integer.toString(cluster.uiPort)));
    args.addAll(List.of(extra));
    ProcessBuilder pb = new ProcessBuilder(Cluster.jvm(args.toArray(String[]::new)))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("COLONY_TEMPORAL_CLI", Cluster.temporalCli());
    return pb.start();
  }

  /** A second {@code colony dev} or {@code server} that should refuse at once: its output and exit code. */
  private Run refusedAtOnce(List<String> args) throws Exception {
    Path log = Files.createTempFile(tmp, "second", ".log");
    ProcessBuilder pb = new ProcessBuilder(Cluster.jvm(args.toArray(String[]::new)))
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("COLONY_TEMPORAL_CLI", Cluster.temporalCli());
    Process p = pb.start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("a second colony " + String.join(" ", args) + " on the same database did not refuse: "
          + Cluster.read(log));
    }
    return new Run(p.exitValue(), Cluster.read(log), 0);
  }

  private static int lastSession(Path log, String ant) {
    int last = 0;
    var m = java.util.regex.Pattern.compile("\\[" + ant + "\\] ✅ \\*\\*" + ant + "\\*\\* finished session (\\d+)")
        .matcher(Cluster.read(log));
    while (m.find()) {
      last = Math.max(last, Integer.parseInt(m.group(1)));
    }
    return last;
  }

  private static void stop(Process p) throws InterruptedException {
    p.destroy();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "colony dev ignored SIGTERM");
  }

  @Test
  void devKeepsEveryAntAcrossRestartsAndFreshStartsOver() throws Exception {
    Path first = cluster.logs.resolve("dev-1.log");
    Process dev = dev(first, "delta");
    eventually(LONG, () -> lastSession(first, "delta") >= 2, "lastSession(first, \"delta\") >= 2");
    String banner = Cluster.read(first);
    assertTrue(banner.contains("Web UI:        http://localhost:" + cluster.uiPort), banner);
    assertTrue(banner.contains("workflow list --address localhost:" + cluster.port + " --query \"WorkflowType = 'AntWorkflow' AND ColonyName = 'fault'\""), banner);
    // The console is served beside the Web UI and reads the colony from visibility.
    var console = java.util.regex.Pattern.compile("Console: +(http://127\\.0\\.0\\.1:\\d+)").matcher(banner);
    assertTrue(console.find(), banner);
    var http = java.net.http.HttpClient.newHttpClient();
    var answer = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(console.group(1) + "/api/ants")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(200, answer.statusCode(), answer.body());
    assertTrue(answer.body().contains("\"name\":\"delta\""), answer.body());
    assertTrue(Files.exists(cluster.dir.resolve(".colony/temporal.db")), "no database under .colony/");

    // A second colony dev (even with --fresh) or colony server on the same database refuses in one
    // line naming the holder, and deletes nothing; the first goes on serving.
    Path db = cluster.dir.resolve(".colony/temporal.db");
    Object inode = Files.readAttributes(db, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
    String holder = "colony: " + db + " is in use by another Colony process (pid " + dev.pid()
        + ", Temporal on port " + cluster.port + ")";
    for (List<String> second : List.of(
        List.of("dev", cluster.dir.toString(), "delta", "--fresh", "--port", Integer.toString(Cluster.freePort()),
            "--ui-port", Integer.toString(Cluster.freePort())),
        List.of("server", "--db", db.toString(), "--port", Integer.toString(Cluster.freePort()),
            "--ui-port", Integer.toString(Cluster.freePort())))) {
      Run refused = refusedAtOnce(second);
      assertEquals(1, refused.code(), refused.out());
      assertTrue(refused.out().lines().anyMatch(l -> l.startsWith(holder)), "expected a line starting with: "
          + holder + "\n" + refused.out());
      assertTrue(refused.out().lines().noneMatch(l -> l.startsWith("\tat ")), refused.out());
      assertEquals(inode, Files.readAttributes(db, java.nio.file.attribute.BasicFileAttributes.class).fileKey(),
          "the running colony's database was deleted (and created anew) by: colony " + String.join(" ", second));
    }
    int served = lastSession(first, "delta");
    eventually(LONG, () -> lastSession(first, "delta") > served, "lastSession(first, \"delta\") > served");
    stop(dev);
    int before = lastSession(first, "delta");
    assertTrue(!Cluster.read(first).contains("Exception"), Cluster.read(first));
    assertTrue(ProcessHandle.allProcesses().noneMatch(ph -> ph.info().commandLine().orElse("")
        .contains("--port " + cluster.port + " ")), "the Temporal dev server outlived colony dev");

    Path second = cluster.logs.resolve("dev-2.log");
    dev = dev(second, "delta");
    eventually(LONG, () -> lastSession(second, "delta") >= before + 1, "lastSession(second, \"delta\") >= before + 1");
    assertTrue(!Cluster.read(second).contains("🐜"), "the ant started over instead of continuing");
    assertTrue(!Cluster.read(second).contains("finished session 1:"), Cluster.read(second));
    // Killed without a goodbye: its lock goes with it, so the next colony dev starts.
    dev.destroyForcibly();
    assertTrue(dev.waitFor(30, TimeUnit.SECONDS), "colony dev survived kill -9");

    Path third = cluster.logs.resolve("dev-3.log");
    dev = dev(third, "delta", "--fresh");
    eventually(LONG, () -> lastSession(third, "delta") >= 1, "lastSession(third, \"delta\") >= 1");
    assertTrue(Cluster.read(third).contains("[delta] 🐜 **delta** is starting up."), Cluster.read(third));
    assertTrue(Cluster.read(third).contains("finished session 1:"), Cluster.read(third));
    stop(dev);
  }
}
