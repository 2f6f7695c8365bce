package dev.colony.bench;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.bench.ScaleBench.antName;
import static dev.colony.bench.ScaleBench.msd;
import static dev.colony.bench.ScaleBench.pct;

import dev.colony.board.TaskQueries;
import dev.colony.board.TemporalTaskBoard;
import dev.colony.client.AntRow;
import dev.colony.client.MergeQueues;
import dev.colony.mailbox.Mail;
import dev.colony.sandbox.channel.ChannelRules;
import dev.colony.sandbox.channel.ColonyChannel;
import dev.colony.sandbox.channel.TemporalChannelColony;
import dev.colony.spec.AntIds;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskCards;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskRun;
import dev.colony.task.TaskSettings;
import dev.colony.task.TaskState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Section 7: how long a whole one-shot {@code ./colony} command takes, as an operator (or an ant,
 * from inside its session) types it, beside the {@code temporal} CLI's call that makes the same
 * RPC, measured in the same run with the calls interleaved. Every call is a new process. Three
 * ways to run a colony command are compared: the fast path (the default: the thin client and the
 * per-user resident colony process), today's plain JVM path ({@code COLONY_FAST=off}), and the
 * {@code temporal} CLI's equivalent.
 *
 * <p>The resident process of the run lives in a private runtime directory
 * ({@code COLONY_RUNTIME_DIR}), so the run never meets the user's own; it is stopped at the end.
 */
final class CommandBench {
  private static final Path ROOT = Path.of(System.getProperty("colony.launcher", "../colony")).toAbsolutePath()
      .normalize().getParent();
  private static final Path LAUNCHER = ROOT.resolve("colony");
  private static final Path JAR = ROOT.resolve("starter/target/colony.jar");
  /** Calls per row of the colony command and of its temporal equivalent (p99 of 101: the second slowest). */
  private static final int RUNS = Integer.getInteger("bench.cliRuns", 101);
  /** Calls per row of today's plain JVM path (its p50 only), spread evenly among the others. */
  private static final int TODAY_RUNS = Integer.getInteger("bench.todayRuns", 21);
  /** First calls after {@code daemon stop}, per command. */
  private static final int COLD_RUNS = Integer.getInteger("bench.coldRuns", 11);
  /** Rebuilds (the jar touched) per way of calling. */
  private static final int REBUILD_RUNS = Integer.getInteger("bench.rebuildRuns", 2);
  /** Fast-path commands before the resident process's RSS is read. */
  private static final int RSS_AFTER = Integer.getInteger("bench.rssAfter", 1000);
  private static final int IDLE_SECONDS = Integer.getInteger("bench.idleSeconds", 30);
  /** How long the resident process must have used no CPU before a timed call of the cold rows. */
  private static final long QUIET_MS = Long.getLong("bench.quietMillis", 500);
  /**
   * While the fast path has not landed, {@code colony daemon ...} does not exist: only for developing
   * the harness may the run go on without it (its rows then say so); a real run fails instead.
   */
  private static final boolean ALLOW_NO_RESIDENT = Boolean.getBoolean("bench.allowNoResident");
  private static final String COLONY = "cmd";

  private CommandBench() {}

  /** How a colony command is run. */
  enum Way { FAST, TODAY }

  /** One row: the colony command (arguments after ./colony) and its temporal equivalent (after temporal). */
  record Row(String name, String yardstick, IntFunction<List<String>> colony, IntFunction<List<String>> temporal,
      boolean address) {}

  /** What a row measured, in milliseconds; failed calls are counted, not timed. */
  record Figures(List<Double> fast, List<Double> temporal, List<Double> today, int failures) {}

  static void run(ScaleBench.Report r, List<Integer> sizes, int storm) throws Exception {
    r.line("## 7. Whole commands, as typed");
    r.line("");
    r.line("Every figure is a whole new process, from a cold terminal: `./colony ...` through the launcher (JDK %d), "
        + "or the `temporal` CLI (the project's pinned copy, %s) making the same call. *colony* is the default way, "
        + "the fast path (the thin client answered by the per-user resident colony process); *today* is "
        + "`COLONY_FAST=off ./colony ...`, the plain JVM path. The run's resident process has a private "
        + "`COLONY_RUNTIME_DIR` and is stopped at the end. In each row the colony and `temporal` calls alternate "
        + "(which goes first alternates too) and today's calls are spread evenly among them, so all see the same "
        + "load. p99 of %d runs is %s; today's column is the p50 of %d. Target: p50 ratio ≤ 1.2, "
        + "p99 ratio < 2.", Runtime.version().feature(), temporalVersion(), RUNS, p99Is(RUNS), TODAY_RUNS);
    r.line("");
    for (int i = 0; i < sizes.size(); i++) {
      boolean last = i == sizes.size() - 1;
      Path tmp = Files.createTempDirectory("colony-cmd");
      Path dir = ScaleBench.colony(tmp, COLONY, sizes.get(i), "schedule:\n  cron: \"0 0 1 1 *\"\n", "[\"true\"]", null);
      // A Unix socket's path is short: the runtime directory is a short one of its own.
      Path runtime = Files.createTempDirectory(Path.of("/tmp"), "cr");
      try (ScaleBench.Bench b = new ScaleBench.Bench(tmp, dir)) {
        Calls c = new Calls(b, runtime);
        try {
          size(r, c, b, dir, sizes.get(i), i == 0, last ? storm : -1);
        } finally {
          c.stopResident();
          new ProcessBuilder("rm", "-rf", runtime.toString()).inheritIO().start().waitFor();
        }
      } finally {
        new ProcessBuilder("rm", "-rf", tmp.toString()).inheritIO().start().waitFor();
      }
    }
  }

