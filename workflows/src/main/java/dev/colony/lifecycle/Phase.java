package dev.colony.lifecycle;

import dev.colony.ant.Lifecycle;

/**
 * Where an ant is in its lifecycle: the state, the session it concerns, the time a cooling-down
 * or timed wait ends, the reason of a pause or wait, and the error counters of the error policy.
 *
 * @param session the running session's number (Running, Interrupting), else the last one begun
 * @param untilMillis when a cooling-down or timed wait ends; null otherwise
 * @param reason why the ant pauses or waits ({@code operator}, {@code budget}, {@code errors},
 *     {@code next tick}, ...); null otherwise
 */
public record Phase(Lifecycle state, int session, Long untilMillis, String reason, int consecutiveErrors,
    int totalErrors) {

  public static Phase initial(int session, int consecutiveErrors, int totalErrors) {
    return new Phase(Lifecycle.INITIALIZING, session, null, null, consecutiveErrors, totalErrors);
  }

  Phase to(Lifecycle next) {
    return new Phase(next, session, null, null, consecutiveErrors, totalErrors);
  }

  Phase to(Lifecycle next, Long until, String why) {
    return new Phase(next, session, until, why, consecutiveErrors, totalErrors);
  }

  Phase withSession(int number) {
    return new Phase(state, number, untilMillis, reason, consecutiveErrors, totalErrors);
  }

  Phase withErrors(int consecutive, int total) {
    return new Phase(state, session, untilMillis, reason, consecutive, total);
  }

  public boolean terminal() {
    return state == Lifecycle.STOPPED;
  }
}
