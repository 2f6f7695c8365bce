package dev.colony.ant;

/**
 * Signals that ask the current timed wait to end now (a pause, a resume, a message, a restart, an
 * abort, an escalation) are counted, never set and cleared: a wait remembers the count when it is
 * scheduled and ends when the count has moved since. A request cannot be left behind for a later
 * wait, and one cannot be missed by a wait it arrived for.
 */
final class WakeRequests {
  private long requested;
  private long seenByWait;

  /** A signal asks the current wait to end. */
  void request() {
    requested++;
  }

  /** A wait is scheduled: only requests from now on end it. */
  void waitScheduled() {
    seenByWait = requested;
  }

  /** Did a request arrive since the current wait was scheduled? */
  boolean sinceWaitScheduled() {
    return requested != seenByWait;
  }
}
