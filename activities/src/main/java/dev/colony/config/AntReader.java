package dev.colony.config;

import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.errorpolicy.Outcome;
import dev.colony.overseer.OverseerSpec;
import dev.colony.schedule.CronSchedule;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.OutcomeRule;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.TriggerSpec;
import dev.colony.spec.WorkspaceSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** One {@code ants/<name>.yaml}: the ant's spec, over the colony's defaults. */
final class AntReader {
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
  private static final Pattern REPO = Pattern.compile("[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+");

  /** Per-ant {@code integrations.discord.operators}, filled while ants are read. */
  final Map<String, List<String>> antOperators = new TreeMap<>();
  /** Per-ant {@code integrations.slack.channel} and {@code operators}. */
  final Map<String, String> slackChannels = new TreeMap<>();
  final Map<String, List<String>> slackOperators = new TreeMap<>();

  /** Whether the colony has {@code integrations.slack} (every ant then names its channel). */
  boolean slackColony;

  AntSpec readAnt(Node n, String rel, Path colonyDir, String colonyName,
      ColonySettings colony, Defaults defaults) {
    n.allowOnly(ConfigSchema.ANT);
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
      g.allowOnly(ConfigSchema.ANT.child("gemini"));
      String model = g.reference("model", false);
      Integer maxTurns = g.positiveInt("max_turns");
      Double input = null;
      Double output = null;
      Node price = g.child("price");
      if (price != null) {
        price.allowOnly(ConfigSchema.ANT.child("gemini").child("price"));
        input = price.positiveNumber("input");
        output = price.positiveNumber("output");
        if (input == null || output == null) {
          price.problem(input == null ? "input" : "output",
              "gemini.price needs both input and output (US dollars per million tokens)");
        }
      }
      gemini = new GeminiSpec(model == null ? GeminiSpec.DEFAULT_MODEL : model,
          maxTurns == null ? GeminiSpec.DEFAULT_MAX_TURNS : maxTurns, input, output);
    }
    ClaudeSpec claude = ClaudeSpec.DEFAULTS;
    Node c = n.child("claude");
    if (c != null) {
      c.allowOnly(ConfigSchema.ANT.child("claude"));
      claude = new ClaudeSpec(c.reference("model", false), c.positiveInt("max_turns"),
          c.positiveNumber("max_budget_usd"), c.has("telemetry") ? c.bool("telemetry", false) : null);
    }
    CommandSpec command = readCommand(n, engine);

