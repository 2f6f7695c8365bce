package dev.colony.overseer;

import java.util.List;

/**
 * A batch of turns from a running session, sent with the {@code reportTurns} update.
 *
 * @param session the session the turns belong to
 * @param turns the turns since the last report, oldest first (at most {@link #MAX_TURNS})
 * @param delivered ids of whispers the engine has given to the agent since the last report
 * @param silentSeconds non-zero when the agent has been silent this long (no turn, no tool
 *     running, no human awaited): a STALLING observation
 * @param last the session's last report, sent as it ends: the turns it leaves unevaluated are
 *     evaluated now, even fewer than {@code eval_interval} (absent in reports of older workers)
 * @param attempt the session activity's attempt that sent it (1, or more after a worker died); 0
 *     in reports sent before it was kept
 * @param spentUsd what this attempt of the session has spent so far, as its engine reported it (or
 *     estimated it from token usage); the workflow charges it when the session ends without a
 *     result that says its cost (stopped, interrupted, its worker or host lost)
 */
public record TurnReport(int session, List<Turn> turns, List<String> delivered, long silentSeconds, boolean last,
    int attempt, double spentUsd) {
  public static final int MAX_TURNS = 100;
  public static final int MAX_DELIVERED = 100;
  /** A spend beyond this is not one an engine reported. */
  public static final double MAX_SPENT_USD = 1_000_000;

  public TurnReport {
    turns = turns == null ? List.of() : List.copyOf(turns);
    delivered = delivered == null ? List.of() : List.copyOf(delivered);
  }

  /** A report while the session runs, without the spend (the overseer's tests, reports of old workers). */
  public TurnReport(int session, List<Turn> turns, List<String> delivered, long silentSeconds) {
    this(session, turns, delivered, silentSeconds, false, 0, 0);
  }

  /** Without the spend. */
  public TurnReport(int session, List<Turn> turns, List<String> delivered, long silentSeconds, boolean last) {
    this(session, turns, delivered, silentSeconds, last, 0, 0);
  }

  /** A report while the session runs, with its spend so far. */
  public TurnReport(int session, List<Turn> turns, List<String> delivered, long silentSeconds, int attempt,
      double spentUsd) {
    this(session, turns, delivered, silentSeconds, false, attempt, spentUsd);
  }
}
