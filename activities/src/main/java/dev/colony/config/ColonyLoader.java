package dev.colony.config;

import dev.colony.schedule.CronSchedule;
import dev.colony.oversight.SupervisorSpec;
import dev.colony.spec.AntSpec;
import dev.colony.supervision.GroupSpec;
import dev.colony.supervision.Strategy;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.GitIdentity;
import dev.colony.spec.LmOutput;
import dev.colony.spec.OutcomeRule;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.SupervisionSpec;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.TriggerSpec;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.supervisor.Outcome;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Loads and validates a colony directory: {@code colony.yaml} plus every {@code .yaml}/{@code .yml}
 * file in {@code ants/}. Every problem in every file is collected before failing, so one run of
 * {@code colony validate} shows them all.
 */
public final class ColonyLoader {
  public static final String COLONY_FILE = "colony.yaml";
  public static final String ANTS_DIR = "ants";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
  private static final Pattern REPO = Pattern.compile("[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+");
  private static final long DEFAULT_CONFIRMATION_TIMEOUT = AntSpec.DEFAULT_CONFIRMATION_TIMEOUT_SECONDS;

  private final Function<String, String> env;
  private boolean discordTokenOptional;

  public ColonyLoader(Map<String, String> env) {
    Map<String, String> copy = new HashMap<>(env);
    this.env = copy::get;
  }

  /** Loads with the process environment and the colony's {@code .env}. */
  public static LoadedColony load(Path dir) throws ConfigException {
    return load(dir, false);
  }

  /**
   * Like {@link #load(Path)}; with {@code discordTokenOptional}, an unset Discord token is not an
   * error ({@code colony dev} then chats on the console).
   */
  public static LoadedColony load(Path dir, boolean discordTokenOptional) throws ConfigException {
    Path abs = dir.toAbsolutePath().normalize();
    ColonyLoader loader = new ColonyLoader(Environment.forColony(abs));
    loader.discordTokenOptional = discordTokenOptional;
    return loader.loadDir(abs);
  }

  /** This loader, accepting an unset Discord token (see {@link #load(Path, boolean)}). */
  public ColonyLoader withDiscordTokenOptional() {
    this.discordTokenOptional = true;
    return this;
  }

  public LoadedColony loadDir(Path dir) throws ConfigException {
    Path colonyDir = dir.toAbsolutePath().normalize();
    List<Problem> problems = new ArrayList<>();
    Set<String> referenced = new TreeSet<>();
    antOperators.clear();
    if (!Files.isDirectory(colonyDir)) {
      throw new ConfigException(List.of(new Problem(colonyDir.toString(), "",
          "not a directory (a colony directory holds colony.yaml and ants/)")));
    }
    ColonySettings colony = null;
    Defaults defaults = Defaults.NONE;
    Map<?, ?> colonyMap = parse(colonyDir, COLONY_FILE, problems);
    Node root = null;
    if (colonyMap != null) {
      root = new Node(COLONY_FILE, "", colonyMap, env, problems, referenced);
      defaults = readDefaults(root);
      colony = readColony(root, colonyDir, defaults);
    }

    List<AntSpec> ants = new ArrayList<>();
    Map<String, String> fileOfAnt = new HashMap<>();
    Path antsDir = colonyDir.resolve(ANTS_DIR);
    List<String> antFiles = antFiles(antsDir, problems);
    String colonyName = colony == null ? "colony" : colony.name();
    for (String rel : antFiles) {
      Map<?, ?> map = parse(colonyDir, rel, problems);
      if (map == null) {
        continue;
      }
      AntSpec ant = readAnt(new Node(rel, "", map, env, problems, referenced), rel, colonyDir, colonyName,
          colony, defaults);
      if (ant == null) {
        continue;
      }
      String other = fileOfAnt.putIfAbsent(ant.name(), rel);
      if (other != null) {
        problems.add(new Problem(rel, "name", "duplicate ant name '" + ant.name()
            + "': also used by " + other + " (ant names must be unique in a colony)"));
        continue;
      }
      ants.add(ant);
    }
    if (colony != null) {
      requireGithubToken(colony, ants, problems);
    }
    List<GroupSpec> groups = root == null ? List.of() : readGroups(root, ants);
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return new LoadedColony(colony, ants, referenced, antOperators, groups);
  }

