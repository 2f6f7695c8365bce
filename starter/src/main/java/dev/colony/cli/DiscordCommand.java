package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.chat.LeasedConnection;
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
    LeasedConnection<DiscordBridge> gateway = discord.gateway(t, temporal.taskQueue, ProcessHandle.current().pid() + "@bridge",
        new OkHttpClient());
    spec.commandLine().getOut().printf("discord bridge for colony '%s' at %s: holds the gateway when no other worker does%n",
        colony.colony().name(), t.address);
    spec.commandLine().getOut().flush();
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      gateway.close();
      t.close();
      stop.countDown();
    }, "colony-discord-shutdown"));
    stop.await();
    return 0;
  }
}
