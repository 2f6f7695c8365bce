package dev.colony.cli;

import dev.colony.secrets.Secrets;
import dev.colony.console.ConsoleServer;
import dev.colony.client.TemporalColonySource;
import dev.colony.task.TaskSettings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "console", mixinStandardHelpOptions = true,
    description = "Serve the console: one web page to see and steer the colony, live (default "
        + "http://127.0.0.1:8080). It keeps no state: every figure comes from Temporal, every action is a "
        + "signal, so it needs no worker. Off this machine (--bind) it needs a token.")
final class ConsoleCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Mixin
  TemporalOptions temporal;

  @Mixin
  MetricsOption metricsOption;

  @Option(names = "--port", defaultValue = "8080", paramLabel = "PORT",
      description = "The port to serve on (default: ${DEFAULT-VALUE}; 0: any free port).")
  int port;

  @Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
      description = "The address to serve on (default: ${DEFAULT-VALUE}). Any other than loopback needs --token.")
  String bind;

  @Option(names = "--token", paramLabel = "TOKEN",
      description = "The operator token, 16 characters or more ($COLONY_CONSOLE_TOKEN): sign in with it to read and act.")
  String token;

  @Option(names = "--read-token", paramLabel = "TOKEN",
      description = "A read-only token ($COLONY_CONSOLE_READ_TOKEN): sign in with it to read, not act.")
  String readToken;

  @Option(names = "--web-ui", paramLabel = "URL",
      description = "The Temporal Web UI's address, for links from an ant to its history (default: none).")
  String webUi;

  @Override
  public Integer call() throws InterruptedException {
    var colony = ColonyDir.load(dir, true);
    String operator = token != null ? token : System.getenv("COLONY_CONSOLE_TOKEN");
    String reader = readToken != null ? readToken : System.getenv("COLONY_CONSOLE_READ_TOKEN");
    ConsoleServer.Options options = ConsoleServer.Options.defaults().withBind(bind, port).withTokens(operator, reader)
        .withWebUi(webUi);
    try {
      options.check(); // before connecting: an unsafe address is refused at once
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
    metricsOption.check(); // a bad --metrics-port, --metrics-bind or OTEL_* variable too
    register(operator, reader);
    quietJavalin();
    dev.colony.worker.Metrics metrics = metricsOption.start(new PrintWriter(System.out, true));
    Temporal t;
    try {
      t = Temporal.connect(temporal, metrics == null ? null : metrics.scope());
    } catch (RuntimeException e) {
      MetricsOption.close(metrics);
      throw e;
    }
    ConsoleServer server;
    try {
      String name = colony.colony().name();
      // The board's client: settings as colony.yaml will give them (defaults until its tasks: block is read).
      // The board's calls go through the source's client, so /api/metrics counts them with the rest.
      TemporalColonySource source = new TemporalColonySource(t.client, name, webUi);
      server = ConsoleServer.start(options, source, source.board(TaskSettings.defaults()), Secrets.process());
      source.warmCosts(); // the costs page's first read, in the background: a big colony's first visit is not the slow one
    } catch (RuntimeException e) {
      t.close();
      MetricsOption.close(metrics);
      if (ConsoleServer.portTaken(e)) {
        throw new UserError("port " + port + " on " + bind + " is taken: choose another with --port (0: any free one)");
      }
      if (e instanceof IllegalArgumentException) {
        throw new UserError(e.getMessage());
      }
      throw e;
    }
    PrintWriter out = new PrintWriter(System.out, true);
    out.println("colony '" + colony.colony().name() + "': console on " + server.url() + "   (Temporal " + t.address
        + ", namespace " + t.namespace + (operator == null ? "" : "; sign in with the token") + ")");
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      t.close();
      MetricsOption.close(metrics);
      stopped.countDown();
    }, "colony-console-stop"));
    stopped.await();
    return 0;
  }

  /**
   * Javalin logs a taken port as an ERROR line before the exception says it; the command says it
   * in its own words instead (slf4j-simple reads the level when Javalin's logger is made).
   */
  static void quietJavalin() {
    if (System.getProperty("org.slf4j.simpleLogger.log.io.javalin.Javalin") == null) {
      System.setProperty("org.slf4j.simpleLogger.log.io.javalin.Javalin", "off");
    }
  }

  /** The tokens are secrets too: never in an answer, a log or a history. */
  static void register(String operator, String reader) {
    if (operator != null) {
      Secrets.process().register("COLONY_CONSOLE_TOKEN", operator);
    }
    if (reader != null) {
      Secrets.process().register("COLONY_CONSOLE_READ_TOKEN", reader);
    }
  }
}
