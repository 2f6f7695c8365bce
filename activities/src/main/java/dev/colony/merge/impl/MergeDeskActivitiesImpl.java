package dev.colony.merge.impl;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.client.Rpc;
import dev.colony.merge.MergeDeskActivities;
import dev.colony.merge.MergeQueueState;
import dev.colony.merge.MergeQueueWorkflow;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.SubmitReply;
import dev.colony.merge.Submission;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskState;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.activity.Activity;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.SearchAttributes;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The merge queue's calls that need a client. An ant's submission and claim are updates with start
 * of its repository's queue (started on first use, on this activity's own task queue, with the
 * repository's settings); a queue's refusal comes back as a non-retryable failure whose message
 * is the queue's sentence, never as endless retries. The task changes go through the board, where
 * "already so" (a task already Done, already To Do) is success.
 */
public final class MergeDeskActivitiesImpl implements MergeDeskActivities {
  private static final Logger log = LoggerFactory.getLogger(MergeDeskActivitiesImpl.class);
  /** Who the board records for the queue's changes. */
  static final String BY = "merge queue";
  /** The failure type of a queue's refusal. */
  public static final String REFUSED = dev.colony.merge.MergeQueueWorkflow.REFUSED;

  private final WorkflowClient client;
  private final Function<String, TaskBoard> boards;

  /** {@code boards}: the task board of a colony, by name. */
  public MergeDeskActivitiesImpl(WorkflowClient client, Function<String, TaskBoard> boards) {
    this.client = client;
    this.boards = boards;
  }

  @Override
  public SubmitReply submit(MergeRepo repo, Submission submission) {
    MergeQueueWorkflow queue = queue(repo);
    return withStart(repo, queue, SubmitReply.class, "submit",
        op -> WorkflowClient.executeUpdateWithStart(queue::submit, submission, options(SubmitReply.class, "submit"),
            op));
  }

  @Override
  public PathReply claimPaths(MergeRepo repo, PathClaim claim) {
    MergeQueueWorkflow queue = queue(repo);
    return withStart(repo, queue, PathReply.class, "claim",
        op -> WorkflowClient.executeUpdateWithStart(queue::claimPaths, claim, options(PathReply.class, "claim"), op));
  }

  @Override
  public void releasePaths(MergeRepo repo, String ant) {
    try {
      client.newUntypedWorkflowStub(repo.workflowId()).signal("releasePaths", ant);
    } catch (io.temporal.client.WorkflowException e) {
      if (!Rpc.notFound(e)) {
        throw e;
      }
      // a queue that is not running holds no claims
    }
  }

  @Override
  public void finishTask(String colony, String taskId, String comment) {
    TaskBoard board = boards.apply(colony);
    TaskCard card = board.get(taskId);
    if (card == null || card.state() == TaskState.DONE) {
      return; // no such task (deleted), or already Done
    }
    try {
      board.move(taskId, new TaskChange(BY, TaskState.DONE, null, comment));
    } catch (TaskBoardException e) {
      TaskCard now = board.get(taskId);
      if (now == null || now.state() == TaskState.DONE) {
        return;
      }
      throw e;
    }
  }

  @Override
  public void reworkTask(String colony, String taskId, String ant, String comment) {
    TaskBoard board = boards.apply(colony);
    TaskCard card = board.get(taskId);
    if (card == null) {
      return;
    }
    String text = comment == null || comment.isBlank() ? "the merge queue sent this work back for rework"
        : comment.length() <= dev.colony.task.TaskLimits.COMMENT ? comment
        : dev.colony.text.SafeText.cut(comment, dev.colony.task.TaskLimits.COMMENT - 1) + "…";
    if (card.state() == TaskState.TODO) {
      // already back in To Do (a retry after the requeue landed, or a human did it): make sure of the rest
      quietly(() -> board.assign(taskId, new TaskChange(BY, null, ant, null)));
      if (card.comments().isEmpty() || !text.equals(card.comments().get(card.comments().size() - 1).text())) {
        quietly(() -> board.comment(taskId, TaskChange.comment(BY, text)));
      }
      return;
    }
    try {
      if (card.state() == TaskState.DONE || card.state() == TaskState.BACKLOG) {
        board.move(taskId, new TaskChange(BY, TaskState.TODO, null, "the merge queue sent the work back"));
        quietly(() -> board.assign(taskId, new TaskChange(BY, null, ant, null)));
        board.comment(taskId, TaskChange.comment(BY, text));
        return;
      }
      board.requeue(taskId, new TaskChange(BY, null, ant, text));
    } catch (TaskBoardException e) {
      TaskCard now = board.get(taskId);
      if (now == null || now.state() == TaskState.TODO) {
        return; // already so
      }
      throw e;
    }
  }

