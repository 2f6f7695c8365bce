package dev.colony.merge;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Calls between workflows that need a client: an ant's updates to its repository's queue
 * (started on first use with the repository's settings), and the queue's changes to tasks.
 */
@ActivityInterface
public interface MergeDeskActivities {
  /** Update {@code submit} (with start) of {@code repo}'s queue. */
  @ActivityMethod(name = "SubmitMerge")
  SubmitReply submit(MergeRepo repo, Submission submission);

  /** Update {@code claimPaths} (with start) of {@code repo}'s queue. */
  @ActivityMethod(name = "ClaimPaths")
  PathReply claimPaths(MergeRepo repo, PathClaim claim);

  /** Signal {@code releasePaths} (best effort: a queue that is not running holds nothing). */
  @ActivityMethod(name = "ReleasePaths")
  void releasePaths(MergeRepo repo, String ant);

  /** The task of landed work moves to Done (a task already Done is left as it is). */
  @ActivityMethod(name = "FinishTask")
  void finishTask(String colony, String taskId, String comment);

  /** Work that needs rework: its task goes back to To Do, assigned to {@code ant}, with {@code comment}. */
  @ActivityMethod(name = "ReworkTask")
  void reworkTask(String colony, String taskId, String ant, String comment);

  /**
   * Work sent back to an ant that runs the rework as a session of its own: the task is not
   * requeued (that session fixes the item, and the task moves to Done when the item lands). It gets
   * {@code comment}; with {@code review} (the queue asks so when the fix has come), an approved task
   * (Done) goes back to In Review, for the approval the rework withdrew. A task in any other state
   * stays where it is; a Done task that stays Done gets no comment (a Done task takes none).
   */
  @ActivityMethod(name = "TaskInRework")
  void taskInRework(String colony, String taskId, String comment, boolean review);

  /**
   * The states of these tasks (a missing task is absent). In history each state is its constant's
   * name ({@code "DONE"}, {@code "IN_REVIEW"}, ...), as when this answer was a map of strings.
   */
  @ActivityMethod(name = "TaskStates")
  java.util.Map<String, dev.colony.task.TaskState> taskStates(String colony, java.util.List<String> taskIds);
}
