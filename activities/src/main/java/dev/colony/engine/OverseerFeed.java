package dev.colony.engine;

import dev.colony.overseer.Turn;
import java.util.List;

/**
 * The engine's side of the overseer: engines report each agent turn here and
 * deliver the whispers it hands back, privately, at the agent's next turn. Reporting never
 * blocks the engine.
 */
public interface OverseerFeed {
  /** The agent took a turn. */
  void turn(Turn turn);

  /**
   * Whispers (rendered, {@code [KIND] text}) for the agent, to give it now; taking them counts
   * as delivering them. Engines call this where they can put a message in front of the agent.
   */
  List<String> take();

  /**
   * Asks to be told when whispers are ready to {@link #take()}, from the feed's own thread: an
   * engine that can give a whisper at any time (a file the agent reads) does not wait for the
   * agent's next turn. Engines that can give whispers only at a turn ignore it.
   */
  default void onWhisper(Runnable listener) {}

  /** Output that is not a turn: the agent is not silent. */
  void activity();

  /**
   * What the session has spent so far, in US dollars: the engine's own figure, or its estimate
   * from the token usage reported so far. It reaches the workflow with the turn reports, which
   * charges it if the session ends without a result that says its cost.
   */
  default void spent(double usdSoFar) {}

  /** Sends what is left and stops; the session is over. */
  void close();

  /** For ants without an overseer: nothing is reported. */
  OverseerFeed NONE = new OverseerFeed() {
    @Override
    public void turn(Turn turn) {}

    @Override
    public List<String> take() {
      return List.of();
    }

    @Override
    public void activity() {}

    @Override
    public void close() {}
  };
}
