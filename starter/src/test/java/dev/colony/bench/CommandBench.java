package dev.colony.bench;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.bench.ScaleBench.antName;
import static dev.colony.bench.ScaleBench.msd;
import static dev.colony.bench.ScaleBench.pct;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Section 7: how long a whole {@code ./colony} command takes, as an operator types it, with the
 * {@code temporal} CLI's equivalent call measured in the same run as the yardstick. Starts from
 * a build whose only command so far was {@code --help}, so the archive is whatever the build
 * made, not what a previous command trained.
 */
final class CommandBench {
  private static final Path ROOT = Path.of(System.getProperty("colony.launcher", "../colony")).toAbsolutePath()
      .normalize().getParent();
  private static final int RUNS = Integer.getInteger("bench.cliRuns", 21);

  private CommandBench() {}

  static void run(ScaleBench.Report r, int ants, int storm) throws Exception {
    r.line("## 7. Whole commands, as typed");
    r.line("");
    r.line("Every figure is a whole process: `./colony ...` through the launcher (JDK %d), or the `temporal` "
        + "CLI (the project's pinned copy) for the same call. The run begins by deleting the start-up archives, "
        + "as a fresh build leaves them, and its first command is `./colony --help`.", Runtime.version().feature());
    r.line("");
    Path tmp = Files.createTempDirectory("colony-cmd");
    Path dir = ScaleBench.colony(tmp, "cmd", ants, "schedule:\n  cron: \"0 0 1 1 *\"\n", "[\"true\"]", null);
    try (ScaleBench.Bench b = new ScaleBench.Bench(tmp, dir)) {
      forgetArchives();
      long h0 = System.nanoTime();
      b.launcherNoAddress("--help");
      double firstHelp = (System.nanoTime() - h0) / 1e6;
      List<Double> help = new ArrayList<>();
      for (int i = 0; i < RUNS; i++) {
        help.add(b.launcherNoAddress("--help"));
      }
      b.startServer();
      ScaleBench.Proc worker = b.startWorker("w");
      b.cli("start", dir.toString());
      eventually(Duration.ofMinutes(10), () -> {
        try {
          return b.count("cmd", "AntState = 'waiting'") == ants;
        } catch (RuntimeException busy) {
          return false;
        }
      }, "{ try { return b.count(\"cmd\", \"AntState = 'waiting'\") == ants; } catch (RuntimeExceptio...");
      Random random = new Random(7);
      List<Double> pause = new ArrayList<>();
      List<Double> statusOne = new ArrayList<>();
      List<Double> statusAll = new ArrayList<>();
      List<Double> tSignal = new ArrayList<>();
      List<Double> tQuery = new ArrayList<>();
      List<Double> tList = new ArrayList<>();
      // The same ant by its bare name: one visibility call filtered by AntName finds its colony, so
      // a command about one ant should cost the same at 10 ants and at 10,000.
      List<Double> pauseBare = new ArrayList<>();
      List<Double> statusBare = new ArrayList<>();
      String temporal = dev.colony.fault.Cluster.temporalCli();
      for (int i = 0; i < RUNS; i++) {
        String ant = antName(random.nextInt(ants));
        pause.add(b.launcher(i % 2 == 0 ? "pause" : "resume", "cmd/" + ant));
        statusOne.add(b.launcher("status", "cmd/" + ant));
        statusAll.add(b.launcher("status"));
        pauseBare.add(b.launcher(i % 2 == 0 ? "pause" : "resume", ant));
        statusBare.add(b.launcher("status", ant));
        tSignal.add(timed(temporal, "workflow", "signal", "--address", b.address, "--workflow-id", "ant/cmd/" + ant,
            "--name", i % 2 == 0 ? "resume" : "pause"));
        tQuery.add(timed(temporal, "workflow", "query", "--address", b.address, "--workflow-id", "ant/cmd/" + ant,
            "--type", "status"));
        tList.add(timed(temporal, "workflow", "list", "--address", b.address, "--query",
            "ColonyName = 'cmd' AND ExecutionStatus = 'Running'", "--limit", Integer.toString(ants)));
      }
      r.line("| command | runs | p50 | p99 | `temporal` equivalent | its p50 | ratio of p50s | target |");
      r.line("|---|---|---|---|---|---|---|---|");
      r.line("| first `./colony --help` after a build (training run included) | 1 | %s | | | | | once per build |",
          msd(firstHelp));
      r.line(row("`./colony --help`", help, null, null, "p50 < 150 ms"));
      r.line(row("`./colony pause ANT` / `resume ANT`", pause, "`temporal workflow signal`", tSignal,
          "p50 < 300 ms, p99 < 500 ms"));
      r.line(row("`./colony status ANT`", statusOne, "`temporal workflow query --type status`", tQuery,
          "p50 < 300 ms, p99 < 500 ms"));
      r.line(row("`./colony status` (" + String.format(Locale.ROOT, "%,d", ants) + " ants)", statusAll,
          "`temporal workflow list --limit " + ants + "`", tList, "p50 < 300 ms, p99 < 500 ms"));
      // Side by side: the bare name against colony/ANT (the yardstick columns hold the qualified name).
      String n = String.format(Locale.ROOT, "%,d", ants);
      r.line(row("`./colony pause NAME` / `resume NAME`, bare name (" + n + " ants)", pauseBare,
          "`./colony pause cmd/NAME`", pause, "ratio < 1.2x"));
      r.line(row("`./colony status NAME`, bare name (" + n + " ants)", statusBare,
          "`./colony status cmd/NAME`", statusOne, "ratio < 1.2x"));

      // While a second colony of `storm` ants is being started.
      Path stormTmp = Files.createTempDirectory("colony-storm");
      Path stormDir = ScaleBench.colony(stormTmp, "storm", storm, "schedule:\n  cron: \"0 0 1 1 *\"\n", "[\"true\"]",
          null);
      List<Double> stormPause = new ArrayList<>();
      List<Double> stormStatus = new ArrayList<>();
      // Each colony has its own task queue: the storm's ants need their own worker to reach "waiting".
      Process stormWorker = new ProcessBuilder(b.jvm("worker", stormDir.toString(), "--address", b.address))
          .redirectErrorStream(true).redirectOutput(stormTmp.resolve("worker.log").toFile()).start();
      long s0 = System.nanoTime();
      Process starting = new ProcessBuilder(b.jvm("start", stormDir.toString(), "--address", b.address))
          .redirectErrorStream(true).redirectOutput(stormTmp.resolve("start.log").toFile()).start();
      long startedMs = -1;
      while (stormPause.size() < 100) {
        String ant = antName(random.nextInt(ants));
        stormPause.add(b.launcher(stormPause.size() % 2 == 0 ? "pause" : "resume", "cmd/" + ant));
        stormStatus.add(b.launcher("status", "cmd/" + ant));
        if (startedMs < 0 && !starting.isAlive()) {
          startedMs = (System.nanoTime() - s0) / 1_000_000;
        }
        boolean allWaiting;
        try {
          allWaiting = !starting.isAlive() && b.count("storm", "AntState = 'waiting'") == storm;
        } catch (RuntimeException busy) {
          allWaiting = false;
        }
        if (allWaiting) {
          break;
        }
      }
      starting.waitFor(10, TimeUnit.MINUTES);
      stormWorker.destroy();
      stormWorker.waitFor(30, TimeUnit.SECONDS);
      r.line(row("`./colony pause`/`resume` while " + String.format(Locale.ROOT, "%,d", storm) + " ants start", stormPause,
          null, null, "p99 < 1 s"));
      r.line(row("`./colony status ANT` while they start", stormStatus, null, null, "p99 < 1 s"));
      r.line("");
      r.line("The storm: `colony start` of %,d ants took %s; commands ran from its first second until every new ant "
          + "was waiting (%s in all).", storm, startedMs < 0 ? "longer than the window" : ScaleBench.ms(startedMs),
          ScaleBench.ms((System.nanoTime() - s0) / 1_000_000));
      r.line("");

      // A worker that has just died: its last poll is fresh, so the status query is tried.
      String ant = antName(1);
      worker.process().destroyForcibly();
      worker.process().waitFor(10, TimeUnit.SECONDS);
      List<Double> afterKill = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        afterKill.add(b.launcher("status", "cmd/" + ant));
      }
      r.line("| right after the worker's kill -9 | runs | p50 | p99 | max | target |");
      r.line("|---|---|---|---|---|---|");
      r.line(ScaleBench.row("`./colony status ANT` (no worker answers; visibility)", afterKill, "< 2 s"));

      // A worker asked to stop (SIGTERM) when its server is already gone.
      List<Double> term = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ScaleBench.Proc w = b.startWorker("t" + i);
        b.killServerOnly();
        long t0 = System.nanoTime();
        w.process().destroy(); // SIGTERM
        boolean exited = w.process().waitFor(60, TimeUnit.SECONDS);
        term.add(exited ? (System.nanoTime() - t0) / 1e6 : 60_000.0);
        b.startServer();
      }
      r.line(ScaleBench.row("`colony worker` exit after SIGTERM, server already gone", term, "a few seconds"));
      r.line("");
    }
  }

  private static String row(String name, List<Double> xs, String other, List<Double> ys, String target) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    if (other == null) {
      return String.format(Locale.ROOT, "| %s | %d | %s | %s | | | | %s |", name, s.size(), msd(pct(s, 50)),
          msd(pct(s, 99)), target);
    }
    List<Double> o = new ArrayList<>(ys);
    Collections.sort(o);
    return String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %.1fx | %s |", name, s.size(), msd(pct(s, 50)),
        msd(pct(s, 99)), other, msd(pct(o, 50)), pct(s, 50) / pct(o, 50), target);
  }

  /** Milliseconds of one whole process; it must succeed. */
  private static double timed(String... argv) throws Exception {
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + " failed: " + out);
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  /** As a fresh build leaves them: no start-up archive of any kind. */
  private static void forgetArchives() throws Exception {
    try (Stream<Path> files = Files.list(ROOT.resolve("starter/target"))) {
      for (Path p : files.filter(f -> f.getFileName().toString().matches("colony(-cli)?\\.(jsa|aot).*")).toList()) {
        Files.delete(p);
      }
    }
  }
}
