package dev.colony.cli;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Run an embedded, in-memory Temporal server (for development; state is lost when it stops).")
final class ServerCommand implements Callable<Integer> {
  @Option(names = "--port", defaultValue = "7233", description = "Port to listen on (default: ${DEFAULT-VALUE}).")
  int port;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    EmbeddedServer server = EmbeddedServer.start(port);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "colony-server-shutdown"));
    spec.commandLine().getOut().printf(
        "Temporal (embedded, in memory) listening on localhost:%d, namespace 'default'. Ctrl-C to stop.%n", port);
    spec.commandLine().getOut().flush();
    stopped.await();
    return 0;
  }
}
