package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.supervision.ColonyEvent;
import dev.colony.supervision.ColonyWorkflow;
import dev.colony.client.Rpc;
import io.temporal.client.WorkflowException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Streams a colony's supervision events (restarts, failures, breaker trips) until interrupted. */
@Command(name = "observe", mixinStandardHelpOptions = true,
    description = "Print the colony's supervision events as they happen (restarts, failures, the breaker), "
        + "until Ctrl-C.")
final class ObserveCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Option(names = "--since", paramLabel = "DURATION", defaultValue = "1h",
      description = "Also print the events of this long ago (default: ${DEFAULT-VALUE}; 0s: only new ones).")
  String since;

  @Option(names = "--poll", paramLabel = "MILLIS", defaultValue = "1000", hidden = true)
  long pollMillis;

  @Option(names = "--once", description = "Print what is there and exit (for scripts).")
  boolean once;

  @Mixin
  TemporalOptions temporal;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  /** One supervisor event as printed. */
  static String line(ColonyEvent e) {
    return dev.colony.text.Printable.of(Instant.ofEpochMilli(e.atMillis()) + "  " + e.type() + "  "
        + e.describe());
  }

  @Override
  public Integer call() throws InterruptedException {
    long sinceSeconds;
    try {
      sinceSeconds = dev.colony.config.Durations.parseSeconds(since);
    } catch (IllegalArgumentException e) {
      throw new UsageError("--since: '" + since + "': " + dev.colony.config.Durations.ACCEPTED);
    }
    LoadedColony colony = ColonyDir.load(dir);
    String id = ColonyWorkflow.workflowId(colony.colony().name());
    PrintWriter out = spec.commandLine().getOut();
    try (Temporal t = Temporal.connect(temporal)) {
      ColonyWorkflow w = t.client.newWorkflowStub(ColonyWorkflow.class, id);
      long from = System.currentTimeMillis() - sinceSeconds * 1000;
      long after = 0;
      boolean first = true;
      while (true) {
        List<ColonyEvent> events;
        try {
          events = w.events(after);
        } catch (WorkflowException e) {
          if (!Rpc.notFound(e)) {
            throw e;
          }
          throw new UserError("colony '" + colony.colony().name() + "' has no supervisor at " + t.address
              + ": start it with ./colony start " + dir);
        }
        for (ColonyEvent e : events) {
          after = Math.max(after, e.seq());
          if (!first || e.atMillis() >= from) {
            out.println(line(e));
          }
        }
        out.flush();
        if (once) {
          return 0;
        }
        first = false;
        Thread.sleep(pollMillis);
      }
    }
  }
}
