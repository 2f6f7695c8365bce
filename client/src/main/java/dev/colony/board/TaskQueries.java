package dev.colony.board;

import dev.colony.client.BoundedUpdate;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskIds;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the board and the ants' task activities share about talking to tasks on Temporal: the
 * visibility queries (tasks share {@code ColonyName} with ants, so every one names its type),
 * reading a card from a memo, and reading an update's answer (a validator's refusal, a task that
 * is not there).
 */
public final class TaskQueries {
  private TaskQueries() {}

  /** What may go between quotes in a visibility query: the names and tags Colony makes have no quote or backslash. */
  private static final Pattern LITERAL = Pattern.compile("[^'\"\\\\\\p{Cntrl}]{1,300}");

  /** {@code 'value'}, for a visibility query; refuses what could break out of the quotes. */
  public static String literal(String value) {
    if (value == null || !LITERAL.matcher(value).matches()) {
      throw new IllegalArgumentException("'" + value + "' cannot be searched for");
    }
    return "'" + value + "'";
  }

  /** {@code ('a', 'b')}. */
  public static String inList(List<String> values) {
    return "(" + String.join(", ", values.stream().map(TaskQueries::literal).toList()) + ")";
  }

  /** Every task of {@code colony}, open or closed. */
  public static String tasksOf(String colony) {
    return "WorkflowType = " + literal(TaskIds.WORKFLOW_TYPE) + " AND ColonyName = " + literal(colony);
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

  /** Whether {@code e} says the task's workflow is not there (never was, or its run is over). */
  public static boolean notFound(Throwable e) {
    return BoundedUpdate.notFound(e);
  }
}
