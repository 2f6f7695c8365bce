package dev.colony.worker;

import dev.colony.chat.impl.ChatSink;
import java.nio.file.Path;

/**
 * How a worker runs.
 *
 * @param stickyQueue keep workflow state cached on a worker-specific queue. Right against a real
 *     Temporal server; wrong against the embedded test server, which has no sticky timeout and
 *     would strand an ant's workflow on the queue of a killed worker.
 * @param chatJournal file shared by the workers of a machine that remembers delivered post keys,
 *     so no post is shown twice after a crash; null to remember them in memory only
 * @param http the worker's one OkHttp client (Discord, GitHub)
 * @param host this worker's host name: it also polls the host queue {@code <taskQueue>@<host>},
 *     where the ants it holds prepare their workspaces and run their sessions; "" for none
 * @param workspaceRoot where this host keeps the ants' workspaces; null for the colony's own
 *     ({@code .colony/workspaces})
 * @param cacheSize how many ants' workflows stay cached in memory (0 for {@link #DEFAULT_CACHE_SIZE})
 * @param version the worker deployment version this worker serves (Worker Versioning: every
 *     workflow it starts is pinned to it, see "Upgrading Colony"); null for an unversioned worker
 * @param antWorkflow the AntWorkflow implementation to register (a later release's in upgrade tests)
 */
public record WorkerSettings(String taskQueue, boolean stickyQueue, ChatSink chat, String identity,
    Path chatJournal, okhttp3.OkHttpClient http, String host, Path workspaceRoot, int cacheSize,
    io.temporal.common.WorkerDeploymentVersion version, Class<? extends dev.colony.ant.AntWorkflow> antWorkflow) {
  /** Enough for every ant of a 10,000-ant worker: none is ever evicted and replayed. */
  public static final int DEFAULT_CACHE_SIZE = 10_000;

  public WorkerSettings {
    http = http == null ? new okhttp3.OkHttpClient() : http;
    host = host == null ? "" : host;
    cacheSize = cacheSize <= 0 ? DEFAULT_CACHE_SIZE : cacheSize;
    antWorkflow = antWorkflow == null ? dev.colony.ant.AntWorkflowImpl.class : antWorkflow;
  }

  public WorkerSettings(String taskQueue, boolean stickyQueue, ChatSink chat, String identity, Path chatJournal) {
    this(taskQueue, stickyQueue, chat, identity, chatJournal, null, "", null, 0, null, null);
  }
}
