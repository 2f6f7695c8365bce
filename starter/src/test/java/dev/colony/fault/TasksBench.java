package dev.colony.fault;

import dev.colony.board.TemporalTaskBoard;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskEvent;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskSearchAttributes;
import dev.colony.task.TaskSettings;
import dev.colony.task.TaskState;
import dev.colony.testing.Eventually;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

/**
 * The task board, measured ({@code bench/tasks} writes {@code bench/TASKS.md}): how long a task
 * waits in To Do before an idle ant holds it In Progress, what taking a task adds to each session,
 * and the board's first paint with 10,000 tasks. Real processes on loopback, from the built jar:
 * {@code colony server} (the Temporal dev server), {@code colony worker}, {@code colony console};
 * the ants of {@code examples/tasks}; the page in headless Chromium. Times come from the
 * histories' event times (the server's clock), not from polling.
 */
public final class TasksBench {
  private static final Path EXAMPLE = Path.of("../examples/tasks").toAbsolutePath().normalize();
  private static final Pattern URL = Pattern.compile("console on\\s+(http://\\S+)");
  private static final String COLONY = "tasks";
  private static final int CLAIMS = 40;
  private static final int BOARD = 10_000;
  private static final int PAINT_RUNS = 5;

  private TasksBench() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "bench/TASKS.md");
    Path tmp = Files.createTempDirectory("colony-tasks-bench");
    List<String> report = new ArrayList<>();
    long began = System.nanoTime();
    try (Cluster c = new Cluster(tmp, EXAMPLE)) {
      c.colonyName = COLONY;
      Files.writeString(c.dir.resolve(".env"), "WRITER_LINGER=0\n");
      for (String ant : java.util.List.of("ada", "bob")) { // the sandbox passes in only what an ant's file grants
        Files.writeString(c.dir.resolve("ants/" + ant + ".yaml"), "sandbox:\n  secrets: [WRITER_LINGER]\n",
            java.nio.file.StandardOpenOption.APPEND);
      }
      c.startServer("dev");
      c.startWorker("only");
      c.cli("start", c.dir.toString());
      TemporalTaskBoard board = new TemporalTaskBoard(c.client, COLONY, TaskSettings.defaults());

      // 1. One task at a time, for two idle ants (when_idle: wait): To Do -> In Progress -> In Review.
      List<Long> claim = new ArrayList<>();
      for (int i = 0; i < CLAIMS; i++) {
        TaskCard t = board.add(new NewTask(null, "bench task " + i, "Write a line.", Priority.NORMAL, List.of("docs"),
            Assignee.pool("docs"), TaskState.TODO, null, "bench"));
        Eventually.eventually(Duration.ofSeconds(60), () -> {
          TaskCard now = board.get(t.id());
          return now != null && now.state() == TaskState.IN_REVIEW;
        }, "task " + t.id() + " in review");
        claim.add(toDoToInProgress(c, t.id()));
      }
      report.add("## From To Do to In Progress\n");
      report.add("A task added for `pool:docs` while both ants of `examples/tasks` wait idle (`when_idle: wait`): "
          + "from the task's start (To Do) to its accepted `claim` update (In Progress), read from the task's "
          + "history. It covers the task's announcement (a visibility query and a signal), the ant waking, "
          + "and its look: `TakeTask` (visibility, then an update; `FindTasks` and `ClaimTask` in runs before it). " + CLAIMS + " tasks, one at a time.\n");
      report.add("| claims | p50 | p90 | p99 | max |\n|---|---|---|---|---|");
      report.add(row(claim));

      // 2. What taking a task adds to a session, from the ants' histories.
      List<Long> before = new ArrayList<>();
      List<Long> after = new ArrayList<>();
      for (String ant : List.of("ada", "bob")) {
        added(c, ant, before, after);
      }
      List<Long> total = new ArrayList<>();
      for (int i = 0; i < Math.min(before.size(), after.size()); i++) {
        total.add(before.get(i) + after.get(i));
      }
      report.add("\n## What taking a task adds to a session\n");
      report.add("From each ant's history: before the session, from the start of the workflow task that ran "
          + "`TakeTask` (find and claim in one local activity; `FindTasks` scheduled in runs before it) to the "
          + "session's `RunSession` scheduled (find, claim, and the workflow tasks between); after it, from `RunSession` "
          + "completed to `ReportTask` completed. Target: under 50 ms in all.\n");
      report.add("| per session | sessions | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|");
      report.add("| before (find + claim) | " + row(before).substring(2));
      report.add("| after (report) | " + row(after).substring(2));
      report.add("| added in all | " + row(total).substring(2));

      if (!Boolean.parseBoolean(System.getProperty("bench.board", "true"))) {
        report.add("\n(The board's first paint was not measured in this run: -Dbench.board=false.)");
        Files.writeString(out, String.join("\n", report) + "\n");
        return;
      }
      // 3. The board with 10,000 tasks: visibility and memos only (no worker runs them).
      long t0 = System.nanoTime();
      startShaped(c, BOARD);
      long startMs = (System.nanoTime() - t0) / 1_000_000;
      Eventually.eventually(Duration.ofMinutes(5), () -> board.list(new dev.colony.board.TaskBoard.Filter(null, null,
          null, null, BOARD)).size() >= BOARD, "visibility lists the tasks");
      Path consoleLog = c.logs.resolve("console.log");
      Process console = new ProcessBuilder(Cluster.jvm("console", c.dir.toString(), "--address", c.address,
          "--port", Integer.toString(Cluster.freePort()))).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(consoleLog.toFile())).start();
      try {
        Eventually.eventually(Duration.ofSeconds(90), () -> URL.matcher(Cluster.read(consoleLog)).find(),
            "the console's URL");
        Matcher m = URL.matcher(Cluster.read(consoleLog));
        m.find();
        String url = m.group(1).replaceAll("/$", "");
        report.add("\n## The board: first meaningful paint\n");
        report.add("A fresh load of `/board` in headless Chromium (1400x1000) until the first task's card is drawn, "
            + "read in the page as `performance.now()` (from the start of navigation: the server's answers "
            + "included). " + String.format(Locale.ROOT, "%,d", BOARD) + " tasks across the six columns, started "
            + "with their search attributes and card (body, comments, log) and no worker; plus the " + CLAIMS
            + " real ones. Runs: 1 cold and " + PAINT_RUNS + " warm.\n");
        report.add("| tasks | cold | warm median (min–max) | target |\n|---|---|---|---|");
        report.add(paint(tmp, url, startMs));
      } finally {
        console.destroy();
        console.waitFor(20, TimeUnit.SECONDS);
      }
    }
    report.add(String.format(Locale.ROOT, "\nMachine: %d cores, Java %s, %s %s. Took %d s. Recorded %s.",
        Runtime.getRuntime().availableProcessors(), Runtime.version(), System.getProperty("os.name"),
        System.getProperty("os.arch"), (System.nanoTime() - began) / 1_000_000_000L, Instant.now()));
    String doc = "# The task board, measured\n\nMeasured by `bench/tasks` (the `TasksBench` main): `colony server` "
        + "(the real Temporal dev server, SQLite), `colony worker` and `colony console` as processes from the built "
        + "jar, the ants of `examples/tasks`, the page in headless Chromium.\n\n" + String.join("\n", report) + "\n";
    Files.writeString(out, doc);
    System.out.println(doc);
  }

  /** Milliseconds from the task's start to its accepted claim, from its history. */
  private static long toDoToInProgress(Cluster c, String id) {
    List<HistoryEvent> events = c.client.fetchHistory(TaskIds.workflowId(COLONY, id)).getEvents();
    long start = millis(events.get(0));
    for (HistoryEvent e : events) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
          && e.getWorkflowExecutionUpdateAcceptedEventAttributes().getAcceptedRequest().getInput().getName()
          .equals("claim")) {
        return millis(e) - start;
      }
    }
    throw new IllegalStateException("task " + id + " has no accepted claim");
  }

  /** Per task session of {@code ant}: what finding and claiming added before it, and reporting after it. */
  private static void added(Cluster c, String ant, List<Long> before, List<Long> after) {
    List<HistoryEvent> events = c.client.fetchHistory("ant/" + COLONY + "/" + ant).getEvents();
    Map<Long, String> scheduled = new HashMap<>(); // event id -> activity type
    Long findAt = null;
    Long sessionEnded = null;
    Long taskStarted = null;
    for (HistoryEvent e : events) {
      switch (e.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_STARTED -> taskStarted = millis(e);
        case EVENT_TYPE_MARKER_RECORDED -> {
          // TakeTask (find and claim, a local activity): it ran in the workflow task that recorded it.
          var details = e.getMarkerRecordedEventAttributes().getDetailsMap();
          var type = details.get("type");
          if (type != null && type.getPayloadsCount() > 0 && type.getPayloads(0).getData().toStringUtf8()
              .contains("TakeTask")) {
            var result = details.get("result");
            boolean took = result != null && result.getPayloadsCount() > 0
                && result.getPayloads(0).getData().toStringUtf8().contains("\"taken\":true");
            findAt = took ? taskStarted : null; // took nothing: the wait that follows is not added to a session
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
          String type = e.getActivityTaskScheduledEventAttributes().getActivityType().getName();
          scheduled.put(e.getEventId(), type);
          if (type.equals("FindTasks")) {
            findAt = millis(e); // the look that led to the session (an earlier one lost its claim, or found nothing)
          } else if (type.equals("RunSession") && findAt != null) {
            before.add(millis(e) - findAt);
            findAt = null;
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED -> {
          String type = scheduled.get(e.getActivityTaskCompletedEventAttributes().getScheduledEventId());
          if ("RunSession".equals(type)) {
            sessionEnded = millis(e);
          } else if ("ReportTask".equals(type) && sessionEnded != null) {
            after.add(millis(e) - sessionEnded);
            sessionEnded = null;
          }
        }
        default -> { }
      }
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED && findAt != null) {
        String type = scheduled.get(e.getActivityTaskCompletedEventAttributes().getScheduledEventId());
        if ("FindTasks".equals(type) && e.getActivityTaskCompletedEventAttributes().getResult().getPayloadsCount() > 0
            && e.getActivityTaskCompletedEventAttributes().getResult().getPayloads(0).getData().toStringUtf8()
            .equals("[]")) {
          findAt = null; // found nothing: the wait that follows is not added to a session
        }
      }
    }
  }

  private static long millis(HistoryEvent e) {
    return e.getEventTime().getSeconds() * 1000 + e.getEventTime().getNanos() / 1_000_000;
  }

  private static String row(List<Long> samples) {
    List<Long> s = new ArrayList<>(samples);
    Collections.sort(s);
    if (s.isEmpty()) {
      return "| 0 | - | - | - | - |";
    }
    return String.format(Locale.ROOT, "| %d | %d ms | %d ms | %d ms | %d ms |", s.size(), pct(s, 50), pct(s, 90),
        pct(s, 99), s.get(s.size() - 1));
  }

  private static long pct(List<Long> sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  private static final TaskState[] STATES = {TaskState.BACKLOG, TaskState.TODO, TaskState.TODO, TaskState.IN_PROGRESS,
      TaskState.IN_REVIEW, TaskState.DONE, TaskState.DONE, TaskState.BLOCKED};

  /** Task-shaped executions with search attributes and a card; nobody runs them. */
  private static void startShaped(Cluster c, int n) throws Exception {
    long now = System.currentTimeMillis();
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> started = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int k = i;
        started.add(pool.submit(() -> {
          String id = String.format(Locale.ROOT, "b%05d", k);
          TaskState state = STATES[k % STATES.length];
          Priority priority = Priority.values()[k % 3];
          List<String> labels = k % 2 == 0 ? List.of("docs") : List.of("backend", "api");
          Assignee assignee = k % 5 == 0 ? Assignee.ant("ada") : Assignee.pool(labels.get(0));
          String worker = state == TaskState.IN_PROGRESS || state == TaskState.IN_REVIEW ? "ada" : null;
          TaskCard card = new TaskCard(COLONY, id, "Bench task " + k + ": tidy the module's README and its examples",
              "Make the README match the code.\nKeep it short.", priority, labels, assignee, state,
              state == TaskState.BLOCKED ? "failed 3 sessions: tests red" : null, worker, null, 0, now - k * 1000L,
              now - k * 500L, now - k * 500L, List.of(new TaskComment("@alice", "Please keep the examples.", now)), null,
              null, List.of(), List.of(new TaskEvent(now - k * 1000L, "bench", "added to " + state.label())));
          List<String> tags = new ArrayList<>(Assignee.tags(assignee, labels));
          if (state == TaskState.IN_PROGRESS) {
            tags.add(TaskSearchAttributes.workerTag(worker));
          }
          SearchAttributes sa = SearchAttributes.newBuilder()
              .set(TaskSearchAttributes.COLONY, COLONY).set(TaskSearchAttributes.STATE, state.word())
              .set(TaskSearchAttributes.PRIORITY, priority.word())
              .set(TaskSearchAttributes.TAGS, List.copyOf(new java.util.TreeSet<>(tags)))
              .set(TaskSearchAttributes.UPDATED_AT, OffsetDateTime.ofInstant(Instant.ofEpochMilli(card.updatedAtMillis()),
                  ZoneOffset.UTC))
              .build();
          WorkflowOptions options = WorkflowOptions.newBuilder().setWorkflowId(TaskIds.workflowId(COLONY, id))
              .setTaskQueue("nobody-polls-this").setTypedSearchAttributes(sa)
              .setMemo(Map.of(TaskCard.MEMO_KEY, card)).build();
          c.client.newUntypedWorkflowStub(TaskIds.WORKFLOW_TYPE, options).start();
          return null;
        }));
      }
      for (Future<?> f : started) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static String paint(Path tmp, String url, long startMs) throws Exception {
    WebDriver browser = Chromium.start(tmp, 1400, 1000);
    try {
      browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
      List<Double> runs = new ArrayList<>();
      for (int i = 0; i <= PAINT_RUNS; i++) {
        browser.get("about:blank");
        browser.get(url + "/board");
        Object t = ((JavascriptExecutor) browser).executeAsyncScript("""
            const done = arguments[arguments.length - 1];
            (function check() {
              if (document.querySelector('.task[data-id]')) done(performance.now());
              else requestAnimationFrame(check);
            })();""");
        runs.add(((Number) t).doubleValue());
        // The page then reads the whole board: let it finish, so the next run does not share the server with it.
        ((JavascriptExecutor) browser).executeAsyncScript("""
            const done = arguments[arguments.length - 1];
            (function check() {
              if (performance.getEntriesByName('board-loaded').length) done(true);
              else setTimeout(check, 50);
            })();""");
      }
      Chromium.screenshot(browser, "bench-tasks", "board-10000");
      double cold = runs.get(0);
      List<Double> warm = new ArrayList<>(runs.subList(1, runs.size()));
      Collections.sort(warm);
      return String.format(Locale.ROOT, "| %,d (+%d real; started in %,d ms) | %,.0f ms | %,.0f ms (%,.0f–%,.0f) | < 1 s |",
          BOARD, CLAIMS, startMs, cold, warm.get(warm.size() / 2), warm.get(0), warm.get(warm.size() - 1));
    } finally {
      browser.quit();
    }
  }
}
