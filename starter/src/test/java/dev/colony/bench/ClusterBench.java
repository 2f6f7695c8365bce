package dev.colony.bench;

import dev.colony.ant.AntWorkflow;
import dev.colony.bench.ScaleBench.Bench;
import dev.colony.bench.ScaleBench.Proc;
import dev.colony.bench.ScaleBench.Report;
import dev.colony.fault.ClusterScript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Section 6 of {@code bench/run}: the same measurements on the dev server (one process, SQLite)
 * and on the production-shaped cluster of {@code bin/cluster.sh} (PostgreSQL, services as separate
 * processes, 8 shards, mTLS), one after the other in the same run, so the two columns compare.
 * The cluster is created afresh (an empty database), as a new user's would be.
 */
final class ClusterBench {
  private static final ClusterScript SCRIPT = new ClusterScript(Path.of("target/bench-cluster"), 7733);
  private static final int STORM = Integer.getInteger("bench.storm", 3000);
  private static final int KILLS = Integer.getInteger("bench.serviceKills", 3);

  private ClusterBench() {}

  /** What one backend measured. */
  record Figures(String label, long startMs, String waiting, List<Double> list, long listCliMs, List<Double> pauseIdle,
      List<Double> resumeIdle, List<Double> pauseBusy, List<Double> resumeBusy, String storm, List<Double> recovery,
      String recoveryWhat) {}

  static void run(Report r, int n, int commands) throws Exception {
    Figures dev = measure(false, n, commands);
    Figures cluster = measure(true, n, commands);
    r.line("## 6. Dev server and production-shaped cluster, side by side");
    r.line("");
    r.line("The same steps against each, in this order, in one run: `colony start` of %,d ants waiting on a cron tick, "
        + "one `colony worker`; every ant's list from visibility; %d pause/resume pairs while idle (signal sent → the "
        + "ant's ⏸️/▶️ post in the worker's output); the same while `colony start` of %,d more ants runs; then a crash. "
        + "Dev server: `colony server` (SQLite). Cluster: `bin/cluster.sh up` from an empty state directory "
        + "(PostgreSQL 15, frontend/history/matching/worker/internal-frontend as separate processes, 8 history "
        + "shards), every Colony process over mTLS. Both on this machine's %d cores, with the worker and the "
        + "benchmark.", n, commands / 2, STORM, Runtime.getRuntime().availableProcessors());
    r.line("");
    r.line("| figure | dev server (SQLite) | cluster (PostgreSQL, mTLS) | target |");
    r.line("|---|---|---|---|");
    r.line("| `colony start` of %,d | %s | %s | |", n, ScaleBench.ms(dev.startMs()), ScaleBench.ms(cluster.startMs()));
    r.line("| all %,d waiting | %s | %s | < 120 s |", n, dev.waiting(), cluster.waiting());
    r.line("| list all %,d from visibility, in-process (p50 of %d) | %s | %s | < 3 s |", n, dev.list().size(),
        ScaleBench.msd(p(dev.list(), 50)), ScaleBench.msd(p(cluster.list(), 50)));
    r.line("| `colony status --json` of %,d (whole process) | %s | %s | < 3 s |", n, ScaleBench.ms(dev.listCliMs()),
        ScaleBench.ms(cluster.listCliMs()));
    r.line("| pause, idle: p50 / p99 | %s | %s | p50 < 20 ms, p99 < 100 ms |", pp(dev.pauseIdle()), pp(cluster.pauseIdle()));
    r.line("| resume, idle: p50 / p99 | %s | %s | p50 < 20 ms, p99 < 100 ms |", pp(dev.resumeIdle()), pp(cluster.resumeIdle()));
    r.line("| pause while %,d ants start: p50 / p99 (n) | %s (%d) | %s (%d) | < 1 s |", STORM, pp(dev.pauseBusy()),
        dev.pauseBusy().size(), pp(cluster.pauseBusy()), cluster.pauseBusy().size());
    r.line("| resume while %,d ants start: p50 / p99 | %s | %s | < 1 s |", STORM, pp(dev.resumeBusy()), pp(cluster.resumeBusy()));
    r.line("| the %,d-ant start itself | %s | %s | |", STORM, dev.storm(), cluster.storm());
    r.line("| crash → a signal answered again: median / max of %d | %s | %s | |", KILLS, pm(dev.recovery()),
        pm(cluster.recovery()));
    r.line("");
    r.line("Crash: %s; %s. The time runs from the kill to the ⏸️ post of a pause sent (and re-sent until the "
        + "server took it) right after the restart was begun.", dev.recoveryWhat(), cluster.recoveryWhat());
    r.line("");
  }