  /** Ant files, sorted. None is valid config (nothing to run yet); commands that run ants check. */
  private static List<String> antFiles(Path antsDir, List<Problem> problems) {
    if (Files.exists(antsDir) && !Files.isDirectory(antsDir)) {
      problems.add(new Problem(ANTS_DIR, "", "is a file; it must be a directory holding one <name>.yaml per ant"));
      return List.of();
    }
    if (!Files.isDirectory(antsDir)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(antsDir, "*.{yaml,yml}")) {
      for (Path p : ds) {
        if (Files.isRegularFile(p)) {
          names.add(ANTS_DIR + "/" + p.getFileName());
        }
      }
    } catch (IOException e) {
      problems.add(new Problem(ANTS_DIR + "/", "", "cannot list: " + e.getMessage()));
    }
    names.sort(null);
    return names;
  }

  private static Map<?, ?> parse(Path colonyDir, String rel, List<Problem> problems) {
    Path file = colonyDir.resolve(rel);
    if (!Files.isRegularFile(file)) {
      problems.add(new Problem(rel, "", "file not found in " + colonyDir));
      return null;
    }
    try {
      // A symbolic link may point anywhere; only files inside the colony are read (and echoed).
      Path real = file.toRealPath();
      if (!real.startsWith(colonyDir.toRealPath())) {
        problems.add(new Problem(rel, "", "is a symbolic link to a file outside the colony directory; refused"));
        return null;
      }
    } catch (IOException e) {
      problems.add(new Problem(rel, "", "cannot read: " + e.getMessage()));
      return null;
    }
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    Yaml yaml = new Yaml(new SafeConstructor(options), new Representer(new DumperOptions()), new DumperOptions(),
        options, new LiteralResolver());
    Object doc;
    try {
      doc = yaml.load(ConfigText.read(file));
    } catch (ConfigText.NotText e) {
      problems.add(new Problem(rel, "", e.getMessage()));
      return null;
    } catch (MarkedYAMLException e) {
      String where = e.getProblemMark() == null ? ""
          : "line " + (e.getProblemMark().getLine() + 1) + ", column " + (e.getProblemMark().getColumn() + 1) + ": ";
      problems.add(new Problem(rel, "", "not valid YAML: " + where + e.getProblem()));
      return null;
    } catch (YAMLException | IOException e) {
      problems.add(new Problem(rel, "", "cannot read: " + e.getMessage()));
      return null;
    }
    if (doc == null) {
      problems.add(new Problem(rel, "", "the file is empty"));
      return null;
    }
    if (!(doc instanceof Map<?, ?> map)) {
      problems.add(new Problem(rel, "", "expected a mapping of keys at the top level, found " + Node.describe(doc)));
      return null;
    }
    return map;
  }

  private record Defaults(long confirmationTimeout, long pollInterval, long sessionTimeout,
      long heartbeatTimeout, GitIdentity git, SupervisionSpec supervision, SupervisorSpec supervisor,
      Long moveAfter) {
    static final Defaults NONE = new Defaults(DEFAULT_CONFIRMATION_TIMEOUT, 0,
        AntSpec.DEFAULT_SESSION_TIMEOUT_SECONDS, AntSpec.DEFAULT_HEARTBEAT_TIMEOUT_SECONDS, null,
        SupervisionSpec.DEFAULTS, null, null);
  }

  private static final List<String> THINKING = List.of("off", "low", "medium", "high");

