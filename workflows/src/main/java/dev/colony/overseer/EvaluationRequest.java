package dev.colony.overseer;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One evaluation: the agent's task and its recent turns. Holds no secret: the worker reads the
 * provider's API key from its own environment (or the colony's {@code .env}).
 *
 * @param colonyDir where the colony's {@code .env} is
 * @param task the ant's instructions and the current session's messages, bounded
 * @param window the recent turns, oldest first
 * @param strikes flagged evaluations in a row so far (0: none; the ladder's step)
 * @param lastPattern what the previous flagged evaluation saw, or null
 */
public record EvaluationRequest(String ant, String colonyDir, @JsonProperty("supervisor") @JsonAlias("overseer") OverseerSpec overseer, String task,
    List<Turn> window, int strikes, Pattern lastPattern) {
  public EvaluationRequest {
    window = window == null ? List.of() : List.copyOf(window);
  }
}
