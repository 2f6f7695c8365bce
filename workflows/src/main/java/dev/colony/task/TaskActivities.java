package dev.colony.task;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/**
 * The ant's side of the board, run by any worker on the colony's queue: find work, claim it,
 * report on it (each an update to the task's workflow); and the task's side: wake the ants that
 * may take it, and look whether its ant still runs.
 */
@ActivityInterface
public interface TaskActivities {
  /** Visibility: this ant's own In Progress task, then the To Do tasks it may take, best first. */
  @ActivityMethod(name = "FindTasks")
  List<TaskCandidate> find(FindTasks find);

  /**
   * An ant's look in one call (run as a local activity: no round trip through the server between
   * finding and claiming): {@link #find}, then {@link #claim} on each candidate, best first, with
   * {@code claim}'s token, until one is taken. One token per look: a retried look repeats its
   * claims with it and gets their first answers. Refused when nothing could be taken.
   */
  @ActivityMethod(name = "TakeTask")
  ClaimResult take(FindTasks find, Claim claim);

  /** Update {@code claim} on {@code task/<colony>/<taskId>}; a refusal is a value, not a failure. */
  @ActivityMethod(name = "ClaimTask")
  ClaimResult claim(String colony, String taskId, Claim claim);

  /** Update {@code report}; a refusal (the task moved on without the ant) is a value. */
  @ActivityMethod(name = "ReportTask")
  TaskReply report(String colony, String taskId, TaskReport report);

  /**
   * Signals {@code tasksWaiting} to the colony's running ants whose {@code AntTakes} holds one of
   * {@code takeTags}; returns how many were told.
   */
  @ActivityMethod(name = "AnnounceTask")
  int announce(String colony, List<String> takeTags);

  /** Whether {@code ant/<colony>/<ant>} is running (an In Progress task whose ant is gone goes back to To Do). */
  @ActivityMethod(name = "AntRunning")
  boolean antRunning(String colony, String ant);

  /**
   * Whether {@code ant/<colony>/<ant>} still works on {@code taskId}: {@code holds} (its
   * {@code taskHeld} query names the task, or cannot be answered), {@code free} (it runs and holds
   * another task or none), {@code gone} (it does not run).
   */
  @ActivityMethod(name = "AntHoldsTask")
  String antHolds(String colony, String ant, String taskId);

  /**
   * Signals {@code taskWithdrawn} to the ant a human took its task from (best effort);
   * {@code withdrawn} is the task's id and the withdrawn claim's token ({@code "k7m2qx TOKEN"}).
   */
  @ActivityMethod(name = "WithdrawTask")
  void withdraw(String colony, String ant, String taskId);
}
