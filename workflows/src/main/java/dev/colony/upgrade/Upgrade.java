package dev.colony.upgrade;

import io.temporal.common.InitialVersioningBehavior;
import io.temporal.workflow.ContinueAsNewOptions;
import io.temporal.workflow.Workflow;

/**
 * How Colony's long-lived workflows move to a new release (see "Upgrading Colony" in docs/operations.md).
 * Under Worker Versioning a run is pinned to the worker deployment version that started it, so it
 * only ever replays on the code that recorded it. When a newer version becomes the deployment's
 * current one, the server says so on the run's next workflow task; the run then continues as new,
 * at a point where nothing is in flight, and the new run starts on the current version.
 */
public final class Upgrade {
  private boolean requested;

  /**
   * The {@code upgrade} signal ({@code colony upgrade} sends it once the new version is current):
   * move at the next safe point. The server's own notice comes only with a workflow task it
   * dispatches itself, not with one that goes to the worker's sticky queue, so the signal decides.
   */
  public void request() {
    requested = true;
  }

  /** This run should continue as new onto the deployment's current version. */
  public boolean due() {
    return requested || Workflow.getInfo().isTargetWorkerDeploymentVersionChanged();
  }

  /**
   * Continues as new on the deployment's current version. Without it a pinned run's next run
   * would inherit the old version; without Worker Versioning the option has no effect.
   */
  public static void continueAsNew(Object... args) {
    Workflow.continueAsNew(ContinueAsNewOptions.newBuilder()
        .setInitialVersioningBehavior(InitialVersioningBehavior.AUTO_UPGRADE)
        .build(), args);
  }
}
