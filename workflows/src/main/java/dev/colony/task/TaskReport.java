package dev.colony.task;

/**
 * What the ant working on a task reports (update {@code report}), with the claim's token; a
 * report for a claim that no longer holds the task (a human moved or re-queued it) is refused.
 *
 * @param kind SUBMITTED: the work is done (to In Review, or Done when {@code done}); FAILED: a
 *     session failed, the task stays In Progress; BLOCKED: the ant parked, or ran out of tries;
 *     RELEASED: the ant stopped, the task goes back to To Do
 * @param text the session's summary, the failure, or the reason
 * @param session the session it is about (null for RELEASED)
 * @param work the commits so far (null when none is known)
 */
public record TaskReport(Kind kind, String ant, String token, String text, TaskSessionLink session, TaskWork work,
    boolean done) {
  public enum Kind { SUBMITTED, FAILED, BLOCKED, RELEASED }
}
