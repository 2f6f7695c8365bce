package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Measures how fast an ant's session runs again after its worker is killed with SIGKILL, with
 * real processes on loopback (the Temporal dev server, worker processes from the built jar). Run it
 * with {@code bench/recovery}; it writes {@code bench/RESULTS.md}.
 *
 * <ol>
 *   <li>ready -> running: the new worker is started only after the killed attempt's heartbeat
 *       timeout has passed, so the retry is already waiting; measured from the moment the new
 *       worker reports it is polling to the moment the agent process starts again.</li>
 *   <li>kill -> resumed: the new worker is started at once after the kill; measured from the
 *       kill to the moment the agent process starts again.</li>
 * </ol>
 */
public final class RecoveryBench {
  private static final int KILLS = Integer.getInteger("bench.kills", 10);
  private static final long HEARTBEAT_MS = 3000;

  private RecoveryBench() {}

  /** Milliseconds per kill: new worker ready to running again, and kill to resumed. */
  public record Measured(List<Long> readyToRunning, List<Long> killToResumed) {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "bench/RESULTS.md");
    Measured m = measure(KILLS);
    String report = report(m.readyToRunning(), m.killToResumed());
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, report);
    System.out.println(report);
  }

  /** {@code kills} kills for each figure, on a fresh dev server. */
  public static Measured measure(int kills) throws Exception {
    Path tmp = Files.createTempDirectory("colony-bench");
    List<Long> readyToRunning = new ArrayList<>();
    List<Long> killToResumed = new ArrayList<>();
    try (Cluster c = new Cluster(tmp)) {
      c.startServer();
      c.mode("alpha", "block");
      Cluster.WorkerProcess worker = c.startWorker("w0");
      c.start("alpha");
      int session = 1;
      for (int i = 0; i < 2 * kills; i++) {
        boolean startAtOnce = i >= kills;
        final int s = session;
        eventually(java.time.Duration.ofSeconds(60), () -> c.startsOf("alpha", s) == 1, "c.startsOf(\"alpha\", s) == 1");
        Thread.sleep(300); // let the attempt heartbeat its conversation
        long killedAt = System.currentTimeMillis();
        Cluster.kill9(worker);
        if (!startAtOnce) {
          Thread.sleep(HEARTBEAT_MS + 1500);
        }
        worker = c.startWorker("w" + (i + 1));
        long readyAt = System.currentTimeMillis();
        eventually(java.time.Duration.ofSeconds(60), () -> c.startsOf("alpha", s) == 2, "c.startsOf(\"alpha\", s) == 2");
        long rerunAt = c.starts("alpha").stream().filter(x -> x.session() == s)
            .mapToLong(Cluster.Start::atMillis).max().orElseThrow();
        if (startAtOnce) {
          killToResumed.add(rerunAt - killedAt);
        } else {
          readyToRunning.add(rerunAt - readyAt);
        }
        System.out.printf("kill %2d (%s): %d ms%n", i + 1, startAtOnce ? "kill->resumed" : "ready->running",
            startAtOnce ? rerunAt - killedAt : rerunAt - readyAt);
        c.release("alpha", s);
        session++;
      }
    }
    return new Measured(readyToRunning, killToResumed);
  }

  private static String stats(List<Long> xs) {
    List<Long> s = new ArrayList<>(xs);
    Collections.sort(s);
    double median = s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2.0;
    return String.format(Locale.ROOT, "| %.0f ms | %d ms | %d ms | %s |", median, s.get(0), s.get(s.size() - 1),
        String.join(", ", xs.stream().map(String::valueOf).toList()));
  }

  private static String report(List<Long> ready, List<Long> kill) {
    return """
        # Recovery after `kill -9` of a worker

        Measured by `bench/recovery` (the `RecoveryBench` main, real processes on loopback: `colony server`
        running the real Temporal dev server (SQLite), `colony worker` processes from the built jar with
        sticky queues on, one ant on the `command` engine blocked mid-session, heartbeat timeout 3 s).
        %d kills per figure.

        | figure | median | min | max | all runs |
        |---|---|---|---|---|
        | new worker ready -> session running again %s
        | kill -> session resumed (new worker started at once) %s

        - *ready -> running*: the new worker starts after the killed attempt's heartbeat timeout has
          passed, so the retried session activity is already waiting for it.
        - *kill -> resumed*: bounded below by the heartbeat timeout (Temporal retries the activity
          only once the dead attempt stops heartbeating) and by the new worker's JVM start-up.
          Lower `defaults.heartbeat_timeout` to recover faster at the price of more heartbeats.

        Machine: %d cores, Java %s, %s. Recorded %s.
        """.formatted(ready.size(), stats(ready), stats(kill), Runtime.getRuntime().availableProcessors(),
        Runtime.version(), System.getProperty("os.name") + " " + System.getProperty("os.arch"), Instant.now());
  }
}
