package dev.colony.cli;

import dev.colony.chat.ConsoleSink;
import dev.colony.worker.ColonyWorker;
import dev.colony.worker.WorkerSettings;
import java.io.PrintStream;
import java.nio.file.Path;

/** Starts a worker for a CLI command and stops it gracefully on SIGTERM / Ctrl-C. */
final class WorkerRuntime {
  private WorkerRuntime() {}

  static ColonyWorker start(Temporal t, String taskQueue, StickyMode sticky, PrintStream chatOut,
      String colonyDir) {
    boolean useSticky = sticky.resolve(t);
    Path journal = Path.of(colonyDir, ".colony", "chat", "delivered-keys");
    ColonyWorker worker = ColonyWorker.start(t.client,
        new WorkerSettings(taskQueue, useSticky, new ConsoleSink(chatOut), null, journal));
    Runtime.getRuntime().addShutdownHook(new Thread(worker::close, "colony-worker-shutdown"));
    return worker;
  }
}