  /**
   * The {@code supervisor} block (seed 002's LLM supervisor) over {@code base}: {@code off} (or
   * {@code false}) turns an inherited one off; a mapping sets model, provider, thinking,
   * window_size, eval_interval, escalation_threshold and stall_after.
   */
  private static SupervisorSpec readSupervisor(Node n, SupervisorSpec base, long idleTimeoutSeconds) {
    if (!n.has("supervisor")) {
      return base;
    }
    if (!n.isMapping("supervisor")) {
      String raw = n.raw("supervisor");
      if (raw != null && (raw.equalsIgnoreCase("off") || raw.equalsIgnoreCase("false"))) {
        return null;
      }
      if (raw != null && (raw.equalsIgnoreCase("on") || raw.equalsIgnoreCase("true"))) {
        return base == null ? SupervisorSpec.DEFAULTS : base;
      }
      if (raw != null) {
        n.problem("supervisor", "expected a mapping (model, thinking, window_size, ...), on or off; found '"
            + (raw.length() > 40 ? raw.substring(0, 40) + "…" : raw) + "'");
      }
      return base;
    }
    Node v = n.child("supervisor");
    if (v == null) {
      return base;
    }
    SupervisorSpec b = base == null ? SupervisorSpec.DEFAULTS : base;
    v.allowOnly("model", "provider", "thinking", "window_size", "eval_interval", "escalation_threshold",
        "stall_after");
    String model = v.literal("model", false);
    String provider = v.literal("provider", false);
    if (provider != null && !provider.equals(SupervisorSpec.ANTHROPIC) && !provider.equals(SupervisorSpec.GEMINI)) {
      v.problem("provider", "unknown provider '" + provider + "' (use anthropic or gemini)");
      provider = null;
    }
    String thinking = v.literal("thinking", false);
    if (thinking != null && !THINKING.contains(thinking.toLowerCase(java.util.Locale.ROOT))) {
      v.problem("thinking", "unknown thinking level '" + thinking + "' (use off, low, medium or high)");
      thinking = null;
    }
    Integer window = v.positiveInt("window_size");
    if (window != null && window > SupervisorSpec.MAX_WINDOW) {
      v.problem("window_size", "must be at most " + SupervisorSpec.MAX_WINDOW + " turns");
      window = null;
    }
    int w = window == null ? b.windowSize() : window;
    Integer interval = v.positiveInt("eval_interval");
    if (interval != null && interval > w) {
      v.problem("eval_interval", "must be at most window_size (" + w + "): an evaluation reads the window");
      interval = null;
    }
    Integer threshold = v.positiveInt("escalation_threshold");
    if (threshold != null && (threshold < SupervisorSpec.MIN_THRESHOLD || threshold > SupervisorSpec.MAX_THRESHOLD)) {
      v.problem("escalation_threshold", "must be between " + SupervisorSpec.MIN_THRESHOLD + " and "
          + SupervisorSpec.MAX_THRESHOLD + " (the supervisor never escalates on a first observation)");
      threshold = null;
    }
    Long stall = positive(v, "stall_after", v.durationSeconds("stall_after"));
    if (stall != null && stall < 30) {
      v.problem("stall_after", "must be at least 30s");
      stall = null;
    } else if (stall != null && stall >= idleTimeoutSeconds) {
      v.problem("stall_after", "must be shorter than session_idle_timeout (" + Durations.format(idleTimeoutSeconds)
          + "), which interrupts a silent session first");
      stall = null;
    }
    if (stall == null && b.stallAfterSeconds() >= idleTimeoutSeconds) {
      stall = Math.max(30, idleTimeoutSeconds * 2 / 3); // a silence is seen before the watchdog acts
    }
    String m = model == null ? b.model() : model;
    String p = provider != null ? provider : model != null ? SupervisorSpec.providerOf(model) : b.provider();
    return new SupervisorSpec(p, m, thinking == null ? b.thinking() : thinking,
        w, interval == null ? Math.min(b.evalInterval(), w) : interval,
        threshold == null ? b.escalationThreshold() : threshold, stall == null ? b.stallAfterSeconds() : stall);
  }

  /** {@code backoff}, {@code max_consecutive_errors}, {@code max_total_errors} of {@code n}, over {@code base}. */
  private static SupervisionSpec readSupervision(Node n, SupervisionSpec base) {
    long initial = base.backoffInitialSeconds();
    long max = base.backoffMaxSeconds();
    Node b = n.child("backoff");
    if (b != null) {
      b.allowOnly("initial", "max");
      Long i = positive(b, "initial", b.durationSeconds("initial"));
      Long m = positive(b, "max", b.durationSeconds("max"));
      if (i == null && b.has("initial") || m == null && b.has("max")) {
        return base;
      }
      initial = i == null ? 10 : i;
      max = m == null ? 300 : m;
      if (max < initial) {
        b.problem("max", "must be at least backoff.initial (" + Durations.format(initial) + ")");
      }
    }
    Integer consecutive = n.has("max_consecutive_errors") ? n.positiveInt("max_consecutive_errors")
        : base.maxConsecutiveErrors();
    Integer total = n.has("max_total_errors") ? n.positiveInt("max_total_errors") : base.maxTotalErrors();
    Long grace = positive(n, "interrupt_grace", n.durationSeconds("interrupt_grace"));
    if (grace != null && grace > 3600) {
      n.problem("interrupt_grace", "must be at most 1h (an interrupted session waits this long at most)");
    }
    Long idle = positive(n, "session_idle_timeout", n.durationSeconds("session_idle_timeout"));
    Double daily = base.dailyBudgetUsd();
    Double monthly = base.monthlyBudgetUsd();
    Node b2 = n.child("budget");
    if (b2 != null) {
      b2.allowOnly("daily_usd", "monthly_usd");
      daily = b2.has("daily_usd") ? b2.positiveNumber("daily_usd") : daily;
      monthly = b2.has("monthly_usd") ? b2.positiveNumber("monthly_usd") : monthly;
    }
    return new SupervisionSpec(initial, max, consecutive, total,
        grace == null ? base.interruptGraceSeconds() : grace,
        idle == null ? base.sessionIdleTimeoutSeconds() : idle, daily, monthly, base.budgetTimezone());
  }

