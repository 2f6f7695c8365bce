package dev.colony.autonomy;

/**
 * A confirmation waiting for a decision, as shown by {@code status} and the console's inbox.
 *
 * @param deadline ISO-8601 instant at which it is denied by default
 * @param requestedAtMillis when the agent asked (workflow time); null from runs recorded before it
 *     was kept
 */
public record PendingConfirmation(int id, int session, String tool, String summary, String reason,
    String deadline, Long requestedAtMillis) {

  /** Without the request's time (as before it was kept). */
  public PendingConfirmation(int id, int session, String tool, String summary, String reason, String deadline) {
    this(id, session, tool, summary, reason, deadline, null);
  }
}
