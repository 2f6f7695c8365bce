package dev.colony.board;

import dev.colony.task.NewTask;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskSettings;
import io.temporal.client.WorkflowClient;
import java.util.List;

/**
 * The board on a Temporal namespace: tasks are {@code TaskWorkflow}s on the colony's task queue.
 * (Skeleton: the task-core helper implements it; the constructor is the contract.)
 */
public final class TemporalTaskBoard implements TaskBoard {
  private final WorkflowClient client;
  private final String colony;
  private final TaskSettings settings;

  public TemporalTaskBoard(WorkflowClient client, String colony, TaskSettings settings) {
    this.client = client;
    this.colony = colony;
    this.settings = settings == null ? TaskSettings.defaults() : settings;
  }

  @Override
  public TaskCard add(NewTask task) {
    throw new UnsupportedOperationException("not built yet");
  }

  @Override
  public List<TaskCard> list(Filter filter) {
    throw new UnsupportedOperationException("not built yet");
  }

  @Override
  public TaskCard get(String id) {
    throw new UnsupportedOperationException("not built yet");
  }

  @Override
  public TaskCard approve(String id, TaskChange change) {
    throw new UnsupportedOperationException("not built yet");
  }

  @Override
  public TaskCard requeue(String id, TaskChange change) {
    throw new UnsupportedOperationException("not built yet");
  }

  @Override
  public TaskCard move(String id, TaskChange change) {
    throw new UnsupportedOperationException("not built yet");
  }

  @Override
  public TaskCard assign(String id, TaskChange change) {
    throw new UnsupportedOperationException("not built yet");
  }

  @Override
  public TaskCard comment(String id, TaskChange change) {
    throw new UnsupportedOperationException("not built yet");
  }
}