  /** {@code defaults.timezone}: where budget days and months begin (and the default schedule zone). */
  private static String readColonyZone(Node d) {
    String zone = d.literal("timezone", false);
    if (zone == null) {
      return null;
    }
    try {
      ZoneId.of(zone);
      return zone;
    } catch (java.time.DateTimeException e) {
      d.problem("timezone", "unknown time zone '" + zone + "' (use an IANA name such as Europe/Paris)");
      return null;
    }
  }

  private Defaults readDefaults(Node root) {
    Node d = root.child("defaults");
    if (d == null) {
      return Defaults.NONE;
    }
    d.allowOnly("confirmation_timeout", "poll_interval", "git", "session_timeout", "heartbeat_timeout",
        "backoff", "max_consecutive_errors", "max_total_errors", "interrupt_grace", "session_idle_timeout",
        "budget", "timezone", "supervisor", "move_after");
    String zone = readColonyZone(d);
    SupervisionSpec base = new SupervisionSpec(0, 0, null, null, 0, 0, null, null, zone);
    SupervisionSpec supervision = readSupervision(d, base);
    SupervisorSpec supervisor = readSupervisor(d, null, supervision.sessionIdleTimeout());
    Long confirmation = d.durationSeconds("confirmation_timeout");
    Long poll = d.durationSeconds("poll_interval");
    Long session = positive(d, "session_timeout", d.durationSeconds("session_timeout"));
    Long heartbeat = positive(d, "heartbeat_timeout", d.durationSeconds("heartbeat_timeout"));
    GitIdentity git = null;
    Node g = d.child("git");
    if (g != null) {
      g.allowOnly("user_name", "user_email");
      git = new GitIdentity(g.reference("user_name", false), g.reference("user_email", false));
    }
    return new Defaults(
        confirmation == null ? DEFAULT_CONFIRMATION_TIMEOUT : confirmation,
        poll == null ? 0 : poll,
        session == null ? AntSpec.DEFAULT_SESSION_TIMEOUT_SECONDS : session,
        heartbeat == null ? AntSpec.DEFAULT_HEARTBEAT_TIMEOUT_SECONDS : heartbeat,
        git, supervision, supervisor, positive(d, "move_after", d.durationSeconds("move_after")));
  }

  private static Long positive(Node n, String key, Long seconds) {
    if (seconds != null && seconds <= 0) {
      n.problem(key, "must be longer than 0s");
      return null;
    }
    return seconds;
  }

  private ColonySettings readColony(Node root, Path dir, Defaults defaults) {
    root.allowOnly("name", "integrations", "defaults", "state", "supervision");
    String name = root.literal("name", true);
    if (name != null && !NAME.matcher(name).matches()) {
      root.problem("name", "invalid colony name '" + name
          + "': use letters, digits, '-', '_' or '.', starting with a letter or digit (at most 63)");
      name = null;
    }
    ColonySettings.Discord discord = null;
    String githubTokenVar = null;
    long githubPoll = ColonySettings.DEFAULT_GITHUB_POLL_SECONDS;
    String webhookSecretVar = null;
    String hookUrl = null;
    String hookSecretVar = null;
    Node integrations = root.child("integrations");
    if (integrations != null) {
      integrations.allowOnly("discord", "github", "webhook");
      Node w = integrations.child("webhook");
      if (w != null) {
        w.allowOnly("url", "secret");
        hookUrl = w.reference("url", true);
        String resolved = w.resolved(hookUrl);
        if (resolved != null && !resolved.matches("(?i)https?://[^\\s]+")) {
          w.problem("url", "expected an http:// or https:// URL");
          hookUrl = null;
        }
        hookSecretVar = secretReference(w, "secret", false);
      }
      Node d = integrations.child("discord");
      if (d != null) {
        d.allowOnly("token", "guild", "operators", "mention", "alerts_channel", "strangers");
        String tokenVar = discordTokenOptional ? unsetReference(d.raw("token")) : null;
        if (tokenVar == null) { // set, or required: checked as every secret is
          tokenVar = secretReference(d, "token", true);
        }
        String guild = d.string("guild", true);
        List<String> operators = d.stringList("operators", false);
        String mention = d.literal("mention", false);
        if (mention != null && !mention.equals("operators") && !mention.equals("none")) {
          d.problem("mention", "invalid value '" + mention + "': expected \"operators\" or \"none\"");
        }
        String strangers = d.literal("strangers", false);
        if (strangers != null && !strangers.equals("reply") && !strangers.equals("ignore")) {
          d.problem("strangers", "invalid value '" + strangers + "': expected \"reply\" or \"ignore\"");
        }
        discord = new ColonySettings.Discord(tokenVar, guild, operators, !"none".equals(mention),
            d.literal("alerts_channel", false), !"ignore".equals(strangers));
      }
      Node g = integrations.child("github");
      if (g != null) {
        g.allowOnly("token", "poll_interval", "webhook_secret");
        githubTokenVar = secretReference(g, "token", false);
        Long poll = g.durationSeconds("poll_interval");
        if (poll != null && poll < 10) {
          g.problem("poll_interval", "at least 10s (GitHub's rate limit is per hour)");
        } else if (poll != null) {
          githubPoll = poll;
        }
        webhookSecretVar = secretReference(g, "webhook_secret", false);
      }
    }
    String backend = "memory";
    String statePath = "./colony-state.db";
    Node state = root.child("state");
    if (state != null) {
      String[] s = readState(state);
      backend = s[0];
      statePath = s[1];
    }
    if (name == null) {
      return null;
    }
    return new ColonySettings(name, dir.toString(), discord, githubTokenVar,
        defaults.confirmationTimeout(), defaults.pollInterval(), backend, statePath, githubPoll, webhookSecretVar,
        hookUrl, hookSecretVar);
  }

