package dev.colony.worker;

import dev.colony.chat.ChatSink;
import java.nio.file.Path;

/**
 * How a worker runs.
 *
 * @param stickyQueue keep workflow state cached on a worker-specific queue. Right against a real
 *     Temporal server; wrong against the embedded test server, which has no sticky timeout and
 *     would strand an ant's workflow on the queue of a killed worker.
 * @param chatJournal file shared by the workers of a machine that remembers delivered post keys,
 *     so no post is shown twice after a crash; null to remember them in memory only
 */
public record WorkerSettings(String taskQueue, boolean stickyQueue, ChatSink chat, String identity,
    Path chatJournal) {}
