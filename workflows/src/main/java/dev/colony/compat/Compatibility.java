package dev.colony.compat;

import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * The compatibility ledger: every path the code keeps only for what older code wrote. Each
 * {@link Change} is a {@code Workflow.getVersion} change id with the release that added it, the
 * committed history directories whose runs record its version marker, and its sunset; each
 * {@link History} is a directory of committed histories with the release that recorded it; each
 * {@link LegacyName} is an old name still read (JSON on the wire, YAML keys, chat commands).
 * Workflow code asks a change through {@link Change#applies()}, never with a change id of its own;
 * {@code CompatibilityTest} ties this list to the code and to the committed histories, and
 * {@link #markdown()} is the table of "Upgrading Colony" in docs/operations.md.
 */
public final class Compatibility {
  /** The release this code is: a history directory named after it holds what this build records. */
  public static final String RELEASE = "1.5";

  /**
   * The sunset rule this release applies (see "What a release may drop" in docs/operations.md):
   * under Worker Versioning no run of an older build reaches this one; an unversioned colony moves
   * every run to a new run on the release it upgrades from ({@code colony upgrade --unversioned})
   * before it deploys this one. So no run this build replays began on a build older than that
   * release's, and every change that release had is in every run's history.
   */
  public static final String SUNSET_RULE = "the old paths of the changes added up to the release this one upgrades"
      + " from (1.4) are gone: no run that reaches this build began before them (under Worker Versioning runs move"
      + " at continue-as-new; an unversioned colony runs `colony upgrade --unversioned` on 1.4's build before it"
      + " deploys this one). The changes this release added keep theirs, for the runs begun on 1.4's build";

  private Compatibility() {}

  /**
   * A change of the commands a workflow issues, gated with {@code Workflow.getVersion}. Runs that
   * began before the change take its old path ({@code DEFAULT_VERSION}); runs that recorded its
   * marker take the new one. The id is written into histories: never rename one.
   */
  public enum Change {
    NOTIFY_HUMANS("notify-humans", "1.1", "notices for phones: the Notify activity and its reminders",
        List.of("histories/1.1-notices", "histories/1.4-merge", "histories/1.5-tasks"), null, "1.5"),
    CONFIRMATIONS_END_WITH_SESSION("confirmations-end-with-session", "1.2",
        "a confirmation still open when its session ends is denied at once", List.of(),
        "its marker is recorded only when a session ends with a confirmation still open; no recorded scenario does",
        "1.5"),
    PAUSE_WINS_OVER_WAITS("pause-wins-over-waits", "1.2", "a pause ends the backoff or rate-limit wait it finds",
        List.of(), "asked only when a pause finds a backoff or rate-limit wait; the recorded pauses find none", "1.5"),
    ONE_DRAIN_RULE("one-drain-rule", "1.2", "stop and continue-as-new drain on one rule (nothing in flight)",
        List.of("histories/1.2-console-card", "histories/1.3-tasks", "histories/1.4-merge", "histories/1.5-costs",
            "histories/1.5-rework", "histories/1.5-rework2", "histories/1.5-tasks",
            "histories/1.5-undeclared"), null, "1.5"),
    FAILING_BATCH_ONE_AT_A_TIME("failing-batch-one-at-a-time", "1.2",
        "a failing batch of instructions is split, not dropped whole", List.of(),
        "asked only when a batch of several instructions failed too often; no recorded scenario has one", "1.5"),
    OVERSEER_COST("supervisor-cost", "1.2", "the overseer's model calls count in the ant's spend", List.of(),
        "the only overseer history (baseline-1.0/llm-supervisor.json) was recorded before it", "1.5"),
    CONSOLE_CARD("console-card", "1.2", "the console's cards: the ant's and the colony's memo card, AntUpdatedAt",
        List.of("histories/1.2-console-card", "histories/1.3-tasks", "histories/1.4-merge", "histories/1.5-costs",
            "histories/1.5-rework", "histories/1.5-rework2", "histories/1.5-tasks",
            "histories/1.5-undeclared"), null, "1.5"),
    TASKS("tasks", "1.3", "the task board on the ant's side: find, claim, report, AntTakes",
        List.of("histories/1.3-tasks", "histories/1.4-merge", "histories/1.5-costs", "histories/1.5-rework",
            "histories/1.5-rework2", "histories/1.5-tasks", "histories/1.5-undeclared"),
        null, "1.5"),
    ISSUE_TASKS("issue-tasks", "1.3", "a repository watcher makes tasks of issues and closes them",
        List.of("watcher-histories/1.3-issue-tasks"), null, "1.5"),
    MERGE("merge", "1.4", "the merge queue on the ant's side: claims, submissions, its news",
        List.of("histories/1.4-merge", "histories/1.5-rework", "histories/1.5-rework2", "histories/1.5-undeclared"),
            null, "1.5"),
    TAKE_TASK("take-task", "1.5", "a look at the board is one local activity (TakeTask)",
        List.of("histories/1.5-rework", "histories/1.5-rework2", "histories/1.5-tasks"), null, null),
    TASK_HOLDER("task-holder", "1.5", "a task's gone check asks whether its running ant still holds it",
        List.of("histories/1.5-tasks"), null, null),
    HELD_ONCE_NOTICES("held-once-notices", "1.5", "a told-once notice held by quiet hours is sent when they end",
        List.of("histories/1.5-tasks"), null, null),
    CHARGE_REPORTED_SPEND("charge-reported-spend", "1.5",
        "a session that ends without its result is charged what it reported", List.of("histories/1.5-costs"), null,
            null),
    MERGE_ACCEPTED_REPORT("merge-accepted-report", "1.5",
        "a task's work is submitted only after the board accepted its report", List.of(),
        "asked only when the board refused the report of a task the ant let go; no recorded run has one", null),
    MERGE_CLAIMS_HELD("merge-claims-held", "1.5", "an ant's paths stay held until its work lands or is dropped",
        List.of("histories/1.5-rework2"), null, null),
    MERGE_REWORK_ITEM("merge-rework-item", "1.5", "a rework is the ant's own work item, a session of its own",
        List.of("histories/1.5-rework", "histories/1.5-rework2", "histories/1.5-undeclared"), null, null),
    MERGE_UNDECLARED("merge-undeclared", "1.5", "an ant that declares no paths is visible to the queue",
        List.of("histories/1.5-undeclared"), null, null),
    MERGE_ITEM_TASKS("merge-item-tasks", "1.5", "the queue tells every task of an item of its landing or rework",
        List.of(),
            "asked only when an item carries more tasks than its first; the recorded queues' items carry one at most",
            null),
    MERGE_REWORK_IN_PLACE("merge-rework-in-place", "1.5",
        "the queue leaves a reworked item's tasks where they are (TaskInRework)", List.of("histories/1.5-rework2"),
            null, null),
    MERGE_FIX_IN_REVIEW("merge-fix-in-review", "1.5",
        "with review, an approved task sent back stays Done until the fix comes", List.of(),
        "asked only for a queue with review whose approved task is sent back; no recorded queue has review", null),
    WATCH_BOUND("watch-bound", "1.5", "what a repository watcher carries is bounded by count and size", List.of(),
        "asked when every watcher run starts; the committed watcher histories (RepoWatcherTest) were recorded before it",
        null),
    ISSUE_REOPEN("issue-reopen", "1.5", "an issue reopened after its task went Done reopens the task, once", List.of(),
        "asked when every watcher run starts; the committed watcher histories (RepoWatcherTest) were recorded before it",
        null);

    private final String id;
    private final String release;
    private final String what;
    private final List<String> histories;
    private final String unexercised;
    private final String sunsetIn;

    Change(String id, String release, String what, List<String> histories, String unexercised, String sunsetIn) {
      this.id = id;
      this.release = release;
      this.what = what;
      this.histories = histories;
      this.unexercised = unexercised;
      this.sunsetIn = sunsetIn;
    }

    /**
     * The release whose build dropped the old path (runs without the marker are not replayed by
     * it, see "What a release may drop" in docs/operations.md); null while the old path is kept.
     */
    public String sunsetIn() {
      return sunsetIn;
    }

    /** The change id, as written into histories' version markers. */
    public String id() {
      return id;
    }

    /** The release that added the change. */
    public String release() {
      return release;
    }

    /** What the change does (runs before it do not). */
    public String what() {
      return what;
    }

    /** The committed history directories whose runs record this change's marker (so replay takes its new path). */
    public List<String> histories() {
      return histories;
    }

    /** Why no committed history records this change's marker, or null when one does. */
    public String unexercised() {
      return unexercised;
    }

    /**
     * Whether this run takes the change's new path: the one {@code Workflow.getVersion} call of
     * workflow code. Decided once per run, where it is first asked, and recorded as a marker.
     */
    public boolean applies() {
      if (sunsetIn != null) {
        throw new IllegalStateException(id + " was sunset in " + sunsetIn + ": its old path is gone; call require()");
      }
      return Workflow.getVersion(id, Workflow.DEFAULT_VERSION, 1) != Workflow.DEFAULT_VERSION;
    }

    /**
     * A sunset change: this run takes its new path, the only one left. Where {@link #applies()}
     * was asked, so a run that recorded the marker replays as it ran, and one that began on a
     * build without the change (no marker) fails its workflow task, loudly and again until a
     * build that kept the old path (the release before {@link #sunsetIn()}) runs it; the run is
     * kept meanwhile. {@code colony upgrade --unversioned} before a deploy leaves no such run.
     */
    public void require() {
      if (sunsetIn == null) {
        throw new IllegalStateException(id + " keeps its old path: ask applies()");
      }
      Workflow.getVersion(id, 1, 1);
    }
  }

  /**
   * A directory of committed histories under workflows/src/test/resources ({@code histories/*},
   * replayed by {@code HistoryReplayTest}; {@code watcher-histories/*}, by {@code RepoWatcherTest}),
   * the release that recorded it, and, when some of its runs need the old path of a sunset change, the last
   * release whose build replays it (null: this build replays it; {@code HistoryReplayTest} checks
   * that each one it does not fails only for a sunset change, and says so).
   */
  public record History(String dir, String release, String lastReplayedBy) {}

  /** Every directory of committed histories. */
  public static final List<History> HISTORIES = List.of(
      new History("histories/baseline-1.0", "1.0", "1.4"),
      new History("histories/1.1-notices", "1.1", "1.4"),
      new History("histories/1.2-console-card", "1.2", "1.4"),
      new History("histories/1.3-tasks", "1.3", null),
      new History("histories/1.4-merge", "1.4", null),
      new History("histories/1.5-costs", "1.5", null),
      new History("histories/1.5-rework", "1.5", null),
      new History("histories/1.5-rework2", "1.5", null),
      new History("histories/1.5-tasks", "1.5", null),
      new History("histories/1.5-undeclared", "1.5", null),
      new History("watcher-histories/1.x", "1.2", "1.4"),
      new History("watcher-histories/1.3-issue-tasks", "1.3", null));

  /** Where an old name is read. */
  public enum Kind {
    /** A JSON property of a record that crosses a Temporal boundary (inputs, queries, activity arguments). */
    WIRE_JSON("JSON on the wire"),
    /** A key of colony.yaml or ants/*.yaml. */
    YAML_KEY("YAML key"),
    /** A chat or dev-console command word. */
    CHAT_COMMAND("chat command");

    private final String words;

    Kind(String words) {
      this.words = words;
    }

    public String words() {
      return words;
    }
  }

  /**
   * An old name still read. {@code writesOld}: today's code still writes the old name, because
   * code of an older release reads it (a JSON name of an ant's input, a query's answer, an
   * activity's input or a memory carried across continue-as-new) and would lose the value under a
   * name it does not know. {@code newReadSince}: the release from which the new name is read too,
   * so that a later release may write it (null: only the old name is on the wire).
   */
  public record LegacyName(Kind kind, String old, String current, String where, boolean writesOld,
      String newReadSince) {}

  /** Every old name the code still reads. */
  public static final List<LegacyName> LEGACY_NAMES = List.of(
      new LegacyName(Kind.WIRE_JSON, "supervision", "errorPolicy", "AntSpec (an ant's input)", true, "1.5"),
      new LegacyName(Kind.WIRE_JSON, "supervisor", "overseer", "AntSpec (an ant's input)", true, "1.5"),
      new LegacyName(Kind.WIRE_JSON, "supervisor", "overseer", "EvaluationRequest (the overseer's activity input)",
          true, "1.5"),
      new LegacyName(Kind.WIRE_JSON, "oversight", "overseer", "AntMemory (carried across continue-as-new)", true,
          "1.5"),
      new LegacyName(Kind.WIRE_JSON, "supervisor", "overseer", "AntStatus (the status query's answer)", true, "1.5"),
      new LegacyName(Kind.WIRE_JSON, "supervisorCostUsd", "overseerCostUsd", "AntStats (the stats query's answer)",
          true, "1.5"),
      new LegacyName(Kind.YAML_KEY, "supervisor:", "overseer:", "ants/*.yaml and colony.yaml defaults (OverseerReader)",
          false, null),
      new LegacyName(Kind.CHAT_COMMAND, "start", "resume",
          "every typed surface: Discord, Slack and colony dev's terminal (the client's Verbs, never offered)", false, null),
      new LegacyName(Kind.CHAT_COMMAND, "stop", "pause, or colony stop to end the ant",
          "every typed surface (the client's Verbs): it paused there and ended the ant in the CLI and console, "
              + "so typed it acts on nothing and answers which word to use", false, null));

  /** The ledger as the Markdown of docs/operations.md's generated block {@code compatibility-ledger}. */
  public static String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("In ").append(RELEASE).append(", ").append(SUNSET_RULE).append(".\n\n");
    sb.append("| change id | added in | old path | what runs that recorded it do | committed histories that take it |\n");
    sb.append("|---|---|---|---|---|\n");
    for (Change c : Change.values()) {
      sb.append("| `").append(c.id()).append("` | ").append(c.release()).append(" | ")
          .append(c.sunsetIn() == null ? "kept" : "sunset in " + c.sunsetIn()).append(" | ").append(c.what())
          .append(" | ");
      if (c.histories().isEmpty()) {
        sb.append("none: ").append(c.unexercised());
      } else {
        sb.append(String.join(", ", c.histories().stream().map(h -> "`" + h + "/`").toList()));
      }
      sb.append(" |\n");
    }
    sb.append("\n| history directory | recorded by | replayed by |\n|---|---|---|\n");
    for (History h : HISTORIES) {
      sb.append("| `").append(h.dir()).append("/` | ").append(h.release()).append(" | ")
          .append(h.lastReplayedBy() == null ? "this build"
              : "the builds of " + h.release() + " to " + h.lastReplayedBy() + " (not this one: some of its runs"
                  + " began before a change sunset in " + RELEASE + ")")
          .append(" |\n");
    }
    sb.append("\n| old name | kind | now | where | old name still written | new name read since |\n"
        + "|---|---|---|---|---|---|\n");
    for (LegacyName n : LEGACY_NAMES) {
      sb.append("| `").append(n.old()).append("` | ").append(n.kind().words()).append(" | `").append(n.current())
          .append("` | ").append(n.where()).append(" | ").append(n.writesOld() ? "yes (older code reads it)" : "no")
          .append(" | ").append(n.newReadSince() == null ? "(not on the wire)" : n.newReadSince()).append(" |\n");
    }
    return sb.toString();
  }
}
