package dev.colony.cli;

import com.google.protobuf.util.Timestamps;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Is any worker polling the colony's task queue? Answered by the server (DescribeTaskQueue), so
 * it works with every worker dead. A poller counts as alive when it polled within
 * {@link #ALIVE_WITHIN}: Colony workers re-poll at least every {@link Temporal#WORKER_LONG_POLL}.
 *
 * @param polling true or false, or null when the server cannot say (the in-memory server)
 * @param pollers live pollers seen
 */
record WorkerCheck(Boolean polling, int pollers, Instant lastSeen, String taskQueue, String address) {
  static final Duration ALIVE_WITHIN = Temporal.WORKER_LONG_POLL.plusSeconds(10);

  static WorkerCheck of(Temporal t, String taskQueue) {
    try {
      var r = t.stubs.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS).describeTaskQueue(
          DescribeTaskQueueRequest.newBuilder().setNamespace(t.namespace)
              .setTaskQueue(TaskQueue.newBuilder().setName(taskQueue).build())
              .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW).build());
      Instant now = Instant.now();
      int alive = 0;
      Instant last = null;
      for (PollerInfo p : r.getPollersList()) {
        Instant seen = Instant.ofEpochMilli(Timestamps.toMillis(p.getLastAccessTime()));
        if (last == null || seen.isAfter(last)) {
          last = seen;
        }
        if (Duration.between(seen, now).compareTo(ALIVE_WITHIN) <= 0) {
          alive++;
        }
      }
      return new WorkerCheck(alive > 0, alive, last, taskQueue, t.address);
    } catch (StatusRuntimeException e) {
      return new WorkerCheck(null, 0, null, taskQueue, t.address);
    }
  }

  /** The line to print when no worker polls, else null. */
  String warning() {
    if (!Boolean.FALSE.equals(polling)) {
      return null;
    }
    return "no worker is polling task queue '" + taskQueue + "' at " + address + ": start one with ./colony worker DIR"
        + (lastSeen == null ? "" : " (last poll " + StatusView.human(Duration.between(lastSeen, Instant.now())) + " ago)");
  }
}
