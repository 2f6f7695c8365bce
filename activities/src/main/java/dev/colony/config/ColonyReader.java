package dev.colony.config;

import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.overseer.OverseerSpec;
import dev.colony.secrets.Interpolation;
import dev.colony.spec.AntSpec;
import dev.colony.spec.GitIdentity;
import dev.colony.supervision.GroupSpec;
import dev.colony.supervision.Strategy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/** {@code colony.yaml}: the colony's name, its integrations, its defaults for ants, its supervision groups. */
final class ColonyReader {
  private static final Pattern NAME = AntReader.NAME;
  private final Function<String, String> env;
  private final boolean discordTokenOptional;

  ColonyReader(Function<String, String> env, boolean discordTokenOptional) {
    this.env = env;
    this.discordTokenOptional = discordTokenOptional;
  }

  Defaults readDefaults(Node root) {
    Node d = root.child("defaults");
    if (d == null) {
      return Defaults.NONE;
    }
    d.allowOnly(ConfigSchema.COLONY.child("defaults"));
    String zone = ErrorPolicyReader.readColonyZone(d);
    ErrorPolicy base = new ErrorPolicy(0, 0, null, null, 0, 0, null, null, zone);
    ErrorPolicy errorPolicy = ErrorPolicyReader.readErrorPolicy(d, base);
    OverseerSpec overseer = OverseerReader.readOverseer(d, null, errorPolicy.sessionIdleTimeout());
    Long confirmation = d.durationSeconds("confirmation_timeout");
    Long poll = d.durationSeconds("poll_interval");
    Long session = d.durationSeconds("session_timeout");
    Long heartbeat = d.durationSeconds("heartbeat_timeout");
    GitIdentity git = null;
    Node g = d.child("git");
    if (g != null) {
      g.allowOnly(ConfigSchema.COLONY.child("defaults").child("git"));
      git = new GitIdentity(g.reference("user_name", false), g.reference("user_email", false));
    }
    return new Defaults(
        confirmation == null ? AntSpec.DEFAULT_CONFIRMATION_TIMEOUT_SECONDS : confirmation,
        poll == null ? 0 : poll,
        session == null ? AntSpec.DEFAULT_SESSION_TIMEOUT_SECONDS : session,
        heartbeat == null ? AntSpec.DEFAULT_HEARTBEAT_TIMEOUT_SECONDS : heartbeat,
        git, errorPolicy, overseer, d.durationSeconds("move_after"), SandboxReader.read(d, null));
  }

