package dev.colony.lease;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * A lease held by one process at a time, kept in Temporal so every worker on every host agrees
 * who holds it. The holder renews it well within {@code ttlMillis}; once it stops (killed, cut
 * off), the next candidate to ask gets it. Used to keep exactly one Discord gateway session per
 * bot token.
 */
@WorkflowInterface
public interface LeaseWorkflow {
  @WorkflowMethod(name = "Lease")
  void run(LeaseState state);

  /** Takes or renews the lease for {@code candidate}; true when it holds the lease now. */
  @UpdateMethod(name = "acquire")
  boolean acquire(String candidate, long ttlMillis);

  /** Gives the lease up (a worker stopping cleanly), so another takes over at once. */
  @SignalMethod(name = "release")
  void release(String candidate);

  @QueryMethod(name = "holder")
  LeaseState holder();

  /** Who holds the lease and when (workflow time) it was last renewed. */
  record LeaseState(String holder, long renewedAtMillis, long ttlMillis) {}

  /** Move to the worker deployment's current version (sent by {@code colony upgrade}). */
  @SignalMethod(name = "upgrade")
  void upgrade();
}
