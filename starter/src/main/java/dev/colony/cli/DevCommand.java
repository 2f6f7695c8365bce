package dev.colony.cli;

import dev.colony.config.Environment;
import dev.colony.config.LoadedColony;
import dev.colony.worker.ColonyWorker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "dev", mixinStandardHelpOptions = true,
    description = "All in one: a local Temporal (the real dev server with its Web UI; state kept in "
        + "DIR/.colony/temporal.db, so ants continue where they were on the next run), a worker and every "
        + "ant, with the terminal as the ants' chat. Type '<ant> /pause', '<ant> /status' or '<ant> <instruction>'.")
final class DevCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Parameters(index = "1..*", paramLabel = "ANT", description = "Ants to start (default: all).")
  java.util.List<String> names = new java.util.ArrayList<>();

  @Mixin
  ServerOptions server;

  @Option(names = "--task-queue", description = "Task queue (default: colony-<colony name>, one per colony).")
  String taskQueue;

  @Option(names = "--console-port", defaultValue = "8080", paramLabel = "PORT",
      description = "The console's port on 127.0.0.1 (default: ${DEFAULT-VALUE}; when taken, any free one; "
          + "-1: no console).")
  int consolePort;

  @Mixin
  MetricsOption metricsOption;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    LoadedColony colony = ColonyDir.loadRunnable(dir, true);
    String taskQueue = this.taskQueue != null ? this.taskQueue : dev.colony.spec.AntIds.taskQueue(colony.colony().name());
    if (colony.colony().discord() != null && Environment.forColony(Path.of(colony.colony().dir()))
        .get(colony.colony().discord().tokenVar()) == null) {
      System.err.println("colony: " + colony.colony().discord().tokenVar()
          + " is not set: the terminal is the chat (set it to use Discord).");
    }
    java.util.List<String> slackMissing = SlackSetup.missing(colony);
    if (!slackMissing.isEmpty()) {
      System.err.println("colony: " + String.join(" and ", slackMissing) + (slackMissing.size() == 1 ? " is" : " are")
          + " not set: the terminal is the chat (set " + (slackMissing.size() == 1 ? "it" : "them") + " to use Slack).");
    }
    StartCommand.select(colony, names); // an unknown ant name fails here, before anything starts
    metricsOption.address(); // so does a bad --metrics-port or --metrics-bind
    TracingSetup.install("colony-dev"); // and bad OTEL_* variables, when they ask for traces
    Preflight.print(colony, new java.io.PrintWriter(System.err, true));
    Path state = Path.of(colony.colony().dir(), ".colony");
    PrintWriter err = new PrintWriter(System.err, true);
    dev.colony.worker.Metrics metrics = metricsOption.start(new PrintWriter(System.out, true));
    LocalServer local;
    try {
      local = server.start(state.resolve("temporal.db"), state, err);
    } catch (RuntimeException e) {
      MetricsOption.close(metrics);
      throw e;
    }
    Temporal t;
    try {
      t = Temporal.connect(local.address(), "default", metrics == null ? null : metrics.scope());
      SearchAttributeSetup.ensure(t);
      String elsewhere = QueueCheck.elsewhereNote(t, taskQueue, colony.colony().name());
      if (elsewhere != null) {
        err.println("colony: " + elsewhere);
      }
      String idle = WorkerCheck.unversionedWorker(t, taskQueue); // a colony upgraded on this server before
      if (idle != null) {
        err.println("colony: " + idle);
      }
    } catch (RuntimeException e) {
      local.close();
      MetricsOption.close(metrics);
      throw e;
    }
    ColonyWorker worker = WorkerRuntime.start(t, taskQueue, StickyMode.AUTO, new HostOption(), System.out, colony, null,
        CliContext.of(spec).antWorkflow(), () -> {
          t.close();
          local.close();
          MetricsOption.close(metrics);
        });
    PrintWriter out = new PrintWriter(System.out, true);
    out.printf("colony '%s': %d ants on %s%n", colony.colony().name(), colony.ants().size(), local.describe());
    Banner.print(out, local, colony.colony().name());
    dev.colony.console.ConsoleServer webConsole = startConsole(t, local, colony.colony().name(), err);
    if (webConsole != null) {
      out.println("  Console:       " + webConsole.url() + "   (see and steer the colony; colony console DIR serves it alone)");
    }
    out.println("From another terminal: ./colony status | ./colony pause <ant> | ./colony resume <ant>");
    local.exited().thenRun(() -> {
      err.println("colony: the Temporal server stopped by itself; stopping (see " + state.resolve("temporal.log") + ").");
      System.exit(1);
    });
    System.out.println(DevConsole.HELP);
    StartCommand.startAll(t, taskQueue, colony, StartCommand.select(colony, names), out);
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
    if (webConsole != null) {
      webConsole.close();
    }
    return 0;
  }

  /** The console on loopback (no token needed there); null when turned off or it could not start. */
  private dev.colony.console.ConsoleServer startConsole(Temporal t, LocalServer local, String colony, PrintWriter err) {
    if (consolePort < 0) {
      return null;
    }
    ConsoleCommand.quietJavalin();
    try {
      // The board's calls go through the source's client, so /api/metrics counts them with the rest.
      var source = new dev.colony.client.TemporalColonySource(t.client, colony, local.webUi());
      return dev.colony.console.ConsoleServer.startOnAnyPort(dev.colony.console.ConsoleServer.Options.defaults()
              .withBind("127.0.0.1", consolePort).withWebUi(local.webUi()),
          source, source.board(dev.colony.task.TaskSettings.defaults()), dev.colony.secrets.Secrets.process());
    } catch (RuntimeException e) {
      err.println("colony: the console did not start (" + e.getMessage() + "); the rest runs without it.");
      return null;
    }
  }
}
