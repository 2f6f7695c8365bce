package dev.colony.ant;

/**
 * A pause asked for (by a human, an error threshold, a budget cap, an escalation): its reason,
 * and when the loop began to pause (workflow time; null until it does). A pause asked for during
 * a session ("will pause after the current session") lives here until the loop reaches it; the
 * lifecycle phase then shows it ({@code PAUSED}/{@code PARKED}, with the budget window's end as
 * its {@code untilMillis}).
 */
final class PauseRequest {
  private String reason;
  private Long sinceMillis;

  /**
   * What it carries across continue-as-new (the JSON names of the ant's memory): a pause asked for
   * with no reason (memories of older code) is an operator's.
   */
  record Memory(boolean paused, String pauseReason, Long pausedSinceMillis) {}

  PauseRequest(String reason, Long sinceMillis) {
    this.reason = reason;
    this.sinceMillis = sinceMillis;
  }

  PauseRequest(Memory m) {
    this(m.paused() ? (m.pauseReason() == null ? AntState.OPERATOR : m.pauseReason()) : null, m.pausedSinceMillis());
  }

  Memory memory() {
    return new Memory(requested(), reason, sinceMillis);
  }

  boolean requested() {
    return reason != null;
  }

  /** Why; null while no pause is asked for. */
  String reason() {
    return reason;
  }

  boolean is(String r) {
    return r.equals(reason);
  }

  void request(String why) {
    reason = why;
  }

  void lift() {
    reason = null;
  }

  /** The loop begins to pause now (kept if it already had). */
  void began(long nowMillis) {
    if (sinceMillis == null) {
      sinceMillis = nowMillis;
    }
  }

  /** When the current pause began, to catch up cron ticks missed meanwhile. */
  Long sinceMillis() {
    return sinceMillis;
  }

  void ended() {
    sinceMillis = null;
  }
}
