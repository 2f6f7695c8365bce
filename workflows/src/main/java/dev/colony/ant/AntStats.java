package dev.colony.ant;

import java.util.Map;

/**
 * Lifetime statistics of an ant, answered by the {@code stats} query.
 *
 * @param costUsd sum of the costs the engine reported; {@code costReported} says whether any did
 */
public record AntStats(
    String ant,
    long startedAtMillis,
    long uptimeSeconds,
    int sessions,
    Map<String, Integer> sessionsByOutcome,
    long turns,
    double costUsd,
    boolean costReported,
    long inputTokens,
    long outputTokens) {

  public AntStats {
    sessionsByOutcome = sessionsByOutcome == null ? Map.of() : Map.copyOf(sessionsByOutcome);
  }
}
