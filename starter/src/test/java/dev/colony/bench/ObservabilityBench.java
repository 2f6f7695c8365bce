package dev.colony.bench;

import dev.colony.ant.AntWorkflow;
import dev.colony.bench.ScaleBench.Bench;
import dev.colony.bench.ScaleBench.Proc;
import dev.colony.bench.ScaleBench.Report;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What metrics and traces cost a worker ({@code bench/observability} writes {@code bench/OBSERVABILITY.md}).
 * Real processes on loopback, as {@link ScaleBench}: {@code colony server} and {@code colony worker} from
 * the built jar. The figure to trust on a shared machine is the worker's own CPU time (utime + stime
 * from {@code /proc/PID/stat}) over a fixed window, never wall time; the machine's load is written
 * beside every window.
 *
 * <p>Modes, each a fresh {@code colony worker} process on the same server and the same ants: metrics
 * off; {@code --metrics-port} on and scraped every {@code bench.obsScrapeMs} by the bench, as a
 * Prometheus would; and, when the jar has the OpenTelemetry SDK, the same plus tracing on
 * ({@code OTEL_*} variables pointing at a sink in this process that reads and discards every export).
 */
public final class ObservabilityBench {
  private static final int SESSION_ANTS = Integer.getInteger("bench.obsSessionAnts", 10);
  private static final int ROUNDS = Integer.getInteger("bench.obsRounds", 2);
  private static final int WARMUP_S = Integer.getInteger("bench.obsWarmup", 20);
  private static final int WINDOW_S = Integer.getInteger("bench.obsWindow", 30);
  private static final int IDLE_WINDOW_S = Integer.getInteger("bench.obsIdleWindow", 60);
  private static final int SCRAPE_MS = Integer.getInteger("bench.obsScrapeMs", 2000);
  private static final Path JAR = Path.of(System.getProperty("colony.jar", "target/colony.jar")).toAbsolutePath();
  private static final long CLK_TCK = clockTicks();

  private ObservabilityBench() {}

  /** How a worker runs in one column. */
  enum Mode {
    OFF("metrics off"), ON("metrics on, scraped"), TRACING("metrics on, scraped + tracing on");

    final String title;

