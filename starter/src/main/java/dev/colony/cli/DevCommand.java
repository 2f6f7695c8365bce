package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.worker.ColonyWorker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "dev", mixinStandardHelpOptions = true,
    description = "All in one process: an embedded in-memory Temporal, a worker and every ant, with "
        + "the console as the ants' chat. Type '<ant> /pause', '<ant> /status' or '<ant> <instruction>'.")
final class DevCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Option(names = "--port", defaultValue = "7233",
      description = "Port of the embedded Temporal server, for 'colony status' and friends (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--task-queue", defaultValue = dev.colony.spec.AntIds.DEFAULT_TASK_QUEUE,
      description = "Task queue (default: ${DEFAULT-VALUE}).")
  String taskQueue;

  @Override
  public Integer call() throws Exception {
    LoadedColony colony = ColonyDir.loadRunnable(dir);
    Preflight.print(colony, new java.io.PrintWriter(System.err, true));
    EmbeddedServer server = EmbeddedServer.start(port);
    String address = "localhost:" + port;
    Temporal t = Temporal.connect(address, "default");
    ColonyWorker worker = WorkerRuntime.start(t, taskQueue, StickyMode.OFF, System.out, colony.colony().dir(),
        () -> {
          t.close();
          server.close();
        });
    System.out.printf("colony '%s': %d ants on an embedded in-memory Temporal at %s (state is lost on exit).%n",
        colony.colony().name(), colony.ants().size(), address);
    System.out.println("From another terminal: ./colony status | ./colony pause <ant> | ./colony resume <ant>");
    System.out.println(DevConsole.HELP);
    StartCommand.startAll(t, taskQueue, colony.ants(), new java.io.PrintWriter(System.out, true));
    DevConsole console = new DevConsole(t, colony.colony().name(), System.out);
    Thread input = new Thread(() -> {
      try {
        console.run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
      } catch (java.io.IOException ignored) {
        // stdin closed: keep running without a console
      }
    }, "colony-dev-console");
    input.setDaemon(true);
    input.start();
    worker.awaitTermination();
    return 0;
  }
}
