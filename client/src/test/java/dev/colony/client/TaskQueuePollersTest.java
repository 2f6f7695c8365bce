package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Timestamp;
import io.temporal.api.deployment.v1.WorkerDeploymentOptions;
import io.temporal.api.deployment.v1.WorkerDeploymentVersion;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueueVersioningInfo;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueResponse;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TaskQueuePollers}: the workers polling a queue are the distinct pollers seen within the
 * last 70 s; once the queue has a current deployment version, only that version's.
 */
@Timeout(30)
class TaskQueuePollersTest {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  static PollerInfo poller(String identity, long secondsAgo, String deployment, String build) {
    PollerInfo.Builder p = PollerInfo.newBuilder().setIdentity(identity)
        .setLastAccessTime(Timestamp.newBuilder().setSeconds(NOW.getEpochSecond() - secondsAgo));
    if (build != null) {
      p.setDeploymentOptions(WorkerDeploymentOptions.newBuilder().setDeploymentName(deployment).setBuildId(build));
    }
    return p.build();
  }

  @Test
  void distinctPollersSeenWithinTheLastSeventySeconds() {
    DescribeTaskQueueResponse r = DescribeTaskQueueResponse.newBuilder()
        .addPollers(poller("1@a", 2, null, null))
        .addPollers(poller("1@a", 5, null, null))
        .addPollers(poller("2@b", 69, null, null))
        .addPollers(poller("3@gone", 300, null, null)).build();
    assertEquals(2, TaskQueuePollers.alive(r, NOW));
  }

  @Test
  void onlyTheCurrentVersionsPollersOnceTheQueueHasOne() {
    DescribeTaskQueueResponse r = DescribeTaskQueueResponse.newBuilder()
        .setVersioningInfo(TaskQueueVersioningInfo.newBuilder().setCurrentDeploymentVersion(
            WorkerDeploymentVersion.newBuilder().setDeploymentName("colony-hello").setBuildId("v2")))
        .addPollers(poller("1@a", 2, "colony-hello", "v2"))
        .addPollers(poller("2@b", 2, "colony-hello", "v1"))
        .addPollers(poller("3@c", 2, null, null)).build();
    assertEquals(1, TaskQueuePollers.alive(r, NOW));
  }
}
