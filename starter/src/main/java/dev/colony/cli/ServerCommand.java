package dev.colony.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Run a Temporal server for workers and the CLI: the real dev server (Web UI, "
        + "SQLite, visibility) by default, or the in-memory one with --server memory.")
final class ServerCommand implements Callable<Integer> {
  @Mixin
  ServerOptions server;

  @Option(names = "--db", paramLabel = "FILE", defaultValue = ".colony/temporal.db",
      description = "The dev server's SQLite database (default: ${DEFAULT-VALUE}, under the current directory).")
  Path db;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    Path dbFile = db.toAbsolutePath();
    var err = spec.commandLine().getErr();
    LocalServer running = server.start(dbFile, dbFile.getParent(), err);
    CountDownLatch stopped = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean asked = new java.util.concurrent.atomic.AtomicBoolean();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      asked.set(true);
      running.close();
      stopped.countDown();
    }, "colony-server-shutdown"));
    var out = spec.commandLine().getOut();
    out.println(running.describe() + ", namespace 'default'. Ctrl-C to stop.");
    Banner.print(out, running, null);
    out.flush();
    running.exited().thenRun(stopped::countDown);
    stopped.await();
    if (!asked.get()) {
      // Not our Ctrl-C: the server went away by itself.
      err.println("colony: the Temporal server stopped by itself; see " + dbFile.getParent().resolve("temporal.log"));
      err.flush();
      return 1;
    }
    return 0;
  }
}
