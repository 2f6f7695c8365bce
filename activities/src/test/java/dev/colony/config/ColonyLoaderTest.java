package dev.colony.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.errorpolicy.Outcome;
import dev.colony.secrets.Secrets;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.EngineKind;
import dev.colony.spec.LmOutput;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.TriggerSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ColonyLoaderTest {
  private static final Map<String, String> ENV = Map.of("DISCORD_TOKEN", "discord-secret-value",
      "GITHUB_TOKEN", "github-secret-value");

  @TempDir
  Path tmp;

  private static Path fixture(String name) {
    return Path.of("src/test/resources/config-samples", name);
  }

  private LoadedColony load(Path dir, Map<String, String> env) throws ConfigException {
    return new ColonyLoader(env).loadDir(dir);
  }

  /** Writes a colony: files as path -> content. */
  private Path colony(Map<String, String> files) throws IOException {
    Path dir = Files.createTempDirectory(tmp, "colony");
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = dir.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
    }
    return dir;
  }

  private static final String CONSOLE_COLONY = "name: c\n";
  private static final String ANT = "name: a\ndescription: d\ninstructions: do it\n";

  private String errors(Map<String, String> files, Map<String, String> env) throws IOException {
    Path dir = colony(files);
    ConfigException e = assertThrows(ConfigException.class, () -> load(dir, env));
    return e.getMessage();
  }

  @Test
  void minimalExampleValidatesWithDefaults() throws Exception {
    LoadedColony c = load(fixture("minimal"), ENV);
    assertEquals("my-colony", c.colony().name());
    assertEquals("DISCORD_TOKEN", c.colony().discord().tokenVar());
    assertEquals("My Server", c.colony().discord().guild());
    AntSpec a = c.ants().get(0);
    assertEquals(EngineKind.CLAUDE, a.engine());
    assertEquals(Autonomy.HUMAN, a.autonomy());
    assertEquals(ToolCallLogging.IMPACTFUL, a.toolCalls());
    assertEquals(LmOutput.DISCORD, a.lmOutput());
    assertEquals(1800, a.confirmationTimeoutSeconds());
    assertEquals(0, a.pollIntervalSeconds());
    assertEquals("worker-logs", a.discordChannel());
    assertEquals("ant/my-colony/worker", a.workflowId());
  }

  @Test
  void fullExampleAndEveryCompleteAntExampleMeanWhatTheySay() throws Exception {
    LoadedColony c = load(fixture("full"), ENV);
    assertEquals("GITHUB_TOKEN", c.colony().githubTokenVar());
    assertEquals(List.of("dep-updater", "issue-triager", "monitor", "researcher"),
        c.ants().stream().map(AntSpec::name).toList());

    AntSpec researcher = c.ant("researcher").orElseThrow();
    assertEquals(EngineKind.GEMINI, researcher.engine());
    assertEquals("gemini-2.5-pro", researcher.gemini().model());
    assertEquals(100, researcher.gemini().maxTurns());
    assertEquals(List.of(new TriggerSpec(TriggerSpec.Type.DISCORD_COMMAND, List.of())), researcher.triggers());
    assertTrue(researcher.eventDriven());

    AntSpec triager = c.ant("issue-triager").orElseThrow();
    assertEquals("0 9 * * 1-5", triager.cron());
    assertEquals(List.of(new TriggerSpec(TriggerSpec.Type.GITHUB_ISSUE, List.of("needs-triage"))), triager.triggers());
    assertEquals(List.of("acme/platform"), triager.githubRepos());
    assertEquals("issue-triage", triager.discordChannel());

    AntSpec updater = c.ant("dep-updater").orElseThrow();
    assertEquals("0 2 * * 1", updater.cron());
    assertEquals(Autonomy.HUMAN, updater.autonomy());
    assertEquals(List.of("\\bgit\\s+push\\b"), updater.confirmation().dangerousPatterns());

    AntSpec monitor = c.ant("monitor").orElseThrow();
    assertFalse(monitor.eventDriven());
    assertEquals(600, monitor.pollIntervalSeconds());
    assertEquals("Jane Smith", monitor.git().userName());
    assertEquals("jane@acme.example.com", monitor.git().userEmail());
    assertEquals(1800, monitor.confirmationTimeoutSeconds());
  }

  @Test
  void missingVariableUsesTheReferenceMessage() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> load(fixture("minimal"), Map.of()));
    assertTrue(e.getMessage().startsWith("Validation failed: Invalid colony.yaml:\n"), e.getMessage());
    assertTrue(e.getMessage().contains("integrations.discord.token: Missing environment variable: DISCORD_TOKEN"),
        e.getMessage());
  }

  @Test
  void secretsNeverReachTheSpec() throws Exception {
    Path dir = colony(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT
        + "engine: command\ncommand:\n  argv: [\"./agent\", \"--key=${API_KEY}\"]\n  env:\n    TOKEN: ${API_KEY}\n"));
    LoadedColony c = load(dir, Map.of("API_KEY", "sk-very-secret"));
    AntSpec a = c.ants().get(0);
    assertEquals("${API_KEY}", a.command().env().get("TOKEN"));
    String json = new ObjectMapper().writeValueAsString(a);
    assertFalse(json.contains("sk-very-secret"), json);
    assertFalse(new ObjectMapper().writeValueAsString(load(fixture("minimal"), ENV)).contains("discord-secret-value"));
  }

  @Test
  void everyReferenceFieldKeepsItsReferenceAndTheColonyKnowsEveryVariable() throws Exception {
    Path dir = colony(Map.of("colony.yaml", CONSOLE_COLONY.replace("name: c\n", "name: c\ndefaults:\n  git:\n"
            + "    user_name: ${V_GIT_NAME}\n    user_email: ${V_GIT_MAIL}\n"),
        "ants/a.yaml", "name: a\ndescription: ${V_DESC}\ninstructions: use ${V_INSTR}\nengine: command\n"
            + "claude:\n  model: ${V_CLAUDE}\ngemini:\n  model: ${V_GEMINI}\n"
            + "command:\n  argv: [\"./agent\", \"${V_ARGV}\"]\n  env:\n    K: ${V_ENV}\n"
            + "  outcomes:\n    - pattern: ${V_PATTERN}\n      outcome: transient\n"
            + "confirmation:\n  always_confirm_tools: [\"${V_TOOL}\"]\n  dangerous_patterns: [\"${V_DANGER}\"]\n"
            + "workspace:\n  repo: https://bot:${V_TOKEN}@example.invalid/o/r.git\n  branch: ${V_BRANCH}\n"));
    Map<String, String> env = new java.util.HashMap<>();
    for (String v : List.of("V_GIT_NAME", "V_GIT_MAIL", "V_DESC", "V_INSTR", "V_CLAUDE", "V_GEMINI", "V_ARGV",
        "V_ENV", "V_PATTERN", "V_TOOL", "V_DANGER", "V_TOKEN", "V_BRANCH")) {
      env.put(v, "value-of-" + v.toLowerCase(java.util.Locale.ROOT));
    }
    LoadedColony c = load(dir, env);
    String json = new ObjectMapper().writeValueAsString(c.ants());
    for (String value : env.values()) {
      assertFalse(json.contains(value), value + " in " + json);
    }
    assertEquals(env.keySet(), c.variables());
    assertEquals("https://bot:${V_TOKEN}@example.invalid/o/r.git", c.ants().get(0).workspace().repo());
    // On the worker, at use: every reference resolved, every value registered as a secret.
    Secrets secrets = new Secrets();
    AntSpec resolved = SpecReferences.resolve(c.ants().get(0), env, secrets);
    assertEquals("https://bot:value-of-v_token@example.invalid/o/r.git", resolved.workspace().repo());
    assertEquals(List.of("value-of-v_danger"), resolved.confirmation().dangerousPatterns());
    assertEquals("value-of-v_git_mail", resolved.git().userEmail());
    assertEquals("fatal: https://bot:${V_TOKEN}@example.invalid", secrets.redact("fatal: https://bot:value-of-v_token@example.invalid"));
  }

  @Test
  void fieldsStoredInTemporalAsTheyAreRefuseReferences() throws Exception {
    Map<String, String> env = new java.util.HashMap<>(ENV);
    env.put("X", "something");
    String e = errors(Map.of("colony.yaml", CONSOLE_COLONY.replace("name: c", "name: ${X}"),
        "ants/a.yaml", "name: a${X}\ndescription: d\ninstructions: i\nautonomy: ${X}\npoll_interval: ${X}\n"
            + "schedule:\n  cron: ${X}\nintegrations:\n  github:\n    repos: [\"o/${X}\"]\n"
            + "gemini:\n  max_turns: ${X}\n"), env);
    for (String field : List.of("colony.yaml:\n  name", "ants/a.yaml:\n  name", "autonomy", "poll_interval",
        "schedule.cron", "integrations.github.repos[0]", "gemini.max_turns")) {
      assertTrue(e.contains(field + ": '${X}' cannot be used here"), field + " in " + e);
    }
    assertFalse(e.contains("something"), e);
  }

  @Test
  void aPasswordInAUrlIsASecretRefusedInEveryFieldAndAcceptedAsAReference() throws Exception {
    // Whatever the loader keeps goes into the ant's spec, its workflow's history and the Web UI.
    String url = "https://dana:hunter2pass@";
    String e = errors(Map.of("colony.yaml", "name: c\nintegrations:\n  webhook:\n    url: " + url + "hooks.example/c\n"
            + "  notify:\n    web_ui: " + url + "temporal.example\n    ntfy:\n      - url: " + url + "ntfy.example/alerts\n"
            + "      - url: https://ghp_tokenvalue1@ntfy.example/alerts\n",
        "ants/a.yaml", "name: a\ndescription: d\ninstructions: clone " + url + "git.example/o/r\nengine: command\n"
            + "command:\n  argv: [\"./agent\", \"--proxy=" + url + "proxy.example\"]\n"
            + "  env:\n    ANTHROPIC_BASE_URL: " + url + "llm.example\n"
            + "workspace:\n  repo: " + url + "git.example/o/r.git\n"), ENV);
    for (String field : List.of("colony.yaml:\n  integrations.webhook.url", "integrations.notify.web_ui",
        "integrations.notify.ntfy[0].url", "integrations.notify.ntfy[1].url", "ants/a.yaml:\n  instructions",
        "command.argv[1]", "command.env.ANTHROPIC_BASE_URL", "workspace.repo")) {
      assertTrue(e.contains(field + ": a URL with a user name or password is a secret: write it as ${VAR}"),
          field + " in " + e);
    }
    assertFalse(e.contains("hunter2pass") || e.contains("ghp_tokenvalue1"), e);

    // A reference inside the URL, or the whole URL as a reference, is resolved on the worker only.
    Map<String, String> env = new java.util.HashMap<>(ENV);
    env.put("NTFY_PASS", "hunter2pass");
    env.put("HOOK_URL", "https://dana:hunter2pass@hooks.example/c");
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\nintegrations:\n  webhook:\n    url: ${HOOK_URL}\n"
            + "  notify:\n    ntfy:\n      - url: https://dana:${NTFY_PASS}@ntfy.example/alerts\n",
        "ants/a.yaml", ANT + "workspace:\n  repo: ssh://git@git.example/o/r.git\n")), env);
    assertEquals("https://dana:${NTFY_PASS}@ntfy.example/alerts", c.ants().get(0).notices().ntfy().get(0).url());
    assertEquals("${HOOK_URL}", c.colony().webhookUrl());
    assertFalse(new ObjectMapper().writeValueAsString(c.ants()).contains("hunter2pass"));
    assertFalse(new ObjectMapper().writeValueAsString(c.colony()).contains("hunter2pass"));
  }

  @Test
  void aLoginWithoutPasswordIsNoSecretOutsideHttpAndARefusalNeverQuotesWhatFollowsTheHost() throws Exception {
    // postgres://app@db names a login; only an http(s) user alone can be a token (GitHub's way)
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\n",
        "ants/a.yaml", ANT + "engine: command\ncommand:\n  argv: [\"./agent\"]\n  env:\n    DATABASE_URL: postgres://app@db.example/app\n"
            + "    MIRROR: ftp://anonymous@ftp.example/pub\n")), ENV);
    assertEquals("postgres://app@db.example/app", c.ants().get(0).command().env().get("DATABASE_URL"));
    // a second URL after the first one's host is not echoed (it could carry its own password)
    String e = errors(Map.of("colony.yaml", "name: c\n", "ants/a.yaml", "name: a\ndescription: d\n"
        + "instructions: see https://dana:pw1secret@a.example/x?next=https://eve:pw2secret@b.example\nengine: command\n"
        + "command:\n  argv: [\"./agent\"]\n"), ENV);
    assertTrue(e.contains("https://***@a.example"), e);
    assertFalse(e.contains("pw1secret") || e.contains("pw2secret"), e);
  }

  @Test
  void aBadPatternFromAReferenceIsQuotedAsWritten() throws Exception {
    Map<String, String> env = new java.util.HashMap<>(ENV);
    env.put("BAD_RE", "secret-(unclosed");
    String e = errors(Map.of("colony.yaml", CONSOLE_COLONY,
        "ants/a.yaml", ANT + "confirmation:\n  dangerous_patterns: [\"${BAD_RE}\"]\n"), env);
    assertTrue(e.contains("dangerous_patterns[0]: invalid regular expression '${BAD_RE}'"), e);
    assertFalse(e.contains("secret-("), e);
  }

  @Test
  void discordOperatorsMentionsAlertsAndStrangersAreReadAndChecked() throws Exception {
    String discord = "name: c\nintegrations:\n  discord:\n    token: ${DISCORD_TOKEN}\n    guild: g\n";
    LoadedColony c = load(colony(Map.of("colony.yaml", discord + "    operators: [\"123456789012345678\", Colony Ops]\n"
            + "    alerts_channel: alerts\n    strangers: ignore\n",
        "ants/a.yaml", ANT + "integrations:\n  discord:\n    channel: work\n    operators: [Release Managers]\n",
        "ants/b.yaml", "name: b\ndescription: d\ninstructions: i\nintegrations:\n  discord:\n    channel: work\n")), ENV);
    dev.colony.discord.DiscordSettings s = c.discordSettings();
    assertEquals(List.of("123456789012345678", "Colony Ops"), s.operatorsOf("b"));
    assertEquals(List.of("Release Managers"), s.operatorsOf("a"));
    assertEquals("alerts", s.alertsChannel());
    assertFalse(s.replyToStrangers());
    assertTrue(s.mentionOperators());
    String e = errors(Map.of("colony.yaml", discord + "    mention: everyone\n    strangers: shout\n",
        "ants/a.yaml", ANT + "integrations:\n  discord:\n    channel: work\n"), ENV);
    assertTrue(e.contains("integrations.discord.mention: invalid value 'everyone'"), e);
    assertTrue(e.contains("integrations.discord.strangers: invalid value 'shout'"), e);
  }

  @Test
  void slackTokensChannelsAndOperatorsAreReadAndChecked() throws Exception {
    Map<String, String> env = Map.of("SLACK_BOT_TOKEN", "xoxb-1234567890-abcdef", "SLACK_APP_TOKEN", "xapp-1-A1-xyz");
    String slack = "name: c\nintegrations:\n  slack:\n    bot_token: ${SLACK_BOT_TOKEN}\n    app_token: ${SLACK_APP_TOKEN}\n";
    LoadedColony c = load(colony(Map.of("colony.yaml", slack + "    operators: [U012ABCDE, S0OPS0001]\n"
            + "    alerts_channel: \"#colony-alerts\"\n    mention: none\n",
        "ants/a.yaml", ANT + "integrations:\n  slack:\n    channel: C0123ABCD\n    operators: [U0999ZZZZ]\n",
        "ants/b.yaml", "name: b\ndescription: d\ninstructions: i\nintegrations:\n  slack:\n    channel: \"#work\"\n")), env);
    dev.colony.slack.SlackSettings s = c.slack();
    assertEquals("SLACK_BOT_TOKEN", s.botTokenVar());
    assertEquals("SLACK_APP_TOKEN", s.appTokenVar());
    assertEquals(List.of("U012ABCDE", "S0OPS0001"), s.operatorsOf("b"));
    assertEquals(List.of("U0999ZZZZ"), s.operatorsOf("a"));
    assertEquals("C0123ABCD", s.channelOf("a"));
    assertEquals("#work", s.channelOf("b"));
    assertEquals("#colony-alerts", s.alertsChannel());
    assertFalse(s.mentionOperators());
    assertTrue(s.replyToStrangers());
    assertFalse(new ObjectMapper().writeValueAsString(c).contains("xoxb-1234567890"), "no token in the loaded colony");

    // Tokens swapped, a token written in the file, bad operators and channels, an ant without a channel.
    String e = errors(Map.of("colony.yaml", "name: c\nintegrations:\n  slack:\n    bot_token: ${SLACK_APP_TOKEN}\n"
            + "    app_token: xapp-in-the-file\n    operators: [dana, \"<@U123>\"]\n    alerts_channel: \"Colony Alerts\"\n",
        "ants/a.yaml", ANT + "integrations:\n  slack:\n    channel: \"#Work Room\"\n",
        "ants/b.yaml", "name: b\ndescription: d\ninstructions: i\n"), env);
    assertTrue(e.contains("integrations.slack.bot_token: ${SLACK_APP_TOKEN} is not a bot token (xoxb-...)"), e);
    assertTrue(e.contains("integrations.slack.app_token: write secrets as an environment variable reference"), e);
    assertTrue(e.contains("integrations.slack.operators[0]: invalid operator 'dana': expected a Slack user id"), e);
    assertTrue(e.contains("integrations.slack.operators[1]"), e);
    assertTrue(e.contains("integrations.slack.alerts_channel: invalid channel 'Colony Alerts'"), e);
    assertTrue(e.contains("Invalid ants/a.yaml:\n  integrations.slack.channel: invalid channel '#Work Room'"), e);
    assertTrue(e.contains("Invalid ants/b.yaml:\n  integrations.slack.channel: required: the colony uses Slack"), e);
    assertFalse(e.contains("xapp-1-A1-xyz"), "a token's value is never shown: " + e);
    String missing = errors(Map.of("colony.yaml", slack, "ants/a.yaml", ANT + "integrations:\n  slack:\n    channel: work\n"),
        Map.of());
    assertTrue(missing.contains("integrations.slack.bot_token: Missing environment variable: SLACK_BOT_TOKEN"), missing);
    // colony dev takes unset tokens (the console is the chat then).
    LoadedColony dev = new ColonyLoader(Map.of()).withDiscordTokenOptional().loadDir(colony(Map.of("colony.yaml", slack,
        "ants/a.yaml", ANT + "integrations:\n  slack:\n    channel: work\n")));
    assertEquals("SLACK_APP_TOKEN", dev.slack().appTokenVar());
  }

  @Test
  void notifyTopicsQuietHoursAndRemindersAreReadIntoEveryAntsSpecAndChecked() throws Exception {
    Map<String, String> env = Map.of("NTFY_URL", "https://ntfy.sh/colony-x7", "NTFY_TOKEN", "tk_abcdefghijklmnop");
    String notify = "name: c\nintegrations:\n  webhook:\n    url: https://hooks.example/c\n  notify:\n";
    LoadedColony c = load(colony(Map.of("colony.yaml", notify
            + "    remind_after: 45m\n    reminders: 2\n    web_ui: https://temporal.example\n"
            + "    quiet_hours: {timezone: Europe/Berlin, from: \"22:00\", to: \"07:00\"}\n"
            + "    ntfy:\n      - url: ${NTFY_URL}\n        token: ${NTFY_TOKEN}\n        name: team\n"
            + "      - url: https://ntfy.example.org/dana\n        priority: urgent\n"
            + "        quiet_hours: {timezone: America/New_York, from: \"21:00\", to: \"08:00\"}\n",
        "ants/a.yaml", ANT)), env);
    dev.colony.spec.NotifySpec n = c.ants().get(0).notices();
    assertEquals(45 * 60, n.remindAfterSeconds());
    assertEquals(2, n.reminders());
    assertEquals("https://temporal.example", n.webUi());
    assertEquals(new dev.colony.spec.NotifySpec.QuietHours("Europe/Berlin", "22:00", "07:00"), n.quietHours());
    assertEquals("${NTFY_URL}", n.ntfy().get(0).url(), "a topic URL from the environment stays a reference");
    assertEquals("NTFY_TOKEN", n.ntfy().get(0).tokenVar());
    assertEquals("high", n.ntfy().get(0).priority());
    assertEquals("urgent", n.ntfy().get(1).priority());
    assertEquals("America/New_York", n.ntfy().get(1).quietHours().timezone());
    assertEquals("https://hooks.example/c", n.webhookUrl());
    assertFalse(new ObjectMapper().writeValueAsString(c.ants()).contains("colony-x7"), "no topic in the ant's spec");

    String e = errors(Map.of("colony.yaml", "name: c\nintegrations:\n  notify:\n    remind_after: 10s\n    reminders: many\n"
            + "    quiet_hours: {timezone: Mars/Olympus, from: 22:00, to: \"7\"}\n"
            + "    ntfy:\n      - url: ftp://ntfy.sh/x\n        token: tk_in_the_file\n        priority: loud\n",
        "ants/a.yaml", ANT), env);
    assertTrue(e.contains("integrations.notify.remind_after: at least 1m"), e);
    assertTrue(e.contains("integrations.notify.reminders: expected a whole number, found 'many'"), e);
    assertTrue(e.contains("integrations.notify.quiet_hours.timezone: unknown time zone 'Mars/Olympus'"), e);
    assertTrue(e.contains("integrations.notify.quiet_hours.to: expected a time of day as HH:mm (quote it in YAML"), e);
    assertTrue(e.contains("integrations.notify.ntfy[0].url: expected a topic URL"), e);
    assertTrue(e.contains("integrations.notify.ntfy[0].token: write secrets as an environment variable reference"), e);
    assertTrue(e.contains("integrations.notify.ntfy[0].priority: invalid value 'loud'"), e);
    String none = errors(Map.of("colony.yaml", "name: c\nintegrations:\n  notify:\n    remind_after: 1h\n", "ants/a.yaml", ANT), env);
    assertTrue(none.contains("integrations.notify.ntfy: required: notices go to ntfy topics"), none);
  }

  @Test
  void devAcceptsAnUnsetDiscordTokenAndChatsOnTheConsole() throws Exception {
    Path dir = colony(Map.of("colony.yaml", "name: c\nintegrations:\n  discord:\n    token: ${COLONY_TEST_NO_TOKEN}\n    guild: g\n",
        "ants/a.yaml", ANT + "integrations:\n  discord:\n    channel: work\n"));
    assertThrows(ConfigException.class, () -> new ColonyLoader(Map.of()).loadDir(dir));
    LoadedColony c = new ColonyLoader(Map.of()).withDiscordTokenOptional().loadDir(dir);
    assertEquals("COLONY_TEST_NO_TOKEN", c.colony().discord().tokenVar());
  }

  @Test
  void geminiPriceOverridesTheTableAndNeedsBothPrices() throws Exception {
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\n", "ants/a.yaml", ANT
        + "engine: gemini\ngemini:\n  model: gemini-2.5-pro\n  price:\n    input: 2\n    output: 20.5\n")), ENV);
    var g = c.ant("a").orElseThrow().gemini();
    assertEquals(2.0, g.inputUsdPerMillion());
    assertEquals(20.5, g.outputUsdPerMillion());
    String e = errors(Map.of("colony.yaml", "name: c\n", "ants/a.yaml", ANT
        + "engine: gemini\ngemini:\n  price:\n    input: 2\n"), ENV);
    assertTrue(e.contains("gemini.price needs both input and output"), e);
  }

  /** A policy as loaded: with the budget zone's table (UTC here). */
  private static dev.colony.errorpolicy.ErrorPolicy utc(dev.colony.errorpolicy.ErrorPolicy p) {
    return p.withZoneTable(dev.colony.budget.ZoneTable.of("UTC"));
  }

  @Test
  void thresholdsAndBackoffComeFromTheColonyAndTheAnt() throws Exception {
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\ndefaults:\n  max_consecutive_errors: 5\n"
            + "  max_total_errors: 20\n  backoff:\n    initial: 2s\n    max: 60s\n",
        "ants/a.yaml", ANT,
        "ants/b.yaml", "name: b\ndescription: d\ninstructions: i\nmax_total_errors: 50\nbackoff:\n  initial: 30s\n  max: 10m\n")), ENV);
    assertEquals(utc(new dev.colony.errorpolicy.ErrorPolicy(2, 60, 5, 20)), c.ant("a").orElseThrow().errorPolicy());
    assertEquals(utc(new dev.colony.errorpolicy.ErrorPolicy(30, 600, 5, 50)), c.ant("b").orElseThrow().errorPolicy());
    assertEquals(utc(dev.colony.errorpolicy.ErrorPolicy.DEFAULTS),
        load(colony(Map.of("colony.yaml", "name: c\n", "ants/a.yaml", ANT)), ENV).ants().get(0).errorPolicy());
    String e = errors(Map.of("colony.yaml", "name: c\n", "ants/a.yaml", ANT
        + "max_consecutive_errors: 0\nbackoff:\n  initial: 1m\n  max: 10s\n"), ENV);
    assertTrue(e.contains("max_consecutive_errors: expected a whole number greater than 0, found '0'"), e);
    assertTrue(e.contains("backoff.max: must be at least backoff.initial (1m)"), e);
  }

  @Test
  void moveAfterComesFromTheColonyAndTheAnt() throws Exception {
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\ndefaults:\n  move_after: 2m\n",
        "ants/a.yaml", ANT,
        "ants/b.yaml", "name: b\ndescription: d\ninstructions: i\nworkspace:\n  move_after: 30s\n")), ENV);
    assertEquals(120L, c.ant("a").orElseThrow().workspace().moveAfter());
    assertEquals(30L, c.ant("b").orElseThrow().workspace().moveAfter());
    assertEquals(dev.colony.spec.WorkspaceSpec.DEFAULT_MOVE_AFTER_SECONDS,
        load(colony(Map.of("colony.yaml", "name: c\n", "ants/a.yaml", ANT)), ENV).ants().get(0).workspace().moveAfter());
    String e = errors(Map.of("colony.yaml", "name: c\ndefaults:\n  move_after: soon\n", "ants/a.yaml", ANT
        + "workspace:\n  move_after: 0s\n"), ENV);
    assertTrue(e.contains("colony.yaml") && e.contains("move_after"), e);
    assertTrue(e.contains("ants/a.yaml") && e.contains("workspace.move_after: must be longer than 0s"), e);
  }

  @Test
  void guardrailsAndBudgetsComeFromTheColonyAndTheAnt() throws Exception {
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\ndefaults:\n  timezone: Europe/Paris\n"
            + "  interrupt_grace: 45s\n  session_idle_timeout: 20m\n  budget:\n    daily_usd: 5\n    monthly_usd: 100\n",
        "ants/a.yaml", ANT,
        "ants/b.yaml", "name: b\ndescription: d\ninstructions: i\ninterrupt_grace: 5s\nbudget:\n  daily_usd: 1.5\n")), ENV);
    var a = c.ant("a").orElseThrow();
    assertEquals(new dev.colony.errorpolicy.ErrorPolicy(0, 0, null, null, 45, 1200, 5.0, 100.0, "Europe/Paris",
        dev.colony.budget.ZoneTable.of("Europe/Paris")), a.errorPolicy(), "with the zone's offsets as data");
    assertEquals("Europe/Paris", a.timezone(), "the colony's zone is the default schedule zone too");
    assertEquals(new dev.colony.errorpolicy.ErrorPolicy(0, 0, null, null, 5, 1200, 1.5, 100.0, "Europe/Paris",
        dev.colony.budget.ZoneTable.of("Europe/Paris")), c.ant("b").orElseThrow().errorPolicy());
    var defaults = load(colony(Map.of("colony.yaml", "name: c\n", "ants/a.yaml", ANT)), ENV).ants().get(0).errorPolicy();
    assertEquals(30, defaults.interruptGrace());
    assertEquals(900, defaults.sessionIdleTimeout());
    assertEquals("UTC", defaults.budgetZone());
    String e = errors(Map.of("colony.yaml", "name: c\ndefaults:\n  timezone: Mars/Olympus\n", "ants/a.yaml", ANT
        + "interrupt_grace: 2h\nsession_idle_timeout: 0s\nbudget:\n  daily_usd: -3\n  weekly_usd: 9\n"), ENV);
    assertTrue(e.contains("timezone: unknown time zone 'Mars/Olympus'"), e);
    assertTrue(e.contains("interrupt_grace: '2h' is too long: at most 1h (an interrupted session waits this long at most)"), e);
    assertTrue(e.contains("session_idle_timeout:"), e);
    assertTrue(e.contains("budget.daily_usd: expected a number greater than 0"), e);
    assertTrue(e.contains("budget.weekly_usd"), e);
  }

  @Test
  void supervisionGroupsAreReadAndCheckedAgainstTheAnts() throws Exception {
    String ants = "name: %s\ndescription: d\ninstructions: i\n";
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\nsupervision:\n  groups:\n"
            + "    - name: pipeline\n      strategy: rest_for_one\n      ants: [a, b]\n      max_restarts: 5\n      window: 2m\n"
            + "    - name: pair\n      ants: [d]\n",
        "ants/a.yaml", String.format(ants, "a"), "ants/b.yaml", String.format(ants, "b"),
        "ants/d.yaml", String.format(ants, "d"))), ENV);
    assertEquals(List.of(new dev.colony.supervision.GroupSpec("pipeline", dev.colony.supervision.Strategy.REST_FOR_ONE,
            List.of("a", "b"), 5, 120),
        new dev.colony.supervision.GroupSpec("pair", dev.colony.supervision.Strategy.ONE_FOR_ONE, List.of("d"), 3, 60)),
        c.groups());
    String e = errors(Map.of("colony.yaml", "name: c\nsupervision:\n  groups:\n"
            + "    - name: g1\n      strategy: all_for_one\n      ants: [a, ghost]\n      max_restarts: 0\n"
            + "    - name: g2\n      ants: [a]\n      window: forever\n    - name: g3\n",
        "ants/a.yaml", String.format(ants, "a")), ENV);
    assertTrue(e.contains("supervision.groups[0].strategy: invalid value 'all_for_one': expected one_for_one, one_for_all or rest_for_one"), e);
    assertTrue(e.contains("supervision.groups[0].ants: no ant named 'ghost' in ants/ (known: a)"), e);
    assertTrue(e.contains("supervision.groups[0].max_restarts:"), e);
    assertTrue(e.contains("supervision.groups[1].ants: 'a' is already in group 'g1'"), e);
    assertTrue(e.contains("supervision.groups[1].window:"), e);
    assertTrue(e.contains("supervision.groups[2].ants: required"), e);
  }

  @Test
  void theOverseerBlockIsReadWithDefaultsAndChecked() throws Exception {
    String ants = "name: %s\ndescription: d\ninstructions: i\n";
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\ndefaults:\n  overseer:\n    thinking: high\n",
        "ants/a.yaml", String.format(ants, "a"),
        "ants/b.yaml", String.format(ants, "b") + "supervisor:\n  model: gemini-2.5-flash\n  window_size: 8\n"
            + "  eval_interval: 4\n  escalation_threshold: 4\n  stall_after: 5m\n",
        "ants/d.yaml", String.format(ants, "d") + "overseer: off\n")), ENV);
    assertEquals(new dev.colony.overseer.OverseerSpec("anthropic", "claude-sonnet-4-6", "high", 20, 5, 3, 600),
        c.ant("a").orElseThrow().overseer(), "the colony's default over the overseer's own defaults");
    assertEquals(new dev.colony.overseer.OverseerSpec("gemini", "gemini-2.5-flash", "high", 8, 4, 4, 300),
        c.ant("b").orElseThrow().overseer(), "a gemini-* model is Gemini's; supervisor is the old name of overseer");
    assertEquals(null, c.ant("d").orElseThrow().overseer(), "off turns the default off");
    assertEquals(null, load(colony(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT)), ENV).ant("a")
        .orElseThrow().overseer(), "no overseer unless asked for");

    String e = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "overseer:\n  provider: openai\n"
        + "  thinking: extreme\n  window_size: 500\n  eval_interval: 0\n  escalation_threshold: 1\n  stall_after: 20m\n"
        + "  temperature: 2\n"), ENV);
    assertTrue(e.contains("overseer.provider: unknown provider 'openai' (use anthropic or gemini)"), e);
    assertTrue(e.contains("overseer.thinking: unknown thinking level 'extreme'"), e);
    assertTrue(e.contains("overseer.window_size: must be at most 200 turns"), e);
    assertTrue(e.contains("overseer.eval_interval:"), e);
    assertTrue(e.contains("overseer.escalation_threshold: must be between 2 and 10 (the overseer never escalates on a first observation)"), e);
    assertTrue(e.contains("overseer.stall_after: must be shorter than session_idle_timeout (15m)"), e);
    assertTrue(e.contains("overseer: unknown key 'temperature'") || e.contains("temperature"), e);
    String e2 = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "overseer:\n  window_size: 4\n"
        + "  eval_interval: 6\n"), ENV);
    assertTrue(e2.contains("overseer.eval_interval: must be at most window_size (4)"), e2);
    String e3 = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "overseer: sometimes\n"), ENV);
    assertTrue(e3.contains("ants/a.yaml") && e3.contains("overseer: expected a mapping (model, thinking, window_size, ...), on or off"), e3);
  }

  @Test
  void aFileThatSetsOverseerAndItsOldNameSupervisorIsRefused() throws Exception {
    String e = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "overseer: on\nsupervisor: off\n"), ENV);
    assertTrue(e.contains("ants/a.yaml") && e.contains("supervisor: is the old name of overseer; set one of them, not both"), e);
    String d = errors(Map.of("colony.yaml", "name: c\ndefaults:\n  overseer: on\n  supervisor: on\n", "ants/a.yaml", ANT), ENV);
    assertTrue(d.contains("colony.yaml") && d.contains("defaults.supervisor: is the old name of overseer"), d);
  }

  @Test
  void literalTokensAreRejected() throws Exception {
    String msg = errors(Map.of("colony.yaml", "name: c\nintegrations:\n  discord:\n    token: abc.def\n    guild: g\n",
        "ants/a.yaml", ANT + "integrations:\n  discord:\n    channel: x\n"), ENV);
    assertTrue(msg.contains("integrations.discord.token: write secrets as an environment variable reference"), msg);
  }

  @Test
  void durationsAcceptOnlyWholeSecondsMinutesHours() throws Exception {
    assertEquals(90, Durations.parseSeconds("90s"));
    assertEquals(300, Durations.parseSeconds("5m"));
    assertEquals(3600, Durations.parseSeconds("1h"));
    for (String bad : List.of("1h30m", "1.5h", "90", "5 min", "-5m", "5d")) {
      String msg = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "poll_interval: " + bad + "\n"), ENV);
      assertTrue(msg.contains("Invalid ants/a.yaml:"), msg);
      assertTrue(msg.contains("poll_interval: invalid duration '" + bad + "': use a whole number followed by s, m or h"), msg);
    }
  }

  @Test
  void aFileThatIsNotUtf8TextSaysWhereAndWhatNotAStackTrace() throws Exception {
    java.nio.charset.Charset latin1 = java.nio.charset.StandardCharsets.ISO_8859_1;
    Map<String, byte[]> cases = new java.util.LinkedHashMap<>();
    cases.put("not UTF-8 text (line 3, byte 0xE9); save it as UTF-8",
        (ANT + "description: caf\u00e9\n").replace("description: d\n", "").getBytes(latin1));
    cases.put("not UTF-8 text: it is UTF-16 (it starts with a UTF-16 byte-order mark)",
        ANT.getBytes(java.nio.charset.StandardCharsets.UTF_16));
    cases.put("not UTF-8 text (line 1, byte 0x00): a binary file, or UTF-16 without a byte-order mark",
        ANT.getBytes(java.nio.charset.StandardCharsets.UTF_16LE));
    cases.put("not UTF-8 text (line 1, byte 0x00): a binary file", new byte[] {0x7f, 'E', 'L', 'F', 0, 1, 2});
    for (var c : cases.entrySet()) {
      Path dir = colony(Map.of("colony.yaml", CONSOLE_COLONY));
      Files.createDirectories(dir.resolve("ants"));
      Files.write(dir.resolve("ants/x.yaml"), c.getValue());
      String msg = assertThrows(ConfigException.class, () -> load(dir, ENV)).getMessage();
      assertTrue(msg.contains("Invalid ants/x.yaml:\n  " + c.getKey()), c.getKey() + " -> " + msg);
      assertFalse(msg.contains("Exception"), msg);
    }
    // A UTF-8 byte-order mark is fine.
    Path dir = colony(Map.of("colony.yaml", CONSOLE_COLONY));
    Files.createDirectories(dir.resolve("ants"));
    Files.write(dir.resolve("ants/a.yaml"), ("\uFEFF" + ANT).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertEquals("a", load(dir, ENV).ants().get(0).name());
  }

  @Test
  void mergeQueuesAndTouchesAreReadAndTheirMistakesNamed() throws Exception {
    LoadedColony c = load(colony(Map.of("colony.yaml", "name: c\nmerge:\n  repos:\n    - name: app\n      repo: ./repo\n",
        "repo/.git/HEAD", "ref: refs/heads/main\n",
        "ants/a.yaml", ANT + "workspace:\n  repo: ./repo\n  touches: [src/**]\n")), ENV);
    assertEquals("app", c.ants().get(0).merge().name());
    assertEquals(List.of("src/**"), c.ants().get(0).workspace().touches());
    assertEquals(List.of(c.ants().get(0).merge()), c.merge());
    String e = errors(Map.of("colony.yaml", "name: c\nmerge:\n  repos:\n    - name: app\n      repo: ./nope\n"
        + "      target: '-x'\n", "ants/a.yaml", ANT + "workspace:\n  touches: ['/abs']\n"), ENV);
    assertTrue(e.contains("merge.repos[0].repo: no such directory"), e);
    assertTrue(e.contains("merge.repos[0].target: invalid branch name '-x': starts with '-'"), e);
    assertTrue(e.contains("ants/a.yaml"), e);
    assertTrue(e.contains("workspace.touches[0]: '/abs' is absolute"), e);
  }

  @Test
  void unknownKeysAreNamed() throws Exception {
    String msg = errors(Map.of("colony.yaml", CONSOLE_COLONY + "defaults:\n  pol_interval: 5m\n",
        "ants/a.yaml", ANT + "autonomyy: full\n"), ENV);
    assertTrue(msg.contains("defaults.pol_interval: unknown key 'pol_interval'"), msg);
    assertTrue(msg.contains("autonomyy: unknown key 'autonomyy'"), msg);
  }

  @Test
  void allErrorsOfARunAreReportedTogetherByFile() throws Exception {
    String msg = errors(Map.of("colony.yaml", "integrations:\n  discord:\n    token: ${NOPE}\n",
        "ants/a.yaml", "name: a\n", "ants/b.yml", ANT.replace("name: a", "name: b") + "engine: gpt\n"), Map.of());
    assertTrue(msg.contains("Invalid colony.yaml:\n"), msg);
    assertTrue(msg.contains("  name: required"), msg);
    assertTrue(msg.contains("integrations.discord.token: Missing environment variable: NOPE"), msg);
    assertTrue(msg.contains("integrations.discord.guild: required"), msg);
    assertTrue(msg.contains("Invalid ants/a.yaml:\n  description: required\n  instructions: required"), msg);
    assertTrue(msg.contains("Invalid ants/b.yml:\n  engine: invalid value 'gpt': expected one of \"claude\", \"gemini\", \"command\""), msg);
  }

  @Test
  void duplicateAntNamesNameBothFiles() throws Exception {
    String msg = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT, "ants/copy.yaml", ANT), ENV);
    assertTrue(msg.contains("Invalid ants/copy.yaml:\n  name: duplicate ant name 'a': also used by ants/a.yaml"), msg);
  }

  @Test
  void discordChannelIsRequiredOnlyWhenTheColonyUsesDiscord() throws Exception {
    String msg = errors(Map.of("colony.yaml", "name: c\nintegrations:\n  discord:\n    token: ${DISCORD_TOKEN}\n    guild: g\n",
        "ants/a.yaml", ANT), ENV);
    assertTrue(msg.contains("Invalid ants/a.yaml:\n  integrations.discord.channel: required"), msg);
    LoadedColony console = load(colony(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT)), ENV);
    assertNull(console.colony().discord());
    assertNull(console.ants().get(0).discordChannel());
  }

  @Test
  void stateBackendIsAcceptedForCompatibility() throws Exception {
    load(colony(Map.of("colony.yaml", CONSOLE_COLONY + "state:\n  backend: sqlite\n",
        "ants/a.yaml", ANT + "state:\n  backend: memory\n")), ENV);
    String msg = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "state:\n  backend: redis\n"), ENV);
    assertTrue(msg.contains("state.backend: invalid value 'redis'"), msg);
  }

  @Test
  void schedulesTriggersAndGithubAreChecked() throws Exception {
    String msg = errors(Map.of("colony.yaml", CONSOLE_COLONY,
        "ants/a.yaml", ANT + "schedule:\n  cron: \"61 9 * * *\"\ntriggers:\n  - type: github_issue\n  - type: webhook\n"), ENV);
    assertTrue(msg.contains("schedule.cron: invalid cron expression '61 9 * * *'"), msg);
    assertTrue(msg.contains("triggers[0].type: github_issue needs integrations.github.repos"), msg);
    assertTrue(msg.contains("triggers[1].type: invalid trigger type 'webhook'"), msg);
    String token = errors(Map.of("colony.yaml", CONSOLE_COLONY,
        "ants/a.yaml", ANT + "integrations:\n  github:\n    repos: [acme/platform]\n"), ENV);
    assertTrue(token.contains("Invalid colony.yaml:\n  integrations.github.token: required: ant 'a' (ants/a.yaml) uses GitHub"), token);
    String repo = errors(Map.of("colony.yaml", CONSOLE_COLONY,
        "ants/a.yaml", ANT + "integrations:\n  github:\n    repos: [platform]\n"), ENV);
    assertTrue(repo.contains("integrations.github.repos[0]: invalid repository 'platform': expected owner/repo"), repo);
  }

  @Test
  void aGithubIssueTriggerMayMakeTasksForSomeone() throws Exception {
    String gh = CONSOLE_COLONY + "integrations:\n  github:\n    token: ${GITHUB_TOKEN}\n";
    String repos = "integrations:\n  github:\n    repos: [acme/app]\n";
    AntSpec a = load(colony(Map.of("colony.yaml", gh, "ants/a.yaml", ANT + repos + "triggers:\n"
        + "  - type: github_issue\n    labels: [bug]\n    as: task\n    to: pool:Triage\n"
        + "  - type: github_issue\n    labels: [docs]\n    as: task\n"
        + "  - type: github_issue\n    labels: [question]\n")), ENV).ants().get(0);
    assertEquals(List.of(
        new dev.colony.spec.TriggerSpec(dev.colony.spec.TriggerSpec.Type.GITHUB_ISSUE, List.of("bug"),
            dev.colony.spec.TriggerSpec.Delivery.TASK, "pool:triage"),
        new dev.colony.spec.TriggerSpec(dev.colony.spec.TriggerSpec.Type.GITHUB_ISSUE, List.of("docs"),
            dev.colony.spec.TriggerSpec.Delivery.TASK, null),
        new dev.colony.spec.TriggerSpec(dev.colony.spec.TriggerSpec.Type.GITHUB_ISSUE, List.of("question"))), a.triggers());
    String msg = errors(Map.of("colony.yaml", gh, "ants/a.yaml", ANT + repos + "triggers:\n"
        + "  - type: github_issue\n    as: ticket\n"
        + "  - type: github_issue\n    to: alpha\n"
        + "  - type: github_issue\n    as: task\n    to: pool:two words\n"
        + "  - type: discord_command\n    as: task\n"), ENV);
    assertTrue(msg.contains("triggers[0].as: invalid value 'ticket': expected \"wake\""), msg);
    assertTrue(msg.contains("triggers[1].to: only a trigger with 'as: task' names who the task is for"), msg);
    assertTrue(msg.contains("triggers[2].to: 'two words' is not a name for a pool"), msg);
    assertTrue(msg.contains("triggers[3].as: only github_issue triggers take 'as' and 'to'"), msg);
  }

  @Test
  void commandEngineRules() throws Exception {
    String msg = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "engine: command\n"), ENV);
    assertTrue(msg.contains("command: required when engine is \"command\""), msg);
    String rules = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT
        + "engine: command\ncommand:\n  argv: [x]\n  outcomes:\n    - outcome: melted\n      exit_code: 2\n"
        + "    - pattern: \"(unclosed\"\n      outcome: transient\n    - outcome: billing\n"), ENV);
    assertTrue(rules.contains("command.outcomes[0].outcome: invalid outcome 'melted'"), rules);
    assertTrue(rules.contains("command.outcomes[1].pattern: invalid regular expression '(unclosed'"), rules);
    assertTrue(rules.contains("command.outcomes[2]: a rule needs exit_code, pattern or both"), rules);
    AntSpec ok = load(colony(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT
        + "engine: command\ncommand:\n  argv: ./agent.sh --fast\n  outcomes:\n    - exit_code: 7\n      outcome: error_max_budget_usd\n")), ENV)
        .ants().get(0);
    assertEquals(List.of("/bin/sh", "-c", "./agent.sh --fast"), ok.command().argv());
    assertEquals(Outcome.BUDGET, ok.command().outcomes().get(0).outcome());
  }

  @Test
  void claudeTelemetryIsOffUnlessTheAntTurnsItOn() throws Exception {
    AntSpec off = load(colony(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "claude:\n  model: m\n")), ENV)
        .ants().get(0);
    assertFalse(off.claude().telemetryOn());
    AntSpec on = load(colony(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "claude:\n  telemetry: true\n")), ENV)
        .ants().get(0);
    assertTrue(on.claude().telemetryOn());
    String bad = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "claude:\n  telemetry: loud\n"), ENV);
    assertTrue(bad.contains("claude.telemetry: invalid value 'loud': expected true or false"), bad);
  }

  @Test
  void brokenYamlAndMissingFilesAreReportedWithWhere() throws Exception {
    String yaml = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", "name: a\n  description: : x\n"), ENV);
    assertTrue(yaml.contains("Invalid ants/a.yaml:\n  not valid YAML: line 2"), yaml);
    String none = errors(Map.of("ants/a.yaml", ANT), ENV);
    assertTrue(none.contains("Invalid colony.yaml:\n  file not found"), none);
    // colony.yaml alone is valid config (the reference's minimal example); there is just nothing to run
    assertTrue(load(colony(Map.of("colony.yaml", CONSOLE_COLONY)), ENV).ants().isEmpty());
    String dupKey = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "name: b\n"), ENV);
    assertTrue(dupKey.contains("not valid YAML") && dupKey.contains("duplicate key name"), dupKey);
  }

  @Test
  void dotEnvFillsInVariablesTheEnvironmentDoesNotSet() throws Exception {
    Path dir = colony(Map.of("colony.yaml", "name: c\nintegrations:\n  discord:\n    token: ${COLONY_TEST_DOTENV_TOKEN}\n    guild: g\n",
        "ants/a.yaml", ANT + "integrations:\n  discord:\n    channel: x\n",
        ".env", "COLONY_TEST_DOTENV_TOKEN=from-dotenv\n"));
    LoadedColony c = ColonyLoader.load(dir);
    assertEquals("COLONY_TEST_DOTENV_TOKEN", c.colony().discord().tokenVar());
  }

  // ---- values read as written (no YAML 1.1 surprises), bounds, and safe messages ----

  @Test
  void scalarsAreReadAsWrittenNotAsYaml11BooleansOrOctals() throws Exception {
    Path dir = colony(Map.of("colony.yaml", "name: yes\n",
        "ants/a.yaml", ANT + "logging:\n  tool_calls: off\nengine: command\ncommand:\n  argv: [\"x\"]\n"
            + "  env:\n    MODE: 0777\n    AT: 1:30\n  outcomes:\n    - exit_code: 3\n      outcome: billing\n"));
    LoadedColony c = load(dir, ENV);
    assertEquals("yes", c.colony().name());
    AntSpec a = c.ants().get(0);
    assertEquals("ant/yes/a", a.workflowId());
    assertEquals(ToolCallLogging.OFF, a.toolCalls());
    assertEquals("0777", a.command().env().get("MODE"));
    assertEquals("1:30", a.command().env().get("AT"));
    assertEquals(3, a.command().outcomes().get(0).exitCode());
  }

  @Test
  void aChannelWithALeadingZeroKeepsIt() throws Exception {
    Path dir = colony(Map.of("colony.yaml", "name: c\nintegrations:\n  discord:\n    token: ${DISCORD_TOKEN}\n    guild: 0042\n",
        "ants/a.yaml", ANT + "integrations:\n  discord:\n    channel: 0123\n"));
    LoadedColony c = load(dir, ENV);
    assertEquals("0123", c.ants().get(0).discordChannel());
    assertEquals("0042", c.colony().discord().guild());
  }

  @Test
  void durationsHaveDocumentedBounds() throws IOException {
    String e = errors(Map.of("colony.yaml", "name: c\ndefaults:\n  session_timeout: 999999999h\n  heartbeat_timeout: 2h\n",
        "ants/a.yaml", ANT + "poll_interval: 9999h\n"), ENV);
    assertTrue(e.contains("session_timeout: '999999999h' is too long: at most 168h"), e);
    assertTrue(e.contains("heartbeat_timeout: '2h' is too long: at most 1h"), e);
    assertTrue(e.contains("poll_interval: '9999h' is too long: at most 720h"), e);
  }

  @Test
  void aCronThatNeverFiresIsAnError() throws IOException {
    String e = errors(Map.of("colony.yaml", CONSOLE_COLONY,
        "ants/a.yaml", ANT + "schedule:\n  cron: \"0 0 30 2 *\"\n"), ENV);
    assertTrue(e.contains("schedule.cron: invalid cron expression '0 0 30 2 *': it never fires"), e);
  }

  /** Verdicts on schedules are kept per expression: each ant sharing a bad one is still told, a good one still loads. */
  @Test
  void everyAntSharingASchedulesExpressionGetsItsVerdict() throws Exception {
    String bad = ANT + "schedule:\n  cron: \" 0 0 30 2 *\"\n";
    String e = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", bad, "ants/b.yaml", bad.replace("name: a", "name: b"),
        "ants/c.yaml", ANT.replace("name: a", "name: c") + "schedule:\n  cron: \"61 9 * * *\"\n"), ENV);
    assertTrue(e.contains("ants/a.yaml"), e);
    assertTrue(e.contains("ants/b.yaml"), e);
    assertEquals(2, e.split("invalid cron expression '0 0 30 2 \\*': it never fires", -1).length - 1, e);
    assertTrue(e.contains("invalid cron expression '61 9 * * *'"), e);
    for (int i = 0; i < 2; i++) {
      load(colony(Map.of("colony.yaml", CONSOLE_COLONY, "ants/a.yaml", ANT + "schedule:\n  cron: \"0 9 * * 1\"\n")), ENV);
    }
  }

  @Test
  void anAntsPathThatIsAFileIsAnError() throws IOException {
    String e = errors(Map.of("colony.yaml", CONSOLE_COLONY, "ants", "oops"), ENV);
    assertTrue(e.contains("Invalid ants:\n  is a file; it must be a directory"), e);
  }

  @Test
  void aSymlinkLeadingOutOfTheColonyIsRefusedAndNotPrinted() throws IOException {
    Path outside = Files.writeString(tmp.resolve("secret.txt"), "root:x:0:0:secret-line\n");
    Path dir = colony(Map.of("colony.yaml", CONSOLE_COLONY));
    Files.createDirectories(dir.resolve("ants"));
    Files.createSymbolicLink(dir.resolve("ants/x.yaml"), outside);
    ConfigException ex = assertThrows(ConfigException.class, () -> load(dir, ENV));
    assertTrue(ex.getMessage().contains("ants/x.yaml:\n  is a symbolic link to a file outside the colony directory; refused"),
        ex.getMessage());
    assertFalse(ex.getMessage().contains("secret-line"));
  }

  @Test
  void messagesAreBoundedAndControlCharactersEscaped() throws IOException {
    String huge = "x".repeat(3_000_000);
    String e = errors(Map.of("colony.yaml", CONSOLE_COLONY,
        "ants/a.yaml", ANT + "engine: \"" + huge + "\"\nautonomy: \"a\\u001b[31mred\\u0007\"\n"), ENV);
    assertTrue(e.length() < 2_000, "message of " + e.length() + " characters");
    assertTrue(e.contains("more characters]"), e);
    assertFalse(e.contains("\u001b") || e.contains("\u0007"), "raw control characters reach the terminal");
    assertTrue(e.contains("\\u001b[31mred\\u0007"), e);
  }

  @Test
  void aMalformedPlaceholderIsAnErrorOutsideFreeText() throws IOException {
    String e = errors(Map.of("colony.yaml", "name: c\nintegrations:\n  discord:\n    token: ${DISCORD_TOKEN}\n    guild: \"${A\"\n",
        "ants/a.yaml", ANT + "integrations:\n  discord:\n    channel: \"x${}\"\n"), ENV);
    assertTrue(e.contains("integrations.discord.channel: '${}' cannot be used here"), e);
    assertTrue(e.contains("integrations.discord.guild: malformed placeholder '${A'"), e);
  }

  @Test
  void freeTextMayQuoteShellParameterExpansions() throws Exception {
    Path dir = colony(Map.of("colony.yaml", CONSOLE_COLONY,
        "ants/a.yaml", "name: a\ndescription: d\ninstructions: 'use ${TMPDIR:-/tmp} for scratch files'\n"));
    assertEquals("use ${TMPDIR:-/tmp} for scratch files", load(dir, ENV).ants().get(0).instructions());
  }
}
