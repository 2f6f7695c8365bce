package dev.colony.session;

/**
 * The one prefix of a session's log lines, on the worker that runs its agent and in the ant's
 * workflow alike: {@code run=<run id> session=<n> }. The worker's logger (slf4j-simple) prints no
 * MDC, so the run and the session are in the text, and a line is found with
 * {@code grep 'run=RUN session=N '} beside the trace that carries the same two values
 * ({@code colony.run_id}, {@code colony.session}).
 */
public final class SessionLog {
  private SessionLog() {}

  /** {@code run=<runId> session=<session> }, with its trailing space. */
  public static String prefix(String runId, int session) {
    return "run=" + (runId == null || runId.isEmpty() ? "-" : runId) + " session=" + session + " ";
  }
}
