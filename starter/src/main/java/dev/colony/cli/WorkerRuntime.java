package dev.colony.cli;

import dev.colony.chat.impl.ChatSink;
import dev.colony.chat.impl.ConsoleSink;
import dev.colony.chat.impl.FanoutSink;
import dev.colony.chat.impl.LeasedConnection;
import dev.colony.config.LoadedColony;
import dev.colony.worker.ColonyWorker;
import dev.colony.worker.WorkerSettings;
import java.io.PrintStream;
import java.nio.file.Path;
import okhttp3.OkHttpClient;

/**
 * Starts a worker for a CLI command and stops it gracefully on SIGTERM / Ctrl-C, then runs
 * {@code afterStop} (the dev command stops its embedded server there, after the worker, so the
 * worker's goodbye to the server does not fail). With Discord or Slack configured and its tokens
 * set in this worker's environment, posts go there (to both when both are) and the worker is a
 * candidate for the colony's one connection to each; otherwise the console is the chat.
 */
final class WorkerRuntime {
  private WorkerRuntime() {}

  /**
   * @param antWorkflow the AntWorkflow implementation to register ({@link CliContext#antWorkflow}: today's,
   *     unless an upgrade test's worker of a later release gives its own)
   */
  static ColonyWorker start(Temporal t, String taskQueue, StickyMode sticky, HostOption hostOption,
      PrintStream chatOut, LoadedColony colony, io.temporal.common.WorkerDeploymentVersion version,
      Class<? extends dev.colony.ant.AntWorkflow> antWorkflow, Runnable afterStop) {
    String hostName = hostOption.resolve();
    boolean useSticky = sticky.resolve(t);
    String dir = colony.colony().dir();
    Path journal = Path.of(dir, ".colony", "chat", "delivered-keys");
    DiscordSetup discord = DiscordSetup.of(colony);
    SlackSetup slack = SlackSetup.of(colony);
    // One OkHttp client for the whole worker: the REST posters, JDA, Slack's SDK and GitHub share it.
    OkHttpClient http = new OkHttpClient();
    java.util.List<ChatSink> chats = new java.util.ArrayList<>();
    if (discord != null) {
      chats.add(discord.sink(http));
    }
    dev.colony.slack.SlackApi slackApi = slack == null ? null : slack.api(http);
    if (slack != null) {
      chats.add(slack.sink(slackApi));
    }
    ChatSink chat = chats.isEmpty() ? new ConsoleSink(chatOut) : FanoutSink.of(chats);
    ColonyWorker worker = ColonyWorker.start(t.client,
        new WorkerSettings(taskQueue, useSticky, chat, null, journal, http, hostName, hostOption.resolvedRoot(),
            hostOption.cacheSize == null ? 0 : hostOption.cacheSize, version, antWorkflow));
    String candidate = ProcessHandle.current().pid() + "@" + host();
    LeasedConnection<?> gateway = discord == null ? null : discord.gateway(t, taskQueue, candidate, http);
    LeasedConnection<?> socket = slack == null ? null : slack.connection(t, taskQueue, candidate, slackApi);
    ConnectionWatch watch = ConnectionWatch.start(t, System.err);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      watch.interrupt(); // stopping the server below is not a lost connection
      if (gateway != null) {
        gateway.close(); // lets another worker take the gateway at once
      }
      if (socket != null) {
        socket.close();
      }
      // Is the server still there? If not, there is nothing to drain towards.
      worker.close(t.reachable(java.time.Duration.ofMillis(500)) ? ColonyWorker.SHUTDOWN_GRACE : java.time.Duration.ZERO);
      // the sessions that ended in the grace are in their traces: what is buffered leaves now
      dev.colony.worker.Tracing.process().close();
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