  /**
   * {@code supervision.groups} (seed 003): each group's name, strategy, ants (declared ants, each in
   * one group at most; their order is rest_for_one's), and breaker ({@code max_restarts} within
   * {@code window}).
   */
  private static List<GroupSpec> readGroups(Node root, List<AntSpec> ants) {
    Node sup = root.child("supervision");
    if (sup == null) {
      return List.of();
    }
    sup.allowOnly("groups");
    Set<String> known = new TreeSet<>();
    ants.forEach(a -> known.add(a.name()));
    Map<String, String> groupOfAnt = new HashMap<>();
    Set<String> names = new TreeSet<>();
    List<GroupSpec> groups = new ArrayList<>();
    for (Node g : sup.mappingList("groups")) {
      g.allowOnly("name", "strategy", "ants", "max_restarts", "window");
      String name = g.literal("name", true);
      if (name != null && !NAME.matcher(name).matches()) {
        g.problem("name", "invalid group name '" + name + "': use letters, digits, '-', '_' or '.'");
        name = null;
      } else if (name != null && !names.add(name)) {
        g.problem("name", "duplicate group name '" + name + "'");
      }
      String raw = g.literal("strategy", false);
      Strategy strategy = raw == null ? Strategy.ONE_FOR_ONE : Strategy.parse(raw);
      if (strategy == null) {
        g.problem("strategy", "invalid value '" + raw + "': expected one_for_one, one_for_all or rest_for_one");
      }
      List<String> members = g.stringList("ants", false);
      if (members == null || members.isEmpty()) {
        g.problem("ants", "required: the ants of the group, in order");
        members = List.of();
      }
      for (String ant : members) {
        if (!known.contains(ant)) {
          g.problem("ants", "no ant named '" + ant + "' in ants/ (known: " + String.join(", ", known) + ")");
        } else if (groupOfAnt.putIfAbsent(ant, String.valueOf(name)) != null) {
          g.problem("ants", "'" + ant + "' is already in group '" + groupOfAnt.get(ant) + "' (an ant is in one group at most)");
        }
      }
      Integer max = g.has("max_restarts") ? g.positiveInt("max_restarts") : Integer.valueOf(GroupSpec.DEFAULT_MAX_RESTARTS);
      Long window = g.has("window") ? positive(g, "window", g.durationSeconds("window")) : Long.valueOf(GroupSpec.DEFAULT_WINDOW_SECONDS);
      if (name != null && strategy != null && max != null && window != null) {
        groups.add(new GroupSpec(name, strategy, members, max, window));
      }
    }
    return groups;
  }

  /** The variable of a single {@code ${VAR}} reference that is not set; null otherwise. */
  private String unsetReference(String raw) {
    if (!Interpolation.isSingleReference(raw)) {
      return null;
    }
    String var = Interpolation.variables(raw).iterator().next();
    return env.apply(var) == null ? var : null;
  }

