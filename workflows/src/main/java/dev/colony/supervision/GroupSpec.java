package dev.colony.supervision;

import java.util.List;

/**
 * A supervision group: its ants in declaration order, how they restart, and the
 * circuit breaker: more than {@code maxRestarts} restarts within {@code windowSeconds} marks the
 * group failed.
 */
public record GroupSpec(String name, Strategy strategy, List<String> ants, int maxRestarts, long windowSeconds) {
  public static final int DEFAULT_MAX_RESTARTS = 3;
  public static final long DEFAULT_WINDOW_SECONDS = 60;

  public GroupSpec {
    ants = ants == null ? List.of() : List.copyOf(ants);
    strategy = strategy == null ? Strategy.ONE_FOR_ONE : strategy;
  }

  /** The implicit group of an ant that is in none: itself, one_for_one, the default breaker. */
  public static GroupSpec alone(String ant) {
    return new GroupSpec(ant, Strategy.ONE_FOR_ONE, List.of(ant), DEFAULT_MAX_RESTARTS, DEFAULT_WINDOW_SECONDS);
  }
}
