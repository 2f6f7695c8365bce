package dev.colony.cli;

import dev.colony.chat.impl.LeasedConnection;
import dev.colony.config.Environment;
import dev.colony.config.LoadedColony;
import dev.colony.slack.SlackApi;
import dev.colony.slack.SlackBridge;
import dev.colony.slack.SlackSettings;
import dev.colony.slack.SlackSink;
import java.nio.file.Path;
import java.util.Map;
import okhttp3.OkHttpClient;

/**
 * A colony's Slack on this machine: its settings, the bot and app-level tokens from this
 * process's environment (or the colony's {@code .env}; they never leave the process) and where
 * Slack's Web API is ({@code COLONY_SLACK_API_URL}, for tests and proxies). Shared by the worker
 * and {@code colony slack}.
 */
record SlackSetup(LoadedColony colony, SlackSettings settings, String botToken, String appToken, String apiUrl) {


  /** The setup, or null when the colony has no Slack block or a token is not set here. */
  static SlackSetup of(LoadedColony colony) {
    SlackSettings settings = colony.slack();
    if (settings == null) {
      return null;
    }
    Map<String, String> env = Environment.forColony(Path.of(colony.colony().dir()));
    String bot = env.get(settings.botTokenVar());
    String app = env.get(settings.appTokenVar());
    if (bot == null || bot.isBlank() || app == null || app.isBlank()) {
      return null;
    }
    String api = env.get("COLONY_SLACK_API_URL");
    return new SlackSetup(colony, settings, bot.strip(), app.strip(), api == null || api.isBlank() ? SlackApi.SLACK : api);
  }

  /** The variables a colony with Slack needs and this environment lacks, e.g. "SLACK_APP_TOKEN"; empty when none. */
  static java.util.List<String> missing(LoadedColony colony) {
    SlackSettings s = colony.slack();
    if (s == null) {
      return java.util.List.of();
    }
    Map<String, String> env = Environment.forColony(Path.of(colony.colony().dir()));
    return java.util.stream.Stream.of(s.botTokenVar(), s.appTokenVar())
        .filter(v -> env.get(v) == null || env.get(v).isBlank()).toList();
  }

  /** The worker's one Web API client: its poster and every connection attempt share its caches and reports. */
  SlackApi api(OkHttpClient http) {
    return new SlackApi(http, apiUrl, botToken);
  }

  SlackSink sink(SlackApi api) {
    return new SlackSink(api, settings);
  }

  /** A started candidate for the colony's one Socket Mode connection. */
  LeasedConnection<SlackBridge> connection(Temporal t, String taskQueue, String candidate, SlackApi api) {
    return new LeasedConnection<SlackBridge>(t.client, taskQueue, "slack", appToken, candidate,
        LeasedConnection.DEFAULT_TTL,
        () -> new SlackBridge(t.client, colony.colony().name(), settings, api, botToken, board(t)),
        b -> b.connect(appToken)).start();
  }

  /**
   * The colony's task board for {@code /task}, {@code /tasks} and the task buttons: on this
   * worker's client, with the default task settings (a colony's {@code tasks:} block reaches it
   * once the config reads one).
   */
  private dev.colony.board.TaskBoard board(Temporal t) {
    return new dev.colony.board.TemporalTaskBoard(t.client, colony.colony().name(), dev.colony.task.TaskSettings.defaults());
  }
}
