package dev.colony.client;

import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.SubmitReply;
import java.util.List;

/**
 * Where every surface (the console, the MCP servers) reads the colony's merge queues and sends a human's decisions: Temporal
 * ({@link TemporalMergeSource}: visibility and the memo {@value MergeCard#MEMO}, the {@code decide}
 * update) or, in tests, an in-memory one.
 */
public interface MergeSource {
  /** The cards of the colony's running queues, sorted by repository name. */
  List<MergeCard> cards();

  /**
   * Sends {@code decision} to the queue of {@code repo} and returns its answer; throws
   * {@link java.util.NoSuchElementException} when no such queue runs, {@link Refused} (the queue's
   * own sentence) when its validator refused, {@link ColonySource.SourceException} when Temporal
   * or a worker did not answer.
   */
  SubmitReply decide(String repo, MergeDecision decision);

  /** The queue refused the decision (no such item, not in a state that takes it): one sentence, a 409. */
  final class Refused extends RuntimeException {
    public Refused(String message) {
      super(message);
    }

    public Refused(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
