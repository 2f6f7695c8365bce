package dev.colony.cli;

import dev.colony.chat.ConsoleSink;
import dev.colony.worker.ColonyWorker;
import dev.colony.worker.WorkerSettings;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * Starts a worker for a CLI command and stops it gracefully on SIGTERM / Ctrl-C, then runs
 * {@code afterStop} (the dev command stops its embedded server there, after the worker, so the
 * worker's goodbye to the server does not fail).
 */
final class WorkerRuntime {
  private WorkerRuntime() {}

  static ColonyWorker start(Temporal t, String taskQueue, StickyMode sticky, PrintStream chatOut,
      String colonyDir) {
    return start(t, taskQueue, sticky, chatOut, colonyDir, () -> { });
  }

  static ColonyWorker start(Temporal t, String taskQueue, StickyMode sticky, PrintStream chatOut,
      String colonyDir, Runnable afterStop) {
    boolean useSticky = sticky.resolve(t);
    Path journal = Path.of(colonyDir, ".colony", "chat", "delivered-keys");
    ColonyWorker worker = ColonyWorker.start(t.client,
        new WorkerSettings(taskQueue, useSticky, new ConsoleSink(chatOut), null, journal));
    ConnectionWatch watch = ConnectionWatch.start(t, System.err);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      watch.interrupt(); // stopping the server below is not a lost connection
      worker.close();
      afterStop.run();
    }, "colony-worker-shutdown"));
    return worker;
  }
}
