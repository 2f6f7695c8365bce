package dev.colony.worker;

import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChatActivitiesImpl;
import dev.colony.chat.impl.ChatSink;
import dev.colony.chat.impl.DeliveryJournal;
import dev.colony.secrets.Secrets;
import dev.colony.session.impl.SessionActivitiesImpl;
import dev.colony.workspace.WorkspaceActivities;
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.common.VersioningBehavior;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerDeploymentOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hosts AntWorkflow and the activities on a task queue. */
public final class ColonyWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ColonyWorker.class);
  /** How long a stopping worker waits for running activities to finish or heartbeat a last time. */
  public static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);
  /** The most workflow threads one cached ant holds (main loop, outbox, visibility, overseer, handlers). */
  static final int THREADS_PER_ANT = 6;
  /** Sessions, workspaces and posts a worker runs at once, per queue (each is mostly waiting). */
  public static final int MAX_ACTIVITIES = 2_000;
  /** How long a workflow thread may run without yielding before its task fails as a deadlock. */
  static final Duration DEADLOCK_DETECTION = Duration.ofSeconds(5);

  private final WorkerFactory factory;

  private ColonyWorker(WorkerFactory factory) {
    this.factory = factory;
  }

  public static ColonyWorker start(WorkflowClient client, WorkerSettings settings) {
    return start(client, settings, null);
  }

  /**
   * @param registry the process's metrics ({@link Metrics#registry}): the activities count on it
   *     (a session's watchdog interruptions, its sandbox's refusals); null counts nothing
   */
  public static ColonyWorker start(WorkflowClient client, WorkerSettings settings,
      io.micrometer.core.instrument.MeterRegistry registry) {
    return start(client, settings, registry, Tracing.process());
  }

  /** @param tracing the process's traces ({@link Tracing#OFF}: no interceptor) */
  public static ColonyWorker start(WorkflowClient client, WorkerSettings settings,
      io.micrometer.core.instrument.MeterRegistry registry, Tracing tracing) {
    // Every ant stays cached: an evicted ant is replayed from its history at its next event. Its
    // workflow threads (the loop, the outbox, visibility, the overseer) are virtual, so
    // thousands of cached ants cost heap, not OS threads.
    WorkerFactory factory = WorkerFactory.newInstance(client, WorkerFactoryOptions.newBuilder()
        .setUsingVirtualWorkflowThreads(true)
        .setWorkflowCacheSize(settings.cacheSize())
        .setMaxWorkflowThreadCount(settings.cacheSize() * THREADS_PER_ANT + 100)
        // Traces (when the OTEL_* variables ask): one per session, docs/observability.md#traces.
        .setWorkerInterceptors(tracing.workerInterceptors())
        .build());
    WorkerOptions.Builder options = WorkerOptions.newBuilder()
        // Task executors on virtual threads too: a session waiting on its agent holds no OS thread.
        .setUsingVirtualThreads(true)
        .setMaxConcurrentActivityExecutionSize(MAX_ACTIVITIES)
        // A workflow thread that holds on for this long without yielding fails its task (the SDK's
        // deadlock detector). With the SDK's 1 s, an ant's first workflow task on a fresh worker
        // failed twice on a 2-core machine at load 12 to 20 (classes loaded and compiled cold while
        // other JVMs competed; the detector is the suspected cause, not a proven one): the task is
        // retried, but the ant refuses queries until it succeeds. Colony's workflow code never
        // blocks; 5 s keeps the detector for a real deadlock without firing on a busy machine.
        .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION.toMillis())
        // The shutdown grace is for sessions to finish: by default the SDK refuses heartbeats once
        // shutdown begins, so a session's first heartbeat after SIGTERM (about a second later)
        // stopped its agent, and a running session never got the documented 10 s. Heartbeats go on
        // until the grace ends (shutdownNow still refuses them).
        .setAllowActivityHeartbeatDuringShutdown(true);
    if (!settings.stickyQueue()) {
      options.setStickyQueueScheduleToStartTimeout(Duration.ZERO);
    }
    if (settings.identity() != null) {
      options.setIdentity(settings.identity());
    }
    if (settings.version() != null) {
      // Worker Versioning: each workflow stays on the version that started it and moves to a newer
      // current one only by continuing as new (dev.colony.upgrade.Upgrade).
      options.setDeploymentOptions(WorkerDeploymentOptions.newBuilder()
          .setVersion(settings.version())
          .setUseVersioning(true)
          .setDefaultVersioningBehavior(VersioningBehavior.PINNED)
          .build());
    }
    Worker worker = factory.newWorker(settings.taskQueue(), options.build());
    worker.registerWorkflowImplementationTypes(settings.antWorkflow(), dev.colony.lease.LeaseWorkflowImpl.class,
        dev.colony.supervision.ColonyWorkflowImpl.class,
        dev.colony.trigger.RepoWatcherImpl.class,
        // Tasks run on the colony's queue like its ants, pinned like them (the worker's default
        // behavior); a task moves to a newer current version by continuing as new with its card.
        dev.colony.task.TaskWorkflowImpl.class);
    // Merge queues (one per repository) run on the shared queue; their desk (updates with start, task changes) too.
    worker.registerWorkflowImplementationTypes(dev.colony.merge.MergeQueueWorkflowImpl.class);
    worker.registerActivitiesImplementations(new dev.colony.merge.impl.MergeDeskActivitiesImpl(client,
        colony -> new dev.colony.board.TemporalTaskBoard(client, colony, dev.colony.task.TaskSettings.defaults())));
    // Every post passes the worker's one redactor, whichever activity or narrator sends it.
    Secrets secrets = Secrets.process();
    if (settings.workspaceRoot() != null) {
      secrets.registerPublic(settings.workspaceRoot().toAbsolutePath().normalize().toString());
    }
    ChatSink chat = post -> settings.chat().deliver(new ChatPost(post.colony(), post.ant(), post.channel(),
        secrets.redact(post.text()), post.idempotencyKey(), post.at()));
    WorkspaceActivitiesImpl workspaces = new WorkspaceActivitiesImpl(secrets, settings.host(), settings.workspaceRoot(),
        queue -> polledLately(client, queue));
    SessionActivitiesImpl sessions = SessionActivitiesImpl.withDefaultEngines(chat, System.out,
        new dev.colony.session.impl.SessionEnvironment(
            client.getWorkflowServiceStubs().getOptions().getTarget(), client.getOptions().getNamespace(),
            ColonyBin.path())).withWorkspaces(workspaces::prepare)
        .withMetrics(dev.colony.engine.SessionMetrics.on(registry)).withTracer(tracing.tracer());
    // The merge queue's git steps: PublishBranch and SyncBranch run on the ant's host (its
    // worktree is there), the others wherever the queue runs; both queues hold the same instance.
    dev.colony.merge.impl.MergeActivitiesImpl merges = new dev.colony.merge.impl.MergeActivitiesImpl(secrets,
        workspaces::prepare, settings.http(), settings.workspaceRoot());
    if (!settings.host().isEmpty()) {
      // Worker affinity: the ants this host holds send their workspace and session activities
      // here; ClaimHost on the shared queue is how an ant comes to this host.
      Worker hostWorker = factory.newWorker(WorkspaceActivities.hostQueue(settings.taskQueue(), settings.host()),
          options.build());
      hostWorker.registerActivitiesImplementations(sessions, workspaces, merges);
    }
    worker.registerActivitiesImplementations(
        sessions,
        workspaces,
        merges,
        new dev.colony.github.impl.GithubActivitiesImpl(settings.http()),
        // Issues of `as: task` triggers become tasks through the board's own client.
        new dev.colony.github.impl.IssueTaskActivitiesImpl(colony -> new dev.colony.board.TemporalTaskBoard(client, colony,
            dev.colony.task.TaskSettings.defaults())),
        new dev.colony.webhook.impl.WebhookActivitiesImpl(settings.http()),
        new dev.colony.notify.impl.NotifyActivitiesImpl(settings.http(), client.getOptions().getNamespace()),
        new dev.colony.overseer.impl.OverseerActivitiesImpl(secrets),
        new dev.colony.task.impl.TaskActivitiesImpl(client, client.getOptions().getNamespace()),
        new ChatActivitiesImpl(chat,
            settings.chatJournal() == null ? null : new DeliveryJournal(settings.chatJournal())));
    factory.start();
    log.info("worker polling task queue '{}'{} (sticky queue {})", settings.taskQueue(),
        settings.host().isEmpty() ? "" : " and host queue '" + WorkspaceActivities.hostQueue(settings.taskQueue(), settings.host()) + "'",
        settings.stickyQueue() ? "on" : "off");
    return new ColonyWorker(factory);
  }

  /**
   * How recent a poll shows a host alive: Colony's workers end each long poll after 10 s (see the
   * CLI's Temporal.WORKER_LONG_POLL) and poll again, so a live one is never quieter than that.
   */
  static final Duration POLLED_WITHIN = Duration.ofSeconds(20);

  /** Has any worker polled {@code queue} for activities within {@link #POLLED_WITHIN}? Asked of the server. */
  static boolean polledLately(WorkflowClient client, String queue) {
    var r = client.getWorkflowServiceStubs().blockingStub()
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .describeTaskQueue(io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setTaskQueue(io.temporal.api.taskqueue.v1.TaskQueue.newBuilder().setName(queue))
            .setTaskQueueType(io.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)
            .build());
    long cutoff = System.currentTimeMillis() - POLLED_WITHIN.toMillis();
    return r.getPollersList().stream().anyMatch(p -> p.hasLastAccessTime()
        && p.getLastAccessTime().getSeconds() * 1000 >= cutoff);
  }

  /** Stops polling, gives running activities {@link #SHUTDOWN_GRACE} to finish, then stops. */
  @Override
  public void close() {
    close(SHUTDOWN_GRACE);
  }

  /**
   * Stops polling and gives running activities {@code grace} to finish, then stops them. With
   * the server gone there is nothing to finish for (no result could be reported): the caller
   * passes zero, and the worker stops within about two seconds instead of waiting out the grace
   * on calls that cannot succeed.
   */
  public void close(Duration grace) {
    if (!grace.isZero()) {
      factory.shutdown();
      factory.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
    }
    if (!factory.isTerminated()) {
      factory.shutdownNow();
      factory.awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  public void awaitTermination() {
    while (!factory.isTerminated()) {
      factory.awaitTermination(1, TimeUnit.HOURS);
    }
  }
}