    Mode(String title) {
      this.title = title;
    }
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "../bench/OBSERVABILITY.md").toAbsolutePath();
    List<Integer> sizes = new ArrayList<>();
    for (String s : System.getProperty("bench.obsAnts", "1000,10000").split(",")) {
      if (!s.isBlank()) {
        sizes.add(Integer.parseInt(s.trim()));
      }
    }
    String only = System.getProperty("bench.only", "1,2");
    String tracing = System.getProperty("bench.tracing", "auto");
    boolean traces = tracing.equals("on") || (tracing.equals("auto") && jarHasTracing());
    List<Mode> modes = traces ? List.of(Mode.OFF, Mode.ON, Mode.TRACING) : List.of(Mode.OFF, Mode.ON);
    Report r = new Report();
    r.line("# What metrics and traces cost");
    r.line("");
    r.line("Produced by `bench/observability` (the `ObservabilityBench` main) in one run, sections %s. Machine: %d cores, "
        + "%s, Java %s. Started %s; load average then %s.", only, Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.name") + " " + System.getProperty("os.arch"), Runtime.version(), Instant.now(),
        loadavg());
    r.line("");
    r.line("Server: `colony server` (the Temporal dev server, SQLite); worker: `colony worker` from the built jar, "
        + "JVM flags as the launcher's (%s). Every column is a fresh worker process on the same server and the same "
        + "ants, in this order: %s. *Metrics on* is `--metrics-port`, with the bench fetching `/metrics` every %.1f s "
        + "from the worker's start, as a Prometheus would.%s", String.join(" ", ScaleBench.jvmFlags()),
        String.join(", then ", modes.stream().map(m -> m.title).toList()), SCRAPE_MS / 1000.0,
        traces ? " *Tracing on* adds `OTEL_TRACES_EXPORTER=otlp`, `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf` and "
            + "`OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an OTLP/HTTP sink in the bench that reads every export and "
            + "answers 200 (`OTEL_METRICS_EXPORTER=none`, `OTEL_LOGS_EXPORTER=none`)."
            : " No tracing column: " + (tracing.equals("off") ? "`-Dbench.tracing=off`." : "the built jar has no "
                + "OpenTelemetry SDK (tracing is not wired into the worker in this build)."));
    r.line("");
    r.line("The worker's CPU is its own (utime + stime from `/proc/PID/stat`, %d ticks a second) over a fixed window, "
        + "so the other processes on the machine change it little; wall-clock rates (sessions a second) do depend on "
        + "them. *load* is `/proc/loadavg`'s 1-minute figure at the window's start and end: above the core count, "
        + "the machine was shared while measuring.", CLK_TCK);
    r.line("");
    long t0 = System.nanoTime();
    Files.createDirectories(out.getParent());
    // Written after each section too: a run stopped midway keeps what it measured.
    if (only.contains("1")) {
      perSession(r, modes);
      Files.writeString(out, r.text());
    }
    if (only.contains("2")) {
      for (int n : sizes) {
        waiting(r, modes, n);
        Files.writeString(out, r.text());
      }
    }
    r.line(loadNote());
    r.line("");
    r.line("Whole run: %d s.", (System.nanoTime() - t0) / 1_000_000_000L);
    Files.createDirectories(out.getParent());
    Files.writeString(out, r.text());
  }

  // ---- 1: cost per session ----

  private static void perSession(Report r, List<Mode> modes) throws Exception {
    r.line("## 1. Cost per session");
    r.line("");
    r.line("%d continuous ants on the `command` engine whose agent (`true`) exits at once, no sleep between sessions. "
        + "Per column a fresh worker: %d s of warm-up (the ants replayed into its cache, sticky queues moved to it), "
        + "then a %d s window; %d rounds of all columns, alternating. Sessions from the ants' `AntSessions` "
        + "(visibility) at both ends of the window. *CPU per session* = worker CPU in the window / sessions in it; "
        + "*CPU* in %% of one core. RSS from `/proc/PID/status` at the window's end, heap after a full GC (`jcmd "
        + "GC.run`, then `GC.heap_info`) after it. Between columns every ant is paused (the old worker finishes its "
        + "sessions) and resumed on the new worker, so no session is lost in a stopped worker.",
        SESSION_ANTS, WARMUP_S, WINDOW_S, ROUNDS);
    r.line("");
    Path tmp = Files.createTempDirectory("colony-obs-sessions");
    Path dir = ScaleBench.colony(tmp, "loop", SESSION_ANTS, "", "[\"true\"]", null);
    Map<Mode, List<Window>> byMode = new LinkedHashMap<>();
    List<String> rows = new ArrayList<>();
    String lastScrape = null;
    try (Bench b = new Bench(tmp, dir); Sink sink = new Sink()) {
      b.startServer();
      boolean started = false;
      for (int round = 1; round <= ROUNDS; round++) {
        for (Mode mode : modes) {
          Worker w = Worker.start(b, mode, "r" + round + "-" + mode.name().toLowerCase(Locale.ROOT), sink);
          try {
            if (!started) {
              b.cli("start", dir.toString());
              started = true;
            } else {
              signalAll(b, false);
            }
            Thread.sleep(WARMUP_S * 1000L);
            long s1 = b.sumSessions("loop");
            Window win = Window.open(w.proc.pid());
            long spans0 = sink.bytes.get();
            long requests0 = sink.requests.get();
            Thread.sleep(WINDOW_S * 1000L);
            long s2 = b.sumSessions("loop");
            win.close(s2 - s1);
            w.scraper.halt();
            win.heap = ScaleBench.heapAfterGc(w.proc.pid());
            // Paused, no session is in flight when this worker stops: the next one starts every ant at once.
            signalAll(b, true);
            byMode.computeIfAbsent(mode, k -> new ArrayList<>()).add(win);
            rows.add(String.format(Locale.ROOT, "| %d | %s | %,d | %.1f | %.1f %% | %.2f ms | %,d MiB | %,d MiB | %s | %s | %s |",
                round, mode.title, win.sessions, win.sessions / win.wallSeconds(), win.cpuPercent(), win.cpuPerSessionMs(),
                win.rssKb / 1024, win.heap / (1024 * 1024), w.scraper.summary(), mode == Mode.TRACING ? String.format(Locale.ROOT, "%,d requests, %,d KiB",
                    sink.requests.get() - requests0, (sink.bytes.get() - spans0) / 1024) : "", win.load()));
            if (mode != Mode.OFF) {
              lastScrape = w.scraper.last;
            }
          } finally {
            w.stop();
          }
        }
      }
    }
    r.line("| round | worker | sessions in window | sessions/s | CPU | CPU per session | RSS | heap after GC | `/metrics`: scrapes, size p50, time p50 / max | sink received (window) | load |");
    r.line("|---|---|---|---|---|---|---|---|---|---|---|");
    rows.forEach(r::line);
    r.line("");
    r.line("Over all rounds (sums of CPU and sessions; RSS the mean), and the difference to *metrics off*:");
    r.line("");
    r.line("| worker | CPU per session | over off | RSS | over off | target |");
    r.line("|---|---|---|---|---|---|");
    Window off = Window.sum(byMode.get(Mode.OFF));
    for (Mode m : modes) {
      Window w = Window.sum(byMode.get(m));
      double dCpu = 100 * (w.cpuPerSessionMs() / off.cpuPerSessionMs() - 1);
      long dRss = (w.rssKb - off.rssKb) / 1024;
      r.line("| %s | %.2f ms | %s | %,d MiB | %s | %s |", m.title, w.cpuPerSessionMs(),
          m == Mode.OFF ? "" : String.format(Locale.ROOT, "%+.1f %%", dCpu), w.rssKb / 1024,
          m == Mode.OFF ? "" : String.format(Locale.ROOT, "%+,d MiB", dRss),
          m == Mode.OFF ? "" : (dCpu < 5 ? "CPU < +5 % ✅" : "CPU < +5 % ❌") + ", " + (dRss < 50 ? "RSS < +50 MiB ✅" : "RSS < +50 MiB ❌"));
    }
    r.line("");
    if (lastScrape != null) {
      Files.writeString(tmp.resolve("last-scrape.txt"), lastScrape);
      System.out.println("last scrape: " + tmp.resolve("last-scrape.txt"));
      Series s = Series.of(lastScrape);
      r.line("The last scrape of this section: %s.", s.describe());
      r.line("");
      r.line(formulaCheck(s));
      r.line("");
    }
  }

  // ---- 2: N ants waiting ----

  private static void waiting(Report r, List<Mode> modes, int n) throws Exception {
    r.line("## 2. %,d ants waiting on a cron tick", n);
    r.line("");
    Path tmp = Files.createTempDirectory("colony-obs-waiting");
    Path dir = ScaleBench.colony(tmp, "scale", n, "schedule:\n  cron: \"0 0 1 1 *\"\n", "[\"true\"]", null);
    List<String> rows = new ArrayList<>();
    Map<Mode, Window> wins = new LinkedHashMap<>();
    Map<Mode, Long> heaps = new LinkedHashMap<>();
    Map<Mode, Worker> done = new LinkedHashMap<>();
    String startLine;
    try (Bench b = new Bench(tmp, dir); Sink sink = new Sink()) {
      b.startServer();
      Worker first = Worker.start(b, Mode.OFF, "start", sink);
      long s0 = System.nanoTime();
      try {
        b.cli("start", dir.toString());
        long startMs = (System.nanoTime() - s0) / 1_000_000;
        startLine = String.format(Locale.ROOT, "`colony start` of %,d: %s; all waiting: %s (one worker, metrics off).",
            n, ScaleBench.ms(startMs), ClusterBench.awaitWaiting(b, "scale", n, s0));
      } finally {
        first.stop();
      }
      for (Mode mode : modes) {
        Worker w = Worker.start(b, mode, mode.name().toLowerCase(Locale.ROOT), sink);
        try {
          long l0 = System.nanoTime();
          int[] failed = queryAll(b, n);
          long loadMs = (System.nanoTime() - l0) / 1_000_000;
          Thread.sleep(5000);
          Window win = Window.open(w.proc.pid());
          long spans0 = sink.bytes.get();
          long requests0 = sink.requests.get();
          Thread.sleep(IDLE_WINDOW_S * 1000L);
          win.close(0);
          w.scraper.halt();
          // A few scrapes one after the other, on top of those of the window.
          long c0 = cpuMs(w.proc.pid());
          long q0 = System.nanoTime();
          for (int i = 0; i < 5 && mode != Mode.OFF; i++) {
            w.scraper.scrapeOnce();
          }
          // Less the idle worker's own CPU over the same time: what five scrapes cost it.
          double scrapeCpu = (cpuMs(w.proc.pid()) - c0 - win.cpuMs() * (System.nanoTime() - q0) / win.wallNanos) / 5;
          long heap = ScaleBench.heapAfterGc(w.proc.pid());
          wins.put(mode, win);
          heaps.put(mode, heap);
          done.put(mode, w);
          rows.add(String.format(Locale.ROOT, "| %s | %s%s | %.2f %% (%.0f ms) | %,d MiB | %,d MiB | %s | %s | %s | %s |",
              mode.title, ScaleBench.ms(loadMs), failed[0] == 0 ? "" : String.format(Locale.ROOT, " (%,d queries failed)", failed[0]),
              win.cpuPercent(), win.cpuMs(), win.rssKb / 1024, heap / (1024 * 1024), w.scraper.summary(),
              mode == Mode.OFF ? "" : String.format(Locale.ROOT, "%.0f ms", scrapeCpu),
              mode == Mode.TRACING ? String.format(Locale.ROOT, "%,d requests, %,d KiB", sink.requests.get() - requests0,
                  (sink.bytes.get() - spans0) / 1024) : "", win.load()));
        } finally {
          w.stop();
        }
      }
    }
    r.line(startLine);
    r.line("");
    r.line("Then per column a fresh worker; the bench asks every ant its `status` (a query, from " + QUERY_THREADS + " threads: the worker replays each "
        + "ant into its cache, as the one that started them holds them), waits 5 s, then measures a %d s window "
        + "of the idle colony. *CPU* in %% of one core (the worker's CPU time in the window). Heap after a full GC "
        + "(`jcmd GC.run`, then `GC.heap_info`) at the end. Scrapes: those of the window, every %.1f s, and 5 more "
        + "back to back after it; *worker CPU per scrape* is the worker's CPU over those 5, less its idle rate, "
        + "divided by 5.", IDLE_WINDOW_S, SCRAPE_MS / 1000.0);
    r.line("");
    r.line("| worker | every ant queried (cache filled) | CPU in window | RSS | heap after GC | `/metrics`: scrapes, size p50, time p50 / max | worker CPU per scrape | sink received (window) | load |");
    r.line("|---|---|---|---|---|---|---|---|---|");
    rows.forEach(r::line);
    r.line("");
    Window off = wins.get(Mode.OFF);
    for (Mode m : modes) {
      if (m == Mode.OFF) {
        continue;
      }
      Window w = wins.get(m);
      long dRss = (w.rssKb - off.rssKb) / 1024;
      r.line("- %s over off: CPU %+.2f points of one core (%.0f ms → %.0f ms in %d s), RSS %+,d MiB (%s), heap after GC %+,d MiB.",
          m.title, w.cpuPercent() - off.cpuPercent(), off.cpuMs(), w.cpuMs(), IDLE_WINDOW_S, dRss,
          dRss < 50 ? "< +50 MiB ✅" : "< +50 MiB ❌", (heaps.get(m) - heaps.get(Mode.OFF)) / (1024 * 1024));
    }
    Worker on = done.get(Mode.ON);
    if (on != null && on.scraper.last != null) {
      Files.writeString(tmp.resolve("last-scrape.txt"), on.scraper.last);
      System.out.println("last scrape: " + tmp.resolve("last-scrape.txt"));
      Series s = Series.of(on.scraper.last);
      r.line("");
      r.line("The last scrape (metrics on): %s.", s.describe());
      r.line("");
      r.line(formulaCheck(s));
    }
    r.line("");
  }

  /** Pauses (or resumes) every ant of the section-1 colony and waits until visibility shows it. */
  private static void signalAll(Bench b, boolean pause) throws Exception {
    for (int i = 0; i < SESSION_ANTS; i++) {
      AntWorkflow stub = b.client.newWorkflowStub(AntWorkflow.class, "ant/loop/" + ScaleBench.antName(i));
      if (pause) {
        stub.pause();
      } else {
        stub.resume();
      }
    }
    if (pause) {
      dev.colony.testing.Eventually.eventually(Duration.ofSeconds(120),
          () -> b.count("loop", "AntState = 'paused'") >= SESSION_ANTS, "every ant of the section paused");
    }
  }

  private static final int QUERY_THREADS = Integer.getInteger("bench.obsQueryThreads", 16);

  /** Queries every ant's status from QUERY_THREADS threads; returns {failures}. */
  private static int[] queryAll(Bench b, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(QUERY_THREADS);
    AtomicLong failed = new AtomicLong();
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < QUERY_THREADS; t++) {
        int from = t;
        fs.add(pool.submit(() -> {
          for (int i = from; i < n; i += QUERY_THREADS) {
            AntWorkflow stub = b.client.newWorkflowStub(AntWorkflow.class, "ant/scale/" + ScaleBench.antName(i));
            boolean ok = false;
            for (int attempt = 0; attempt < 3 && !ok; attempt++) {
              try {
                stub.status();
                ok = true;
              } catch (RuntimeException e) {
                // a busy server or a query timing out: ask again
              }
            }
            if (!ok) {
              failed.incrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return new int[] {(int) failed.get()};
  }

  /** The series count against the formula (docs/observability.md, "Cost"). */
  private static String formulaCheck(Series s) {
    // Per ant that ran sessions, ant label on: colony_sessions_total{outcome} (one per outcome seen),
    // colony_sessions_started_total, and the usage counters (turns, tokens input/output, cost), which
    // exist only once they counted more than zero (a Tally counter reports deltas: zero never registers).
    long predicted = 0;
    for (var e : s.outcomesPerAnt.entrySet()) {
      predicted += e.getValue().size() + 1;
    }
    predicted += s.usage;
    return String.format(Locale.ROOT, "Series count against the formula: %,d ants with sessions in this process, %,d "
        + "outcome values seen in all (%s); A × (O + 1) + the usage series present (%,d: turns, tokens, cost, only "
        + "once non-zero) = %,d per-ant `colony_*` series predicted, %,d in the scrape (%s), %.0f bytes a line. "
        + "`colony_session_duration_seconds` (no `ant` label; colony × engine × outcome × (10 buckets + `+Inf` + "
        + "count + sum + max)): %,d lines. `temporal_*`: %,d lines; others (`jvm_*`, `process_*`, `system_*`, ...): "
        + "%,d.", s.outcomesPerAnt.size(), s.outcomes.size(), String.join(", ", s.outcomes), s.usage, predicted,
        s.perAnt, predicted == s.perAnt ? "as predicted" : "not as predicted", s.perAntBytesPerLine(),
        s.durationSeries, s.temporal, s.total - s.colony - s.temporal);
  }

  // ---- helpers ----

  private static boolean jarHasTracing() {
    try (var z = new java.util.zip.ZipFile(JAR.toFile())) {
      return z.getEntry("io/opentelemetry/sdk/autoconfigure/AutoConfiguredOpenTelemetrySdk.class") != null;
    } catch (IOException e) {
      return false;
    }
  }

  static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      p.waitFor();
      return Long.parseLong(s);
    } catch (Exception e) {
      return 100;
    }
  }

  /** utime + stime of {@code pid}, in milliseconds. */
  static long cpuMs(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // f[0] is field 3 (state): utime is field 14, stime field 15.
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 1000 / CLK_TCK;
  }

  static String loadavg() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      LOADS.add(Double.parseDouble(f[0]));
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /** Every 1-minute load average read at a window's start or end. */
  private static final List<Double> LOADS = Collections.synchronizedList(new ArrayList<>());

  /** What the machine's load was while measuring, and what that means for the figures. */
  static String loadNote() {
    List<Double> l;
    synchronized (LOADS) {
      l = new ArrayList<>(LOADS);
    }
    if (l.isEmpty()) {
      return "";
    }
    Collections.sort(l);
    int cores = Runtime.getRuntime().availableProcessors();
    String range = String.format(Locale.ROOT, "The 1-minute load average was %.2f to %.2f (median %.2f) at the run's start "
        + "and at every window's start and end, on %d cores", l.get(0), l.get(l.size() - 1), ScaleBench.pct(l, 50), cores);
    return l.get(l.size() - 1) > cores
        ? range + ": **these numbers were taken on a loaded machine** (other processes waited for a core). The "
            + "worker's CPU time is its own and is the figure to trust; wall-clock figures (sessions a second, start, "
            + "query and scrape times) are slower than on a quiet machine, and every ratio between columns carries the "
            + "noise of the load changing between windows."
        : range + ": a quiet machine.";
  }

  static String load1() {
    return loadavg().split(" ")[0];
  }

  /** A measuring window on one worker. */
  static final class Window {
    final long pid;
    long cpu0;
    long wall0;
    long cpu;
    long wallNanos;
    long sessions;
    long rssKb;
    long heap;
    String load0;
    String load1;

    private Window(long pid) {
      this.pid = pid;
    }

    static Window open(long pid) throws IOException {
      Window w = new Window(pid);
      w.load0 = load1();
      w.cpu0 = ObservabilityBench.cpuMs(pid);
      w.wall0 = System.nanoTime();
      return w;
    }

    void close(long sessions) throws IOException {
      cpu = ObservabilityBench.cpuMs(pid) - cpu0;
      wallNanos = System.nanoTime() - wall0;
      this.sessions = sessions;
      rssKb = ScaleBench.proc(pid, "VmRSS");
      load1 = load1();
    }

    static Window sum(List<Window> ws) {
      Window s = new Window(-1);
      for (Window w : ws) {
        s.cpu += w.cpu;
        s.wallNanos += w.wallNanos;
        s.sessions += w.sessions;
        s.rssKb += w.rssKb / ws.size();
        s.heap += w.heap / ws.size();
      }
      return s;
    }

    double wallSeconds() {
      return wallNanos / 1e9;
    }

    double cpuMs() {
      return cpu;
    }

    double cpuPercent() {
      return 100.0 * cpu / (wallNanos / 1e6);
    }

    double cpuPerSessionMs() {
      return sessions == 0 ? Double.NaN : (double) cpu / sessions;
    }

    String load() {
      return load0 + " → " + load1;
    }
  }

  /** A worker process of one column, with its scraper. */
  record Worker(Proc proc, Scraper scraper) {
    static Worker start(Bench b, Mode mode, String name, Sink sink) throws Exception {
      List<String> extra = new ArrayList<>();
      int port = -1;
      if (mode != Mode.OFF) {
        try (var s = new java.net.ServerSocket(0)) {
          port = s.getLocalPort();
        }
        extra.addAll(List.of("--metrics-port", Integer.toString(port)));
      }
      Map<String, String> tracingEnv = new TreeMap<>();
      if (mode == Mode.TRACING) {
        tracingEnv.put("OTEL_TRACES_EXPORTER", "otlp");
        tracingEnv.put("OTEL_METRICS_EXPORTER", "none");
        tracingEnv.put("OTEL_LOGS_EXPORTER", "none");
        tracingEnv.put("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
        tracingEnv.put("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + sink.port());
      }
      b.env.putAll(tracingEnv);
      Proc p;
      try {
        p = b.startWorker(name, extra.toArray(String[]::new));
      } finally {
        tracingEnv.keySet().forEach(b.env::remove);
      }
      Scraper sc = new Scraper(port);
      if (port > 0) {
        sc.start();
      }
      return new Worker(p, sc);
    }

    void stop() throws InterruptedException {
      scraper.halt();
      proc.process().destroy();
      if (!proc.process().waitFor(30, TimeUnit.SECONDS)) {
        proc.process().destroyForcibly();
        proc.process().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** Fetches /metrics every SCRAPE_MS, as a Prometheus would; keeps each scrape's size and time. */
  static final class Scraper extends Thread {
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final List<Long> sizes = Collections.synchronizedList(new ArrayList<>());
    final List<Double> millis = Collections.synchronizedList(new ArrayList<>());
    volatile String last;
    private volatile boolean running = true;

    Scraper(int port) {
      super("scraper");
      setDaemon(true);
      this.port = port;
    }

    @Override
    public void run() {
      long next = System.nanoTime();
      while (running) {
        try {
          scrapeOnce();
        } catch (Exception e) {
          // the worker is starting or stopping: the next one
        }
        next += SCRAPE_MS * 1_000_000L;
        long sleep = next - System.nanoTime();
        if (sleep > 0) {
          try {
            TimeUnit.NANOSECONDS.sleep(sleep);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }

    void scrapeOnce() throws IOException, InterruptedException {
      if (port <= 0) {
        return;
      }
      long t0 = System.nanoTime();
      HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
      double ms = (System.nanoTime() - t0) / 1e6;
      if (r.statusCode() == 200) {
        sizes.add((long) r.body().length);
        millis.add(ms);
        last = new String(r.body(), StandardCharsets.UTF_8);
      }
    }

    void halt() {
      running = false;
      interrupt();
    }

    String summary() {
      if (port <= 0) {
        return "";
      }
      List<Long> s;
      List<Double> m;
      synchronized (sizes) {
        s = new ArrayList<>(sizes);
      }
      synchronized (millis) {
        m = new ArrayList<>(millis);
      }
      if (s.isEmpty()) {
        return "no scrape answered";
      }
      Collections.sort(s);
      Collections.sort(m);
      return String.format(Locale.ROOT, "%d, %,d KiB, %s / %s", s.size(), s.get(s.size() / 2) / 1024,
          ScaleBench.msd(ScaleBench.pct(m, 50)), ScaleBench.msd(m.get(m.size() - 1)));
    }
  }

  /** What one scrape holds. */
  record Series(long total, long colony, long perAnt, long perAntBytes, long usage, long temporal, long durationSeries,
      Map<String, TreeSet<String>> outcomesPerAnt, TreeSet<String> outcomes, long bytes) {
    static Series of(String body) {
      long total = 0;
      long colony = 0;
      long perAnt = 0;
      long perAntBytes = 0;
      long usage = 0;
      long temporal = 0;
      long durations = 0;
      Map<String, TreeSet<String>> outcomesPerAnt = new TreeMap<>();
      TreeSet<String> outcomes = new TreeSet<>();
      for (String l : body.split("\n")) {
        if (l.isBlank() || l.startsWith("#")) {
          continue;
        }
        total++;
        if (l.startsWith("temporal_")) {
          temporal++;
        }
        if (!l.startsWith("colony_")) {
          continue;
        }
        colony++;
        if (l.startsWith("colony_session_duration_seconds")) {
          durations++;
        }
        String ant = label(l, "ant");
        if (ant == null) {
          continue;
        }
        perAnt++;
        perAntBytes += l.length() + 1;
        outcomesPerAnt.computeIfAbsent(ant, k -> new TreeSet<>());
        if (l.startsWith("colony_sessions_total{")) {
          String o = label(l, "outcome");
          outcomesPerAnt.get(ant).add(o);
          outcomes.add(o);
        }
        if (l.startsWith("colony_cost_microdollars_total{") || l.startsWith("colony_tokens_total{")
            || l.startsWith("colony_session_turns_total{")) {
          usage++;
        }
      }
      return new Series(total, colony, perAnt, perAntBytes, usage, temporal, durations, outcomesPerAnt, outcomes,
          body.getBytes(StandardCharsets.UTF_8).length);
    }

    private static String label(String line, String key) {
      int i = line.indexOf("," + key + "=\"");
      if (i < 0) {
        i = line.indexOf("{" + key + "=\"");
      }
      if (i < 0) {
        return null;
      }
      int from = i + key.length() + 3;
      return line.substring(from, line.indexOf('"', from));
    }

    double perAntBytesPerLine() {
      return perAnt == 0 ? 0 : (double) perAntBytes / perAnt;
    }

    String describe() {
      return String.format(Locale.ROOT, "%,d bytes, %,d series (lines not starting with `#`), %.0f bytes a series; "
          + "%,d `colony_*` (%,d with an `ant` label, %,d ants), %,d `temporal_*`", bytes, total,
          total == 0 ? 0.0 : (double) bytes / total, colony, perAnt, outcomesPerAnt.size(), temporal);
    }
  }

  /** An OTLP/HTTP receiver that reads each export and discards it. */
  static final class Sink implements AutoCloseable {
    final AtomicLong requests = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    private final com.sun.net.httpserver.HttpServer server;

    Sink() throws IOException {
      server = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext("/", ex -> {
        try (InputStream in = ex.getRequestBody()) {
          bytes.addAndGet(in.readAllBytes().length);
        }
        requests.incrementAndGet();
        ex.getResponseHeaders().add("Content-Type", "application/x-protobuf");
        ex.sendResponseHeaders(200, -1);
        ex.close();
      });
      server.start();
    }

    int port() {
      return server.getAddress().getPort();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
