package dev.colony.cli;

import dev.colony.spec.AntIds;
import picocli.CommandLine.Option;

/** Connection options shared by every command that talks to Temporal. */
final class TemporalOptions {
  @Option(names = "--address", paramLabel = "HOST:PORT",
      description = "Temporal frontend address (default: $TEMPORAL_ADDRESS, else localhost:7233).")
  String address;

  @Option(names = "--namespace", paramLabel = "NAME", defaultValue = "${env:TEMPORAL_NAMESPACE:-default}",
      description = "Temporal namespace (default: $TEMPORAL_NAMESPACE, else default).")
  String namespace;

  @Option(names = "--task-queue", paramLabel = "NAME", defaultValue = AntIds.DEFAULT_TASK_QUEUE,
      description = "Task queue the ants run on (default: ${DEFAULT-VALUE}).")
  String taskQueue;

  String address() {
    String chosen;
    if (address != null) {
      chosen = address;
    } else {
      String env = System.getenv("TEMPORAL_ADDRESS");
      chosen = env == null || env.isBlank() ? "localhost:7233" : env;
    }
    String problem = Addresses.problem(chosen);
    if (problem != null) {
      throw new UsageError(address == null ? problem.replace("--address", "$TEMPORAL_ADDRESS") : problem);
    }
    return chosen.strip();
  }
}
