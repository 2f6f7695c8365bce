package dev.colony.client;

import dev.colony.client.ColonySource.SourceException;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.SubmitReply;
import io.temporal.client.WorkflowClient;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Every surface's {@link MergeSource} on the one merge queue client, {@link MergeQueues}: its cards
 * (a queue whose card is not written yet is not shown), a decision as the operator
 * ({@code console:<operator>}, or the surface given), and its failures in a surface's terms.
 */
public final class TemporalMergeSource implements MergeSource {
  private final MergeQueues queues;
  private final String colony;
  private final String via;

  /** The console's: a decision's identity is {@code console:<by>}. */
  public TemporalMergeSource(WorkflowClient client, String colony) {
    this(client, colony, "console");
  }

  /** A decision's identity is {@code <via>:<by>} ({@code mcp:claude-code (dana)}). */
  public TemporalMergeSource(WorkflowClient client, String colony, String via) {
    this.queues = new MergeQueues(client, colony);
    this.colony = colony;
    this.via = via;
  }

  @Override
  public List<MergeCard> cards() {
    try {
      return queues.cards().stream().filter(c -> !MergeQueues.unread(c)).toList();
    } catch (MergeQueues.MergeQueueException e) {
      throw new SourceException(e.getMessage(), e);
    }
  }

  @Override
  public SubmitReply decide(String repo, MergeDecision decision) {
    try {
      return queues.as(via + ":" + decision.by()).decide(repo, decision);
    } catch (MergeQueues.MergeQueueException e) {
      throw switch (e.kind()) {
        case NO_QUEUE -> new NoSuchElementException("no merge queue '" + repo + "' runs in colony '" + colony + "'");
        case REFUSED -> new Refused(e.getMessage(), e.getCause());
        case NO_WORKER -> new SourceException(e.getMessage(), e);
        case FAILED -> new SourceException("sending " + decision.action() + " to the merge queue '" + repo + "': "
            + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()), e);
      };
    }
  }
}
