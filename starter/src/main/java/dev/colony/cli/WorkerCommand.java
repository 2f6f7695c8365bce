package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.worker.ColonyWorker;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "worker", mixinStandardHelpOptions = true,
    description = "Run a worker that hosts the colony's ants (their workflows and sessions).")
class WorkerCommand implements Callable<Integer> {
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
    SearchAttributeSetup.ensure(t);
    ColonyWorker worker = WorkerRuntime.start(t, temporal.taskQueue, sticky.mode, System.out, colony);
    spec.commandLine().getOut().printf("worker for colony '%s' polling '%s' at %s%n",
        colony.colony().name(), temporal.taskQueue, t.address);
    spec.commandLine().getOut().flush();
    afterWorkerStarted(t, colony);
    worker.awaitTermination();
    return 0;
  }

  /** What else to do once the worker polls ({@code run} starts the ants here). */
  void afterWorkerStarted(Temporal t, LoadedColony colony) {}
}
