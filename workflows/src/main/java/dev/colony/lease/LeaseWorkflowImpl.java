package dev.colony.lease;

import dev.colony.upgrade.Upgrade;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/** See {@link LeaseWorkflow}. Continues as new every few hundred renewals to bound its history. */
public final class LeaseWorkflowImpl implements LeaseWorkflow {
  private final Upgrade upgrade = new Upgrade();
  private static final Logger log = Workflow.getLogger(LeaseWorkflowImpl.class);
  static final int RENEWALS_PER_RUN = 500;

  private String holder;
  private long renewedAt;
  private long ttl;
  private int renewals;

  @Override
  public void run(LeaseState state) {
    if (state != null) {
      holder = state.holder();
      renewedAt = state.renewedAtMillis();
      ttl = state.ttlMillis();
    }
    Workflow.await(() -> (renewals >= RENEWALS_PER_RUN || upgrade.due()) && Workflow.isEveryHandlerFinished());
    Upgrade.continueAsNew(new LeaseState(holder, renewedAt, ttl));
  }

  @Override
  public boolean acquire(String candidate, long ttlMillis) {
    renewals++;
    long now = Workflow.currentTimeMillis();
    boolean free = holder == null || now - renewedAt > ttl;
    if (free || holder.equals(candidate)) {
      if (!candidate.equals(holder)) {
        log.info("lease: {} takes over from {}", candidate, holder);
      }
      holder = candidate;
      renewedAt = now;
      ttl = ttlMillis;
      return true;
    }
    return false;
  }

  @Override
  public void release(String candidate) {
    if (candidate.equals(holder)) {
      holder = null;
    }
  }

  @Override
  public LeaseState holder() {
    return new LeaseState(holder, renewedAt, ttl);
  }

  @Override
  public void upgrade() {
    upgrade.request();
  }
}