  /** One colony of {@code ants}: the warm table; for the last size also cold, rebuild, RSS, storm, kill. */
  private static void size(ScaleBench.Report r, Calls c, ScaleBench.Bench b, Path dir, int ants, boolean first,
      int storm) throws Exception {
    String n = String.format(Locale.ROOT, "%,d", ants);
    if (first) {
      // As a fresh build leaves them: no start-up archive; the first command trains it.
      forgetArchives();
      double firstHelp = c.time(Way.TODAY, List.of("--help"), false);
      r.line("The run begins by deleting the start-up archives, as a fresh build leaves them: its first command, "
          + "`COLONY_FAST=off ./colony --help`, trained the archive again and took %s (once per build).", msd(firstHelp));
      r.line("");
    }
    b.startServer();
    ScaleBench.Proc worker = b.startWorker("w");
    long s0 = System.nanoTime();
    b.cli("start", dir.toString());
    String waiting = ClusterBench.awaitWaiting(b, COLONY, ants, s0);
    System.err.printf("%s ants: all waiting after %s%n", n, waiting);

    Fixtures fx = new Fixtures(b, c.runs(), c.todayRuns());
    List<Row> rows = rows(b, c, dir, ants, fx);
    c.warm();
    String resident = c.residentState();
    r.line("### Warm: the resident process running, %s ants", n);
    r.line("");
    r.line("The colony of %s ants waiting on a cron tick, one worker. Before the table one `./colony status ANT` call "
        + "started the resident process and the table waited until it answered on its socket (`./colony daemon status`: %s). "
        + "The task rows work on the colony's task board (tasks added in the Backlog; approvals of tasks put "
        + "In Review beforehand, one per call); `merge status` lists a colony with no merge queue.", n, resident);
    r.line("");
    header(r);
    List<Row> named = new ArrayList<>();
    List<Figures> figures = new ArrayList<>();
    for (Row row : rows) {
      Figures f = measure(c, row);
      if (row.colony() == null) {
        row = new Row(row.name() + " (client: " + c.clientKind + (f.today().isEmpty() ? "; no JVM client to compare"
            : "; today: the JVM client class") + ")", row.yardstick(), null, null, true);
      }
      r.line(line(row, f));
      named.add(row);
      figures.add(f);
    }
    r.line("");
    r.line(shows(named, figures));
    r.line("");
    if (storm < 0) {
      return;
    }
    rss(r, c, ants);
    cold(r, c);
    rebuild(r, c);
    storm(r, c, b, ants, storm);
    try {
      afterKill(r, c, b, worker);
    } catch (Exception | AssertionError e) {
      r.line("The worker's kill -9 and SIGTERM rows were cut short: %s", e);
      r.line("");
    }
  }

  // ---- the rows ----

  private static List<Row> rows(ScaleBench.Bench b, Calls c, Path dir, int ants, Fixtures fx) throws Exception {
    String t = b.address;
    String antQuery = AntRow.ants(COLONY).running().toString();
    String taskQuery = TaskQueries.tasksOf(COLONY).running().toString();
    String mergeQuery = MergeQueues.runningQuery(COLONY);
    List<Row> rows = new ArrayList<>();
    rows.add(new Row("`./colony --help`", "`temporal --help`", i -> List.of("--help"), i -> List.of("--help"), false));
    rows.add(new Row("`./colony validate DIR` (" + String.format(Locale.ROOT, "%,d", ants) + " ant files)",
        "`temporal workflow --help`", i -> List.of("validate", dir.toString()),
        i -> List.of("workflow", "--help"), false));
    rows.add(new Row("`./colony pause ANT`", "`temporal workflow signal --name pause`",
        i -> List.of("pause", COLONY + "/" + ant(i, ants)),
        i -> List.of("workflow", "signal", "--address", t, "--workflow-id", antId(i, ants), "--name", "pause"), true));
    rows.add(new Row("`./colony resume ANT`", "`temporal workflow signal --name resume`",
        i -> List.of("resume", COLONY + "/" + ant(i, ants)),
        i -> List.of("workflow", "signal", "--address", t, "--workflow-id", antId(i, ants), "--name", "resume"), true));
    // One key per ant: the first message wakes the ant once, the rest are dropped as repeats by the
    // ant (the signal is still sent and written, the same work for the server as a new message).
    rows.add(new Row("`./colony send ANT TEXT`", "`temporal workflow signal --name message`",
        i -> List.of("send", COLONY + "/" + ant(i, ants), "--id", "bench-" + ant(i, ants), "a", "bench", "note"),
        i -> List.of("workflow", "signal", "--address", t, "--workflow-id", antId(i, ants), "--name", "message",
            "--input", c.json(new Mail("a bench note", false, null, "bench-" + ant(i, ants)))), true));
    rows.add(new Row("`./colony status` (" + String.format(Locale.ROOT, "%,d", ants) + " ants)",
        "`temporal workflow list --limit 100` (the ants' query)", i -> List.of("status"),
        i -> List.of("workflow", "list", "--address", t, "--query", antQuery, "--limit", "100"), true));
    rows.add(new Row("`./colony status ANT`", "`temporal workflow query --type status`",
        i -> List.of("status", COLONY + "/" + ant(i, ants)),
        i -> List.of("workflow", "query", "--address", t, "--workflow-id", antId(i, ants), "--type", "status"), true));
    rows.add(new Row("`./colony task add TITLE --backlog`", "`temporal workflow start --type TaskWorkflow`",
        i -> List.of("task", "add", "bench task " + i, "--backlog", "--colony", COLONY),
        i -> fx.startArgs(c, t, i), true));
    rows.add(new Row("`./colony task list`", "`temporal workflow list --limit 200` (the tasks' query)",
        i -> List.of("task", "list", "--colony", COLONY),
        i -> List.of("workflow", "list", "--address", t, "--query", taskQuery, "--limit", "200"), true));
    rows.add(new Row("`./colony task show ID`", "`temporal workflow describe`",
        i -> List.of("task", "show", fx.shown, "--colony", COLONY),
        i -> List.of("workflow", "describe", "--address", t, "--workflow-id", TaskIds.workflowId(COLONY, fx.shown)),
        true));
    rows.add(new Row("`./colony task approve ID`", "`temporal workflow update execute --name approve`",
        i -> List.of("task", "approve", fx.nextReview(), "--colony", COLONY),
        i -> List.of("workflow", "update", "execute", "--address", t, "--workflow-id",
            TaskIds.workflowId(COLONY, fx.nextReview()), "--name", "approve",
            "--input", c.json(new TaskChange("@bench", null, null, null))), true));
    rows.add(new Row("`./colony merge status`", "`temporal workflow list` (the merge queues' query)",
        i -> List.of("merge", "status", "--colony", COLONY),
        i -> List.of("workflow", "list", "--address", t, "--query", mergeQuery), true));
    rows.add(new Row(AntSend.NAME, "`temporal workflow signal --name message`", null, null, true));
    return rows;
  }

