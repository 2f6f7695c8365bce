package dev.colony.task;

/**
 * Cards made outside a task's workflow, by the same rules as inside: the card a new task starts
 * with (the board sets it as the start's memo, so the task is listed before its first workflow
 * task runs), and the card a Done task is reopened with (its next run starts from it).
 */
public final class TaskCards {
  private TaskCards() {}

  /** The card of {@code task} added at {@code nowMillis}, cleaned and bounded as the workflow keeps it. */
  public static TaskCard fresh(String colony, NewTask task, long nowMillis) {
    return TaskSheet.fresh(colony, task, nowMillis).card();
  }

  /**
   * {@code done} reopened by {@code change} (a move to {@code change.to()}, or with {@code requeue} a
   * re-queue to To Do with its comment). Throws {@link IllegalArgumentException} with the sentence
   * when the change does not fit.
   */
  public static TaskCard reopened(TaskCard done, TaskChange change, boolean requeue, long nowMillis) {
    TaskSheet s = TaskSheet.of(done);
    s.state = TaskState.DONE;
    s.claimToken = null;
    String by = TaskText.by(change == null ? null : change.by());
    if (requeue) {
      if (change == null || TaskText.clean(change.text()) == null) {
        throw new IllegalArgumentException("a re-queue needs a comment saying what to do differently");
      }
      String problem = TaskText.commentProblem(change.text(), "the re-queue's comment");
      problem = problem != null ? problem : TaskRules.assigneeProblem(change.assignee());
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
      s.comment(by, TaskText.clean(change.text()), nowMillis);
      if (change.assignee() != null) {
        s.assignee = Assignee.parse(change.assignee());
      }
      s.moveTo(TaskState.TODO, by, "reopened and re-queued by " + by, nowMillis);
      return s.card();
    }
    String problem = TaskRules.move(s, change);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    s.moveTo(change.to(), by, TaskText.clean(change.text()) == null ? "reopened by " + by : TaskText.clean(change.text()),
        nowMillis);
    return s.card();
  }
}
