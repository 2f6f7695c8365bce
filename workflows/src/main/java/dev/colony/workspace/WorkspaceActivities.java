package dev.colony.workspace;

import dev.colony.spec.AntSpec;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * An ant's working directory, and the host that holds it. Every worker serves these on the
 * colony's task queue and on its own host queue ({@link #hostQueue}): an ant claims a host once
 * (whichever worker picks up {@link #claimHost} on the shared queue), then runs its sessions (which prepare
 * the workspace first) on that host's queue, so they always find the worktree they left.
 */
@ActivityInterface
public interface WorkspaceActivities {
  /** @return absolute path of the ant's workspace. Idempotent: calling it again returns the same place. */
  @ActivityMethod(name = "PrepareWorkspace")
  String prepareWorkspace(AntSpec spec);

  /**
   * @return the name of the host of the worker that runs this: the ant's new home; "" from a
   *     worker without a host queue (the ant then runs anywhere on the shared queue)
   */
  @ActivityMethod(name = "ClaimHost")
  String claimHost();

  /**
   * Has a worker polled {@code queue} lately (within about a minute)? Tells a host that is gone
   * from one that is only busy, when a task waited on its queue for {@code move_after}.
   */
  @ActivityMethod(name = "HostPolling")
  boolean hostPolling(String queue);

  /** A workspace preparer without hosts (tests, single-process runs): every ant stays on the shared queue. */
  static WorkspaceActivities anywhere(java.util.function.Function<AntSpec, String> prepare) {
    return new WorkspaceActivities() {
      @Override
      public String prepareWorkspace(AntSpec spec) {
        return prepare.apply(spec);
      }

      @Override
      public String claimHost() {
        return "";
      }

      @Override
      public boolean hostPolling(String queue) {
        return false;
      }
    };
  }

  /** The task queue of one host's workspace and session activities. */
  static String hostQueue(String taskQueue, String host) {
    return taskQueue + "@" + host;
  }
}
