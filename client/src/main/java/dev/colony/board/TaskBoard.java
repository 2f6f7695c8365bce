package dev.colony.board;

import dev.colony.task.NewTask;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskState;
import java.util.List;

/**
 * The board as every surface drives it (the CLI, the console, the chats, the GitHub intake): reads
 * are visibility queries and memos (no worker needed), changes are updates to the task's workflow
 * (a worker applies them; the answer waits for it, within a bound). Every failure is a
 * {@link TaskBoardException} whose message is one sentence a person can act on.
 */
public interface TaskBoard {
  /** Adds a task (its id is made when {@code task.id()} is null) and wakes the ants that may take it. */
  TaskCard add(NewTask task);

  /**
   * Tasks of the colony, newest change first, at most {@code filter.limit()}: open ones, and Done
   * ones while visibility keeps them. With a state, the newest {@code limit} of that column (by
   * when they entered the board) are read and sorted, so the first cards of a column come fast
   * however long it is.
   */
  List<TaskCard> list(Filter filter);

  /** How many tasks {@code filter} matches (its limit does not count); a visibility count on Temporal. */
  default long count(Filter filter) {
    return list(new Filter(filter.state(), filter.assignee(), filter.label(), filter.worker(), 10_000)).size();
  }

  /** One task, from its memo; null when there is none with this id. */
  TaskCard get(String id);

  TaskCard approve(String id, TaskChange change);

  TaskCard requeue(String id, TaskChange change);

  /** Any column; out of Done it starts the task's next run. */
  TaskCard move(String id, TaskChange change);

  TaskCard assign(String id, TaskChange change);

  TaskCard comment(String id, TaskChange change);

  /**
   * What to list. Null fields do not filter.
   *
   * @param assignee as written ({@code alpha}, {@code pool:docs}, {@code @alice}, {@code -} for nobody)
   * @param label a label
   * @param worker the ant working on it (In Progress)
   * @param limit at most this many (the console's board reads up to 10,000)
   */
  record Filter(TaskState state, String assignee, String label, String worker, int limit) {
    public static Filter all(int limit) {
      return new Filter(null, null, null, null, limit);
    }
  }
}
