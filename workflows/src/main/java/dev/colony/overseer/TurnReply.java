package dev.colony.overseer;

import java.util.List;

/**
 * The {@code reportTurns} answer: whispers for the agent's next turn.
 *
 * @param whispers whispers not yet delivered, oldest first
 * @param evaluating an evaluation is still running (its whisper, if any, comes with a later report)
 */
public record TurnReply(List<Whisper> whispers, boolean evaluating) {
  public TurnReply {
    whispers = whispers == null ? List.of() : List.copyOf(whispers);
  }
}