  ColonySettings readColony(Node root, Path dir, Defaults defaults) {
    root.allowOnly(ConfigSchema.COLONY);
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
      integrations.allowOnly(ConfigSchema.COLONY.child("integrations"));
      Node w = integrations.child("webhook");
      if (w != null) {
        w.allowOnly(ConfigSchema.COLONY.child("integrations").child("webhook"));
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
        d.allowOnly(ConfigSchema.COLONY.child("integrations").child("discord"));
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
      Node nt = integrations.child("notify");
      if (nt != null) {
        notices = readNotify(nt, hookUrl, hookSecretVar);
      }
      Node sl = integrations.child("slack");
      if (sl != null) {
        slack = readSlack(sl);
      }
      Node g = integrations.child("github");
      if (g != null) {
        g.allowOnly(ConfigSchema.COLONY.child("integrations").child("github"));
        githubTokenVar = secretReference(g, "token", false);
        Long poll = g.durationSeconds("poll_interval");
        if (poll != null) {
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
    Node t = root.child("tasks");
    if (t != null) {
      tasks = readTasks(t);
    }
    merge = MergeReader.read(root, dir, name == null ? "colony" : name, githubTokenVar, seeds);
    if (name == null) {
      return null;
    }
    return new ColonySettings(name, dir.toString(), discord, githubTokenVar,
        defaults.confirmationTimeout(), defaults.pollInterval(), backend, statePath, githubPoll, webhookSecretVar,
        hookUrl, hookSecretVar);
  }

  /**
   * {@code supervision.groups}: each group's name, strategy, ants (declared ants, each in
   * one group at most; their order is rest_for_one's), and breaker ({@code max_restarts} within
   * {@code window}).
   */
  static List<GroupSpec> readGroups(Node root, List<AntSpec> ants) {
    Node sup = root.child("supervision");
    if (sup == null) {
      return List.of();
    }
    sup.allowOnly(ConfigSchema.COLONY.child("supervision"));
    Set<String> known = new TreeSet<>();
    ants.forEach(a -> known.add(a.name()));
    Map<String, String> groupOfAnt = new HashMap<>();
    Set<String> names = new TreeSet<>();
    List<GroupSpec> groups = new ArrayList<>();
    for (Node g : sup.mappingList("groups")) {
      g.allowOnly(ConfigSchema.COLONY.child("supervision").child("groups"));
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
      Long window = g.has("window") ? g.durationSeconds("window") : Long.valueOf(GroupSpec.DEFAULT_WINDOW_SECONDS);
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

  /** {@code merge.repos} of the colony read last (none when it has no {@code merge:}). */
  List<dev.colony.merge.MergeRepo> merge = List.of();
  /** Repositories {@code create_from} makes at the first start: absolute path → seed directory. */
  final java.util.Map<String, String> seeds = new java.util.TreeMap<>();

  /** {@code tasks:} of the colony read last (its defaults when it has none). */
  TaskRules tasks = TaskRules.DEFAULTS;

  /**
   * The colony's task rules ({@code tasks:} in colony.yaml), folded into every ant's
   * {@link dev.colony.spec.TaskPolicy} by {@link AntReader#tasks}.
   *
   * @param antsMayFinish {@code ants_may_finish}: an ant's finished task goes to Done
   * @param agingSeconds {@code aging}: a waiting task rises one priority level per this long
   */
  record TaskRules(boolean antsMayFinish, long agingSeconds) {
    static final TaskRules DEFAULTS = new TaskRules(false, dev.colony.task.TaskOrder.DEFAULT_AGING_SECONDS);

    /** Whether these rules matter to an ant without a {@code tasks:} block (one that takes tasks assigned by name). */
    boolean differ() {
      return !equals(DEFAULTS);
    }
  }

  private static TaskRules readTasks(Node t) {
    t.allowOnly(ConfigSchema.COLONY.child("tasks"));
    Long aging = t.durationSeconds("aging");
    return new TaskRules(t.bool("ants_may_finish", false),
        aging == null ? dev.colony.task.TaskOrder.DEFAULT_AGING_SECONDS : aging);
  }

  /** {@code integrations.notify} of the colony read last; null when it has none. */
  dev.colony.spec.NotifySpec notices;

  private static final java.util.regex.Pattern CLOCK = java.util.regex.Pattern.compile("([01][0-9]|2[0-3]):[0-5][0-9]");
  private static final java.util.regex.Pattern TOPIC_URL =
      java.util.regex.Pattern.compile("(?i)https?://[^\\s/?#]+(/[^\\s?#]*)?/[A-Za-z0-9_-]{1,64}");

  private dev.colony.spec.NotifySpec readNotify(Node n, String webhookUrl, String webhookSecretVar) {
    n.allowOnly(ConfigSchema.COLONY.child("integrations").child("notify"));
    Long remind = n.durationSeconds("remind_after");
    Integer reminders = n.wholeNumber("reminders");
    String webUi = n.literal("web_ui", false);
    if (webUi != null && !webUi.matches("(?i)https?://[^\\s]+")) {
      n.problem("web_ui", "expected an http:// or https:// URL");
    }
    dev.colony.spec.NotifySpec.QuietHours quiet = quietHours(n.child("quiet_hours"));
    List<dev.colony.spec.NotifySpec.Ntfy> topics = new java.util.ArrayList<>();
    for (Node t : n.mappingList("ntfy")) {
      t.allowOnly(ConfigSchema.COLONY.child("integrations").child("notify").child("ntfy"));
      String url = t.reference("url", true);
      String resolved = url == null ? null : t.resolved(url);
      if (resolved != null && !TOPIC_URL.matcher(resolved.strip()).matches()) {
        t.problem("url", "expected a topic URL such as https://ntfy.sh/my-colony-alerts (a topic: letters, digits, "
            + "'-' and '_', at most 64)");
        url = null;
      }
      String tokenVar = secretReference(t, "token", false);
      String priority = t.literal("priority", false);
      if (priority != null && !List.of("min", "low", "default", "high", "urgent").contains(priority)) {
        t.problem("priority", "invalid value '" + priority + "': expected min, low, default, high or urgent");
      }
      String name = t.literal("name", false);
      topics.add(new dev.colony.spec.NotifySpec.Ntfy(name, url, tokenVar, priority == null ? "high" : priority,
          quietHours(t.child("quiet_hours"))));
    }
    if (topics.isEmpty() && webhookUrl == null) {
      n.problem("ntfy", "required: notices go to ntfy topics (and to integrations.webhook, which is not set)");
    }
    return new dev.colony.spec.NotifySpec(remind == null ? dev.colony.spec.NotifySpec.DEFAULT_REMIND_AFTER_SECONDS : remind,
        reminders == null ? 1 : reminders, webUi == null ? dev.colony.spec.NotifySpec.DEFAULT_WEB_UI : webUi, quiet,
        topics, webhookUrl, webhookSecretVar);
  }

  private static dev.colony.spec.NotifySpec.QuietHours quietHours(Node q) {
    if (q == null) {
      return null;
    }
    q.allowOnly("timezone", "from", "to");
    String zone = q.literal("timezone", true);
    if (zone != null) {
      try {
        java.time.ZoneId.of(zone);
      } catch (RuntimeException e) {
        q.problem("timezone", "unknown time zone '" + zone + "': expected an IANA zone such as Europe/Berlin");
        zone = null;
      }
    }
    String from = q.literal("from", true);
    String to = q.literal("to", true);
    for (String[] kv : new String[][] {{"from", from}, {"to", to}}) {
      if (kv[1] != null && !CLOCK.matcher(kv[1]).matches()) {
        q.problem(kv[0], "expected a time of day as HH:mm (quote it in YAML: \"22:00\"), found '" + kv[1] + "'");
        return null;
      }
    }
    return zone == null || from == null || to == null ? null : new dev.colony.spec.NotifySpec.QuietHours(zone, from, to);
  }

  /** {@code integrations.slack} of the colony read last; null when it has none. */
  SlackBlock slack;

  /** The colony's {@code integrations.slack}, before the ants' channels are known. */
  record SlackBlock(String botTokenVar, String appTokenVar, List<String> operators, boolean mention,
      String alertsChannel, boolean replyToStrangers) {}

  private SlackBlock readSlack(Node s) {
    s.allowOnly(ConfigSchema.COLONY.child("integrations").child("slack"));
    String bot = discordTokenOptional ? unsetReference(s.raw("bot_token")) : null;
    if (bot == null) {
      bot = secretReference(s, "bot_token", true);
      tokenShape(s, "bot_token", bot, "xoxb-", "a bot token (xoxb-...); the app-level token (xapp-...) goes in app_token");
    }
    String app = discordTokenOptional ? unsetReference(s.raw("app_token")) : null;
    if (app == null) {
      app = secretReference(s, "app_token", true);
      tokenShape(s, "app_token", app, "xapp-", "an app-level token (xapp-..., from Basic Information, App-Level "
          + "Tokens, with connections:write); the bot token (xoxb-...) goes in bot_token");
    }
    List<String> operators = slackOperators(s);
    String mention = s.literal("mention", false);
    if (mention != null && !mention.equals("operators") && !mention.equals("none")) {
      s.problem("mention", "invalid value '" + mention + "': expected \"operators\" or \"none\"");
    }
    String strangers = s.literal("strangers", false);
    if (strangers != null && !strangers.equals("reply") && !strangers.equals("ignore")) {
      s.problem("strangers", "invalid value '" + strangers + "': expected \"reply\" or \"ignore\"");
    }
    String alerts = slackChannel(s, "alerts_channel", false);
    return new SlackBlock(bot, app, operators, !"none".equals(mention), alerts, !"ignore".equals(strangers));
  }

  /** A Slack operators list: user ids or user group ids (a name would be ambiguous). */
  static List<String> slackOperators(Node n) {
    List<String> ops = n.stringList("operators", false);
    if (ops == null) {
      return List.of();
    }
    for (int i = 0; i < ops.size(); i++) {
      if (!dev.colony.slack.SlackSettings.OPERATOR.matcher(ops.get(i)).matches()) {
        n.problem("operators[" + i + "]", "invalid operator '" + ops.get(i) + "': expected a Slack user id "
            + "(U... or W..., from the profile's ⋮ menu, Copy member ID) or a user group id (S...)");
      }
    }
    return ops;
  }

  /** A Slack channel: its name (#name) or its id (C... or G...). */
  static String slackChannel(Node n, String key, boolean required) {
    String c = n.literal(key, required);
    if (c != null && !dev.colony.slack.SlackSettings.CHANNEL_ID.matcher(c).matches()
        && !dev.colony.slack.SlackSettings.CHANNEL_NAME.matcher(c).matches()) {
      n.problem(key, "invalid channel '" + c + "': expected a channel name (lower case letters, digits, "
          + "'-' and '_', at most 80) or a channel id (C...)");
      return null;
    }
    return c;
  }

  /** A token that is set but of the wrong kind is named without showing it. */
  private void tokenShape(Node n, String key, String var, String prefix, String expected) {
    String value = var == null ? null : env.apply(var);
    if (value != null && !value.strip().startsWith(prefix)) {
      n.problem(key, "${" + var + "} is not " + expected);
    }
  }

  /** Reads a secret: it must be written as a single {@code ${VAR}} and the variable must be set. */
  String secretReference(Node n, String key, boolean required) {
    String raw = n.raw(key);
    if (raw == null) {
      if (required) {
        n.problem(key, "required");
      }
      return null;
    }
    if (!Interpolation.isSingleReference(raw)) {
      n.problem(key, "write secrets as an environment variable reference such as ${"
          + key.toUpperCase(java.util.Locale.ROOT) + "}, never the value itself (set the variable in the environment "
          + "or the colony's .env)");
      return null;
    }
    String resolved = n.string(key, true);
    return resolved == null ? null : Interpolation.variables(raw).iterator().next();
  }

  static String[] readState(Node state) {
    state.allowOnly(ConfigSchema.COLONY.child("state"));
    String backend = state.string("backend", false);
    if (backend != null && !backend.equals("memory") && !backend.equals("sqlite")) {
      state.problem("backend", "invalid value '" + backend + "': expected \"memory\" or \"sqlite\"");
    }
    String path = state.string("path", false);
    return new String[] {backend == null ? "memory" : backend, path == null ? "./colony-state.db" : path};
  }
}
