package dev.colony.cli;

import dev.colony.chat.ChatSink;
import dev.colony.chat.ConsoleSink;
import dev.colony.config.Environment;
import dev.colony.config.LoadedColony;
import dev.colony.discord.DiscordBridge;
import dev.colony.discord.DiscordGateway;
import dev.colony.discord.DiscordRest;
import dev.colony.discord.DiscordSettings;
import dev.colony.discord.DiscordSink;
import dev.colony.worker.ColonyWorker;
import dev.colony.worker.WorkerSettings;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import okhttp3.OkHttpClient;

/**
 * Starts a worker for a CLI command and stops it gracefully on SIGTERM / Ctrl-C, then runs
 * {@code afterStop} (the dev command stops its embedded server there, after the worker, so the
 * worker's goodbye to the server does not fail). With Discord configured and its token set in
 * this worker's environment, posts go to Discord and the worker is a candidate for the colony's
 * one gateway session; otherwise the console is the chat.
 */
final class WorkerRuntime {
  private WorkerRuntime() {}

  static ColonyWorker start(Temporal t, String taskQueue, StickyMode sticky, PrintStream chatOut,
      LoadedColony colony) {
    return start(t, taskQueue, sticky, chatOut, colony, () -> { });
  }

  static ColonyWorker start(Temporal t, String taskQueue, StickyMode sticky, PrintStream chatOut,
      LoadedColony colony, Runnable afterStop) {
    boolean useSticky = sticky.resolve(t);
    String dir = colony.colony().dir();
    Path journal = Path.of(dir, ".colony", "chat", "delivered-keys");
    Map<String, String> env = Environment.forColony(Path.of(dir));
    DiscordSettings discord = colony.discordSettings();
    String token = discord == null ? null : env.get(colony.colony().discord().tokenVar());
    boolean useDiscord = token != null && !token.isBlank();
    // One OkHttp client for the whole worker: the REST poster and JDA share it.
    OkHttpClient http = new OkHttpClient();
    DiscordBridge.Endpoints endpoints = DiscordBridge.Endpoints.fromEnvironment(env);
    ChatSink chat = useDiscord ? new DiscordSink(new DiscordRest(http, endpoints.api(), token), discord)
        : new ConsoleSink(chatOut);
    ColonyWorker worker = ColonyWorker.start(t.client,
        new WorkerSettings(taskQueue, useSticky, chat, null, journal, http));
    DiscordGateway gateway = !useDiscord ? null : new DiscordGateway(t.client, taskQueue, token,
        ProcessHandle.current().pid() + "@" + host(), DiscordGateway.DEFAULT_TTL,
        () -> new DiscordBridge(t.client, colony.colony().name(), colony.ants(), discord),
        b -> b.connect(token, endpoints, http)).start();
    ConnectionWatch watch = ConnectionWatch.start(t, System.err);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      watch.interrupt(); // stopping the server below is not a lost connection
      if (gateway != null) {
        gateway.close(); // lets another worker take the gateway at once
      }
      worker.close();
      afterStop.run();
    }, "colony-worker-shutdown"));
    return worker;
  }

  private static String host() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "localhost";
    }
  }
}
