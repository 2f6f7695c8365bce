package dev.colony.ant;

import dev.colony.supervision.Restart;
import java.util.List;

/**
 * The session under way (this run only): whether one runs, what it was given, and what asks to
 * interrupt it (an abort, a supervisor's restart). Reset when the session ends.
 */
final class CurrentSession {
  private boolean running;
  /** When the running (or last) session of this run began; null before the first. */
  private Long startedMillis;
  private boolean abortRequested;
  private Restart restartRequested;
  private List<String> messages = List.of();
  /** What each attempt of the running session reported spent so far (its latest report), by attempt. */
  private final java.util.TreeMap<Integer, Double> spent = new java.util.TreeMap<>();

  void begin(long nowMillis) {
    running = true;
    startedMillis = nowMillis;
    spent.clear();
  }

  /** A turn report said attempt {@code attempt} of the running session has spent {@code usd} so far. */
  void spent(int attempt, double usd) {
    // The latest figure counts, also a lower one (an estimate the engine's own cost replaced).
    if (usd >= 0 && Double.isFinite(usd) && (usd > 0 || spent.containsKey(attempt))) {
      spent.put(attempt, usd);
    }
  }

  /** What the running (or just ended) session's attempts reported spent, all attempts together. */
  double spentSoFar() {
    double sum = 0;
    for (double usd : spent.values()) {
      sum += usd;
    }
    return sum;
  }

  Long startedMillis() {
    return startedMillis;
  }

  /** The instructions the session was given (kept after it ends, for the overseer's view). */
  void delivered(List<String> messages) {
    this.messages = messages;
  }

  void ended() {
    running = false;
  }

  boolean running() {
    return running;
  }

  List<String> messages() {
    return messages;
  }

  /** {@code abort} arrived during the session: interrupt it and drop its task. */
  void requestAbort() {
    abortRequested = true;
  }

  boolean abortRequested() {
    return abortRequested;
  }

  void abortHandled() {
    abortRequested = false;
  }

  /** A supervisor's restart waiting to interrupt the session. */
  void requestRestart(Restart order) {
    restartRequested = order;
  }

  Restart restartRequested() {
    return restartRequested;
  }

  void restartHandled() {
    restartRequested = null;
  }

  /** The workflow code failed: nothing of the session is pending any more. */
  void reset() {
    running = false;
    abortRequested = false;
    restartRequested = null;
  }
}
