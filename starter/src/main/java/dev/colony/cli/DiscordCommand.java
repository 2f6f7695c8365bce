package dev.colony.cli;

import dev.colony.chat.impl.LeasedConnection;
import dev.colony.config.LoadedColony;
import dev.colony.discord.DiscordBridge;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import okhttp3.OkHttpClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The Discord bridge alone, without sessions: a candidate for the colony's one gateway session,
 * like every worker with the token. For a host that should hold the bot's connection but run no
 * agents; the workers (which post and host the lease) must be running somewhere.
 */
@Command(name = "discord", mixinStandardHelpOptions = true,
    description = "Run only the Discord bridge of a colony (commands, instructions, approvals); workers post.")
final class DiscordCommand implements Callable<Integer> {
  /**
   * A bridge command's life: says {@code banner}, then holds {@code connection} (a candidate for
   * the lease) until SIGTERM or Ctrl-C, when it lets go at once for another worker to take over.
   */
  static int serve(picocli.CommandLine.Model.CommandSpec spec, Temporal t, AutoCloseable connection, String banner)
      throws InterruptedException {
    spec.commandLine().getOut().println(banner);
    spec.commandLine().getOut().flush();
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        connection.close();
      } catch (Exception e) {
        // the lease expires by itself
      }
      t.close();
      stop.countDown();
    }, "colony-bridge-shutdown"));
    stop.await();
    return 0;
  }

  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Mixin
  TemporalOptions temporal;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    LoadedColony colony = ColonyDir.loadRunnable(dir);
    if (colony.colony().discord() == null) {
      throw new UserError("colony '" + colony.colony().name() + "' has no integrations.discord in colony.yaml: "
          + "nothing to bridge (its chat is the worker's console)");
    }
    DiscordSetup discord = DiscordSetup.of(colony);
    if (discord == null) {
      throw new UserError(colony.colony().discord().tokenVar()
          + " is not set in this environment or the colony's .env: the bridge needs the bot token");
    }
    Temporal t = Temporal.connect(temporal);
    LeasedConnection<DiscordBridge> gateway = discord.gateway(t, temporal.taskQueue(colony.colony().name()), ProcessHandle.current().pid() + "@bridge",
        new OkHttpClient());
    return serve(spec, t, gateway, "discord bridge for colony '" + colony.colony().name() + "' at " + t.address
        + ": holds the gateway when no other worker does");
  }
}