  @Override
  public void taskInRework(String colony, String taskId, String comment, boolean review) {
    TaskBoard board = boards.apply(colony);
    TaskCard card = board.get(taskId);
    if (card == null) {
      return;
    }
    if (review && card.state() == TaskState.DONE) {
      try {
        board.move(taskId, new TaskChange(BY, TaskState.IN_REVIEW, null,
            "the fix of the work the merge queue sent back came: approve it to let it land"));
      } catch (TaskBoardException e) {
        TaskCard now = board.get(taskId);
        if (now == null) {
          return;
        }
        if (now.state() == TaskState.DONE) {
          throw e;
        } // else already moved (a retry), or a human moved it meanwhile
      }
      card = board.get(taskId);
      if (card == null) {
        return;
      }
    }
    if (card.state() == TaskState.DONE) {
      // Done without review (a human moved it), or with review until its fix comes: a Done task takes
      // no comment (its run is over), and a refused one would retry the activity for minutes
      return;
    }
    String text = reworkText(comment);
    if (card.comments().isEmpty() || !text.equals(card.comments().get(card.comments().size() - 1).text())) {
      board.comment(taskId, TaskChange.comment(BY, text)); // (a retry after it was written adds nothing)
    }
  }

  private static String reworkText(String comment) {
    return comment == null || comment.isBlank() ? "the merge queue sent this work back for rework"
        : comment.length() <= dev.colony.task.TaskLimits.COMMENT ? comment
        : dev.colony.text.SafeText.cut(comment, dev.colony.task.TaskLimits.COMMENT - 1) + "…";
  }

  @Override
  public Map<String, TaskState> taskStates(String colony, List<String> taskIds) {
    TaskBoard board = boards.apply(colony);
    Map<String, TaskState> out = new TreeMap<>();
    for (String id : taskIds == null ? List.<String>of() : taskIds) {
      TaskCard card = board.get(id);
      if (card != null) {
        out.put(id, card.state());
      }
    }
    return out;
  }

  // ---- helpers ----

  private MergeQueueWorkflow queue(MergeRepo repo) {
    String taskQueue = Activity.getExecutionContext().getInfo().getActivityTaskQueue();
    return client.newWorkflowStub(MergeQueueWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(repo.workflowId())
        .setTaskQueue(taskQueue)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .setTypedSearchAttributes(SearchAttributes.newBuilder().set(AntSearchAttributes.COLONY, repo.colony()).build())
        .setStaticSummary("merge queue of " + repo.name() + " → " + repo.target())
        .build());
  }

  private static <T> UpdateOptions<T> options(Class<T> type, String what) {
    var info = Activity.getExecutionContext().getInfo();
    // One update id per activity: a retry after the update was applied gets the first answer again.
    return UpdateOptions.newBuilder(type)
        .setUpdateId(what + "/" + info.getWorkflowId() + "/" + info.getRunId() + "/" + info.getActivityId())
        .setWaitForStage(WorkflowUpdateStage.COMPLETED)
        .build();
  }

  private interface Call<T> {
    T run(WithStartWorkflowOperation<Void> op);
  }

  private <T> T withStart(MergeRepo repo, MergeQueueWorkflow queue, Class<T> type, String what, Call<T> call) {
    WithStartWorkflowOperation<Void> op = new WithStartWorkflowOperation<>(queue::run, MergeQueueState.start(repo));
    try {
      return call.run(op);
    } catch (WorkflowUpdateException e) {
      // the queue's validator (or handler) refused: its sentence, and no retry would change it
      Throwable c = e.getCause();
      String why = c instanceof ApplicationFailure a ? a.getOriginalMessage() : c == null ? e.getMessage() : c.getMessage();
      log.info("merge {}: {} refused: {}", repo.name(), what, why);
      throw ApplicationFailure.newNonRetryableFailure(why, REFUSED);
    }
  }

  private static void quietly(Runnable r) {
    try {
      r.run();
    } catch (TaskBoardException e) {
      log.debug("merge queue: {}", e.getMessage());
    }
  }
}
