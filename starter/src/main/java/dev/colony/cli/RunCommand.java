package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.worker.ColonyWorker;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Run a worker and start every ant of the colony (against a running Temporal).")
final class RunCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Mixin
  TemporalOptions temporal;

  @Mixin
  StickyOption sticky;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    LoadedColony colony = ColonyDir.loadRunnable(dir);
    Preflight.print(colony, new java.io.PrintWriter(System.err, true));
    Temporal t = Temporal.connect(temporal);
    ColonyWorker worker = WorkerRuntime.start(t, temporal.taskQueue, sticky.mode, System.out, colony.colony().dir());
    StartCommand.startAll(t, temporal.taskQueue, colony.ants(), spec.commandLine().getOut());
    worker.awaitTermination();
    return 0;
  }
}
