package dev.colony.session;

import dev.colony.errorpolicy.Outcome;

/**
 * What a session came to. Engine failures are values here, never exceptions: the workflow
 * decides what to do with each outcome.
 *
 * @param detail one short line for operators (error text or a summary)
 * @param resetAtEpochMillis when a rate limit lifts, if the engine said so
 * @param transcript path of the full session output on the worker's disk
 * @param work with a task: the commits on the ant's branch since the task began (its
 *     {@code baseCommit}, or this session's start when it had none), else null
 */
public record SessionResult(
    Outcome outcome,
    String detail,
    Long resetAtEpochMillis,
    int turns,
    double costUsd,
    long inputTokens,
    long outputTokens,
    long durationMillis,
    String sessionId,
    String transcript,
    dev.colony.task.TaskWork work) {

  public SessionResult(Outcome outcome, String detail, Long resetAtEpochMillis, int turns, double costUsd,
      long inputTokens, long outputTokens, long durationMillis, String sessionId, String transcript) {
    this(outcome, detail, resetAtEpochMillis, turns, costUsd, inputTokens, outputTokens, durationMillis, sessionId,
        transcript, null);
  }

  public SessionResult withWork(dev.colony.task.TaskWork w) {
    return new SessionResult(outcome, detail, resetAtEpochMillis, turns, costUsd, inputTokens, outputTokens,
        durationMillis, sessionId, transcript, w);
  }

  /** The same result costing {@code usd}. */
  public SessionResult withCost(double usd) {
    return new SessionResult(outcome, detail, resetAtEpochMillis, turns, usd, inputTokens, outputTokens,
        durationMillis, sessionId, transcript, work);
  }

  public static SessionResult of(Outcome outcome, String detail) {
    return new SessionResult(outcome, detail, null, 0, 0, 0, 0, 0, null, null);
  }

  public static SessionResult rateLimited(String detail, Long resetAtEpochMillis) {
    return new SessionResult(Outcome.RATE_LIMIT, detail, resetAtEpochMillis, 0, 0, 0, 0, 0, null, null);
  }
}
