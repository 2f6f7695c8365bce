package dev.colony.spec;

/**
 * Options of the {@code claude} engine; null means the CLI's own default.
 *
 * @param telemetry Claude Code's own OpenTelemetry export ({@code claude.telemetry: true}), pointed
 *     at the worker's {@code OTEL_EXPORTER_OTLP_*} endpoint; null (absent in older specs) is off
 */
public record ClaudeSpec(String model, Integer maxTurns, Double maxBudgetUsd, Boolean telemetry) {
  public static final ClaudeSpec DEFAULTS = new ClaudeSpec(null, null, null, null);

  public ClaudeSpec(String model, Integer maxTurns, Double maxBudgetUsd) {
    this(model, maxTurns, maxBudgetUsd, null);
  }

  /** Whether Claude Code's telemetry is on for this ant (off unless its file says so). */
  public boolean telemetryOn() {
    return Boolean.TRUE.equals(telemetry);
  }
}
