package dev.colony.board;

import dev.colony.client.VisibilityQuery;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskIds;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;

/**
 * What the board and the ants' task activities share about talking to tasks on Temporal: the
 * visibility queries (tasks share {@code ColonyName} with ants, so every one names its type),
 * reading a card from a memo, and reading an update's answer (a validator's refusal; a task that is not
 * there is {@link dev.colony.client.Rpc#notFound}).
 */
public final class TaskQueries {
  private TaskQueries() {}

  /** Every task of {@code colony}, open or closed; narrow it with {@link VisibilityQuery}'s clauses. */
  public static VisibilityQuery tasksOf(String colony) {
    return VisibilityQuery.where().eq("WorkflowType", TaskIds.WORKFLOW_TYPE).eq("ColonyName", colony);
  }

  /** The card a task's workflow published, null when it has none (yet) or it cannot be read. */
  public static TaskCard card(WorkflowExecutionMetadata m) {
    try {
      return m.getMemo(TaskCard.MEMO_KEY, TaskCard.class, TaskCard.class);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** The sentence of a validator's (or handler's) refusal, null when {@code e} is not one. */
  public static String refusal(Throwable e) {
    if (e instanceof WorkflowUpdateException u && u.getCause() instanceof ApplicationFailure f) {
      return f.getOriginalMessage();
    }
    return null;
  }
}
