package dev.colony.cli;

import dev.colony.config.LoadedColony;
import picocli.CommandLine.Command;

@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Run a worker and start every ant of the colony (against a running Temporal).")
final class RunCommand extends WorkerCommand {
  @Override
  void afterWorkerStarted(Temporal t, LoadedColony colony) {
    StartCommand.startAll(t, temporal.taskQueue(colony.colony().name()), colony, colony.ants(), spec.commandLine().getOut());
  }
}