  /** Reads a secret: it must be written as a single {@code ${VAR}} and the variable must be set. */
  private String secretReference(Node n, String key, boolean required) {
    String raw = n.raw(key);
    if (raw == null) {
      if (required) {
        n.problem(key, "required");
      }
      return null;
    }
    if (!Interpolation.isSingleReference(raw)) {
      n.problem(key, "write secrets as an environment variable reference such as ${DISCORD_TOKEN}, "
          + "never the value itself");
      return null;
    }
    String resolved = n.string(key, true);
    return resolved == null ? null : Interpolation.variables(raw).iterator().next();
  }

  private static String[] readState(Node state) {
    state.allowOnly("backend", "path");
    String backend = state.string("backend", false);
    if (backend != null && !backend.equals("memory") && !backend.equals("sqlite")) {
      state.problem("backend", "invalid value '" + backend + "': expected \"memory\" or \"sqlite\"");
    }
    String path = state.string("path", false);
    return new String[] {backend == null ? "memory" : backend, path == null ? "./colony-state.db" : path};
  }

  /** Per-ant {@code integrations.discord.operators}, filled while ants are read. */
  private final Map<String, List<String>> antOperators = new java.util.TreeMap<>();

  private AntSpec readAnt(Node n, String rel, Path colonyDir, String colonyName,
      ColonySettings colony, Defaults defaults) {
    n.allowOnly("name", "description", "instructions", "engine", "gemini", "claude", "command",
        "integrations", "schedule", "triggers", "autonomy", "confirmation", "logging", "state",
        "poll_interval", "session_timeout", "workspace", "recovery", "backoff", "max_consecutive_errors",
        "max_total_errors", "interrupt_grace", "session_idle_timeout", "budget", "supervisor");
    String name = n.literal("name", true);
    if (name != null && !NAME.matcher(name).matches()) {
      n.problem("name", "invalid ant name '" + name
          + "': use letters, digits, '-', '_' or '.', starting with a letter or digit (at most 63)");
      name = null;
    }
    String description = n.text("description", true);
    String instructions = n.text("instructions", true);
    EngineKind engine = n.enumValue("engine", EngineKind.class, EngineKind.CLAUDE);

    GeminiSpec gemini = GeminiSpec.DEFAULTS;
    Node g = n.child("gemini");
    if (g != null) {
      g.allowOnly("model", "max_turns");
      String model = g.reference("model", false);
      Integer maxTurns = g.positiveInt("max_turns");
      gemini = new GeminiSpec(model == null ? GeminiSpec.DEFAULT_MODEL : model,
          maxTurns == null ? GeminiSpec.DEFAULT_MAX_TURNS : maxTurns);
    }
    ClaudeSpec claude = ClaudeSpec.DEFAULTS;
    Node c = n.child("claude");
    if (c != null) {
      c.allowOnly("model", "max_turns", "max_budget_usd");
      claude = new ClaudeSpec(c.reference("model", false), c.positiveInt("max_turns"),
          c.positiveNumber("max_budget_usd"));
    }
    CommandSpec command = readCommand(n, engine);

    String channel = null;
    List<String> repos = List.of();
    Node integrations = n.child("integrations");
    if (integrations != null) {
      integrations.allowOnly("discord", "github");
      Node d = integrations.child("discord");
      if (d != null) {
        d.allowOnly("channel", "operators");
        channel = d.literal("channel", true);
        List<String> ops = d.stringList("operators", false);
        if (ops != null && name != null) {
          antOperators.put(name, ops);
        }
      }
      Node gh = integrations.child("github");
      if (gh != null) {
        gh.allowOnly("repos");
        List<String> list = gh.stringList("repos", false);
        if (list != null) {
          for (int i = 0; i < list.size(); i++) {
            if (!REPO.matcher(list.get(i)).matches()) {
              gh.problem("repos[" + i + "]", "invalid repository '" + list.get(i) + "': expected owner/repo");
            }
          }
          repos = list;
        }
      }
    }
    if (channel == null && colony != null && colony.discord() != null
        && (integrations == null || integrations.child("discord") == null)) {
      n.problem("integrations.discord.channel",
          "required: the colony uses Discord, so every ant names the channel it posts and listens in");
    }

    String cron = null;
    String timezone = null;
    Node schedule = n.child("schedule");
    if (schedule != null) {
      schedule.allowOnly("cron", "timezone");
      cron = schedule.literal("cron", true);
      if (cron != null) {
        try {
          if (cron.trim().split("\\s+").length != 5) {
            throw new IllegalArgumentException("expected 5 fields (minute hour day-of-month month day-of-week)");
          }
          CronSchedule.validate(cron.trim());
          cron = cron.trim();
          if (CronSchedule.nextTick(cron, "UTC", System.currentTimeMillis()) == null) {
            throw new IllegalArgumentException("it never fires (no such date)");
          }
        } catch (IllegalArgumentException e) {
          schedule.problem("cron", "invalid cron expression '" + cron + "': " + e.getMessage());
          cron = null;
        }
      }
      timezone = schedule.literal("timezone", false);
      if (timezone != null) {
        try {
          ZoneId.of(timezone);
        } catch (DateTimeException e) {
          schedule.problem("timezone", "unknown time zone '" + timezone + "' (use an IANA name such as Europe/Paris)");
          timezone = null;
        }
      }
    }
    if (timezone == null && defaults.supervision().budgetTimezone() != null) {
      timezone = defaults.supervision().budgetTimezone(); // the colony's zone
    }
    if (timezone == null) {
      timezone = "UTC"; // the same wherever `start` runs
    }

    List<TriggerSpec> triggers = new ArrayList<>();
    for (Node t : n.mappingList("triggers")) {
      t.allowOnly("type", "labels");
      String type = t.literal("type", true);
      if (type == null) {
        continue;
      }
      switch (type) {
        case "github_issue" -> {
          List<String> labels = t.stringList("labels", false);
          triggers.add(new TriggerSpec(TriggerSpec.Type.GITHUB_ISSUE, labels));
          if (repos.isEmpty()) {
            t.problem("type", "github_issue needs integrations.github.repos: the repositories to watch");
          }
        }
        case "discord_command" -> {
          if (t.has("labels")) {
            t.problem("labels", "only github_issue triggers take labels");
          }
          triggers.add(new TriggerSpec(TriggerSpec.Type.DISCORD_COMMAND, null));
        }
        default -> t.problem("type", "invalid trigger type '" + type
            + "': expected \"github_issue\" or \"discord_command\"");
      }
    }

    Autonomy autonomy = n.enumValue("autonomy", Autonomy.class, Autonomy.HUMAN);
    ConfirmationSpec confirmation = ConfirmationSpec.NONE;
    Node conf = n.child("confirmation");
    if (conf != null) {
      conf.allowOnly("always_confirm_tools", "dangerous_patterns");
      List<String> tools = conf.stringList("always_confirm_tools", true);
      List<String> patterns = conf.stringList("dangerous_patterns", true);
      List<String> valid = new ArrayList<>();
      if (patterns != null) {
        for (int i = 0; i < patterns.size(); i++) {
          // Checked as the worker will see it; kept as written (the value may be secret).
          if (conf.regex("dangerous_patterns[" + i + "]", patterns.get(i)) != null) {
            valid.add(patterns.get(i));
          }
        }
      }
      confirmation = new ConfirmationSpec(tools, valid);
    }
    ToolCallLogging toolCalls = ToolCallLogging.IMPACTFUL;
    LmOutput lmOutput = LmOutput.DISCORD;
    Node logging = n.child("logging");
    if (logging != null) {
      logging.allowOnly("tool_calls", "lm_output");
      toolCalls = logging.enumValue("tool_calls", ToolCallLogging.class, ToolCallLogging.IMPACTFUL);
      lmOutput = logging.enumValue("lm_output", LmOutput.class, LmOutput.DISCORD);
    }
    Node state = n.child("state");
    if (state != null) {
      readState(state);
    }
    RecoveryPolicy recovery = n.enumValue("recovery", RecoveryPolicy.class, RecoveryPolicy.RESUME);
    Long poll = n.durationSeconds("poll_interval");
    Long sessionTimeout = positive(n, "session_timeout", n.durationSeconds("session_timeout"));

    String repo = null;
    String branch = null;
    Long moveAfter = defaults.moveAfter();
    Node ws = n.child("workspace");
    if (ws != null) {
      ws.allowOnly("repo", "branch", "move_after");
      Long own = positive(ws, "move_after", ws.durationSeconds("move_after"));
      moveAfter = own != null ? own : moveAfter;
      repo = ws.reference("repo", false);
      branch = ws.reference("branch", false);
      String target = ws.resolved(repo);
      if (repo != null && !looksLikeUrl(target)) {
        Path p = colonyDir.resolve(target).normalize();
        if (!Files.isDirectory(p)) {
          // A path from the environment is a secret too: name the field, not the value.
          ws.problem("repo", "no such directory: " + (repo.equals(target) ? p.toString() : repo)
              + " (give a git repository path or URL)");
        }
        if (repo.equals(target)) {
          repo = p.toString(); // a path with references is made absolute by the worker
        }
      }
    }

    SupervisionSpec supervision = readSupervision(n, defaults.supervision());
    SupervisorSpec supervisor = readSupervisor(n, defaults.supervisor(), supervision.sessionIdleTimeout());
    if (name == null || description == null || instructions == null) {
      return null;
    }
    WorkspaceSpec workspace = new WorkspaceSpec(
        colonyDir.resolve(".colony").resolve("workspaces").toString(), repo, branch, moveAfter);
    return new AntSpec(colonyName, name, description, instructions, engine, claude, gemini, command,
        channel, repos, cron, timezone, triggers, autonomy, confirmation, toolCalls, lmOutput,
        recovery, poll == null ? defaults.pollInterval() : poll, defaults.confirmationTimeout(),
        sessionTimeout == null ? defaults.sessionTimeout() : sessionTimeout,
        defaults.heartbeatTimeout(), AntSpec.DEFAULT_CONTINUE_AS_NEW_EVERY, workspace,
        defaults.git(), colonyDir.toString(), rel, supervision, supervisor);
  }

