package dev.colony.cli;

import dev.colony.chat.impl.LeasedConnection;
import dev.colony.config.LoadedColony;
import dev.colony.slack.SlackBridge;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import okhttp3.OkHttpClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The Slack bridge alone, without sessions: a candidate for the colony's one Socket Mode
 * connection, like every worker with the tokens. For a host that should hold the app's connection
 * but run no agents; the workers (which post and host the lease) must be running somewhere.
 */
@Command(name = "slack", mixinStandardHelpOptions = true,
    description = "Run only the Slack bridge of a colony (commands, instructions, approvals); workers post.")
final class SlackCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Mixin
  TemporalOptions temporal;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    LoadedColony colony = ColonyDir.loadRunnable(dir);
    if (colony.slack() == null) {
      throw new UserError("colony '" + colony.colony().name() + "' has no integrations.slack in colony.yaml: "
          + "nothing to bridge");
    }
    SlackSetup slack = SlackSetup.of(colony);
    if (slack == null) {
      throw new UserError(String.join(" and ", SlackSetup.missing(colony))
          + " not set in this environment or the colony's .env: the bridge needs the bot and app-level tokens");
    }
    Temporal t = Temporal.connect(temporal);
    LeasedConnection<SlackBridge> connection = slack.connection(t, temporal.taskQueue(colony.colony().name()),
        ProcessHandle.current().pid() + "@bridge", slack.api(new OkHttpClient()));
    return DiscordCommand.serve(spec, t, connection, "slack bridge for colony '" + colony.colony().name() + "' at "
        + t.address + ": holds the connection when no other worker does");
  }
}
