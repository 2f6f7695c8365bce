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
 */
public record TurnReport(int session, List<Turn> turns, List<String> delivered, long silentSeconds, boolean last) {
  public static final int MAX_TURNS = 100;
  public static final int MAX_DELIVERED = 100;

  public TurnReport {
    turns = turns == null ? List.of() : List.copyOf(turns);
    delivered = delivered == null ? List.of() : List.copyOf(delivered);
  }

  /** A report while the session runs. */
  public TurnReport(int session, List<Turn> turns, List<String> delivered, long silentSeconds) {
    this(session, turns, delivered, silentSeconds, false);
  }
}
