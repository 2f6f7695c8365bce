package dev.colony.ant;

import dev.colony.chat.OperatorMessages;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.workspace.WorkspaceActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Where the ant's workspace lives. The ant claims a host (the worker that picks up the claim on
 * the shared queue), then runs its sessions on that host's queue; when nobody polls there for
 * {@code move_after}, it moves to another host.
 */
final class HostAffinity {
  private static final int MAX_PATIENCE = 64;
  private final AntState ant;
  private final Outbox outbox;
  /**
   * Multiplies {@code move_after} for the next task on the host's queue: doubled each time a task
   * waited that long on a host that still polls (busy, not gone), so a backlog longer than
   * {@code move_after} is still worked through; back to 1 once a task starts.
   */
  private int patience = 1;

  HostAffinity(AntState ant, Outbox outbox) {
    this.ant = ant;
    this.outbox = outbox;
  }

  /** Claims a host unless the ant has one. */
  void ensureClaimed() {
    if (ant.host() == null) {
      ant.bindHost(claim());
    }
  }

  /** A task reached the host: it is alive and not swamped. */
  void reached() {
    patience = 1;
  }

  /**
   * Sends an activity to the ant's host. Nobody picking it up within {@code move_after} means the
   * host is gone: the schedule-to-start timeout is never retried, so the ant hears of it and moves.
   */
  ActivityOptions.Builder onHost(ActivityOptions.Builder options) {
    if (ant.hostBound()) {
      options.setTaskQueue(WorkspaceActivities.hostQueue(Workflow.getInfo().getTaskQueue(), ant.host()))
          .setScheduleToStartTimeout(Duration.ofSeconds(ant.moveAfterSeconds() * patience));
    }
    return options;
  }

  /** Did the activity fail because its task waited {@code move_after} on the host's queue? */
  static boolean gone(ActivityFailure f) {
    return f.getCause() instanceof TimeoutFailure t && t.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  }

  /**
   * A task waited {@code move_after} on the host's queue. A host whose worker still polls is busy:
   * wait longer next time. One nobody polls is gone: move.
   */
  void timedOut() {
    boolean polled;
    try {
      polled = Workflow.newActivityStub(WorkspaceActivities.class, ActivityOptions.newBuilder(dev.colony.Activities.HOST_POLLING)
          .setSummary("is host " + ant.host() + " polling?")
          .build()).hostPolling(WorkspaceActivities.hostQueue(Workflow.getInfo().getTaskQueue(), ant.host()));
    } catch (ActivityFailure f) {
      polled = false;
    }
    if (polled) {
      patience = Math.min(patience * 2, MAX_PATIENCE);
    } else {
      moveOff();
    }
  }

  /**
   * Whichever worker picks this up on the shared queue becomes the ant's host (the matching
   * service hands tasks to the polling workers in turn, so ants spread over the hosts).
   */
  private static String claim() {
    return Workflow.newActivityStub(WorkspaceActivities.class, ActivityOptions.newBuilder(dev.colony.Activities.CLAIM_HOST)
        .setSummary("claim a host")
        .build()).claimHost();
  }

  /**
   * Leaves a host that is gone. The conversation to resume stays behind with it (the agent keeps
   * it on that host's disk); the next session claims a new host, whose worker recreates the
   * worktree from the remote branch.
   */
  private void moveOff() {
    String old = ant.host();
    ant.forgetHost();
    patience = 1;
    ant.conversation.forget();
    ant.fire(new LifecycleEvent.HostLost(old));
    outbox.say(OperatorMessages.hostLost(ant.spec().name(), old, ant.moveAfterSeconds()));
  }
}
