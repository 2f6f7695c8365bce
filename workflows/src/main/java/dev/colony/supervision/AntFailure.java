package dev.colony.supervision;

/**
 * What an ant tells its colony's supervisor.
 *
 * @param kind {@code parked} (an error threshold) or {@code unresponsive} (its session's activity
 *     gave up: the worker kept dying or stopped heartbeating): failures, which the group's strategy
 *     restarts; {@code budget} (a budget cap paused it) and {@code escalated} (its overseer
 *     paused it for humans): events for the log only. Null reads as
 *     {@code parked}.
 */
public record AntFailure(String ant, String reason, String kind) {
  public static final String PARKED = "parked";
  public static final String UNRESPONSIVE = "unresponsive";
  public static final String BUDGET = "budget";
  /** The ant's overseer escalated to humans and paused it: logged, alerted, not restarted. */
  public static final String ESCALATED = "escalated";
  /** A human answered an escalation with resume (or guidance): logged. */
  public static final String RESUMED = "resumed";
  /** A human answered an escalation with abort: logged. */
  public static final String ABORTED = "aborted";

  public AntFailure(String ant, String reason) {
    this(ant, reason, PARKED);
  }

  public AntFailure {
    kind = kind == null ? PARKED : kind;
  }

  /** Whether the supervisor restarts for it (else it is only logged). Not a bean getter: it must not become a JSON field. */
  public boolean callsForRestart() {
    return PARKED.equals(kind) || UNRESPONSIVE.equals(kind);
  }
}
