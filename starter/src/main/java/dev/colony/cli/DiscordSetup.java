package dev.colony.cli;

import dev.colony.chat.impl.LeasedConnection;
import dev.colony.config.Environment;
import dev.colony.config.LoadedColony;
import dev.colony.discord.DiscordBridge;
import dev.colony.discord.DiscordRest;
import dev.colony.discord.DiscordSettings;
import dev.colony.discord.DiscordSink;
import java.nio.file.Path;
import java.util.Map;
import okhttp3.OkHttpClient;

/**
 * A colony's Discord on this machine: its settings, the bot token from this process's
 * environment (or the colony's {@code .env}; it never leaves the process) and where Discord is.
 * Shared by the worker and {@code colony discord}.
 */
record DiscordSetup(LoadedColony colony, DiscordSettings settings, String token, DiscordBridge.Endpoints endpoints) {

  /** The setup, or null when the colony has no Discord block or its token is not set here. */
  static DiscordSetup of(LoadedColony colony) {
    DiscordSettings settings = colony.discordSettings();
    if (settings == null) {
      return null;
    }
    Map<String, String> env = Environment.forColony(Path.of(colony.colony().dir()));
    String token = env.get(colony.colony().discord().tokenVar());
    if (token == null || token.isBlank()) {
      return null;
    }
    return new DiscordSetup(colony, settings, token, DiscordBridge.Endpoints.fromEnvironment(env));
  }

  DiscordSink sink(OkHttpClient http) {
    return new DiscordSink(new DiscordRest(http, endpoints.api(), token), settings);
  }

  /** A started candidate for the colony's one gateway session. */
  LeasedConnection<DiscordBridge> gateway(Temporal t, String taskQueue, String candidate, OkHttpClient http) {
    return new LeasedConnection<DiscordBridge>(t.client, taskQueue, "discord", token, candidate, LeasedConnection.DEFAULT_TTL,
        () -> new DiscordBridge(t.client, colony.colony().name(), colony.ants(), settings, board(t)),
        b -> b.connect(token, endpoints, http)).start();
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
