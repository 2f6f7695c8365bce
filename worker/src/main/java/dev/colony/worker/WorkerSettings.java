package dev.colony.worker;

import dev.colony.chat.ChatSink;
import dev.colony.spec.AntIds;

/**
 * How a worker runs.
 *
 * @param stickyQueue keep workflow state cached on a worker-specific queue. Right against a real
 *     Temporal server; wrong against the embedded test server, which has no sticky timeout and
 *     would strand an ant's workflow on the queue of a killed worker.
 */
public record WorkerSettings(String taskQueue, boolean stickyQueue, ChatSink chat, String identity) {
  public static WorkerSettings defaults(ChatSink chat) {
    return new WorkerSettings(AntIds.DEFAULT_TASK_QUEUE, true, chat, null);
  }
}
