package dev.colony.config;

import dev.colony.errorpolicy.Outcome;
import dev.colony.overseer.OverseerSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.EngineKind;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.supervision.Strategy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a colony's config may hold: every section and key of {@code colony.yaml} and
 * {@code ants/*.yaml}, with its kind and a line of help. The loader takes the keys it allows
 * from here (an unknown key is refused against these lists), and {@code colony schema} turns the
 * same definitions into the JSON Schema editors validate and complete with.
 */
public final class ConfigSchema {
  private ConfigSchema() {}

  /** How a value is written. */
  public enum Kind {
    /** Text; {@code ${VAR}} references are resolved on the worker. */
    TEXT,
    /** Text stored in Temporal as written: no {@code ${VAR}}. */
    LITERAL,
    /** A secret: exactly one {@code ${VAR}} reference, never the value. */
    SECRET,
    /** A whole number and a unit: 90s, 5m, 2h. */
    DURATION,
    /** A whole number, at least 1. */
    COUNT,
    /** A number greater than 0. */
    AMOUNT,
    /** A whole number. */
    INTEGER,
    /** One of {@link Key#values}. */
    CHOICE,
    /** A list of texts. */
    LIST,
    /** Names to texts. */
    MAP,
    /** A section: {@link Key#section}. */
    SECTION,
    /** A list of sections. */
    SECTIONS,
    /** A shell command line, or the program and its arguments as a list. */
    COMMAND_LINE,
    /** {@code on}/{@code off}, or a section. */
    SWITCH_OR_SECTION,
    /** {@code true} or {@code false}. */
    BOOLEAN,
    /** One of {@link Key#values}, or a section. */
    CHOICE_OR_SECTION,
    /** A size in bytes with an optional unit (512m, 4g), or {@code off}. */
    SIZE,
    /** A whole number, or {@code off}. */
    COUNT_OR_OFF
  }

  /**
   * The limits a reader enforces on a value, declared here once: the loader checks them and the
   * JSON Schema states them. Seconds for a {@link Kind#DURATION}, the number for a
   * {@link Kind#COUNT} or {@link Kind#INTEGER}; null where the kind's own limit holds. {@code why}
   * follows the loader's message ({@code at least 10s (GitHub's rate limit is per hour)}).
   */
  public record Bounds(Long min, Long max, String why) {
    static final Bounds NONE = new Bounds(null, null, null);
  }

  /** One key of a section. */
  public record Key(String name, Kind kind, boolean required, String help, List<String> values, Section section,
      Bounds bounds) {
    public Key(String name, Kind kind, boolean required, String help, List<String> values, Section section) {
      this(name, kind, required, help, values, section, Bounds.NONE);
    }

    Key within(Long min, Long max, String why) {
      return new Key(name, kind, required, help, values, section, new Bounds(min, max, why));
    }

    /** The least value accepted: 1 for a count, 0s for a duration, unless declared. */
    public long min() {
      if (bounds.min() != null) {
        return bounds.min();
      }
      return switch (kind) {
        case COUNT -> 1;
        case INTEGER -> Integer.MIN_VALUE;
        default -> 0;
      };
    }

    /** The greatest value accepted: 365 days for a duration, the largest int for a count, unless declared. */
    public long max() {
      if (bounds.max() != null) {
        return bounds.max();
      }
      return kind == Kind.DURATION ? 365L * 24 * 3600 : Integer.MAX_VALUE;
    }
  }

  /** A mapping of keys. */
  public record Section(List<Key> keys) {
    /** The key names, for the loader's check of unknown keys. */
    public String[] names() {
      return keys.stream().map(Key::name).toArray(String[]::new);
    }

    /** The key named {@code name}; null when the section has none. */
    public Key key(String name) {
      for (Key k : keys) {
        if (k.name().equals(name)) {
          return k;
        }
      }
      return null;
    }

    /** The section under {@code key}. */
    public Section child(String key) {
      for (Key k : keys) {
        if (k.name().equals(key) && k.section() != null) {
          return k.section();
        }
      }
      throw new IllegalArgumentException("no section " + key);
    }
  }

  private static Key key(String name, Kind kind, String help) {
    return new Key(name, kind, false, help, List.of(), null);
  }

  private static Key required(String name, Kind kind, String help) {
    return new Key(name, kind, true, help, List.of(), null);
  }

  private static Key choice(String name, String help, List<String> values) {
    return new Key(name, Kind.CHOICE, false, help, values, null);
  }

  private static Key section(String name, String help, Key... keys) {
    return new Key(name, Kind.SECTION, false, help, List.of(), new Section(List.of(keys)));
  }

  private static Key sections(String name, String help, Key... keys) {
    return new Key(name, Kind.SECTIONS, false, help, List.of(), new Section(List.of(keys)));
  }

  private static List<String> names(Enum<?>[] values) {
    return Arrays.stream(values).map(e -> e.name().toLowerCase(Locale.ROOT)).toList();
  }

  static final List<String> THINKING = List.of("off", "low", "medium", "high");
  private static final long HOUR = 3600;
  private static final long DAY = 24 * HOUR;

  /** The overseer's settings, under {@code overseer} (or its old name {@code supervisor}). */
  private static final Section OVERSEER_SETTINGS = new Section(List.of(
          key("model", Kind.TEXT, "The model that reviews the agent's turns (e.g. claude-haiku-4-5)."),
          choice("provider", "Who serves the model (default: from the model's name).", List.of("anthropic", "gemini")),
          choice("thinking", "How hard the model thinks.", THINKING),
          key("window_size", Kind.COUNT, "How many recent turns each evaluation reads.")
              .within(null, (long) OverseerSpec.MAX_WINDOW, "turns"),
          key("eval_interval", Kind.COUNT, "Evaluate after this many new turns (at most window_size)."),
          key("escalation_threshold", Kind.COUNT, "Observations of a pattern before humans are called.")
              .within((long) OverseerSpec.MIN_THRESHOLD, (long) OverseerSpec.MAX_THRESHOLD,
                  "(the overseer never escalates on a first observation)"),
          key("stall_after", Kind.DURATION, "Silence after which the agent counts as stalled (at least 30s, shorter than session_idle_timeout).")
              .within(30L, null, null)));

  private static final Key OVERSEER = new Key(OverseerReader.KEY, Kind.SWITCH_OR_SECTION, false,
      "The overseer, an LLM that reads the agent's turns, whispers advice and calls humans on a"
          + " repeated pattern: on, off, or its settings.", List.of(), OVERSEER_SETTINGS);
  private static final Key OVERSEER_OLD_NAME = new Key(OverseerReader.OLD_KEY, Kind.SWITCH_OR_SECTION, false,
      "Old name of overseer, same meaning (a file may set one of the two, not both).", List.of(),
      OVERSEER_SETTINGS);

  /** Keys the colony's defaults and each ant share: the error policy (backoff, thresholds, grace, watchdog, budgets) and the overseer. */
  private static List<Key> errorPolicyAndOverseer() {
    return List.of(
        section("backoff", "Waits after a failed session: initial, doubling up to max.",
            key("initial", Kind.DURATION, "The first wait (default 10s).").within(1L, DAY, null),
            key("max", Kind.DURATION, "The longest wait (default 5m; at least initial).").within(1L, DAY, null)),
        key("max_consecutive_errors", Kind.COUNT, "Park the ant after this many failed sessions in a row."),
        key("max_total_errors", Kind.COUNT, "Park the ant after this many failed sessions in all."),
        key("interrupt_grace", Kind.DURATION, "How long an interrupted agent gets to stop (default 30s, at most 1h).")
            .within(1L, HOUR, "(an interrupted session waits this long at most)"),
        key("session_idle_timeout", Kind.DURATION, "Interrupt a session silent this long (default 15m).")
            .within(1L, null, null),
        section("budget", "Spend caps in US dollars; the ant pauses until the window rolls over.",
            key("daily_usd", Kind.AMOUNT, "Cap per day."),
            key("monthly_usd", Kind.AMOUNT, "Cap per month.")),
        OVERSEER, OVERSEER_OLD_NAME, SANDBOX);
  }

  /** The walls around a session: {@code sandbox: off}, {@code on}, or its settings. */
  private static final Key SANDBOX = new Key(SandboxReader.KEY, Kind.SWITCH_OR_SECTION, false,
      "The walls around every session (docs/security.md): on (the default), off (the agent runs with the "
          + "worker's powers: trusted setups only), or its settings.", List.of(), new Section(List.of(
              new Key("network", Kind.CHOICE_OR_SECTION, false, "none (the default: only the hosts in allow, "
                  + "through the worker's proxy), open (the host's whole network), or allow: [hosts].",
                  List.of("none", "open"), new Section(List.of(
                      key("allow", Kind.LIST, "Hosts the session may reach (host, host:port, *.domain), "
                          + "besides its engine's API host.")))),
              key("secrets", Kind.LIST, "Names of variables (worker environment or .env) the session sees."),
              key("memory", Kind.SIZE, "The session's memory limit (default 2g; off: none)."),
              key("processes", Kind.COUNT_OR_OFF, "The most processes and threads at once (default 1024; off: none)."),
              key("read", Kind.LIST, "More paths the session may read (absolute, or relative to the colony directory; "
                  + "never its .colony, .env, colony.yaml or ants)."),
              key("write", Kind.LIST, "More paths the session may write (absolute, or relative to the colony "
                  + "directory, made when missing)."))));

  private static Key state() {
    return section("state", "Accepted for compatibility with other colonies; Temporal keeps the state.",
        choice("backend", "memory or sqlite.", List.of("memory", "sqlite")),
        key("path", Kind.TEXT, "The database file."));
  }

  private static Key quietHours() {
    return section("quiet_hours", "Only urgent notices (a budget cap, a parked crash loop) are pushed in this window.",
        required("timezone", Kind.LITERAL, "An IANA time zone, e.g. Europe/Berlin."),
        required("from", Kind.LITERAL, "Start, HH:mm."),
        required("to", Kind.LITERAL, "End, HH:mm (before from: the window spans midnight)."));
  }

  private static List<Key> join(List<Key> a, List<Key> b) {
    List<Key> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** {@code colony.yaml}. */
  public static final Section COLONY = new Section(List.of(
      required("name", Kind.LITERAL, "The colony's name: letters, digits, '-', '_' or '.'."),
      section("integrations", "Where the colony talks to humans and tools.",
          section("discord", "A Discord bot: each ant posts and listens in its channel.",
              required("token", Kind.SECRET, "The bot token, as ${DISCORD_TOKEN}."),
              required("guild", Kind.TEXT, "The server (guild) id."),
              key("operators", Kind.LIST, "User or role ids whose commands and approvals are obeyed."),
              choice("mention", "Mention the operators when an ant needs a human.", List.of("operators", "none")),
              key("alerts_channel", Kind.LITERAL, "Where colony-wide alerts go."),
              choice("strangers", "Answer or ignore people who are not operators.", List.of("reply", "ignore"))),
          section("slack", "A Slack app in Socket Mode: each ant posts and listens in its channel.",
              required("bot_token", Kind.SECRET, "The bot token (xoxb-...), as ${SLACK_BOT_TOKEN}."),
              required("app_token", Kind.SECRET, "The app-level token (xapp-..., connections:write), as ${SLACK_APP_TOKEN}."),
              key("operators", Kind.LIST, "User ids (U...) or user group ids (S...) whose commands and approvals are obeyed."),
              choice("mention", "Mention the operators when an ant needs a human.", List.of("operators", "none")),
              key("alerts_channel", Kind.LITERAL, "Where a one-line copy of every post that needs a human goes."),
              choice("strangers", "Answer or ignore people who are not operators.", List.of("reply", "ignore"))),
          section("github", "GitHub access for issue triggers.",
              key("token", Kind.SECRET, "A token, as ${GITHUB_TOKEN}."),
              key("poll_interval", Kind.DURATION, "How often watched repositories are polled (at least 10s).")
                  .within(10L, 30 * DAY, "(GitHub's rate limit is per hour)"),
              key("webhook_secret", Kind.SECRET, "Checks the signature of issue webhooks, as ${VAR}.")),
          section("webhook", "A signed HTTP POST for every event that needs a human.",
              required("url", Kind.TEXT, "An http:// or https:// URL."),
              key("secret", Kind.SECRET, "Signs each delivery, as ${VAR}.")),
          section("notify", "Push a notice to phones (ntfy) and the webhook when an ant needs a human.",
              key("remind_after", Kind.DURATION, "Send the notice again after this long if nobody answered (default 30m).")
                  .within(60L, null, "(set reminders: 0 for none)"),
              key("reminders", Kind.INTEGER, "How many reminders at most (default 1; 0: none).").within(0L, 10L, null),
              key("web_ui", Kind.LITERAL, "The Temporal Web UI's address, for the notice's link (default http://localhost:8233)."),
              quietHours(),
              sections("ntfy", "ntfy topics the notices are published to (a team's, or one operator's phone).",
                  required("url", Kind.TEXT, "The topic's URL (https://ntfy.sh/<topic> or your server's), or ${VAR}."),
                  key("token", Kind.SECRET, "An access token, as ${VAR}."),
                  choice("priority", "The priority of notices that are not urgent (default high).",
                      List.of("min", "low", "default", "high", "urgent")),
                  key("name", Kind.LITERAL, "What the worker's log calls this topic (default: its host)."),
                  quietHours()))),
      new Key("defaults", Kind.SECTION, false, "What every ant gets unless it says otherwise.", List.of(),
          new Section(join(List.of(
              key("confirmation_timeout", Kind.DURATION, "How long a dangerous action waits for a human.")
                  .within(null, 7 * DAY, null),
              key("poll_interval", Kind.DURATION, "The pause between a continuous ant's sessions.").within(null, 30 * DAY, null),
              section("git", "The identity of the ants' commits.",
                  key("user_name", Kind.TEXT, "user.name"), key("user_email", Kind.TEXT, "user.email")),
              key("session_timeout", Kind.DURATION, "The longest a session may run.").within(1L, 7 * DAY, null),
              key("heartbeat_timeout", Kind.DURATION, "How soon a silent worker counts as dead.").within(1L, HOUR, null),
              key("timezone", Kind.LITERAL, "The colony's IANA time zone: budget days and schedules."),
              key("move_after", Kind.DURATION, "An ant whose host polls no more moves after this long.")
                  .within(1L, null, null)),
              errorPolicyAndOverseer()))),
      state(),
      section("tasks", "The task board's colony-wide rules (every ant's tasks.* adds its own).",
          key("ants_may_finish", Kind.BOOLEAN, "An ant's finished task goes to Done instead of In Review (default false)."),
          key("aging", Kind.DURATION, "A waiting To Do task rises one priority level per this long (default 1h).")
              .within(60L, 365 * DAY, null)),
      section("merge", "The merge queue: each repository's ants' work lands on its target branch by itself (rebased, tested, one item at a time).",
          sections("repos", "One queue per repository (the ants whose workspace.repo is this repository submit to it).",
              required("name", Kind.LITERAL, "The queue's name (merge/<colony>/<name>): letters, digits, '-', '_' or '.'."),
              required("repo", Kind.TEXT, "The repository, as the ants' workspace.repo says it: a path (relative to the colony directory) or a URL."),
              key("target", Kind.LITERAL, "The branch work lands on (default main)."),
              choice("land", "How green work reaches the target: rebase (a fast-forward, the default), squash (one commit), or pull_request (a pull request is opened instead).",
                  List.of("rebase", "squash", "pull_request")),
              key("test", Kind.COMMAND_LINE, "The test command run on the rebased work (a shell command line, or the program and its arguments); none: no test."),
              key("test_timeout", Kind.DURATION, "The test command is killed, with its process tree, after this long (default 10m).")
                  .within(1L, DAY, null),
              choice("test_sandbox", "The walls the test command runs in (it runs the tests as the ants left them): on (the default: no network, none of the worker's variables, no other workspace), open (the same with the host's network) or off (no walls, the worker's environment: trusted setups only).",
                  List.of("on", "open", "off")),
              key("test_secrets", Kind.LIST, "The worker's variables (names) the test command is given inside its walls, e.g. [NPM_TOKEN]."),
              key("test_memory", Kind.SIZE, "The test run's memory limit in its walls (default 4g; off: none): a test that needs more is killed (exit 137)."),
              key("test_processes", Kind.COUNT_OR_OFF, "The most processes and threads of the test run at once (default 4096; off: none)."),
              key("push", Kind.BOOLEAN, "Also update the target on the repository's origin remote (default false; always for a URL)."),
              key("review", Kind.BOOLEAN, "Work waits for a human's approval (its task approved, or colony merge approve) before it lands (default false)."),
              key("max_tries", Kind.INTEGER, "Reworks (a conflict or a red test) of one item before a human decides (default 3).")
                  .within(1L, 100L, null),
              key("aging", Kind.DURATION, "A waiting item rises one priority level per this long (default 1h).")
                  .within(60L, 365 * DAY, null),
              choice("undeclared", "What an ant that declares no paths (no workspace.touches, no task touches:) holds: changed "
                  + "(the default: nothing before its session; once it submits, the files its branch changed, until that work "
                  + "lands or is dropped) or everything (it claims ** before each session).",
                  List.of("changed", "everything")),
              key("github_repo", Kind.LITERAL, "land: pull_request only: the GitHub repository (owner/name); needs integrations.github.token."),
              key("create_from", Kind.LITERAL, "A local repository that does not exist yet is made at the first start: bare, "
                  + "its target holding one commit of this directory's files (relative to the colony directory). For examples and trials."))),
      section("supervision", "Supervision: groups of ants and their restart strategies (one_for_one, one_for_all, rest_for_one).",
          sections("groups", "Each group: its ants, its strategy and its restart breaker.",
              required("name", Kind.LITERAL, "The group's name."),
              choice("strategy", "What restarts when an ant fails.", names(Strategy.values())),
              required("ants", Kind.LIST, "The ants of the group, in order."),
              key("max_restarts", Kind.COUNT, "Restarts allowed within window before the breaker trips."),
              key("window", Kind.DURATION, "The breaker's window.").within(1L, null, null)))));

  /** {@code ants/<name>.yaml}. */
  public static final Section ANT = new Section(join(List.of(
      required("name", Kind.LITERAL, "The ant's name, unique in the colony."),
      required("description", Kind.TEXT, "One line: what the ant is for."),
      required("instructions", Kind.TEXT, "The standing instructions every session starts from."),
      choice("engine", "The agent that runs the sessions (default claude).", names(EngineKind.values())),
      section("gemini", "engine: gemini.",
          key("model", Kind.TEXT, "The Gemini model."), key("max_turns", Kind.COUNT, "Turns per session."),
          section("price", "The model's price, instead of Colony's table of list prices (docs/integrations.md).",
              key("input", Kind.AMOUNT, "US dollars per million input tokens."),
              key("output", Kind.AMOUNT, "US dollars per million output tokens (thinking included)."))),
      section("claude", "engine: claude (Claude Code).",
          key("model", Kind.TEXT, "The model."), key("max_turns", Kind.COUNT, "Turns per session."),
          key("max_budget_usd", Kind.AMOUNT, "The spend cap of one session."),
          key("telemetry", Kind.BOOLEAN, "Claude Code's own OpenTelemetry metrics and events, sent to the worker's "
              + "OTEL_EXPORTER_OTLP_* endpoint with the colony, ant, session and run as resource attributes "
              + "(default false; docs/observability.md#claude-codes-own-telemetry).")),
      section("command", "engine: command (any CLI agent).",
          required("argv", Kind.COMMAND_LINE, "The program and its arguments, or a shell command line."),
          key("env", Kind.MAP, "Variables for the program."),
          sections("outcomes", "How an exit code or an output pattern is classified.",
              key("exit_code", Kind.INTEGER, "The exit code that matches."),
              key("pattern", Kind.TEXT, "A regular expression on the output; (?<resetsAt>...) for a rate limit's end."),
              required("outcome", Kind.TEXT, "The outcome: " + String.join(", ",
                  Arrays.stream(Outcome.values()).filter(o -> o != Outcome.SANDBOX).map(Outcome::configName).toList()) + "."))),
      section("integrations", "Where the ant talks and what it watches.",
          section("discord", "The ant's Discord channel.",
              required("channel", Kind.LITERAL, "The channel it posts and listens in."),
              key("operators", Kind.LIST, "Operators for this ant only.")),
          section("slack", "The ant's Slack channel.",
              required("channel", Kind.LITERAL, "The channel it posts and listens in: a name (#name) or an id (C...)."),
              key("operators", Kind.LIST, "Operators for this ant only: user ids or user group ids.")),
          section("github", "Repositories the ant works on.",
              key("repos", Kind.LIST, "owner/repo names."))),
      section("schedule", "Run on a cron schedule instead of continuously.",
          required("cron", Kind.LITERAL, "Five fields: minute hour day-of-month month day-of-week."),
          key("timezone", Kind.LITERAL, "The IANA zone the schedule is read in.")),
      sections("triggers", "What else wakes the ant.",
          new Key("type", Kind.CHOICE, true, "github_issue (needs integrations.github.repos) or discord_command.", List.of("github_issue", "discord_command"),
              null),
          key("labels", Kind.LIST, "github_issue: labels an issue must carry."),
          new Key("as", Kind.CHOICE, false, "github_issue: what a matching issue does: wake (the ant, with the issue "
              + "in its prompt; the default) or task (it becomes a task on the board, once; closing the issue moves "
              + "the task to Done).", List.of("wake", "task"), null),
          key("to", Kind.LITERAL, "github_issue with as: task: who the task is for: an ant (alpha), a pool (pool:docs) "
              + "or a human (@alice); default: this ant.")),
      choice("autonomy", "Which tool calls need a human's approval.", names(Autonomy.values())),
      section("confirmation", "What always needs approval.",
          key("always_confirm_tools", Kind.LIST, "Tools that always ask."),
          key("dangerous_patterns", Kind.LIST, "Regular expressions on a tool call that make it ask.")),
      section("logging", "What the channel shows.",
          choice("tool_calls", "Which tool calls are narrated.", names(ToolCallLogging.values())),
          choice("lm_output", "Where the model's text goes.", names(LmOutput.values()))),
      state(),
      key("poll_interval", Kind.DURATION, "The pause between sessions.").within(null, 30 * DAY, null),
      key("session_timeout", Kind.DURATION, "The longest a session may run.").within(1L, 7 * DAY, null),
      section("workspace", "The git worktree sessions run in.",
          key("repo", Kind.TEXT, "A repository path or URL."),
          key("branch", Kind.TEXT, "The branch the ant works on."),
          key("move_after", Kind.DURATION, "Move to another host when this one polls no more for this long.")
              .within(1L, null, null),
          key("touches", Kind.LIST, "The paths the ant's work touches (repository-relative globs such as src/api/**): "
              + "an ant whose work overlaps another's on one repository waits for it (merge queue).")),
      choice("recovery", "After a restart, resume the conversation or start clean.", names(RecoveryPolicy.values())),
      section("tasks", "Take tasks from the colony's task board (tasks assigned to the ant by name are always taken).",
          key("takes", Kind.LIST, "Pools it takes (tasks assigned to pool:NAME, and unassigned tasks labelled NAME); \"*\": any unassigned task."),
          choice("when_idle", "With no task: work on the standing instructions (work, the default) or wait for a task (wait).",
              List.of("work", "wait")),
          key("max_tries", Kind.INTEGER, "Failed sessions on one task before it goes to Blocked for a human (default 3).")
              .within(1L, 100L, null))),
      errorPolicyAndOverseer()));

  /** Where {@code colony init} and {@code colony schema --write} put the two schemas, in the colony directory. */
  public static final String DIR = "schema";
  public static final String COLONY_SCHEMA_FILE = "colony.schema.json";
  public static final String ANT_SCHEMA_FILE = "ant.schema.json";

  /** The first line of {@code colony.yaml} that points YAML editors (yaml-language-server) at its schema. */
  public static final String COLONY_MODELINE = "# yaml-language-server: $schema=" + DIR + "/" + COLONY_SCHEMA_FILE;
  /** The same for {@code ants/*.yaml}. */
  public static final String ANT_MODELINE = "# yaml-language-server: $schema=../" + DIR + "/" + ANT_SCHEMA_FILE;

  /** The schema of {@code colony.yaml} ({@code ant == false}) or of an ant's file, as indented JSON. */
  public static String json(boolean ant) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(
          ant ? jsonSchema(ANT, "Colony ant (ants/<name>.yaml)") : jsonSchema(COLONY, "Colony (colony.yaml)")) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes both schemas into {@code colonyDir}/{@value #DIR}; returns the files written. */
  public static List<java.nio.file.Path> write(java.nio.file.Path colonyDir) throws java.io.IOException {
    java.nio.file.Path dir = java.nio.file.Files.createDirectories(colonyDir.resolve(DIR));
    java.nio.file.Path colony = java.nio.file.Files.writeString(dir.resolve(COLONY_SCHEMA_FILE), json(false));
    java.nio.file.Path ant = java.nio.file.Files.writeString(dir.resolve(ANT_SCHEMA_FILE), json(true));
    return List.of(colony, ant);
  }

  /** The JSON Schema (draft 2020-12) of a section, as a JSON-ready map. */
  public static Map<String, Object> jsonSchema(Section section, String title) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    s.put("title", title);
    s.putAll(object(section));
    return s;
  }

  private static Map<String, Object> object(Section section) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("type", "object");
    Map<String, Object> props = new LinkedHashMap<>();
    List<String> required = new ArrayList<>();
    for (Key k : section.keys()) {
      props.put(k.name(), value(k));
      if (k.required()) {
        required.add(k.name());
      }
    }
    o.put("properties", props);
    if (!required.isEmpty()) {
      o.put("required", required);
    }
    o.put("additionalProperties", false);
    return o;
  }

  private static final String REFERENCE = "^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$";

  /**
   * An amount as the loader reads it: a decimal number, optionally with an exponent, whose digits
   * before the exponent are not all zero (so greater than 0).
   */
  static final String AMOUNT = "(?=[^eE]*[1-9])\\+?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?";

  /** {@link Durations}' form ({@code \\d{1,9}} and a unit) with the number of each unit within the bounds. */
  static String durationPattern(long min, long max) {
    List<String> units = new ArrayList<>();
    for (Object[] u : new Object[][] {{"s", 1L}, {"m", 60L}, {"h", 3600L}}) {
      long f = (Long) u[1];
      long lo = (min + f - 1) / f;
      long hi = max / f;
      if (lo <= hi) {
        units.add("(" + range(lo, hi) + ")" + u[0]);
      }
    }
    return "^(?=[0-9]{1,9}[smh]$)0*(" + String.join("|", units) + ")$";
  }

  /** A whole number within the bounds as {@link Integer#parseInt} reads it: a sign, leading zeros. */
  static String integerPattern(long min, long max) {
    List<String> parts = new ArrayList<>();
    if (max >= 0) {
      parts.add("\\+?0*(" + range(Math.max(0, min), max) + ")");
    }
    if (min < 0) {
      parts.add("-0*(" + range(Math.max(0, -max), -min) + ")");
    }
    return "^(" + String.join("|", parts) + ")$";
  }

  /** A regular expression for the decimal numbers from {@code lo} to {@code hi} (no leading zeros), 0 <= lo <= hi. */
  static String range(long lo, long hi) {
    List<String> out = new ArrayList<>();
    for (int digits = String.valueOf(lo).length(); digits <= String.valueOf(hi).length(); digits++) {
      long a = Math.max(lo, digits == 1 ? 0 : (long) Math.pow(10, digits - 1));
      long b = Math.min(hi, (long) Math.pow(10, digits) - 1);
      if (a <= b) {
        sameLength(String.valueOf(a), String.valueOf(b), "", out);
      }
    }
    return String.join("|", out);
  }

  private static void sameLength(String a, String b, String prefix, List<String> out) {
    if (a.equals(b)) {
      out.add(prefix + a);
      return;
    }
    int n = a.length() - 1;
    char a0 = a.charAt(0);
    char b0 = b.charAt(0);
    String aRest = a.substring(1);
    String bRest = b.substring(1);
    if (a0 == b0) {
      sameLength(aRest, bRest, prefix + a0, out);
      return;
    }
    boolean aLowest = aRest.chars().allMatch(c -> c == '0');
    boolean bHighest = bRest.chars().allMatch(c -> c == '9');
    if (!aLowest) {
      sameLength(aRest, "9".repeat(n), prefix + a0, out);
    }
    char from = aLowest ? a0 : (char) (a0 + 1);
    char to = bHighest ? b0 : (char) (b0 - 1);
    if (from <= to) {
      out.add(prefix + (from == to ? String.valueOf(from) : "[" + from + "-" + to + "]") + (n == 0 ? "" : "[0-9]{" + n + "}"));
    }
    if (!bHighest) {
      sameLength("0".repeat(n), bRest, prefix + b0, out);
    }
  }

  private static Map<String, Object> value(Key k) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("description", k.help());
    switch (k.kind()) {
      case TEXT -> v.put("type", List.of("string", "number", "boolean"));
      case LITERAL -> {
        v.put("type", List.of("string", "number", "boolean"));
        v.put("not", Map.of("type", "string", "pattern", "\\$\\{"));
      }
      case SECRET -> {
        v.put("type", "string");
        v.put("pattern", REFERENCE);
      }
      case DURATION -> {
        v.put("type", "string");
        v.put("pattern", durationPattern(k.min(), k.max()));
      }
      // The loader reads every scalar as text: 5 and "5" are the same number to it.
      case COUNT, INTEGER -> v.put("anyOf", List.of(
          Map.of("type", "integer", "minimum", k.min(), "maximum", k.max()),
          Map.of("type", "string", "pattern", integerPattern(k.min(), k.max()))));
      case AMOUNT -> v.put("anyOf", List.of(Map.of("type", "number", "exclusiveMinimum", 0),
          Map.of("type", "string", "pattern", "^" + AMOUNT + "$")));
      case CHOICE -> v.put("enum", k.values());
      case LIST -> {
        v.put("type", "array");
        v.put("items", Map.of("type", List.of("string", "number")));
      }
      case MAP -> {
        v.put("type", "object");
        v.put("additionalProperties", Map.of("type", List.of("string", "number", "boolean")));
      }
      case SECTION -> v.putAll(object(k.section()));
      case SECTIONS -> {
        v.put("type", "array");
        v.put("items", object(k.section()));
      }
      case COMMAND_LINE -> v.put("anyOf", List.of(Map.of("type", "string"),
          Map.of("type", "array", "items", Map.of("type", List.of("string", "number")), "minItems", 1)));
      case SWITCH_OR_SECTION -> v.put("anyOf", List.of(Map.of("type", "boolean"),
          Map.of("enum", List.of("on", "off")), object(k.section())));
      case BOOLEAN -> v.put("type", "boolean");
      case CHOICE_OR_SECTION -> v.put("anyOf", List.of(Map.of("enum", k.values()), object(k.section())));
      case SIZE -> v.put("anyOf", List.of(Map.of("type", "integer", "minimum", 1),
          Map.of("type", "string", "pattern", "^(off|[0-9]{1,12} ?[kKmMgGtT]?(i?[bB])?)$")));
      case COUNT_OR_OFF -> v.put("anyOf", List.of(Map.of("type", "integer", "minimum", 16),
          Map.of("enum", List.of("off"))));
    }
    return v;
  }
}
