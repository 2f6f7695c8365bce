package dev.colony.cli;

import dev.colony.client.AntRow;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show what every running ant (or one) is doing. Lists come from Temporal visibility, "
        + "so they answer with no worker running.")
final class StatusCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1", paramLabel = "ANT", description = "An ant name, or colony/ant.")
  String ant;

  @Option(names = "--json", description = "Print one JSON document instead of a table.")
  boolean json;

  @Option(names = "--colony", paramLabel = "NAME", description = "Only ants of this colony.")
  String colony;

  @Option(names = "--all", description = "List every ant in the table even when there are more than "
      + TABLE_LIMIT + " (by default a big colony shows the ants that need attention and a summary).")
  boolean all;

  /**
   * Above this many ants the table shows only those that need attention (--json always lists all):
   * a longer table scrolls off a terminal, and listing every row costs the server a full page scan
   * (1,000 rows: about 0.3 s on the dev server, more than the rest of the command).
   */
  static final int TABLE_LIMIT = 100;
  /** The limit in force; a test lowers it with -Dcolony.status.tableLimit instead of starting 1,000 ants. */
  private static final int tableLimit = Integer.getInteger("colony.status.tableLimit", TABLE_LIMIT);
  /** Ants an operator should look at: waiting for a human, paused, or failing. */
  static final dev.colony.client.VisibilityQuery ATTENTION = dev.colony.client.VisibilityQuery.anyOf(
      dev.colony.client.VisibilityQuery.where().eq("AntNeedsHuman", true),
      dev.colony.client.VisibilityQuery.where().eq("AntPaused", true),
      dev.colony.client.VisibilityQuery.where().above("AntErrors", 0));

  /**
   * How long one ant's worker has to answer: what is left of the 2 s a user waits for
   * {@code status ANT} once the connection, the worker check and the visibility fallback are paid.
   */
  static final java.time.Duration LIVE_WITHIN = java.time.Duration.ofMillis(1500);

  @Mixin
  TemporalOptions temporal;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    try (Temporal t = Temporal.connect(temporal)) {
      List<WorkerCheck> workers;
      if (ant == null) {
        workers = list(t, out);
      } else {
        workers = List.of(detail(t, out));
      }
      out.flush();
      for (WorkerCheck w : workers) {
        if (w.warning() != null) {
          err.println("colony: " + w.warning());
        }
      }
      err.flush();
    }
    return 0;
  }

  /**
   * Lists the ants; returns the worker check of each task queue they run on (each colony has its
   * own), or of --task-queue when given.
   */
  private List<WorkerCheck> list(Temporal t, java.io.PrintWriter out) {
    if (json) {
      List<AntRow> rows = Ants.list(t, colony);
      List<WorkerCheck> workers = checks(t, rows);
      out.print(StatusView.json(t.address, t.namespace, rows,
          workers.isEmpty() ? WorkerCheck.of(t, temporal.taskQueue(colony == null ? "?" : colony)) : workers.get(0)));
      return workers;
    }
    Long total = all ? null : Ants.count(t, colony, null);
    if (total != null && total > tableLimit) {
      List<AntRow> attention = Ants.list(t, colony, ATTENTION, tableLimit);
      List<AntRow> seen = new java.util.ArrayList<>(attention);
      if (seen.isEmpty()) {
        seen.addAll(Ants.list(t, colony, null, 1)); // one ant, for its task queue
      }
      if (!attention.isEmpty()) {
        out.print(StatusView.table(attention, Instant.now()));
      }
      out.printf("%,d ants running; %s. Every ant: colony status --all (or --json).%n", total,
          attention.isEmpty() ? "none needs attention"
              : String.format("%,d shown (waiting for a human, paused or failing), the rest are fine", attention.size()));
      return checks(t, seen);
    }
    List<AntRow> rows = Ants.list(t, colony);
    out.print(StatusView.table(rows, Instant.now()));
    return checks(t, rows);
  }

  /** Whether a worker polls each task queue these ants run on (--task-queue: that one), asked at once. */
  private List<WorkerCheck> checks(Temporal t, List<AntRow> rows) {
    java.util.TreeSet<String> queues = new java.util.TreeSet<>();
    if (temporal.taskQueue != null) {
      queues.add(temporal.taskQueue);
    } else {
      rows.forEach(r -> queues.add(r.taskQueue() != null && !r.taskQueue().isEmpty() ? r.taskQueue()
          : temporal.taskQueue(r.colony())));
    }
    List<java.util.concurrent.CompletableFuture<WorkerCheck>> asked = queues.stream()
        .map(q -> java.util.concurrent.CompletableFuture.supplyAsync(() -> WorkerCheck.of(t, q))).toList();
    return asked.stream().map(java.util.concurrent.CompletableFuture::join).toList();
  }

  /**
   * Whether a worker polls the queue {@code ref}'s ant runs on. First its colony's queue (no
   * extra call); when none polls there and no --task-queue was given, the ant may run on another
   * queue (started with --task-queue, or before each colony had its own): one describe says which,
   * and that queue is checked. {@code described[0]} keeps the row so the caller need not ask again.
   */
  static WorkerCheck workersOf(Temporal t, TemporalOptions temporal, Ants.Ref ref, AntRow[] described) {
    WorkerCheck workers = WorkerCheck.of(t, temporal.taskQueue(ref.colony()));
    if (!Boolean.FALSE.equals(workers.polling()) || temporal.taskQueue != null) {
      return workers;
    }
    AntRow row = Ants.row(t, ref);
    described[0] = row;
    String queue = row.taskQueue();
    return queue == null || queue.isEmpty() || queue.equals(workers.taskQueue()) ? workers : WorkerCheck.of(t, queue);
  }

  /** One ant: its live status and stats from the workflow when a worker answers, else visibility. */
  private WorkerCheck detail(Temporal t, java.io.PrintWriter out) {
    Ants.Ref ref = Ants.resolve(t, ant, colony);
    AntRow[] described = new AntRow[1];
    WorkerCheck workers = workersOf(t, temporal, ref, described);
    Ants.Live live = Boolean.FALSE.equals(workers.polling()) ? null : Ants.live(t, ref, LIVE_WITHIN);
    if (live != null) {
      out.print(json ? StatusView.json(t.address, t.namespace, live.status(), live.stats())
          : StatusView.detail(live.status(), live.stats(), Instant.now()));
      return workers;
    }
    AntRow row = described[0] != null ? described[0] : Ants.row(t, ref);
    if (json) {
      out.print(StatusView.json(t.address, t.namespace, List.of(row), workers));
    } else {
      out.print(StatusView.detail(row, Instant.now()));
      if (Boolean.TRUE.equals(workers.polling())) {
        // A worker polled within the last 20 s, yet none answered: the ant's worker has stopped
        // polling (shutting down, its sessions in their grace) or is gone; say so at once instead
        // of leaving "running" to stand until the poll goes stale.
        out.println("  worker:             its worker is stopping or gone, or too busy to answer (it polled "
            + StatusView.human(java.time.Duration.between(workers.lastSeen(), Instant.now())) + " ago but did not answer within "
            + LIVE_WITHIN.toMillis() / 1000.0 + " s)");
      }
      out.println(workers.current() != null && Boolean.FALSE.equals(workers.polling())
          ? "  (from visibility: no worker of the current version " + workers.current()
              + " polls, so queue details and stats are not shown)"
          : "  (from visibility: no worker answered the status query within "
              + LIVE_WITHIN.toMillis() / 1000.0 + " s, so queue details and stats are not shown)");
    }
    return workers;
  }
}
