package dev.colony.cli;

import com.google.protobuf.util.Timestamps;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Is any worker polling the colony's task queue? Answered by the server (DescribeTaskQueue), so
 * it works with every worker dead. A poller counts as alive when it polled within
 * {@link #ALIVE_WITHIN}: Colony workers re-poll at least every {@link Temporal#WORKER_LONG_POLL}.
 * Once the queue's worker deployment has a current version (after {@code colony upgrade}), the
 * server routes every task to that version's workers only: then only they count, and an
 * unversioned worker is told it gets nothing.
 *
 * @param polling true or false, or null when the server cannot say (the in-memory server)
 * @param pollers live pollers seen (of the current version, when the queue has one)
 * @param current the current deployment version ("deployment:build"), null when the queue has none
 */
record WorkerCheck(Boolean polling, int pollers, Instant lastSeen, String taskQueue, String address, Current current) {
  static final Duration ALIVE_WITHIN = Temporal.WORKER_LONG_POLL.plusSeconds(10);

  /** The worker deployment version the server routes the queue's tasks to. */
  record Current(String deployment, String buildId) {
    @Override
    public String toString() {
      return deployment + ":" + buildId;
    }
  }

  static WorkerCheck of(Temporal t, String taskQueue) {
    try {
      return of(describe(t, taskQueue), taskQueue, t.address, Instant.now());
    } catch (StatusRuntimeException e) {
      return new WorkerCheck(null, 0, null, taskQueue, t.address, null);
    }
  }

  static DescribeTaskQueueResponse describe(Temporal t, String taskQueue) {
    return t.stubs.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS).describeTaskQueue(
        DescribeTaskQueueRequest.newBuilder().setNamespace(t.namespace)
            .setTaskQueue(TaskQueue.newBuilder().setName(taskQueue).build())
            .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW).build());
  }

  static WorkerCheck of(DescribeTaskQueueResponse r, String taskQueue, String address, Instant now) {
    Current current = currentOf(r);
    int alive = 0;
    Instant last = null;
    for (PollerInfo p : r.getPollersList()) {
      if (current != null && !(current.deployment().equals(p.getDeploymentOptions().getDeploymentName())
          && current.buildId().equals(p.getDeploymentOptions().getBuildId()))) {
        continue; // the server sends this poller nothing
      }
      Instant seen = Instant.ofEpochMilli(Timestamps.toMillis(p.getLastAccessTime()));
      if (last == null || seen.isAfter(last)) {
        last = seen;
      }
      if (Duration.between(seen, now).compareTo(ALIVE_WITHIN) <= 0) {
        alive++;
      }
    }
    return new WorkerCheck(alive > 0, alive, last, taskQueue, address, current);
  }

  /** The queue's current deployment version, or null when it has none (unversioned, as after {@code colony dev}). */
  static Current currentOf(DescribeTaskQueueResponse r) {
    if (!r.hasVersioningInfo() || !r.getVersioningInfo().hasCurrentDeploymentVersion()) {
      return null;
    }
    var v = r.getVersioningInfo().getCurrentDeploymentVersion();
    return v.getBuildId().isEmpty() ? null : new Current(v.getDeploymentName(), v.getBuildId());
  }

  /** Why an unversioned worker on a queue with a current version gets nothing: the clause both lines start with. */
  static String belongs(String taskQueue, Current current) {
    return "task queue '" + taskQueue + "' belongs to worker deployment '" + current.deployment()
        + "' whose current version is '" + current + "'";
  }

  /**
   * The line an unversioned worker prints at start when the server will send it no task, else
   * null: after {@code colony upgrade} every task goes to the current version's workers.
   */
  static String unversionedWorker(Temporal t, String taskQueue) {
    Current current;
    try {
      current = currentOf(describe(t, taskQueue));
    } catch (StatusRuntimeException e) {
      return null; // the in-memory server has no Worker Versioning
    }
    return current == null ? null : unversionedWorker(taskQueue, current);
  }

  static String unversionedWorker(String taskQueue, Current current) {
    return belongs(taskQueue, current) + ": this unversioned worker gets no tasks; run `colony worker DIR --deployment "
        + current.deployment() + " --build-id " + current.buildId() + "` (or a newer --build-id, then `colony upgrade`)";
  }

  /** The line to print when no worker polls, else null. */
  String warning() {
    if (!Boolean.FALSE.equals(polling)) {
      return null;
    }
    String since = lastSeen == null ? "" : " (last poll " + StatusView.human(Duration.between(lastSeen, Instant.now())) + " ago)";
    if (current != null) {
      return belongs(taskQueue, current) + " at " + address + ", and no worker of that version is polling it" + since
          + ": the server gives its tasks to no other worker. Start one with ./colony worker DIR --deployment "
          + current.deployment() + " --build-id " + current.buildId();
    }
    return "no worker is polling task queue '" + taskQueue + "' at " + address + ": start one with ./colony worker DIR" + since;
  }
}
