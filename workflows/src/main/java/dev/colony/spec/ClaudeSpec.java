package dev.colony.spec;

/** Options of the {@code claude} engine; null means the CLI's own default. */
public record ClaudeSpec(String model, Integer maxTurns, Double maxBudgetUsd) {
  public static final ClaudeSpec DEFAULTS = new ClaudeSpec(null, null, null);
}
