package dev.colony.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueResponse;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How many workers poll a task queue, as the server sees them ({@code DescribeTaskQueue}: one call
 * a queue, answered with every worker dead): the distinct pollers that polled within
 * {@link #ALIVE_WITHIN}. Once the queue's worker deployment has a current version (after
 * {@code colony upgrade}) only that version's pollers count, as the server gives tasks to them
 * alone (the rule {@code colony status}'s worker check follows too).
 */
public final class TaskQueuePollers {
  /**
   * A poller counts while it polled this recently: Colony's workers poll again at least every
   * 10 s, the SDK's default long poll is 60 s; the server lists a poller for minutes after it went.
   */
  public static final Duration ALIVE_WITHIN = Duration.ofSeconds(70);

  private final WorkflowClient client;

  public TaskQueuePollers(WorkflowClient client) {
    this.client = client;
  }

  /**
   * The live pollers of {@code taskQueue}'s workflow tasks ({@code activities} false) or activity
   * tasks (true); null when the server cannot say (the in-memory server has no such call).
   */
  public Integer alive(String taskQueue, boolean activities) {
    DescribeTaskQueueResponse r;
    try {
      r = client.getWorkflowServiceStubs().blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS).describeTaskQueue(
          DescribeTaskQueueRequest.newBuilder().setNamespace(client.getOptions().getNamespace())
              .setTaskQueue(TaskQueue.newBuilder().setName(taskQueue).build())
              .setTaskQueueType(activities ? TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY : TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
              .build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        return null;
      }
      throw new ColonySource.SourceException("describing task queue " + taskQueue + ": Temporal answered "
          + e.getStatus().getCode(), e);
    }
    return alive(r, Instant.now());
  }

  /** The distinct pollers of {@code r} seen within {@link #ALIVE_WITHIN} of {@code now} (of the current version, when there is one). */
  static int alive(DescribeTaskQueueResponse r, Instant now) {
    String deployment = null;
    String build = null;
    if (r.hasVersioningInfo() && r.getVersioningInfo().hasCurrentDeploymentVersion()
        && !r.getVersioningInfo().getCurrentDeploymentVersion().getBuildId().isEmpty()) {
      deployment = r.getVersioningInfo().getCurrentDeploymentVersion().getDeploymentName();
      build = r.getVersioningInfo().getCurrentDeploymentVersion().getBuildId();
    }
    Set<String> seen = new HashSet<>();
    for (PollerInfo p : r.getPollersList()) {
      if (build != null && !(deployment.equals(p.getDeploymentOptions().getDeploymentName())
          && build.equals(p.getDeploymentOptions().getBuildId()))) {
        continue; // the server sends this poller nothing
      }
      Instant last = Instant.ofEpochSecond(p.getLastAccessTime().getSeconds(), p.getLastAccessTime().getNanos());
      if (Duration.between(last, now).compareTo(ALIVE_WITHIN) <= 0) {
        seen.add(p.getIdentity());
      }
    }
    return seen.size();
  }
}
