package dev.colony.client;

import dev.colony.ant.Lifecycle;
import dev.colony.board.TaskBoard;
import dev.colony.client.ColonySource.Filter;
import dev.colony.client.ColonySource.Row;
import dev.colony.merge.ItemState;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeItem;
import dev.colony.task.TaskState;
import dev.colony.workspace.WorkspaceActivities;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The figures of state of one colony, read in one pass from visibility and the memo cards (the
 * client's own reads: {@link ColonySource}, {@link Inbox}, {@link Costs}, the {@link TaskBoard},
 * the {@link MergeSource}, {@link TaskQueuePollers}): how many ants are in each state, who needs a
 * human and since when, the messages waiting, the tasks by column, the merge queues' items, the
 * workers polling, the spend today. What the elected reporter exports as gauges (the worker's
 * {@code ColonyReporter}); the names and labels are {@link #NAMES}' and fixed.
 *
 * <p>Every label value is from a closed set (the enums' config names, {@link #REASONS}) or a name
 * the configuration gave (the colony, an ant, a repository, a host): a value that is not a plain
 * name is left out, never exported; no text an agent wrote becomes a label.
 *
 * <p>Reads of one pass, at A ants of which H need a human and M have a message queued, C changed
 * since the last pass, R repositories, K hosts: 10 counts by state, ⌈H/1000⌉ list pages (at least
 * one), ⌈M/1000⌉ pages, the costs' rows (on Temporal the changes since the last pass: ⌈C/1000⌉ pages,
 * all ⌈A/1000⌉ the first time and every ten minutes in the background), 6 task counts, ⌈R/100⌉
 * pages of merge queue cards, 1 + K task queue descriptions.
 */
public final class ColonyFigures {
  public static final String ANTS = "colony_ants";
  public static final String NEEDING_HUMAN = "colony_ants_needing_human";
  public static final String NEEDS_HUMAN_OLDEST = "colony_needs_human_oldest_seconds";
  public static final String ANT_NEEDS_HUMAN_SINCE = "colony_ant_needs_human_since_seconds";
  public static final String MAILBOX = "colony_mailbox_messages";
  public static final String POLLERS = "colony_task_queue_pollers";
  public static final String TASKS = "colony_tasks";
  public static final String MERGE_ITEMS = "colony_merge_items";
  public static final String MERGE_OLDEST = "colony_merge_oldest_item_age_seconds";
  public static final String COST_TODAY = "colony_ant_cost_today_usd";
  public static final String BUDGET_DAILY = "colony_ant_budget_daily_usd";

  /** Every gauge a pass sets, with its meaning (the Prometheus HELP line). */
  public static final Map<String, String> NAMES = names();

  /**
   * Why an ant needs a human: the {@link Inbox}'s kinds, a closed set ({@code other} for a kind
   * this release does not know, so a new one never becomes a label by itself).
   */
  public static final List<String> REASONS = List.of("confirmation", "parked", "escalated", "billing", "auth", "budget",
      "sandbox", "other");

  /** A label value Colony took from a name: a config name (an ant, a repository) or a host. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@:-]{0,199}");

  /** How many ants, tasks or queues a pass exports one by one at most (a bound against a runaway read). */
  static final int MAX_SERIES = 20_000;

  /** Live pollers of a task queue; null when the server cannot say. */
  public interface Pollers {
    Integer alive(String taskQueue, boolean activities);
  }

  /** One value of a gauge: its labels (the colony's first) and the value. */
  public record Sample(Map<String, String> labels, double value) {}

  /**
   * What one pass read: each gauge's samples, by name (a gauge whose read failed is not in it:
   * its last values stay), and which reads failed (empty: all of them answered).
   */
  public record Reading(Map<String, List<Sample>> gauges, List<String> failed, long atMillis) {
    /** The value of {@code name} with exactly {@code labels} (after the colony), or null (tests, the bench). */
    public Double value(String name, String... labels) {
      for (Sample s : gauges.getOrDefault(name, List.of())) {
        Map<String, String> want = new LinkedHashMap<>();
        want.put("colony", s.labels().get("colony"));
        for (int i = 0; i + 1 < labels.length; i += 2) {
          want.put(labels[i], labels[i + 1]);
        }
        if (want.equals(s.labels())) {
          return s.value();
        }
      }
      return null;
    }
  }

  private final ColonySource ants;
  private final TaskBoard tasks;
  private final MergeSource merges;
  private final Pollers pollers;
  private final String taskQueue;
  private final LongSupplier clock;

  /**
   * @param tasks the colony's board; null: no task gauges
   * @param merges the colony's merge queues; null: no merge gauges
   * @param pollers null: no poller gauges
   * @param taskQueue the colony's task queue (its hosts' queues are {@code taskQueue@host})
   */
  public ColonyFigures(ColonySource ants, TaskBoard tasks, MergeSource merges, Pollers pollers, String taskQueue,
      LongSupplier clock) {
    this.ants = ants;
    this.tasks = tasks;
    this.merges = merges;
    this.pollers = pollers;
    this.taskQueue = taskQueue;
    this.clock = clock;
  }

  /** One pass: every read, each on its own (one that fails leaves the others' figures). */
  public Reading read() {
    long now = clock.getAsLong();
    String colony = ants.colony();
    Map<String, List<Sample>> out = new LinkedHashMap<>();
    List<String> failed = new ArrayList<>();
    List<Row> rows = attempt("the ants' rows", failed, ants::costRows);
    run("the ants by state", failed, () -> out.put(ANTS, states(colony, rows)));
    run("the ants needing a human", failed, () -> needsHuman(colony, now, out));
    run("the queued messages", failed, () -> out.put(MAILBOX,
        List.of(new Sample(labels(colony), ants.queuedMessages()))));
    if (tasks != null) {
      run("the tasks", failed, () -> out.put(TASKS, tasks(colony)));
    }
    if (merges != null) {
      run("the merge queues", failed, () -> merge(colony, now, out));
    }
    if (pollers != null) {
      run("the pollers", failed, () -> out.put(POLLERS, pollers(colony, rows)));
    }
    if (rows != null) {
      costs(colony, rows, now, out);
    }
    return new Reading(out, List.copyOf(failed), now);
  }

  private static <T> T attempt(String what, List<String> failed, java.util.function.Supplier<T> read) {
    try {
      return read.get();
    } catch (RuntimeException e) {
      failed.add(what + ": " + dev.colony.text.Printable.line(String.valueOf(e.getMessage()), 200));
      return null;
    }
  }

  private static void run(String what, List<String> failed, Runnable read) {
    attempt(what, failed, () -> {
      read.run();
      return null;
    });
  }

  /** One count per {@link Lifecycle} value: the running ants by {@code AntState}, stopped ones from the rows. */
  private List<Sample> states(String colony, List<Row> rows) {
    if (rows == null) {
      throw new IllegalStateException("the stopped ants are counted from the rows, which did not answer");
    }
    List<String> live = new ArrayList<>();
    for (Lifecycle l : Lifecycle.values()) {
      if (l != Lifecycle.STOPPED) {
        live.add(l.configName());
      }
    }
    Map<String, Long> counts = ants.countByState(live);
    long stopped = rows.stream().filter(r -> !r.running()).map(Row::name).distinct().count();
    List<Sample> out = new ArrayList<>();
    for (Lifecycle l : Lifecycle.values()) {
      long n = l == Lifecycle.STOPPED ? stopped : counts.getOrDefault(l.configName(), 0L);
      out.add(new Sample(labels(colony, "state", l.configName()), n));
    }
    return out;
  }

  /** The {@link Inbox}'s items: ants by reason, the oldest wait, and each ant's wait by reason. */
  private void needsHuman(String colony, long now, Map<String, List<Sample>> out) {
    List<Inbox.Item> items = Inbox.of(ants.list(Filter.NEED_YOU));
    Map<String, java.util.Set<String>> byReason = new LinkedHashMap<>();
    REASONS.forEach(r -> byReason.put(r, new TreeSet<>()));
    Map<String, Long> since = new TreeMap<>(); // "ant\nreason" -> the oldest since
    Long oldest = null;
    for (Inbox.Item i : items) {
      String reason = reason(i.kind());
      byReason.get(reason).add(i.ant());
      if (i.sinceMillis() != null) {
        oldest = oldest == null ? i.sinceMillis() : Math.min(oldest, i.sinceMillis());
        if (NAME.matcher(i.ant()).matches()) {
          since.merge(i.ant() + "\n" + reason, i.sinceMillis(), Math::min);
        }
      }
    }
    List<Sample> counts = new ArrayList<>();
    byReason.forEach((r, names) -> counts.add(new Sample(labels(colony, "reason", r), names.size())));
    List<Sample> each = new ArrayList<>();
    since.forEach((k, at) -> {
      if (each.size() < MAX_SERIES) {
        String[] p = k.split("\n", 2);
        each.add(new Sample(labels(colony, "ant", p[0], "reason", p[1]), seconds(now - at)));
      }
    });
    out.put(NEEDING_HUMAN, counts);
    out.put(NEEDS_HUMAN_OLDEST, List.of(new Sample(labels(colony), oldest == null ? 0 : seconds(now - oldest))));
    out.put(ANT_NEEDS_HUMAN_SINCE, each);
  }

  /** An inbox kind as a label: one of {@link #REASONS}. */
  static String reason(String kind) {
    String k = kind == null ? "" : kind.toLowerCase(Locale.ROOT);
    return REASONS.contains(k) ? k : "other";
  }

  private List<Sample> tasks(String colony) {
    List<Sample> out = new ArrayList<>();
    for (TaskState s : TaskState.values()) {
      out.add(new Sample(labels(colony, "state", s.word()), tasks.count(new TaskBoard.Filter(s, null, null, null, 1))));
    }
    return out;
  }

  /** Each queue's open items by state (zeros too) and the age of its oldest open item (0: none). */
  private void merge(String colony, long now, Map<String, List<Sample>> out) {
    List<Sample> items = new ArrayList<>();
    List<Sample> oldest = new ArrayList<>();
    for (MergeCard c : merges.cards()) {
      if (c.repo() == null || !NAME.matcher(c.repo()).matches()) {
        continue;
      }
      Map<ItemState, Long> n = new java.util.EnumMap<>(ItemState.class);
      long first = Long.MAX_VALUE;
      for (MergeItem i : c.items()) {
        if (i.state() != null && i.state().open()) {
          n.merge(i.state(), 1L, Long::sum);
          if (i.submittedAt() > 0) {
            first = Math.min(first, i.submittedAt());
          }
        }
      }
      for (ItemState s : ItemState.values()) {
        if (s.open()) {
          items.add(new Sample(labels(colony, "repo", c.repo(), "state", s.name().toLowerCase(Locale.ROOT)),
              n.getOrDefault(s, 0L)));
        }
      }
      oldest.add(new Sample(labels(colony, "repo", c.repo()), first == Long.MAX_VALUE ? 0 : seconds(now - first)));
    }
    out.put(MERGE_ITEMS, items);
    out.put(MERGE_OLDEST, oldest);
  }

  /** The colony's queue (its workflows) and each host's queue its running ants use (their sessions). */
  private List<Sample> pollers(String colony, List<Row> rows) {
    List<Sample> out = new ArrayList<>();
    Integer n = pollers.alive(taskQueue, false);
    if (n != null) {
      out.add(new Sample(labels(colony, "task_queue", taskQueue), n));
    }
    TreeSet<String> hosts = new TreeSet<>();
    if (rows != null) {
      for (Row r : rows) {
        if (r.running() && r.host() != null && NAME.matcher(r.host()).matches()) {
          hosts.add(r.host());
        }
      }
    }
    for (String h : hosts) {
      String q = WorkspaceActivities.hostQueue(taskQueue, h);
      Integer m = pollers.alive(q, true);
      if (m != null && NAME.matcher(q).matches()) {
        out.add(new Sample(labels(colony, "task_queue", q), m));
      }
    }
    return out;
  }

  /**
   * Spend today in each ant's budget zone ({@link Costs}): every running ant, and a stopped one
   * while it spent today; the daily cap of those with one.
   */
  private static void costs(String colony, List<Row> rows, long now, Map<String, List<Sample>> out) {
    Costs costs = Costs.of(rows, 1, now);
    List<Sample> today = new ArrayList<>();
    List<Sample> caps = new ArrayList<>();
    for (int i = 0; i < rows.size() && today.size() < MAX_SERIES; i++) {
      Row r = rows.get(i);
      Costs.Ant a = costs.ants().get(i);
      if (!NAME.matcher(r.name()).matches() || !(r.running() || a.todayUsd() > 0)) {
        continue;
      }
      today.add(new Sample(labels(colony, "ant", r.name()), a.todayUsd()));
      if (a.dailyBudgetUsd() != null) {
        caps.add(new Sample(labels(colony, "ant", r.name()), a.dailyBudgetUsd()));
      }
    }
    out.put(COST_TODAY, today);
    out.put(BUDGET_DAILY, caps);
  }

  private static double seconds(long millis) {
    return Math.max(0, millis) / 1000.0;
  }

  private static Map<String, String> labels(String colony, String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("colony", colony);
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  private static Map<String, String> names() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(ANTS, "Ants of the colony in each lifecycle state (running ants by their AntState; stopped: ants whose last run ended)");
    m.put(NEEDING_HUMAN, "Ants waiting for a human, by why (the inbox's kinds)");
    m.put(NEEDS_HUMAN_OLDEST, "How long the longest-waiting item of the inbox has waited, in seconds (0: nothing waits)");
    m.put(ANT_NEEDS_HUMAN_SINCE, "How long each ant needing a human has waited, in seconds, by why");
    m.put(MAILBOX, "Instructions queued in the running ants' mailboxes");
    m.put(POLLERS, "Workers polling the task queue (within the last 70 s), as the server sees them");
    m.put(TASKS, "Tasks on the colony's board, by column");
    m.put(MERGE_ITEMS, "Open items of each merge queue, by state");
    m.put(MERGE_OLDEST, "Age of the oldest open item of each merge queue, in seconds (0: none)");
    m.put(COST_TODAY, "What each ant spent today in its budget zone, in USD");
    m.put(BUDGET_DAILY, "Each ant's daily budget cap, in USD (ants with a cap only)");
    return java.util.Collections.unmodifiableMap(m);
  }
}
