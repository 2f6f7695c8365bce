package dev.colony.ant;

import dev.colony.errorpolicy.Outcome;
import dev.colony.merge.MergeRepo;
import dev.colony.spec.AntSpec;
import dev.colony.supervision.AntFailure;
import io.temporal.workflow.Workflow;
import java.util.Locale;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The one way workflow code emits metrics (docs/development.md, "Metrics from workflow code"): counters
 * and timers on {@link Workflow#getMetricsScope()}, which counts nothing while the workflow replays, so a
 * fact is counted once however often its history is replayed (a cache eviction, another worker, a
 * query). No gauges here: a figure of state (ants by state, who needs a human) is not a fact of one
 * workflow task.
 *
 * <p>Labels are closed sets: the colony's and the ant's (or merge queue's) config names, the engine, and
 * the project's own enums ({@link Outcome}, {@link Unfinished}, {@link Wait}, ...). Never a detail, a
 * message, a tool or a path from an agent: a name that is not a config name reads {@value #INVALID}.
 *
 * <p>Names follow Prometheus' conventions once Micrometer's Prometheus registry writes them: counters
 * are registered without {@code _total} (it is added), timers with their unit ({@code _seconds}, kept).
 * Durations are timers, never Tally histograms (Temporal's Micrometer reporter drops those); counters
 * count whole numbers, so money is counted in micro-dollars.
 *
 * <p>Without a metrics reporter on the worker's service stubs the scope is a no-op: emitting costs
 * nothing and changes no command (no version marker is needed to add or move a metric).
 */
public final class AntMetrics {
  // Sessions (labels colony, ant, engine; the duration has no ant label: buckets times ants is the largest cost).
  public static final String SESSIONS_STARTED = "colony_sessions_started";
  /** Sessions ended, by {@code outcome}: an {@link Outcome} category or an {@link Unfinished} reason. */
  public static final String SESSIONS = "colony_sessions";
  public static final String SESSION_DURATION = "colony_session_duration_seconds";
  public static final String SESSION_TURNS = "colony_session_turns";
  /** Tokens by {@code type}: {@code input} or {@code output} (OpenTelemetry GenAI's words). */
  public static final String TOKENS = "colony_tokens";
  /** Money charged to the ant (sessions and its overseer), in micro-dollars: the ledger's figure. */
  public static final String COST = "colony_cost_microdollars";
  /** Waits after a failed session, by {@code kind}: {@code backoff} or {@code rate_limit}. */
  public static final String WAITS = "colony_waits";
  /** How long each of those waits was planned to last. */
  public static final String WAIT_PLANNED = "colony_wait_planned_seconds";
  /** Pauses for a reached budget cap, by {@code window}: {@code daily} or {@code monthly}. */
  public static final String BUDGET_PAUSES = "colony_budget_pauses";
  /** Parks, by {@code reason}: {@code errors} (an error threshold) or {@code fatal} (its own workflow code failed). */
  public static final String PARKS = "colony_parks";
  /** Sessions whose agent outlived interrupt_grace and was killed. */
  public static final String FORCE_STOPS = "colony_session_force_stops";
  public static final String CONFIRMATIONS_REQUESTED = "colony_confirmations_requested";
  /** Confirmations decided, by {@code decision}: see {@link Decision}. */
  public static final String CONFIRMATIONS_DECIDED = "colony_confirmations_decided";
  /** From a confirmation's request to its decision, by {@code decision}. */
  public static final String CONFIRMATION_ANSWER = "colony_confirmation_answer_seconds";
  /** What the ant told its colony's supervisor, by {@code kind} (the {@link AntFailure} kinds). */
  public static final String SUPERVISION_REPORTS = "colony_supervision_reports";

  // The merge queue (labels colony, repo: the merge queue's name).
  public static final String MERGE_LANDINGS = "colony_merge_landings";
  /** From an item's landing start to landed (tests included). */
  public static final String MERGE_LANDING = "colony_merge_landing_seconds";
  /** Items sent back to their ant, by {@code reason}: see {@link Rework}. */
  public static final String MERGE_REWORKS = "colony_merge_reworks";
  /** Test runs of rebased heads, by {@code result}: see {@link TestResult}. */
  public static final String MERGE_TESTS = "colony_merge_tests";
  /** Items that went to a human (a step only a human resolves, or too many tries). */
  public static final String MERGE_NEEDS_HUMAN = "colony_merge_needs_human";

  /** Every label key workflow code emits (besides Temporal's own namespace, task_queue, workflow_type). */
  public static final java.util.List<String> LABELS = java.util.List.of("colony", "ant", "engine", "outcome", "type",
      "kind", "window", "reason", "decision", "repo", "result");

  /** A colony, ant or merge queue name that is not a config name (never seen: config refuses it). */
  static final String INVALID = "invalid";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");

  /** Why a session ended without an outcome of its own. */
  public enum Unfinished {
    /** An urgent message or a supervisor's restart interrupted it. */
    INTERRUPTED,
    /** An abort interrupted it and dropped its task. */
    ABORTED,
    /** The ant was stopped during it (it runs again after a start). */
    STOPPED,
    /** Its host died or stopped answering (it runs again). */
    HOST_LOST;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why the ant waits after a failed session. */
  public enum Wait {
    BACKOFF, RATE_LIMIT;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why the ant parked. */
  public enum Park {
    ERRORS, FATAL;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** How a confirmation ended. */
  public enum Decision {
    APPROVED, DENIED, TIMED_OUT, SESSION_ENDED;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why the merge queue sent an item back to its ant. */
  public enum Rework {
    CONFLICT, TESTS_FAILED, TESTS_TIMED_OUT;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** How a merge queue's test run ended. */
  public enum TestResult {
    PASSED, FAILED, TIMED_OUT, COULD_NOT_RUN;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Supplier<AntSpec> spec;

  /** The metrics of the ant whose spec in force {@code spec} gives (read at each fact: configure may change it). */
  AntMetrics(Supplier<AntSpec> spec) {
    this.spec = spec;
  }

  /** A session is about to start. */
  void sessionStarted() {
    counter(SESSIONS_STARTED, ant(), 1);
  }

  /** A session ended with {@code outcome}, {@code millis} after it began (workflow time). */
  void sessionEnded(Outcome outcome, long millis) {
    ended(outcome.configName(), millis);
  }

  /** A session ended without an outcome of its own, {@code millis} after it began. */
  void sessionEnded(Unfinished why, long millis) {
    ended(why.label(), millis);
  }

  private void ended(String outcome, long millis) {
    TreeMap<String, String> labels = ant();
    labels.put("outcome", outcome);
    counter(SESSIONS, labels, 1);
    TreeMap<String, String> perEngine = new TreeMap<>(labels);
    perEngine.remove("ant");
    timer(SESSION_DURATION, perEngine, millis);
  }

  /** What a finished session reported using. */
  void usage(int turns, long inputTokens, long outputTokens) {
    counter(SESSION_TURNS, ant(), turns);
    TreeMap<String, String> labels = ant();
    labels.put("type", "input");
    counter(TOKENS, labels, inputTokens);
    labels = ant();
    labels.put("type", "output");
    counter(TOKENS, labels, outputTokens);
  }

  /** Money charged to the ant (a positive, finite amount: the ledger's own test). */
  void charged(double usd) {
    if (usd > 0 && Double.isFinite(usd)) {
      counter(COST, ant(), Math.round(usd * 1e6));
    }
  }

  /** The ant waits {@code millis} after a failed session. */
  void waited(Wait kind, long millis) {
    TreeMap<String, String> labels = ant();
    labels.put("kind", kind.label());
    counter(WAITS, labels, 1);
    timer(WAIT_PLANNED, labels, millis);
  }

  /** A budget cap paused the ant; {@code window} is the cap's ({@code monthly}, else daily). */
  void budgetPaused(String window) {
    TreeMap<String, String> labels = ant();
    labels.remove("engine");
    labels.put("window", "monthly".equals(window) ? "monthly" : "daily");
    counter(BUDGET_PAUSES, labels, 1);
  }

  void parked(Park reason) {
    TreeMap<String, String> labels = ant();
    labels.remove("engine");
    labels.put("reason", reason.label());
    counter(PARKS, labels, 1);
  }

  void forceStopped() {
    TreeMap<String, String> labels = ant();
    labels.remove("engine");
    counter(FORCE_STOPS, labels, 1);
  }

  void confirmationRequested() {
    TreeMap<String, String> labels = ant();
    labels.remove("engine");
    counter(CONFIRMATIONS_REQUESTED, labels, 1);
  }

  /** A confirmation asked at {@code openedMillis} (null: not known, no duration) was decided now. */
  void confirmationDecided(Decision decision, Long openedMillis) {
    TreeMap<String, String> labels = ant();
    labels.remove("engine");
    labels.put("decision", decision.label());
    counter(CONFIRMATIONS_DECIDED, labels, 1);
    if (openedMillis != null) {
      timer(CONFIRMATION_ANSWER, labels, Workflow.currentTimeMillis() - openedMillis);
    }
  }

  /** The ant told its colony's supervisor of a {@code kind}; a kind that is not an {@link AntFailure} one reads {@code other}. */
  void reported(String kind) {
    TreeMap<String, String> labels = ant();
    labels.remove("engine");
    labels.put("kind", switch (kind == null ? AntFailure.PARKED : kind) {
      case AntFailure.PARKED, AntFailure.UNRESPONSIVE, AntFailure.BUDGET, AntFailure.ESCALATED, AntFailure.RESUMED,
          AntFailure.ABORTED -> kind == null ? AntFailure.PARKED : kind;
      default -> "other";
    });
    counter(SUPERVISION_REPORTS, labels, 1);
  }

  private TreeMap<String, String> ant() {
    AntSpec s = spec.get();
    TreeMap<String, String> labels = new TreeMap<>();
    labels.put("colony", name(s.colony()));
    labels.put("ant", name(s.name()));
    labels.put("engine", s.engine() == null ? "none" : s.engine().configName());
    return labels;
  }

  /** The merge queue's facts; the repository in force is read at each one (configure may change it). */
  public static MergeQueue mergeQueue(Supplier<MergeRepo> repo) {
    return new MergeQueue(repo);
  }

  /** A merge queue's metrics (labels colony, repo). */
  public static final class MergeQueue {
    private final Supplier<MergeRepo> repo;

    private MergeQueue(Supplier<MergeRepo> repo) {
      this.repo = repo;
    }

    /** An item landed (on the target or as a pull request), {@code millis} after its landing began. */
    public void landed(long millis) {
      counter(MERGE_LANDINGS, labels(), 1);
      timer(MERGE_LANDING, labels(), millis);
    }

    public void reworked(Rework reason) {
      TreeMap<String, String> labels = labels();
      labels.put("reason", reason.label());
      counter(MERGE_REWORKS, labels, 1);
    }

    public void tested(TestResult result) {
      TreeMap<String, String> labels = labels();
      labels.put("result", result.label());
      counter(MERGE_TESTS, labels, 1);
    }

    public void toHuman() {
      counter(MERGE_NEEDS_HUMAN, labels(), 1);
    }

    private TreeMap<String, String> labels() {
      MergeRepo r = repo.get();
      TreeMap<String, String> labels = new TreeMap<>();
      labels.put("colony", name(r.colony()));
      labels.put("repo", name(r.name()));
      return labels;
    }
  }

  /** A config name as a label; anything else reads {@value #INVALID} (labels are never free text). */
  static String name(String configName) {
    return configName != null && NAME.matcher(configName).matches() ? configName : INVALID;
  }

  private static void counter(String metric, TreeMap<String, String> labels, long amount) {
    if (amount > 0) {
      Workflow.getMetricsScope().tagged(labels).counter(metric).inc(amount);
    }
  }

  private static void timer(String metric, TreeMap<String, String> labels, long millis) {
    Workflow.getMetricsScope().tagged(labels).timer(metric)
        .record(com.uber.m3.util.Duration.ofNanos(Math.max(0, millis) * 1_000_000L));
  }
}
