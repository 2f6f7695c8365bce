package dev.colony.console;

import com.google.protobuf.ByteString;
import dev.colony.client.BoundedUpdate;
import dev.colony.merge.desk.MergeQueueClient;
import dev.colony.console.ColonySource.SourceException;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDecision;
import dev.colony.merge.MergeQueueWorkflow;
import dev.colony.merge.SubmitReply;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.common.converter.DataConverter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;

/**
 * The colony's merge queues as Temporal holds them: the running {@code MergeQueue} workflows of the
 * colony in visibility, each card read from its memo (no worker needed to read); a decision is the
 * queue's {@code decide} update, bounded (the SDK's own update call would wait for a worker without end).
 */
public final class TemporalMergeSource implements MergeSource {
  /** How long a decision waits for the queue's worker to answer. */
  static final Duration ANSWER_WITHIN = BoundedUpdate.ANSWER_WITHIN;
  private static final Duration LIST_DEADLINE = Duration.ofSeconds(10);
  /** More queues than any colony has repositories. */
  private static final int MAX_QUEUES = 200;

  private final WorkflowClient client;
  private final String colony;
  private final String namespace;
  private final DataConverter converter;

  public TemporalMergeSource(WorkflowClient client, String colony) {
    this.client = client;
    this.colony = colony;
    this.namespace = client.getOptions().getNamespace();
    this.converter = client.getOptions().getDataConverter();
  }

  /** The visibility query of the colony's running queues. */
  static String query(String colony) {
    return MergeQueueClient.runningQuery(colony);
  }

  @Override
  public List<MergeCard> cards() {
    List<MergeCard> out = new ArrayList<>();
    ByteString token = ByteString.EMPTY;
    try {
      do {
        ListWorkflowExecutionsResponse r = client.getWorkflowServiceStubs().blockingStub()
            .withDeadlineAfter(LIST_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
            .listWorkflowExecutions(ListWorkflowExecutionsRequest.newBuilder().setNamespace(namespace)
                .setQuery(query(colony)).setPageSize(100).setNextPageToken(token).build());
        for (WorkflowExecutionInfo info : r.getExecutionsList()) {
          MergeCard c = card(info);
          if (c != null) {
            out.add(c);
          }
        }
        token = r.getNextPageToken();
      } while (!token.isEmpty() && out.size() < MAX_QUEUES);
    } catch (StatusRuntimeException e) {
      throw new SourceException("listing the merge queues: Temporal answered " + e.getStatus().getCode()
          + (e.getStatus().getDescription() == null ? "" : " (" + e.getStatus().getDescription() + ")"), e);
    }
    // A queue that continued as new may show twice for a moment: the newest card wins.
    java.util.Map<String, MergeCard> byRepo = new java.util.TreeMap<>();
    for (MergeCard c : out) {
      byRepo.merge(c.repo(), c, (a, b) -> a.updatedAt() >= b.updatedAt() ? a : b);
    }
    return List.copyOf(byRepo.values());
  }

  /** A queue's memo card; null when it has none yet or it is unreadable (a newer release's card). */
  MergeCard card(WorkflowExecutionInfo info) {
    try {
      MergeCard c = new WorkflowExecutionMetadata(info, converter).getMemo(MergeCard.MEMO, MergeCard.class, MergeCard.class);
      if (c == null || c.repo() == null) {
        return null;
      }
      return c;
    } catch (RuntimeException unreadable) {
      return null;
    }
  }

  @Override
  public SubmitReply decide(String repo, MergeDecision decision) {
    try {
      return new BoundedUpdate(client, colony).within(ANSWER_WITHIN).as("console:" + decision.by())
          .call(MergeQueueWorkflow.workflowId(colony, repo), "decide", decision, SubmitReply.class);
    } catch (BoundedUpdate.NotRunning e) {
      throw new NoSuchElementException("no merge queue '" + repo + "' runs in colony '" + colony + "'");
    } catch (BoundedUpdate.Refused e) {
      throw new Refused(e.getMessage(), e.getCause());
    } catch (BoundedUpdate.Unreachable e) {
      throw new SourceException("sending " + decision.action() + " to the merge queue '" + repo + "': " + e.getMessage(), e);
    } catch (BoundedUpdate.NoWorker e) {
      throw new SourceException(e.getMessage(), e);
    }
  }
}