  private static String ant(int i, int ants) {
    return antName(Math.floorMod(i * 7919, ants));
  }

  private static String antId(int i, int ants) {
    return AntIds.workflowId(COLONY, ant(i, ants));
  }

  /** The tasks the task rows need: one to show, and tasks In Review, one per approval. */
  static final class Fixtures {
    final String shown;
    private final List<String> review = new ArrayList<>();
    private int nextReview;
    private final String run = Long.toString(System.currentTimeMillis() % 100_000, 36);

    Fixtures(ScaleBench.Bench b, int runs, int todayRuns) {
      TemporalTaskBoard board = new TemporalTaskBoard(b.client, COLONY, TaskSettings.defaults());
      shown = board.add(task("a task to show", TaskState.BACKLOG)).id();
      for (int i = 0; i < 2 * runs + todayRuns; i++) {
        String id = board.add(task("a task to approve " + i, TaskState.BACKLOG)).id();
        board.move(id, new TaskChange("@bench", TaskState.IN_REVIEW, null, null));
        review.add(id);
      }
    }

    private static NewTask task(String title, TaskState state) {
      return new NewTask(null, title, null, Priority.NORMAL, List.of(), null, state, null, "@bench");
    }

    /** The next task In Review: each approval, of either side, takes its own. */
    String nextReview() {
      return review.get(nextReview++);
    }

    /** What {@code colony task add --backlog} starts, as the temporal CLI's arguments. */
    List<String> startArgs(Calls c, String address, int i) {
      String id = "tb-" + run + "-" + i;
      NewTask t = new NewTask(id, "bench task " + i, null, Priority.NORMAL, List.of(), null, TaskState.BACKLOG, null,
          "@bench");
      TaskCard card = TaskCards.fresh(COLONY, t, System.currentTimeMillis());
      return List.of("workflow", "start", "--address", address, "--type", "TaskWorkflow", "--task-queue",
          AntIds.taskQueue(COLONY), "--workflow-id", TaskIds.workflowId(COLONY, id), "--id-reuse-policy", "RejectDuplicate",
          "--input", c.json(new TaskRun(COLONY, t, null, TaskSettings.defaults())),
          "--search-attribute", "ColonyName=\"" + COLONY + "\"", "--search-attribute", "TaskState=\"backlog\"",
          "--search-attribute", "TaskPriority=\"normal\"", "--memo", TaskCard.MEMO_KEY + "=" + c.json(card),
          "--static-summary", "task " + id + ": bench task " + i);
    }
  }

  /**
   * An ant's own {@code $COLONY_BIN send --from ANT PEER TEXT} from inside its session: a real
   * {@link ColonyChannel} opened here for the ant (as the worker opens one per session), its client
   * script run as a process with {@code COLONY_CHANNEL} set. A channel allows a burst of 20 requests
   * and then one a second, so each call gets a channel of its own (opened before the clock starts).
   */
  static final class AntSend {
    static final String NAME = "an ant's `$COLONY_BIN send --from ANT PEER TEXT` (its session's channel)";
    private final Calls c;
    private final ScaleBench.Bench b;
    private final int ants;
    private Path tmp;
    /** What the client script is: "python" (the fast client) or "JVM". */
    String client = "?";

    AntSend(Calls c, ScaleBench.Bench b, int ants) {
      this.c = c;
      this.b = b;
      this.ants = ants;
    }

