package dev.colony.bench;

import static dev.colony.testing.Eventually.eventually;
import com.google.protobuf.ByteString;
import dev.colony.ant.AntWorkflow;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Colony's scale benchmarks, one run, one report ({@code bench/run} writes {@code bench/RESULTS.md}):
 * ants per worker, command latency, orchestration overhead per session, replay cost over a long
 * life, and crash recovery. Real processes on loopback: {@code colony server} (the Temporal dev
 * server with SQLite) and {@code colony worker} from the built jar, as a user runs them.
 */
public final class ScaleBench {
  private static final Path JAR = Path.of(System.getProperty("colony.jar", "target/colony.jar")).toAbsolutePath();
  private static final Path LAUNCHER = Path.of(System.getProperty("colony.launcher", "../colony")).toAbsolutePath().normalize();
  private static final String JAVA = ProcessHandle.current().info().command().orElse("java");

  private ScaleBench() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "../bench/RESULTS.md").toAbsolutePath();
    List<Integer> sizes = new ArrayList<>();
    for (String s : System.getProperty("bench.ants", "1000,10000").split(",")) {
      sizes.add(Integer.parseInt(s.trim()));
    }
    int commands = Integer.getInteger("bench.commands", 1000);
    String only = System.getProperty("bench.only", "1,2,3,4,5,6,7");
    Report r = new Report();
    r.line("# Colony benchmarks");
    r.line("");
    r.line("Produced by `%s` (the `ScaleBench` main) in one run, sections %s. Machine: %d cores, %s, Java %s. "
        + "Started %s.", only.equals("7") ? "bench/commands" + (System.getProperty("bench.cmdAnts") == null ? ""
            : " -Dbench.cmdAnts=" + System.getProperty("bench.cmdAnts")) : "bench/run", only,
        Runtime.getRuntime().availableProcessors(), System.getProperty("os.name") + " "
        + System.getProperty("os.arch"), Runtime.version(), Instant.now());
    r.line("Server: `colony server` (the Temporal dev server, SQLite) unless a row says otherwise; worker: "
        + "`colony worker` from the built jar, JVM flags as the launcher's (%s).", String.join(" ", jvmFlags()));
    r.line("");
    long t0 = System.nanoTime();
    if (only.contains("1") || only.contains("2")) {
      antsPerWorker(r, sizes, commands, only.contains("2"));
    }
    if (only.contains("3")) {
      overhead(r);
    }
    if (only.contains("4")) {
      replay(r);
    }
    if (only.contains("5")) {
      recovery(r);
    }
    if (only.contains("7")) {
      List<Integer> cmdAnts = new ArrayList<>();
      for (String s : System.getProperty("bench.cmdAnts", "10").split(",")) {
        cmdAnts.add(Integer.parseInt(s.trim()));
      }
      CommandBench.run(r, cmdAnts, Integer.getInteger("bench.stormAnts", 3000));
    }
    if (only.contains("6")) {
      ClusterBench.run(r, Integer.getInteger("bench.clusterAnts", 10_000), Integer.getInteger("bench.clusterCommands", 200));
    }
    r.line("");
    r.line("Whole run: %d s. Where a target is missed and what would close it: [GAPS.md](GAPS.md).",
        (System.nanoTime() - t0) / 1_000_000_000L);
    Files.createDirectories(out.getParent());
    Files.writeString(out, r.text());
    System.out.println(r.text());
  }

  // ---- 1 and 2: ants per worker, command latency ----

  private static void antsPerWorker(Report r, List<Integer> sizes, int commands, boolean latency) throws Exception {
    r.line("## 1. Ants per worker");
    r.line("");
    r.line("N ants waiting on a cron tick (`0 0 1 1 *`), one worker. *start* is `colony start` of all "
        + "(one CLI process); *all waiting* is until visibility shows every ant in state `waiting` (each "
        + "ran its first workflow task). RSS and threads from `/proc`, heap used after a full GC "
        + "(`jcmd GC.run`, then `GC.heap_info`). *listed* is `colony status --json` (a whole CLI process).");
    r.line("");
    r.line("| ants | `colony start` | all waiting | worker RSS | heap after GC | OS threads | listed by `status --json` | target (10,000) |");
    r.line("|---|---|---|---|---|---|---|---|");
    int largest = Collections.max(sizes);
    List<String> latencyRows = new ArrayList<>();
    for (int n : sizes) {
      Path tmp = Files.createTempDirectory("colony-scale");
      Path dir = colony(tmp, "scale", n, "schedule:\n  cron: \"0 0 1 1 *\"\n", "[\"true\"]", null);
      try (Bench b = new Bench(tmp, dir)) {
        b.startServer();
        Proc worker = b.startWorker("w");
        long s0 = System.nanoTime();
        b.cli("start", dir.toString());
        long startMs = (System.nanoTime() - s0) / 1_000_000;
        // Not an assertion: a slow start is a figure too. Past the limit, say how many were waiting.
        long limit = System.nanoTime() + Duration.ofMinutes(WAIT_LIMIT_MIN).toNanos();
        long waiting = 0;
        long at120 = -1;
        while (System.nanoTime() < limit) {
          try {
            waiting = b.count("scale", "AntState = 'waiting'");
          } catch (io.grpc.StatusRuntimeException e) {
            // the server is busy: ask again
          }
          if (at120 < 0 && System.nanoTime() - s0 >= 120_000_000_000L) {
            at120 = waiting;
          }
          if (waiting == n) {
            break;
          }
          Thread.sleep(500);
        }
        long waitingMs = (System.nanoTime() - s0) / 1_000_000;
        String waitingCell = waiting == n ? ms(waitingMs) : String.format(Locale.ROOT, "%,d of %,d after %s", waiting, n,
            ms(waitingMs));
        if (at120 >= 0) {
          waitingCell += String.format(Locale.ROOT, " (%,d at 120 s)", at120);
        }
        Thread.sleep(2000);
        long rss = proc(worker.pid(), "VmRSS");
        long threads = proc(worker.pid(), "Threads");
        long heap = heapAfterGc(worker.pid());
        long l0 = System.nanoTime();
        String json = b.cli("status", "--json");
        long listMs = (System.nanoTime() - l0) / 1_000_000;
        int listed = json.split("\"workflowId\"", -1).length - 1;
        String verdict = n < 10_000 ? "" : String.join(", ",
            (waiting == n && waitingMs <= 120_000 ? "start ✅" : "start ❌"),
            (rss * 1024 < (1L << 30) ? "RSS ✅" : "RSS ❌"),
            (threads < 100 ? "threads ✅" : "threads ❌"),
            (listed == n ? "listed ✅" : "listed ❌"));
        r.line("| %,d | %s | %s | %,d MiB | %,d MiB | %d | %,d in %s | %s |", n, ms(startMs), waitingCell,
            rss / 1024, heap / (1024 * 1024), threads, listed, ms(listMs), verdict);
        if (latency && n == largest) {
          latencyRows = latency(b, worker, dir, n, commands);
        }
      }
    }
    if (!latencyRows.isEmpty()) {
      r.line("");
      r.line("## 2. Command latency, %,d ants", largest);
      r.line("");
      r.line("In-process: one connected client; *pause* and *resume* are from the signal sent to the ant's "
          + "post (⏸️ paused / ▶️ resuming) appearing in the worker's chat output; *status one* is the `status` "
          + "query; *status all* lists every ant from visibility (paginated). Whole CLI: `./colony ...` processes "
          + "through the launcher (JVM start, class-data-sharing archive, connection included).");
      r.line("");
      r.line("| command | runs | p50 | p99 | max | target |");
      r.line("|---|---|---|---|---|---|");
      latencyRows.forEach(r::line);
    }
    r.line("");
  }

  private static final int WAIT_LIMIT_MIN = Integer.getInteger("bench.waitMinutes", 25);

  private static List<String> latency(Bench b, Proc worker, Path dir, int n, int commands) throws Exception {
    List<String> rows = new ArrayList<>();
    Random random = new Random(42);
    List<Double> pause = new ArrayList<>();
    List<Double> resume = new ArrayList<>();
    List<Double> signalRpc = new ArrayList<>();
    OutputPump tail = worker.output();
    for (int i = 0; i < commands / 2; i++) {
      String ant = antName(random.nextInt(n));
      AntWorkflow stub = b.client.newWorkflowStub(AntWorkflow.class, "ant/scale/" + ant);
      long p0 = System.nanoTime();
      stub.pause();
      signalRpc.add((System.nanoTime() - p0) / 1e6);
      pause.add(tail.await("[" + ant + "] ⏸️", p0));
      long q0 = System.nanoTime();
      stub.resume();
      resume.add(tail.await("[" + ant + "] ▶️", q0));
    }
    rows.add(row("pause (signal → ⏸️ post), in-process", pause, "p50 < 20 ms, p99 < 100 ms"));
    rows.add(row("resume (signal → ▶️ post), in-process", resume, "p50 < 20 ms, p99 < 100 ms"));
    rows.add(row("of which: the signal call until the server acknowledged it", signalRpc, ""));
    List<Double> status = new ArrayList<>();
    for (int i = 0; i < commands; i++) {
      AntWorkflow stub = b.client.newWorkflowStub(AntWorkflow.class, "ant/scale/" + antName(random.nextInt(n)));
      long s0 = System.nanoTime();
      stub.status();
      status.add((System.nanoTime() - s0) / 1e6);
    }
    rows.add(row("status of one ant (query), in-process", status, "p50 < 20 ms, p99 < 100 ms"));
    List<Double> all = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      long s0 = System.nanoTime();
      int listed = b.listAll("scale");
      all.add((System.nanoTime() - s0) / 1e6);
      if (listed != n) {
        throw new IllegalStateException("listed " + listed + " of " + n);
      }
    }
    rows.add(row("status of all " + String.format("%,d", n) + " (visibility list), in-process", all, "< 3 s"));
    // Whole CLI processes through the launcher: the first builds the CDS archive, so warm up.
    List<Double> cliStatus = new ArrayList<>();
    List<Double> cliPause = new ArrayList<>();
    List<Double> cliAll = new ArrayList<>();
    b.launcher("status", "scale/" + antName(0));
    b.launcher("status", "scale/" + antName(0));
    for (int i = 0; i < 20; i++) {
      String ant = antName(random.nextInt(n));
      cliStatus.add(b.launcher("status", "scale/" + ant));
      cliPause.add(b.launcher(i % 2 == 0 ? "pause" : "resume", "scale/" + ant));
    }
    for (int i = 0; i < 3; i++) {
      cliAll.add(b.launcher("status", "--json"));
    }
    rows.add(row("`./colony status ANT` (whole process)", cliStatus, "< 700 ms"));
    rows.add(row("`./colony pause ANT` / `resume ANT` (whole process)", cliPause, "< 700 ms"));
    rows.add(row("`./colony status --json`, all " + String.format("%,d", n) + " (whole process)", cliAll, "< 3 s"));
    return rows;
  }

  // ---- 3: orchestration overhead per session ----

  private static void overhead(Report r) throws Exception {
    r.line("## 3. Orchestration overhead per session");
    r.line("");
    r.line("Continuous ants on the `command` engine whose agent (`true`) exits at once, no sleep between "
        + "sessions, one worker; sessions counted from each ant's `AntSessions` over a %d s window after a "
        + "warm-up. The plain loop, in the same run, spawns the same agent from as many threads as there are "
        + "ants, back to back. *added per session* = wall time per session (all ants together) minus the "
        + "plain loop's; *per ant cycle* = how much longer one ant's cycle takes than one plain-loop "
        + "iteration.", OVERHEAD_WINDOW_S);
    r.line("");
    r.line("| ants | Colony sessions/s | plain loop sessions/s | ratio | added per session | per ant cycle: Colony / plain | target (100 ants) |");
    r.line("|---|---|---|---|---|---|---|");
    for (int m : List.of(1, 100)) {
      Path tmp = Files.createTempDirectory("colony-overhead");
      Path dir = colony(tmp, "loop", m, "", "[\"true\"]", null);
      double colonyRate;
      try (Bench b = new Bench(tmp, dir)) {
        b.startServer();
        b.startWorker("w");
        b.cli("start", dir.toString());
        Thread.sleep(15_000); // warm-up: every ant past its first sessions, the JIT warm
        long s1 = b.sumSessions("loop");
        long t1 = System.nanoTime();
        Thread.sleep(OVERHEAD_WINDOW_S * 1000L);
        long s2 = b.sumSessions("loop");
        long t2 = System.nanoTime();
        colonyRate = (s2 - s1) / ((t2 - t1) / 1e9);
      }
      double plainRate = plainLoop(m, OVERHEAD_WINDOW_S);
      double added = 1000 / colonyRate - 1000 / plainRate;
      r.line("| %d | %.1f | %.1f | %.1f× | %.1f ms | %.0f ms / %.1f ms | %s |", m, colonyRate, plainRate,
          plainRate / colonyRate, added, 1000 * m / colonyRate, 1000 * m / plainRate,
          m == 100 ? (added < 25 ? "< 25 ms ✅" : "< 25 ms ❌") : "");
    }
    r.line("");
  }

  private static final int OVERHEAD_WINDOW_S = Integer.getInteger("bench.window", 30);

  /** Sessions per second of a plain loop: {@code threads} threads each spawning the agent back to back. */
  private static double plainLoop(int threads, int seconds) throws Exception {
    java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    List<Thread> ts = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < threads; i++) {
      Thread t = Thread.ofPlatform().start(() -> {
        while (System.nanoTime() < end) {
          try {
            Process p = new ProcessBuilder("true").redirectErrorStream(true).start();
            try {
              p.getOutputStream().write("the prompt\n".getBytes(StandardCharsets.UTF_8));
              p.getOutputStream().close();
            } catch (IOException agentGone) {
              // `true` may exit before reading its prompt (a broken pipe), as the engine allows
            }
            p.getInputStream().readAllBytes();
            p.waitFor();
            done.incrementAndGet();
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
      ts.add(t);
    }
    for (Thread t : ts) {
      t.join();
    }
    return done.get() / ((System.nanoTime() - t0) / 1e9);
  }

  // ---- 4: replay cost ----

  private static void replay(Report r) throws Exception {
    r.line("## 4. Replay cost over a long life");
    r.line("");
    r.line("In-process, on the time-skipping test server: an ant with 5-minute sessions (instant session, "
        + "300 s sleep). It continues as new every " + dev.colony.spec.AntSpec.DEFAULT_CONTINUE_AS_NEW_EVERY + " sessions (the "
        + "default), so its latest run never holds more than that; its age lives only in what it carries over. The *year-old* run starts from the memory "
        + "a year of sessions leaves (105,000 sessions, every bounded list full: 5,000 handled issues, the "
        + "message-id memory) and runs to its continue-as-new. Replay: `WorkflowReplayer` of that run's "
        + "history, %d times after 5 warm-ups.", REPLAYS);
    r.line("");
    r.line("*in one worker* is the time per history when one replay worker replays %d copies in a row (no "
        + "worker built per call): what a running worker pays to rebuild an ant it evicted.", REPLAYS);
    r.line("");
    r.line("| ant | sessions in its latest run | events in the run | events per session | replay p50 | replay p99 | in one worker | target |");
    r.line("|---|---|---|---|---|---|---|---|");
    var young = ReplayBench.measure("10 sessions", null, 10, REPLAYS);
    var full = ReplayBench.measure("new, first full run", null, 100, REPLAYS);
    var old = ReplayBench.measure("a year old", ReplayBench.yearOld(), 100, REPLAYS);
    for (var x : List.of(young, full, old)) {
      r.line("| %s | %d | %,d | %.1f | %.1f ms | %.1f ms | %.1f ms | %s |", x.label(), x.sessionsInRun(), x.events(),
          x.eventsPerSession(), x.replayMedianMs(), x.replayP99Ms(), x.replayInWorkerMs(),
          x == young ? "" : (x.replayMedianMs() < 100 && x.events() <= 10_000 ? "< 100 ms, ≤ 10,000 events ✅"
              : "< 100 ms, ≤ 10,000 events ❌"));
    }
    r.line("");
  }

  private static final int REPLAYS = 20;

  // ---- 5: crash recovery ----

  private static void recovery(Report r) throws Exception {
    int kills = Integer.getInteger("bench.kills", 10);
    var m = dev.colony.fault.RecoveryBench.measure(kills);
    r.line("## 5. Crash recovery");
    r.line("");
    r.line("`kill -9` of the worker running a session (one ant on the `command` engine blocked mid-session, "
        + "heartbeat timeout 3 s, sticky queues on), %d kills per figure.", kills);
    r.line("");
    r.line("| figure | median | p95 | min | max |");
    r.line("|---|---|---|---|---|");
    r.line(row5("new worker ready → session running again", m.readyToRunning()));
    r.line(row5("kill → session resumed (new worker started at once)", m.killToResumed()));
    r.line("");
    r.line("Kill → resumed is bounded below by the heartbeat timeout (the retry waits for the dead attempt "
        + "to time out) and by the new worker's JVM start.");
    r.line("");
  }

  private static String row5(String name, List<Long> xs) {
    List<Double> d = xs.stream().map(Long::doubleValue).sorted().toList();
    return String.format(Locale.ROOT, "| %s | %.0f ms | %.0f ms | %.0f ms | %.0f ms |", name, pct(d, 50), pct(d, 95),
        d.get(0), d.get(d.size() - 1));
  }

  // ---- helpers ----

  static String antName(int i) {
    return String.format("ant-%05d", i);
  }

  /** A colony of {@code n} command ants with the given extra YAML. */
  static Path colony(Path tmp, String name, int n, String extra, String argv, String defaults) throws IOException {
    Path dir = tmp.resolve("colony");
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("colony.yaml"), "name: " + name + "\n" + (defaults == null ? "" : defaults));
    for (int i = 0; i < n; i++) {
      Files.writeString(dir.resolve("ants").resolve(antName(i) + ".yaml"), "name: " + antName(i)
          + "\ndescription: a benchmark ant\ninstructions: work\nengine: command\ncommand:\n  argv: " + argv + "\n"
          + extra);
    }
    return dir;
  }

  static String row(String name, List<Double> xs, String target) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    return String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s |", name, s.size(), msd(pct(s, 50)),
        msd(pct(s, 99)), msd(s.get(s.size() - 1)), target);
  }

  static double pct(List<Double> sorted, int p) {
    int i = (int) Math.ceil(sorted.size() * p / 100.0) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  static String msd(double ms) {
    return ms >= 1000 ? String.format(Locale.ROOT, "%,.2f s", ms / 1000) : String.format(Locale.ROOT, "%.1f ms", ms);
  }

  static String ms(long ms) {
    return ms >= 1000 ? String.format(Locale.ROOT, "%,.1f s", ms / 1000.0) : ms + " ms";
  }

  static List<String> jvmFlags() {
    List<String> f = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
    if (Runtime.version().feature() >= 23) {
      f.add("--sun-misc-unsafe-memory-access=allow");
    }
    return f;
  }

  /** A value from /proc/PID/status, in kB for sizes. */
  static long proc(long pid, String key) throws IOException {
    for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (l.startsWith(key + ":")) {
        return Long.parseLong(l.substring(key.length() + 1).trim().split("\\s+")[0]);
      }
    }
    return -1;
  }

  /** Heap in use after a full GC, in bytes, from jcmd. */
  public static long heapAfterGc(long pid) throws Exception {
    Path jcmd = Path.of(JAVA).resolveSibling("jcmd");
    run(List.of(jcmd.toString(), Long.toString(pid), "GC.run"));
    String info = run(List.of(jcmd.toString(), Long.toString(pid), "GC.heap_info"));
    long total = 0;
    var m = java.util.regex.Pattern.compile("used (\\d+)K").matcher(info);
    while (m.find()) {
      total += Long.parseLong(m.group(1)) * 1024;
    }
    // Metaspace lines also say "used": count only the heap's generations / regions summary lines.
    var heap = java.util.regex.Pattern.compile("(?m)^\\s*(garbage-first heap|def new generation|tenured generation|PSYoungGen|ParOldGen|ZHeap|Shenandoah)[^\\n]*used (\\d+)K").matcher(info);
    long heapOnly = 0;
    while (heap.find()) {
      heapOnly += Long.parseLong(heap.group(2)) * 1024;
    }
    return heapOnly > 0 ? heapOnly : total;
  }

  static String run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(60, TimeUnit.SECONDS);
    return out;
  }

  record Proc(Process process, Path log, OutputPump output) {
    long pid() {
      return process.pid();
    }
  }

  /**
   * Copies a worker's output to its log file and notes when each line appears. It reads the
   * worker's pipe with blocking reads, so it learns of a post the moment it is printed without
   * polling a file: on 2 cores a polling reader takes CPU from the server and the worker it
   * measures.
   */
  static final class OutputPump extends Thread {
    private final java.io.InputStream in;
    private final Path log;
    private final Map<String, Long> seen = new java.util.HashMap<>(); // guarded by this

    OutputPump(java.io.InputStream in, Path log) {
      super("output-pump");
      setDaemon(true);
      this.in = in;
      this.log = log;
    }

    @Override
    public void run() {
      try (java.io.InputStream input = in; java.io.OutputStream out = Files.newOutputStream(log,
          java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
        byte[] buf = new byte[65536];
        java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();
        int r;
        while ((r = input.read(buf)) > 0) {
          long now = System.nanoTime();
          out.write(buf, 0, r);
          out.flush();
          for (int i = 0; i < r; i++) {
            if (buf[i] != '\n') {
              pending.write(buf[i]);
              continue;
            }
            String l = pending.toString(StandardCharsets.UTF_8);
            pending.reset();
            int sp = l.indexOf(' ');
            int sp2 = sp < 0 ? -1 : l.indexOf(' ', sp + 1);
            if (sp2 > 0) {
              synchronized (this) {
                seen.put(l.substring(0, sp2), now);
                notifyAll();
              }
            }
          }
        }
      } catch (IOException e) {
        // the worker is gone
      }
    }

    /** Milliseconds from {@code sentNanos} to the first line starting with {@code prefix} after it. */
    synchronized double await(String prefix, long sentNanos) throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (true) {
        Long at = seen.remove(prefix);
        if (at != null && at >= sentNanos) {
          return (at - sentNanos) / 1e6;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("no '" + prefix + "' post within 60 s");
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /** A colony server and workers for one benchmark. */
  static final class Bench implements AutoCloseable {
    final Path tmp;
    final Path dir;
    final int port;
    final String address;
    private Process server;
    private final List<Process> workers = new ArrayList<>();
    private WorkflowServiceStubs stubs;
    WorkflowClient client;
    /** The connection's TEMPORAL_* variables, for every process (the cluster's mTLS). */
    final Map<String, String> env = new java.util.HashMap<>();
    private String target;

    Bench(Path tmp, Path dir) throws IOException {
      this.tmp = tmp;
      this.dir = dir;
      try (var s = new java.net.ServerSocket(0)) {
        this.port = s.getLocalPort();
      }
      this.address = "127.0.0.1:" + port;
    }

    List<String> jvm(String... args) {
      List<String> cmd = new ArrayList<>(List.of(JAVA));
      cmd.addAll(jvmFlags());
      cmd.add("-jar");
      cmd.add(JAR.toString());
      cmd.addAll(List.of(args));
      return cmd;
    }

    /** Uses a Temporal that runs elsewhere (bin/cluster.sh's) instead of starting a dev server. */
    void useExternal(String address, Map<String, String> connection, WorkflowServiceStubsOptions options) {
      target = address;
      env.putAll(connection);
      stubs = WorkflowServiceStubs.newServiceStubs(options);
      client = WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().setNamespace("default").build());
    }

    String target() {
      return target != null ? target : address;
    }

    void startServer() throws Exception {
      int ui;
      try (var s = new java.net.ServerSocket(0)) {
        ui = s.getLocalPort();
      }
      Path log = tmp.resolve("server.log");
      ProcessBuilder pb = new ProcessBuilder(jvm("server", "--port", Integer.toString(port), "--ui-port",
          Integer.toString(ui), "--db", tmp.resolve("temporal.db").toString()))
          .redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().put("COLONY_TEMPORAL_CLI", dev.colony.fault.Cluster.temporalCli());
      server = pb.start();
      eventually(Duration.ofSeconds(90), () -> read(log).contains("Ctrl-C to stop"), "read(log).contains(\"Ctrl-C to stop\")");
      stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
      client = WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().setNamespace("default").build());
    }

    /** kill -9 of {@code colony server} (its dev server dies with it), then the same server again. */
    void killAndRestartServer() throws Exception {
      killServerOnly();
      startServer();
    }

    /** kill -9 of {@code colony server} and its dev server; {@link #startServer} brings it back. */
    void killServerOnly() throws Exception {
      List<ProcessHandle> children = server.descendants().toList();
      server.destroyForcibly();
      server.waitFor(10, TimeUnit.SECONDS);
      for (ProcessHandle c : children) {
        c.destroyForcibly();
      }
      eventually(Duration.ofSeconds(10), () -> children.stream().noneMatch(ProcessHandle::isAlive), "children.stream().noneMatch(ProcessHandle::isAlive)");
      if (stubs != null) {
        stubs.shutdownNow();
      }
    }

    Proc startWorker(String name, String... extra) throws Exception {
      Path log = tmp.resolve("worker-" + name + ".log");
      List<String> args = new ArrayList<>(List.of("worker", dir.toString(), "--address", target()));
      args.addAll(List.of(extra));
      ProcessBuilder pb = new ProcessBuilder(jvm(args.toArray(String[]::new))).redirectErrorStream(true);
      pb.environment().putAll(env);
      Process p = pb.start();
      OutputPump pump = new OutputPump(p.getInputStream(), log);
      pump.start();
      workers.add(p);
      eventually(Duration.ofSeconds(60), () -> {
        if (!p.isAlive()) {
          throw new IllegalStateException("worker exited: " + read(log));
        }
        return read(log).contains(" polling '");
      }, "{ if (!p.isAlive()) { throw new IllegalStateException(\"worker exited: \" + read(log)); }...");
      return new Proc(p, log, pump);
    }

    String cli(String... args) throws Exception {
      List<String> full = new ArrayList<>(List.of(args));
      full.add("--address");
      full.add(target());
      ProcessBuilder pb = new ProcessBuilder(jvm(full.toArray(String[]::new))).redirectErrorStream(true);
      pb.environment().putAll(env);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IllegalStateException("colony " + String.join(" ", args) + " failed: " + out);
      }
      return out;
    }

    /** Milliseconds of a whole {@code ./colony ...} process through the launcher. */
    double launcher(String... args) throws Exception {
      List<String> withAddress = new ArrayList<>(List.of(args));
      withAddress.add("--address");
      withAddress.add(target());
      return launcherNoAddress(withAddress.toArray(String[]::new));
    }

    /** The same, for a command that takes no server address ({@code --help}). */
    double launcherNoAddress(String... args) throws Exception {
      List<String> full = new ArrayList<>(List.of(LAUNCHER.toString()));
      full.addAll(List.of(args));
      long t0 = System.nanoTime();
      ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true);
      pb.environment().putAll(env);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int code = p.waitFor();
      double ms = (System.nanoTime() - t0) / 1e6;
      if (code != 0) {
        throw new IllegalStateException("./colony " + String.join(" ", args) + " failed: " + out);
      }
      if (ms > 2000) {
        System.err.printf("slow: ./colony %s took %.0f ms:%n%s%n", String.join(" ", args), ms, out);
      }
      return ms;
    }

    long count(String colony, String filter) {
      return stubs.blockingStub().countWorkflowExecutions(CountWorkflowExecutionsRequest.newBuilder()
          .setNamespace("default").setQuery("ColonyName = '" + colony + "' AND AntName IS NOT NULL AND "
              + "ExecutionStatus = 'Running' AND " + filter).build()).getCount();
    }

    /**
     * Every running ant of {@code colony}, page by page. A page the server refuses (its persistence
     * rate limit, RESOURCE_EXHAUSTED) is asked again after 0.5 s, up to ten times, and each refusal
     * is printed: the time measured then includes the wait, as a user's command would.
     */
    int listAll(String colony) throws InterruptedException {
      int n = 0;
      ByteString token = ByteString.EMPTY;
      do {
        ListWorkflowExecutionsResponse r = null;
        for (int attempt = 1; r == null; attempt++) {
          try {
            r = stubs.blockingStub().listWorkflowExecutions(ListWorkflowExecutionsRequest.newBuilder()
                .setNamespace("default")
                .setQuery("ColonyName = '" + colony + "' AND AntName IS NOT NULL AND ExecutionStatus = 'Running'")
                .setPageSize(1000).setNextPageToken(token).build());
          } catch (io.grpc.StatusRuntimeException e) {
            if (e.getStatus().getCode() != io.grpc.Status.Code.RESOURCE_EXHAUSTED || attempt == 10) {
              throw e;
            }
            System.err.printf("listing: a page was refused (attempt %d): %s%n", attempt, e.getStatus());
            Thread.sleep(500);
          }
        }
        n += r.getExecutionsCount();
        token = r.getNextPageToken();
      } while (!token.isEmpty());
      return n;
    }

    /** Sessions of every ant of {@code colony}, summed from their AntSessions search attribute. */
    long sumSessions(String colony) {
      long sum = 0;
      ByteString token = ByteString.EMPTY;
      var key = dev.colony.visibility.AntSearchAttributes.SESSIONS;
      do {
        ListWorkflowExecutionsResponse r = stubs.blockingStub().listWorkflowExecutions(
            ListWorkflowExecutionsRequest.newBuilder().setNamespace("default")
                .setQuery("ColonyName = '" + colony + "' AND AntName IS NOT NULL AND ExecutionStatus = 'Running'")
                .setPageSize(1000).setNextPageToken(token).build());
        for (var info : r.getExecutionsList()) {
          Long v = new io.temporal.client.WorkflowExecutionMetadata(info, client.getOptions().getDataConverter())
              .getTypedSearchAttributes().get(key);
          sum += v == null ? 0 : v;
        }
        token = r.getNextPageToken();
      } while (!token.isEmpty());
      return sum;
    }

    static String read(Path p) {
      try {
        return Files.exists(p) ? Files.readString(p) : "";
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      for (Process w : workers) {
        w.destroyForcibly();
      }
      if (server != null) {
        server.destroy(); // lets colony server stop its dev server
        try {
          if (!server.waitFor(15, TimeUnit.SECONDS)) {
            server.destroyForcibly();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (stubs != null) {
        stubs.shutdownNow();
      }
    }
  }

  /** The report being written. */
  static final class Report {
    private final StringBuilder sb = new StringBuilder();

    void line(String format, Object... args) {
      sb.append(args.length == 0 ? format : String.format(Locale.ROOT, format, args)).append('\n');
      System.out.println(args.length == 0 ? format : String.format(Locale.ROOT, format, args));
    }

    String text() {
      return sb.toString();
    }
  }
}