  private static Figures measure(boolean onCluster, int n, int commands) throws Exception {
    Path tmp = Files.createTempDirectory("colony-cluster-bench");
    Path dir = ScaleBench.colony(tmp, "scale", n, "schedule:\n  cron: \"0 0 1 1 *\"\n", "[\"true\"]", null);
    Path stormDir = ScaleBench.colony(Files.createDirectories(tmp.resolve("storm")), "storm", STORM,
        "schedule:\n  cron: \"0 0 1 1 *\"\n", "[\"true\"]", null);
    String label = onCluster ? "cluster" : "dev server";
    try (Bench b = new Bench(tmp, dir)) {
      if (onCluster) {
        script(Duration.ofSeconds(60), "down");
        deleteRecursively(SCRIPT.state());
        SCRIPT.up();
        Map<String, String> env = SCRIPT.env();
        b.useExternal(env.get("TEMPORAL_ADDRESS"), env, ClusterScript.stubsOptions(env));
      } else {
        b.startServer();
      }
      Proc worker = b.startWorker("w");
      long s0 = System.nanoTime();
      b.cli("start", dir.toString());
      long startMs = (System.nanoTime() - s0) / 1_000_000;
      String waiting = awaitWaiting(b, "scale", n, s0);
      System.err.printf("%s: %,d ants started in %d ms, waiting: %s%n", label, n, startMs, waiting);

      List<Double> list = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        long l0 = System.nanoTime();
        int listed = b.listAll("scale");
        list.add((System.nanoTime() - l0) / 1e6);
        if (listed != n) {
          System.err.printf("%s: listed %d of %d%n", label, listed, n);
        }
      }
      long c0 = System.nanoTime();
      b.cli("status", "--json");
      long listCliMs = (System.nanoTime() - c0) / 1_000_000;

      Random random = new Random(7);
      List<Double> pauseIdle = new ArrayList<>();
      List<Double> resumeIdle = new ArrayList<>();
      for (int i = 0; i < commands / 2; i++) {
        pauseResume(b, worker, ScaleBench.antName(random.nextInt(n)), pauseIdle, resumeIdle);
      }

      // While another colony of STORM ants is started: the operator's commands keep their pace?
      ProcessBuilder pb = new ProcessBuilder(b.jvm("start", stormDir.toString(), "--address", b.target()))
          .redirectErrorStream(true).redirectOutput(tmp.resolve("storm-start.log").toFile());
      pb.environment().putAll(b.env);
      long st0 = System.nanoTime();
      Process storm = pb.start();
      List<Double> pauseBusy = new ArrayList<>();
      List<Double> resumeBusy = new ArrayList<>();
      Thread.sleep(1500); // past the CLI's own start-up: the signal-with-starts are flowing
      while (storm.isAlive() && pauseBusy.size() < commands / 2) {
        pauseResume(b, worker, ScaleBench.antName(random.nextInt(n)), pauseBusy, resumeBusy);
      }
      storm.waitFor(30, TimeUnit.MINUTES);
      long stormStartMs = (System.nanoTime() - st0) / 1_000_000;
      String stormWaiting = awaitWaiting(b, "storm", STORM, st0);
      String stormCell = "start " + ScaleBench.ms(stormStartMs) + ", all waiting " + stormWaiting;

      List<Double> recovery = new ArrayList<>();
      for (int k = 0; k < KILLS; k++) {
        String ant = ScaleBench.antName(random.nextInt(n));
        long k0 = System.nanoTime();
        if (onCluster) {
          script(Duration.ofSeconds(10), "kill", "history");
          script(Duration.ofSeconds(10), "start", "history");
        } else {
          b.killAndRestartServer();
        }
        AntWorkflow stub = b.client.newWorkflowStub(AntWorkflow.class, "ant/scale/" + ant);
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (true) {
          try {
            stub.pause();
            break;
          } catch (RuntimeException notYet) {
            if (System.nanoTime() > deadline) {
              throw notYet;
            }
            Thread.sleep(100);
          }
        }
        recovery.add(worker.output().await("[" + ant + "] ⏸️", k0));
        stub.resume();
        worker.output().await("[" + ant + "] ▶️", k0);
      }
      return new Figures(label, startMs, waiting, list, listCliMs, pauseIdle, resumeIdle, pauseBusy, resumeBusy,
          stormCell, recovery, onCluster ? "cluster: `kill -9` of the history service, started again at once"
              : "dev server: `kill -9` of `colony server` (the whole server: SQLite, all services), started again at once");
    } finally {
      if (onCluster) {
        script(Duration.ofSeconds(60), "down");
      }
      deleteRecursively(tmp);
    }
  }

  private static void pauseResume(Bench b, Proc worker, String ant, List<Double> pause, List<Double> resume)
      throws InterruptedException {
    AntWorkflow stub = b.client.newWorkflowStub(AntWorkflow.class, "ant/scale/" + ant);
    long p0 = System.nanoTime();
    stub.pause();
    pause.add(worker.output().await("[" + ant + "] ⏸️", p0));
    long q0 = System.nanoTime();
    stub.resume();
    resume.add(worker.output().await("[" + ant + "] ▶️", q0));
  }

  /**
   * Waits (25 minutes at most) until visibility shows the {@code n} ants of {@code colony} waiting:
   * the time since {@code s0}, or how many were waiting when it gave up, and how many at 120 s.
   */
  static String awaitWaiting(Bench b, String colony, int n, long s0) throws InterruptedException {
    long limit = System.nanoTime() + Duration.ofMinutes(25).toNanos();
    long waiting = 0;
    long at120 = -1;
    while (System.nanoTime() < limit) {
      try {
        waiting = b.count(colony, "AntState = 'waiting'");
      } catch (RuntimeException busy) {
        // ask again
      }
      if (at120 < 0 && System.nanoTime() - s0 >= 120_000_000_000L) {
        at120 = waiting;
      }
      if (waiting == n) {
        break;
      }
      Thread.sleep(500);
    }
    long ms = (System.nanoTime() - s0) / 1_000_000;
    String cell = waiting == n ? ScaleBench.ms(ms) : String.format(Locale.ROOT, "%,d of %,d after %s", waiting, n, ScaleBench.ms(ms));
    if (at120 >= 0) {
      cell += String.format(Locale.ROOT, " (%,d at 120 s)", at120);
    }
    return cell;
  }

  private static double p(List<Double> xs, int pct) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    return ScaleBench.pct(s, pct);
  }

  private static String pp(List<Double> xs) {
    return xs.isEmpty() ? "-" : ScaleBench.msd(p(xs, 50)) + " / " + ScaleBench.msd(p(xs, 99));
  }

  private static String pm(List<Double> xs) {
    return xs.isEmpty() ? "-" : ScaleBench.msd(p(xs, 50)) + " / " + ScaleBench.msd(Collections.max(xs));
  }

  private static ClusterScript.Run script(Duration limit, String... args) throws Exception {
    return SCRIPT.run(limit, args);
  }

  private static void deleteRecursively(Path p) throws Exception {
    if (!Files.exists(p)) {
      return;
    }
    // PostgreSQL's files belong to its own user when run as root: rm handles that and symlinks.
    new ProcessBuilder("rm", "-rf", p.toString()).inheritIO().start().waitFor();
  }
}