    String channel = null;
    List<String> repos = List.of();
    Node integrations = n.child("integrations");
    if (integrations != null) {
      integrations.allowOnly(ConfigSchema.ANT.child("integrations"));
      Node d = integrations.child("discord");
      if (d != null) {
        d.allowOnly(ConfigSchema.ANT.child("integrations").child("discord"));
        channel = d.literal("channel", true);
        List<String> ops = d.stringList("operators", false);
        if (ops != null && name != null) {
          antOperators.put(name, ops);
        }
      }
      Node sl = integrations.child("slack");
      if (sl != null) {
        sl.allowOnly(ConfigSchema.ANT.child("integrations").child("slack"));
        String slackChannel = ColonyReader.slackChannel(sl, "channel", true);
        List<String> ops = sl.has("operators") ? ColonyReader.slackOperators(sl) : null;
        if (name != null && slackChannel != null) {
          slackChannels.put(name, slackChannel);
        }
        if (name != null && ops != null) {
          slackOperators.put(name, ops);
        }
      }
      Node gh = integrations.child("github");
      if (gh != null) {
        gh.allowOnly(ConfigSchema.ANT.child("integrations").child("github"));
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
    if (slackColony && (integrations == null || integrations.child("slack") == null)) {
      n.problem("integrations.slack.channel",
          "required: the colony uses Slack, so every ant names the channel it posts and listens in");
    }

    String cron = null;
    String timezone = null;
    Node schedule = n.child("schedule");
    if (schedule != null) {
      schedule.allowOnly(ConfigSchema.ANT.child("schedule"));
      cron = schedule.literal("cron", true);
      if (cron != null) {
        String problem = cronProblem(cron);
        if (problem.isEmpty()) {
          cron = cron.trim();
        } else {
          schedule.problem("cron", problem);
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
    if (timezone == null && defaults.errorPolicy().budgetTimezone() != null) {
      timezone = defaults.errorPolicy().budgetTimezone(); // the colony's zone
    }
    if (timezone == null) {
      timezone = "UTC"; // the same wherever `start` runs
    }

    List<TriggerSpec> triggers = new ArrayList<>();
    for (Node t : n.mappingList("triggers")) {
      t.allowOnly(ConfigSchema.ANT.child("triggers"));
      String type = t.literal("type", true);
      if (type == null) {
        continue;
      }
      String as = t.literal("as", false);
      TriggerSpec.Delivery delivery = TriggerSpec.Delivery.WAKE;
      if ("task".equals(as)) {
        delivery = TriggerSpec.Delivery.TASK;
      } else if (as != null && !as.equals("wake")) {
        t.problem("as", "invalid value '" + as + "': expected \"wake\" (the issue wakes the ant) or \"task\" "
            + "(the issue becomes a task on the board)");
        as = null;
      }
      switch (type) {
        case "github_issue" -> {
          List<String> labels = t.stringList("labels", false);
          String to = t.literal("to", false);
          if (to != null && delivery != TriggerSpec.Delivery.TASK) {
            t.problem("to", "only a trigger with 'as: task' names who the task is for");
            to = null;
          } else if (to != null) {
            try {
              var assignee = dev.colony.task.Assignee.parse(to);
              to = assignee == null ? null : assignee.text();
            } catch (IllegalArgumentException e) {
              t.problem("to", e.getMessage() + "; write an ant (alpha), a pool (pool:docs) or a human (@alice)");
              to = null;
            }
          }
          triggers.add(new TriggerSpec(TriggerSpec.Type.GITHUB_ISSUE, labels, delivery, to));
          if (repos.isEmpty()) {
            t.problem("type", "github_issue needs integrations.github.repos: the repositories to watch");
          }
        }
        case "discord_command" -> {
          if (t.has("labels")) {
            t.problem("labels", "only github_issue triggers take labels");
          }
          if (as != null || t.has("to")) {
            t.problem(as != null ? "as" : "to", "only github_issue triggers take 'as' and 'to'");
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
      conf.allowOnly(ConfigSchema.ANT.child("confirmation"));
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
      logging.allowOnly(ConfigSchema.ANT.child("logging"));
      toolCalls = logging.enumValue("tool_calls", ToolCallLogging.class, ToolCallLogging.IMPACTFUL);
      lmOutput = logging.enumValue("lm_output", LmOutput.class, LmOutput.DISCORD);
    }
    Node state = n.child("state");
    if (state != null) {
      ColonyReader.readState(state);
    }
    RecoveryPolicy recovery = n.enumValue("recovery", RecoveryPolicy.class, RecoveryPolicy.RESUME);
    Long poll = n.durationSeconds("poll_interval");
    Long sessionTimeout = n.durationSeconds("session_timeout");

    String repo = null;
    String branch = null;
    Long moveAfter = defaults.moveAfter();
    List<String> touches = null;
    Node ws = n.child("workspace");
    if (ws != null) {
      ws.allowOnly(ConfigSchema.ANT.child("workspace"));
      touches = MergeReader.touches(ws);
      Long own = ws.durationSeconds("move_after");
      moveAfter = own != null ? own : moveAfter;
      repo = ws.reference("repo", false);
      branch = ws.reference("branch", false);
      String target = ws.resolved(repo);
      if (repo != null && !looksLikeUrl(target)) {
        Path p = colonyDir.resolve(target).normalize();
        if (!Files.isDirectory(p) && !seeds.containsKey(p.toString())) {
          // A path from the environment is a secret too: name the field, not the value.
          ws.problem("repo", "no such directory: " + (repo.equals(target) ? p.toString() : repo)
              + " (give a git repository path or URL)");
        }
        if (repo.equals(target)) {
          repo = p.toString(); // a path with references is made absolute by the worker
        }
      }
    }

    ErrorPolicy errorPolicy = ErrorPolicyReader.readErrorPolicy(n, defaults.errorPolicy());
    OverseerSpec overseer = OverseerReader.readOverseer(n, defaults.overseer(), errorPolicy.sessionIdleTimeout());
    dev.colony.spec.TaskPolicy tasks = tasks(n, taskRules);
    dev.colony.spec.SandboxSpec sandbox = SandboxReader.read(n, defaults.sandbox());
    if (name == null || description == null || instructions == null) {
      return null;
    }
    WorkspaceSpec workspace = new WorkspaceSpec(
        colonyDir.resolve(".colony").resolve("workspaces").toString(), repo, branch, moveAfter, touches);
    return AntSpec.builder()
        .colony(colonyName)
        .name(name)
        .description(description)
        .instructions(instructions)
        .engine(engine)
        .claude(claude)
        .gemini(gemini)
        .command(command)
        .discordChannel(channel)
        .githubRepos(repos)
        .cron(cron)
        .timezone(timezone)
        .triggers(triggers)
        .autonomy(autonomy)
        .confirmation(confirmation)
        .toolCalls(toolCalls)
        .lmOutput(lmOutput)
        .recovery(recovery)
        .pollIntervalSeconds(poll == null ? defaults.pollInterval() : poll)
        .confirmationTimeoutSeconds(defaults.confirmationTimeout())
        .sessionTimeoutSeconds(sessionTimeout == null ? defaults.sessionTimeout() : sessionTimeout)
        .heartbeatTimeoutSeconds(defaults.heartbeatTimeout())
        .continueAsNewEvery(AntSpec.DEFAULT_CONTINUE_AS_NEW_EVERY)
        .workspace(workspace)
        .git(defaults.git())
        .colonyDir(colonyDir.toString())
        .sourceFile(rel)
        // The budget zone's offsets as data in the spec: budget days replay the same on any worker's JVM.
        .errorPolicy(errorPolicy.withZoneTable(dev.colony.budget.ZoneTable.of(errorPolicy.budgetZone())))
        .overseer(overseer)
        .tasks(tasks)
        .sandbox(sandbox)
        .build(); // notices: the colony's, added by ColonyLoader
  }

  /** The colony's {@code tasks:} rules, set by the loader before the ants are read. */
  ColonyReader.TaskRules taskRules = ColonyReader.TaskRules.DEFAULTS;
  /** Repositories that merge.repos' create_from makes at the first start (absolute paths): not missing. */
  java.util.Map<String, String> seeds = java.util.Map.of();

  /**
   * The ant's {@code tasks:} block with the colony's rules folded in. An ant without one gets no
   * policy (it takes only tasks assigned to it by name, when woken, and works when idle) unless
   * the colony's rules differ from their defaults: then it gets them with nothing of its own (no
   * pools, {@code when_idle: work}), so {@code ants_may_finish} and {@code aging} hold for its
   * tasks too. Such an ant still looks at the board only when woken (see TaskDesk).
   */
  static dev.colony.spec.TaskPolicy tasks(Node n, ColonyReader.TaskRules rules) {
    Node t = n.child("tasks");
    if (t == null) {
      return rules.differ() ? new dev.colony.spec.TaskPolicy(List.of(), false,
          dev.colony.spec.TaskPolicy.DEFAULT_MAX_TRIES, rules.antsMayFinish(), rules.agingSeconds()) : null;
    }
    t.allowOnly(ConfigSchema.ANT.child("tasks"));
    List<String> takes = new java.util.ArrayList<>();
    List<String> listed = t.stringList("takes", false);
    for (String p : listed == null ? List.<String>of() : listed) {
      String pool = p.strip();
      if (pool.equals("*") || dev.colony.task.Assignee.NAME.matcher(pool).matches()) {
        if (!takes.contains(pool)) {
          takes.add(pool);
        }
      } else {
        t.problem("takes", "'" + p + "' is not a pool name: use letters, digits, '.', '_' and '-' (up to 64), or \"*\" for any unassigned task");
      }
    }
    String idle = t.literal("when_idle", false);
    if (idle != null && !idle.equals("work") && !idle.equals("wait")) {
      t.problem("when_idle", "invalid value '" + idle + "': expected \"work\" or \"wait\"");
    }
    Integer maxTries = t.wholeNumber("max_tries");
    return new dev.colony.spec.TaskPolicy(takes, "wait".equals(idle),
        maxTries == null ? dev.colony.spec.TaskPolicy.DEFAULT_MAX_TRIES : maxTries, rules.antsMayFinish(),
        rules.agingSeconds());
  }

  static boolean looksLikeUrl(String repo) {
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
    c.allowOnly(ConfigSchema.ANT.child("command"));
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
      r.allowOnly(ConfigSchema.ANT.child("command").child("outcomes"));
      Integer exit = r.wholeNumber("exit_code");
      String pattern = r.reference("pattern", false);
      if (pattern != null && r.regex("pattern", pattern) == null) {
        pattern = null;
      }
      String outcomeText = r.literal("outcome", true);
      Outcome outcome = outcomeText == null ? null : Outcome.parse(outcomeText);
      if (outcome == Outcome.SANDBOX) {
        outcome = null; // the worker's own verdict on the walls, not an agent's
      }
      if (outcomeText != null && outcome == null) {
        List<String> names = new ArrayList<>();
        for (Outcome o : Outcome.values()) {
          if (o != Outcome.SANDBOX) {
            names.add(o.configName());
          }
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

  /**
   * What is wrong with a schedule's cron expression ("" when nothing), kept per expression as
   * written: a colony's ants share a few schedules, and checking one (the cron library compiles its
   * patterns each time) was 40% of reading 10,000 ant files. Only the expression decides the
   * verdict (whether it parses, and whether any date matches it: a date that exists comes again,
   * Feb 29 every four years), so it never goes stale.
   */
  private static String cronProblem(String cron) {
    String known = CRON_PROBLEMS.get(cron);
    if (known != null) {
      return known;
    }
    String problem = "";
    String expression = cron;
    try {
      if (cron.trim().split("\\s+").length != 5) {
        throw new IllegalArgumentException("expected 5 fields (minute hour day-of-month month day-of-week)");
      }
      CronSchedule.validate(cron.trim());
      expression = cron.trim();
      if (CronSchedule.nextTick(expression, "UTC", System.currentTimeMillis()) == null) {
        throw new IllegalArgumentException("it never fires (no such date)");
      }
    } catch (IllegalArgumentException e) {
      problem = "invalid cron expression '" + expression + "': " + e.getMessage();
    }
    if (CRON_PROBLEMS.size() >= 4_096) {
      CRON_PROBLEMS.clear(); // a bound, not a policy: thousands of distinct schedules are checked anew
    }
    CRON_PROBLEMS.put(cron, problem);
    return problem;
  }

  /** {@link #cronProblem} by expression as written. */
  private static final java.util.Map<String, String> CRON_PROBLEMS = new java.util.concurrent.ConcurrentHashMap<>();
}