  public static boolean looksLikeUrl(String repo) {
    return repo.contains("://") || repo.startsWith("git@");
  }

  private CommandSpec readCommand(Node n, EngineKind engine) {
    Node c = n.child("command");
    if (c == null) {
      if (engine == EngineKind.COMMAND) {
        n.problem("command", "required when engine is \"command\": give command.argv, the program to run");
      }
      return null;
    }
    if (engine != EngineKind.COMMAND) {
      c.problem(null, "only used when engine is \"command\" (this ant's engine is \""
          + engine.configName() + "\")");
    }
    c.allowOnly("argv", "env", "outcomes");
    List<String> argv;
    if (c.has("argv") && !c.isList("argv")) {
      // A single string is a shell command line.
      String line = c.text("argv", true);
      argv = line == null ? List.of() : List.of("/bin/sh", "-c", line);
    } else {
      argv = c.stringList("argv", true);
    }
    if (argv == null || argv.isEmpty()) {
      if (!c.has("argv")) {
        c.problem("argv", "required: the program and its arguments, e.g. [\"./agent.sh\", \"--fast\"]");
      }
      argv = List.of();
    }
    Map<String, String> envVars = c.stringMap("env");
    List<OutcomeRule> rules = new ArrayList<>();
    for (Node r : c.mappingList("outcomes")) {
      r.allowOnly("exit_code", "pattern", "outcome");
      Integer exit = null;
      String exitText = r.literal("exit_code", false);
      if (exitText != null) {
        try {
          exit = Integer.parseInt(exitText.trim());
        } catch (NumberFormatException e) {
          r.problem("exit_code", "expected a whole number, found '" + exitText + "'");
        }
      }
      String pattern = r.reference("pattern", false);
      if (pattern != null && r.regex("pattern", pattern) == null) {
        pattern = null;
      }
      String outcomeText = r.literal("outcome", true);
      Outcome outcome = outcomeText == null ? null : Outcome.parse(outcomeText);
      if (outcomeText != null && outcome == null) {
        List<String> names = new ArrayList<>();
        for (Outcome o : Outcome.values()) {
          names.add(o.configName());
        }
        r.problem("outcome", "invalid outcome '" + outcomeText + "': expected one of "
            + String.join(", ", names) + " (or an SDK error value such as billing_error)");
      }
      if (!r.has("exit_code") && !r.has("pattern")) {
        r.problem(null, "a rule needs exit_code, pattern or both");
      }
      if (outcome != null) {
        rules.add(new OutcomeRule(exit, pattern, outcome));
      }
    }
    return new CommandSpec(argv, envVars == null ? Map.of() : new TreeMap<>(envVars), rules);
  }

  private static void requireGithubToken(ColonySettings colony, List<AntSpec> ants, List<Problem> problems) {
    if (colony.githubTokenVar() != null) {
      return;
    }
    for (AntSpec a : ants) {
      boolean usesGithub = !a.githubRepos().isEmpty()
          || a.triggers().stream().anyMatch(t -> t.type() == TriggerSpec.Type.GITHUB_ISSUE);
      if (usesGithub) {
        problems.add(new Problem(COLONY_FILE, "integrations.github.token", "required: ant '" + a.name()
            + "' (" + a.sourceFile() + ") uses GitHub; set token: ${GITHUB_TOKEN}"));
        return;
      }
    }
  }
}
