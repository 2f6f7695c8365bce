package dev.colony.cli;

import dev.colony.worker.Tracing;

/** Turns the process's traces on for a command that runs a worker (docs/observability.md#traces). */
final class TracingSetup {
  private TracingSetup() {}

  /**
   * Traces when the {@code OTEL_*} variables ask for them, before the command connects (its client
   * and its workers get the interceptors); a bad variable is one line and the command does not start.
   *
   * @param serviceName the default {@code service.name} ({@code OTEL_SERVICE_NAME} overrides it)
   */
  static Tracing install(String serviceName) {
    try {
      Tracing tracing = Tracing.install(serviceName);
      if (tracing.on()) {
        System.err.println("colony: traces on (OTEL_* variables): one trace per session, see docs/observability.md#traces");
      }
      return tracing;
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
  }
}