    /** One send through a fresh channel; {@code jvm}: today's JVM client class, run directly. */
    double send(int i, boolean jvm) throws Exception {
      String from = antName(0);
      String to = ant(i, ants).equals(from) ? antName(1 % ants) : ant(i, ants);
      var who = new ChannelRules.Identity(COLONY, from, 1);
      try (ColonyChannel ch = ColonyChannel.open(who, new TemporalChannelColony(b.client, who))) {
        List<String> argv = new ArrayList<>();
        if (jvm) {
          Path classes = ch.code();
          argv.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
              "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-cp", classes.toString(),
              "dev.colony.sandbox.channel.ChannelClient"));
        } else {
          argv.add(script(ch).toString());
        }
        argv.addAll(List.of("send", "--from", from, "--id", "bench-ch-" + to, to, "a", "note", "from", "a", "peer"));
        return c.timed(argv, Map.of("COLONY_CHANNEL", ch.socket().toString()), "ant send");
      }
    }

    /** The temporal CLI's signal of the same mail. */
    List<String> temporal(int i) {
      String from = antName(0);
      String to = ant(i, ants).equals(from) ? antName(1 % ants) : ant(i, ants);
      return List.of("workflow", "signal", "--address", b.address, "--workflow-id", AntIds.workflowId(COLONY, to),
          "--name", "message", "--input", c.json(new Mail("a note from a peer", false, from, "bench-ch-" + to)));
    }

    /**
     * The channel's client script as the session runs it. Inside a sandbox the paths under
     * /run/colony are bound; here they are not, so a script naming them gets its copy with the
     * worker-side paths instead (the same program, the same start-up).
     */
    private Path script(ColonyChannel ch) throws Exception {
      String text = Files.readString(ch.client());
      // The script execs python3 on the python client when the worker found one, else the JVM.
      client = text.contains("channel_client.py") ? "python" : "JVM";
      if (!text.contains("/run/colony/")) {
        return ch.client();
      }
      if (tmp == null) {
        tmp = Files.createTempDirectory("colony-bench-client");
      }
      Path copy = tmp.resolve("colony-" + System.nanoTime());
      Files.writeString(copy, text.replace(ColonyChannel.CODE, ch.code().toString()));
      Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("r-x------"));
      return copy;
    }

    /** Whether today's JVM client class is there to compare with. */
    boolean hasJvmClient() throws Exception {
      var who = new ChannelRules.Identity(COLONY, antName(0), 1);
      try (ColonyChannel ch = ColonyChannel.open(who, new TemporalChannelColony(b.client, who))) {
        return Files.exists(ch.code().resolve("dev/colony/sandbox/channel/ChannelClient.class"));
      }
    }
  }

  // ---- measuring ----

  /**
   * The row's calls: colony and temporal alternate (which goes first alternates too); today's
   * calls are spread evenly among them.
   */
  private static Figures measure(Calls c, Row row) throws Exception {
    List<Double> fast = new ArrayList<>();
    List<Double> temporal = new ArrayList<>();
    List<Double> today = new ArrayList<>();
    int failures = c.failures;
    AntSend antSend = row.colony() == null ? new AntSend(c, c.b, c.ants) : null;
    boolean jvmClient = antSend != null && antSend.hasJvmClient();
    int runs = c.runs();
    int todayRuns = c.todayRuns();
    for (int i = 0; i < runs; i++) {
      for (int k = 0; k < 2; k++) {
        if ((i + k) % 2 == 0) {
          add(fast, antSend != null ? antSend.send(i, false) : c.time(Way.FAST, row.colony().apply(i), row.address()));
        } else {
          add(temporal, c.temporal(antSend != null ? antSend.temporal(i) : row.temporal().apply(i)));
        }
      }
      if ((long) i * todayRuns % runs < todayRuns) {
        if (antSend == null) {
          add(today, c.time(Way.TODAY, row.colony().apply(i), row.address()));
        } else if (jvmClient) {
          add(today, antSend.send(i, true));
        }
      }
    }
    if (antSend != null) {
      c.clientKind = antSend.client;
    }
    return new Figures(fast, temporal, today, c.failures - failures);
  }

  private static void add(List<Double> xs, double ms) {
    if (!Double.isNaN(ms)) {
      xs.add(ms);
    }
  }

  /**
   * What a table shows, in one sentence: how many rows meet the target, the spread of the p50
   * ratios (the best and the worst row named), and how much faster than today's path.
   */
  static String shows(List<Row> rows, List<Figures> figures) {
    int met = 0;
    int compared = 0;
    double lo = Double.MAX_VALUE;
    double hi = 0;
    String best = "";
    String worst = "";
    List<Double> speedups = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      Figures f = figures.get(i);
      if (f.fast().isEmpty() || f.temporal().isEmpty()) {
        continue;
      }
      compared++;
      double p50 = pct(sorted(f.fast()), 50) / pct(sorted(f.temporal()), 50);
      double p99 = pct(sorted(f.fast()), 99) / pct(sorted(f.temporal()), 99);
      if (p50 <= 1.2 && p99 < 2) {
        met++;
      }
      if (p50 < lo) {
        lo = p50;
        best = rows.get(i).name();
      }
      if (p50 > hi) {
        hi = p50;
        worst = rows.get(i).name();
      }
      if (!f.today().isEmpty()) {
        speedups.add(pct(sorted(f.today()), 50) / pct(sorted(f.fast()), 50));
      }
    }
    if (compared == 0) {
      return "What it shows: nothing was measured.";
    }
    List<Double> up = sorted(speedups);
    return String.format(Locale.ROOT, "What it shows: %d of %d rows meet the target; the colony command's p50 is "
        + "%.2fx (%s) to %.2fx (%s) the `temporal` CLI's%s.", met, compared, lo, best, hi, worst, up.isEmpty() ? ""
        : String.format(Locale.ROOT, "; today's plain JVM path takes %.1fx to %.1fx the fast path's p50",
            up.get(0), up.get(up.size() - 1)));
  }

  private static void header(ScaleBench.Report r) {
    r.line("| command | runs | p50 | p99 | `temporal` equivalent | its p50 | its p99 | ratio of p50s | ratio of p99s "
        + "| target | today (plain JVM) p50 |");
    r.line("|---|---|---|---|---|---|---|---|---|---|---|");
  }

  private static String line(Row row, Figures f) {
    String name = row.name();
    if (f.failures() > 0) {
      name += String.format(Locale.ROOT, " (%d calls failed, not timed)", f.failures());
    }
    if (f.fast().isEmpty() || f.temporal().isEmpty()) {
      return String.format(Locale.ROOT, "| %s | 0 | | | %s | | | | | | |", name, row.yardstick());
    }
    List<Double> s = sorted(f.fast());
    List<Double> o = sorted(f.temporal());
    double p50 = pct(s, 50) / pct(o, 50);
    double p99 = pct(s, 99) / pct(o, 99);
    String target = p50 <= 1.2 && p99 < 2 ? "met" : p50 > 1.2 && p99 >= 2 ? "missed" : p50 > 1.2 ? "missed (p50)"
        : "missed (p99)";
    String today = f.today().isEmpty() ? "" : msd(pct(sorted(f.today()), 50)) + (f.today().size() == TODAY_RUNS ? ""
        : " (" + f.today().size() + ")");
    return String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %.2fx | %.2fx | %s | %s |", name, s.size(),
        msd(pct(s, 50)), msd(pct(s, 99)), row.yardstick(), msd(pct(o, 50)), msd(pct(o, 99)), p50, p99, target, today);
  }

  /** Which of {@code n} sorted runs {@link ScaleBench#pct} takes as the p99, in words. */
  static String p99Is(int n) {
    int fromTop = n - (Math.max(0, (int) Math.ceil(n * 99 / 100.0) - 1));
    return fromTop == 1 ? "the slowest" : fromTop == 2 ? "the second slowest" : "the " + fromTop + "th slowest";
  }

  private static List<Double> sorted(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s;
  }

  // ---- the resident process: RSS, cold, rebuild ----

  private static void rss(ScaleBench.Report r, Calls c, int ants) throws Exception {
    r.line("### The resident process's memory");
    r.line("");
    if (!c.residentSupported) {
      r.line("No resident process in this build (`./colony daemon status` does not exist): nothing to measure.");
      r.line("");
      return;
    }
    int before = c.fastCalls;
    for (int i = 0; c.fastCalls < RSS_AFTER; i++) {
      c.time(Way.FAST, List.of("status", COLONY + "/" + ant(i, ants)), true);
    }
    long pid = c.residentPid();
    String afterCalls = pid > 0 ? ScaleBench.proc(pid, "VmRSS") / 1024 + " MB" : "not running";
    long idle0 = System.nanoTime();
    // Idle means no command at all: the idle time is the measurement, not a wait for something.
    Thread.sleep(IDLE_SECONDS * 1000L);
    String afterIdle = pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
        ? ScaleBench.proc(pid, "VmRSS") / 1024 + " MB"
        : "it had stopped itself (idle)";
    r.line("| resident process (pid from `./colony daemon status`) | VmRSS |");
    r.line("|---|---|");
    r.line("| after %,d fast-path commands of this run (%,d of them `status ANT` calls just before) | %s |",
        c.fastCalls, c.fastCalls - before, afterCalls);
    r.line("| then %d s idle (no command) | %s |", (System.nanoTime() - idle0) / 1_000_000_000L, afterIdle);
    r.line("");
    r.line("What it shows: what the resident process keeps of this user's memory while it waits for the next "
        + "command (it stops itself after its idle time, 180 minutes by default).");
    r.line("");
  }

  private static void cold(ScaleBench.Report r, Calls c) throws Exception {
    r.line("### Cold resident process: the first call after `./colony daemon stop`");
    r.line("");
    if (!c.residentSupported) {
      r.line("No resident process in this build: not measured.");
      r.line("");
      return;
    }
    r.line("Each run: today's call (`COLONY_FAST=off`), `./colony daemon stop` and the wait until the resident "
        + "process is gone, then the timed call (no resident process: it runs the plain JVM way and starts the "
        + "resident process in the background), then the wait until the resident process answers on its socket "
        + "(*resident ready after*, from the call's start). Today's call starts once the resident process (just "
        + "started by the previous run) has used no CPU for %d ms, so both start on a quiet machine. Target: no "
        + "slower than today's.", QUIET_MS);
    r.line("");
    r.line("| first call after `daemon stop` | runs | p50 | p99 | today (plain JVM) p50 | ratio of p50s | resident "
        + "ready after (p50) | target |");
    r.line("|---|---|---|---|---|---|---|---|");
    List<Double> ratios = new ArrayList<>();
    for (String[] cmd : List.of(new String[] {"status", "`./colony status ANT`"},
        new String[] {"pause", "`./colony pause ANT` / `resume ANT`"})) {
      List<Double> first = new ArrayList<>();
      List<Double> today = new ArrayList<>();
      List<Double> ready = new ArrayList<>();
      for (int i = 0; i < COLD_RUNS; i++) {
        List<String> args = cmd[0].equals("status") ? List.of("status", COLONY + "/" + ant(i, c.ants))
            : List.of(i % 2 == 0 ? "pause" : "resume", COLONY + "/" + ant(i, c.ants));
        // Both timed calls start on a quiet machine: today's once the resident process has settled,
        // the cold one once it is gone (stopResident waits for that).
        c.awaitQuiet();
        add(today, c.time(Way.TODAY, args, true));
        c.stopResident();
        long t0 = System.nanoTime();
        add(first, c.time(Way.FAST, args, true));
        if (!awaitResident(c, Duration.ofSeconds(120))) {
          throw new IllegalStateException("no resident process within 120 s of the first call after daemon stop");
        }
        ready.add((System.nanoTime() - t0) / 1e6);
      }
      List<Double> s = sorted(first);
      double ratio = pct(s, 50) / pct(sorted(today), 50);
      r.line("| %s | %d | %s | %s | %s | %.2fx | %s | %s |", cmd[1], s.size(), msd(pct(s, 50)), msd(pct(s, 99)),
          msd(pct(sorted(today), 50)), ratio, msd(pct(sorted(ready), 50)), ratio <= 1.0 ? "met" : "missed");
      ratios.add(ratio);
    }
    r.line("");
    r.line("What it shows: with no resident process the first call costs %.2fx to %.2fx today's plain path at p50 "
        + "(target: at most 1x), and the resident process answers from about the time shown on.",
        Collections.min(ratios), Collections.max(ratios));
    r.line("");
  }

  private static void rebuild(ScaleBench.Report r, Calls c) throws Exception {
    r.line("### The first call after a rebuild");
    r.line("");
    if (!c.residentSupported) {
      r.line("No resident process in this build: not measured.");
      r.line("");
      return;
    }
    r.line("Each run: the resident process running, the jar's modification time set to now (what a rebuild does to "
        + "it), then one timed call. It must not answer from the old build. The launcher trains the start-up "
        + "archive again for the new jar (once per build), whichever call comes first; so the same is done for "
        + "today's path (`COLONY_FAST=off`) with a second touch.");
    r.line("");
    r.line("| first call after the jar changed | took | resident before → after (`./colony daemon status`) | "
        + "answered from |");
    r.line("|---|---|---|---|");
    int oldBuild = 0;
    for (int i = 0; i < REBUILD_RUNS; i++) {
      c.warm();
      long pidBefore = c.residentPid();
      String before = c.residentState();
      Files.setLastModifiedTime(JAR, FileTime.from(Instant.now()));
      List<String> args = List.of("status", COLONY + "/" + ant(i, c.ants));
      double ms = c.time(Way.FAST, args, true);
      String out = c.lastOutput;
      String from = "";
      if (!awaitResident(c, Duration.ofSeconds(60))) {
        // None came up (the old one was still stopping when the first call tried to start one):
        // the next call runs the JVM way again and starts it.
        double again = c.time(Way.FAST, args, true);
        from = String.format(Locale.ROOT, "; no resident process came up after it: the next call took %s", msd(again));
        awaitResident(c, Duration.ofSeconds(120));
      }
      long pidAfter = c.residentPid();
      String after = c.residentState();
      from = (pidBefore > 0 && pidBefore == pidAfter && before.equals(after)
          ? "the OLD build (the same resident process, the same build)"
          : "the new build (the old resident process stopped; a new one started)") + from;
      if (!out.contains(COLONY + "/")) {
        from += "; its output did not name the ant: " + dev.colony.text.Printable.line(out, 120);
      }
      r.line("| `./colony status ANT` (fast path) | %s | %s → %s | %s |", msd(ms), before, after, from);
      Files.setLastModifiedTime(JAR, FileTime.from(Instant.now()));
      double plain = c.time(Way.TODAY, args, true);
      r.line("| `COLONY_FAST=off ./colony status ANT` (today) | %s | | the new build (a new JVM) |", msd(plain));
      oldBuild += from.startsWith("the OLD") ? 1 : 0;
    }
    r.line("");
    r.line("What it shows: %s; the first call after a rebuild costs about what today's first call does (both train "
        + "the start-up archive again).", oldBuild == 0 ? "no call was answered from the old build"
            : oldBuild + " of " + REBUILD_RUNS + " calls were answered from the OLD build");
    r.line("");
  }

  /** Waits up to {@code limit} for the resident process; whether it came. */
  private static boolean awaitResident(Calls c, Duration limit) {
    return dev.colony.testing.Eventually.within(limit, c::residentUp);
  }

  // ---- the storm, the worker's kill ----

  private static void storm(ScaleBench.Report r, Calls c, ScaleBench.Bench b, int ants, int storm) throws Exception {
    Path stormTmp = Files.createTempDirectory("colony-storm");
    Path stormDir = ScaleBench.colony(stormTmp, "storm", storm, "schedule:\n  cron: \"0 0 1 1 *\"\n", "[\"true\"]",
        null);
    List<Double> pause = new ArrayList<>();
    List<Double> tPause = new ArrayList<>();
    List<Double> todayPause = new ArrayList<>();
    List<Double> status = new ArrayList<>();
    List<Double> tStatus = new ArrayList<>();
    List<Double> todayStatus = new ArrayList<>();
    int failures = c.failures;
    c.warm();
    // Each colony has its own task queue: the storm's ants need their own worker to reach "waiting".
    Process stormWorker = new ProcessBuilder(b.jvm("worker", stormDir.toString(), "--address", b.address))
        .redirectErrorStream(true).redirectOutput(stormTmp.resolve("worker.log").toFile()).start();
    long s0 = System.nanoTime();
    Process starting = new ProcessBuilder(b.jvm("start", stormDir.toString(), "--address", b.address))
        .redirectErrorStream(true).redirectOutput(stormTmp.resolve("start.log").toFile()).start();
    long startedMs = -1;
    for (int i = 0; i < 1000; i++) {
      String ant = COLONY + "/" + ant(i, ants);
      String verb = i % 2 == 0 ? "pause" : "resume";
      List<String> signal = List.of("workflow", "signal", "--address", b.address, "--workflow-id", antId(i, ants),
          "--name", verb);
      List<String> query = List.of("workflow", "query", "--address", b.address, "--workflow-id", antId(i, ants),
          "--type", "status");
      if (i % 2 == 0) {
        add(pause, c.time(Way.FAST, List.of(verb, ant), true));
        add(tPause, c.temporal(signal));
        add(status, c.time(Way.FAST, List.of("status", ant), true));
        add(tStatus, c.temporal(query));
      } else {
        add(tPause, c.temporal(signal));
        add(pause, c.time(Way.FAST, List.of(verb, ant), true));
        add(tStatus, c.temporal(query));
        add(status, c.time(Way.FAST, List.of("status", ant), true));
      }
      if (i % 3 == 0) {
        add(todayPause, c.time(Way.TODAY, List.of(verb, ant), true));
        add(todayStatus, c.time(Way.TODAY, List.of("status", ant), true));
      }
      if (startedMs < 0 && !starting.isAlive()) {
        startedMs = (System.nanoTime() - s0) / 1_000_000;
      }
      boolean allWaiting;
      try {
        allWaiting = !starting.isAlive() && b.count("storm", "AntState = 'waiting'") == storm;
      } catch (RuntimeException busy) {
        allWaiting = false;
      }
      if (allWaiting && i % 2 == 1) {
        break;
      }
    }
    long stormMs = (System.nanoTime() - s0) / 1_000_000;
    starting.waitFor(10, TimeUnit.MINUTES);
    stormWorker.destroy();
    stormWorker.waitFor(30, TimeUnit.SECONDS);
    new ProcessBuilder("rm", "-rf", stormTmp.toString()).inheritIO().start().waitFor();
    String n = String.format(Locale.ROOT, "%,d", storm);
    r.line("### During a start storm: `colony start` of %s more ants", n);
    r.line("");
    r.line("A second colony of %s ants (its own worker) started beside the colony of %,d; the calls ran from the "
        + "storm's first second until every new ant was waiting, in pairs as above, today's calls every third "
        + "pair. The storm: `colony start` took %s; all waiting after %s. The colony's own calls are the fast "
        + "path, the resident process warm.", n, ants, startedMs < 0 ? "longer than the window" : ScaleBench.ms(startedMs),
        ScaleBench.ms(stormMs));
    r.line("");
    header(r);
    int failed = c.failures - failures;
    Row pauseRow = new Row("`./colony pause ANT` / `resume ANT` while " + n + " ants start", "`temporal workflow signal`",
        null, null, true);
    Row statusRow = new Row("`./colony status ANT` while " + n + " ants start", "`temporal workflow query --type status`",
        null, null, true);
    Figures pauseFigures = new Figures(pause, tPause, todayPause, failed);
    Figures statusFigures = new Figures(status, tStatus, todayStatus, 0);
    r.line(line(pauseRow, pauseFigures));
    r.line(line(statusRow, statusFigures));
    r.line("");
    r.line(shows(List.of(pauseRow, statusRow), List.of(pauseFigures, statusFigures)));
    r.line("");
    if (failed > 0) {
      r.line("%d calls failed during the storm (not timed; the first failure is in the run's output).", failed);
      r.line("");
    }
  }

  private static void afterKill(ScaleBench.Report r, Calls c, ScaleBench.Bench b, ScaleBench.Proc worker)
      throws Exception {
    // A worker that has just died: its last poll is fresh, so the status query is tried.
    String ant = antName(1);
    worker.process().destroyForcibly();
    worker.process().waitFor(10, TimeUnit.SECONDS);
    List<Double> afterKill = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      add(afterKill, c.time(Way.FAST, List.of("status", COLONY + "/" + ant), true));
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

  // ---- processes ----

  /** Runs the calls of one colony: the launcher (either way), the temporal CLI, the resident process. */
  static final class Calls {
    final ScaleBench.Bench b;
    final Path runtime;
    final String temporal = dev.colony.fault.Cluster.temporalCli();
    final int ants;
    int fastCalls;
    int failures;
    boolean residentSupported = true;
    String lastOutput = "";
    String clientKind = "?";

    Calls(ScaleBench.Bench b, Path runtime) throws Exception {
      this.b = b;
      this.runtime = runtime;
      try (Stream<Path> files = Files.list(b.dir.resolve("ants"))) {
        this.ants = (int) files.count();
      }
    }

    int runs() {
      return RUNS;
    }

    int todayRuns() {
      return TODAY_RUNS;
    }

    /** A value as the workers' data converter writes it (JSON), for the temporal CLI's --input. */
    String json(Object value) {
      return b.client.getOptions().getDataConverter().toPayload(value).orElseThrow().getData()
          .toString(StandardCharsets.UTF_8);
    }

    /** Milliseconds of one whole {@code ./colony} process, or NaN when it failed. */
    double time(Way way, List<String> args, boolean address) throws Exception {
      List<String> argv = new ArrayList<>(List.of(LAUNCHER.toString()));
      argv.addAll(args);
      if (address) {
        argv.addAll(List.of("--address", b.address));
      }
      Map<String, String> env = new HashMap<>(b.env);
      env.put("COLONY_RUNTIME_DIR", runtime.toString());
      if (way == Way.TODAY) {
        env.put("COLONY_FAST", "off");
      } else {
        fastCalls++;
      }
      return timed(argv, env, "./colony");
    }

    /** Milliseconds of one whole {@code temporal} process, or NaN when it failed. */
    double temporal(List<String> args) throws Exception {
      List<String> argv = new ArrayList<>(List.of(temporal));
      argv.addAll(args);
      return timed(argv, Map.of(), "temporal");
    }

    double timed(List<String> argv, Map<String, String> env, String what) throws Exception {
      ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
      pb.environment().putAll(env);
      long t0 = System.nanoTime();
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int code = p.waitFor();
      double ms = (System.nanoTime() - t0) / 1e6;
      lastOutput = out;
      if (code != 0) {
        if (failures++ < 5) {
          System.err.printf("failed (exit %d, %.0f ms): %s %s%n%s%n", code, ms, what, String.join(" ",
              argv.subList(1, argv.size())), out);
        }
        return Double.NaN;
      }
      return ms;
    }

    /** {@code ./colony daemon ARGS}: its exit code and output; notes when the build has no such command. */
    private String daemon(String... args) throws Exception {
      List<String> argv = new ArrayList<>(List.of(LAUNCHER.toString(), "daemon"));
      argv.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
      pb.environment().putAll(b.env);
      pb.environment().put("COLONY_RUNTIME_DIR", runtime.toString());
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      int code = p.waitFor();
      if (code == 2 && out.matches("(?is).*(unmatched argument|unknown (sub)?command).*")) {
        if (!ALLOW_NO_RESIDENT) {
          throw new IllegalStateException("this build has no `colony daemon` (no resident process): " + out
              + "\n(-Dbench.allowNoResident=true runs the harness without it, for developing it only)");
        }
        residentSupported = false;
        return "";
      }
      if (args[0].equals("stop") && code != 0) {
        throw new IllegalStateException("./colony daemon stop failed (exit " + code + "): " + out);
      }
      return out;
    }

    private static final Pattern PID = Pattern.compile("(?i)\\bpid\\b\\D{0,5}(\\d+)");

    /** The running resident process's pid from {@code daemon status}, or -1. */
    /**
     * Waits until the resident process, if one runs, has used no CPU for {@link #QUIET_MS}: one
     * that has just started still loads and compiles for a while after it first answers.
     */
    void awaitQuiet() throws Exception {
      long pid = residentPid();
      if (pid <= 0) {
        return;
      }
      long[] seen = {-1, System.nanoTime()}; // CPU ticks, when they last changed
      eventually(Duration.ofSeconds(60), () -> {
        long ticks = cpuTicks(pid);
        if (ticks != seen[0]) {
          seen[0] = ticks;
          seen[1] = System.nanoTime();
        }
        return ticks < 0 || System.nanoTime() - seen[1] >= QUIET_MS * 1_000_000L;
      }, "the resident process went quiet");
    }

    /** User and system CPU ticks of {@code pid} (/proc/PID/stat), or -1 once it is gone. */
    private static long cpuTicks(long pid) {
      try {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime: fields 14 and 15
      } catch (java.io.IOException | RuntimeException e) {
        return -1;
      }
    }

    long residentPid() throws Exception {
      String out = daemon("status");
      Matcher m = PID.matcher(out);
      if (!m.find()) {
        return -1;
      }
      long pid = Long.parseLong(m.group(1));
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) ? pid : -1;
    }

    /**
     * Whether the resident process answers on its socket (a connection opened and closed: it
     * reads no request and goes on). Cheaper than {@code daemon status}, a JVM of its own, so a
     * wait for it does not take the CPU the resident process is starting on.
     */
    boolean residentUp() {
      if (!residentSupported) {
        return false;
      }
      try (var ch = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(socket()))) {
        return true;
      } catch (java.io.IOException e) {
        return false;
      }
    }

    /** Where the resident process of this build tree listens (dev.colony.cli.Resident's name). */
    Path socket() throws java.io.IOException {
      long h = 0xcbf29ce484222325L;
      for (byte x : JAR.toRealPath().toString().getBytes(StandardCharsets.UTF_8)) {
        h ^= x & 0xff;
        h *= 0x100000001b3L;
      }
      return runtime.resolve("r-" + String.format("%016x", h) + ".sock");
    }

    /** {@code daemon status}'s first line (pid, build), for the report. */
    String residentState() throws Exception {
      String out = daemon("status");
      return residentSupported ? "`" + out.lines().findFirst().orElse("").strip().replace("|", "/").replace("`", "'") + "`"
          : "no resident process in this build";
    }

    /** One fast-path call, then until the resident process runs (it is started by the first use). */
    void warm() throws Exception {
      time(Way.FAST, List.of("status", COLONY + "/" + antName(0)), true);
      if (!residentUp() && residentSupported) {
        eventually(Duration.ofSeconds(120), this::residentUp, "the resident process runs");
      }
    }

    /** {@code daemon stop}, then until the process is gone (it ends its running commands first). */
    void stopResident() throws Exception {
      if (!residentSupported) {
        return;
      }
      long pid = residentPid();
      daemon("stop");
      if (pid > 0) {
        eventually(Duration.ofSeconds(60), () -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true),
            "the resident process " + pid + " ended");
      }
    }
  }

  private static String temporalVersion() {
    try {
      String out = ScaleBench.run(List.of(dev.colony.fault.Cluster.temporalCli(), "--version")).strip();
      return out.isEmpty() ? "?" : out.lines().findFirst().orElse("?");
    } catch (Exception e) {
      return "?";
    }
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
