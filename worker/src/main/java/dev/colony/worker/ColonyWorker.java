package dev.colony.worker;

import dev.colony.ant.AntWorkflowImpl;
import dev.colony.chat.ChatActivitiesImpl;
import dev.colony.chat.ChatPost;
import dev.colony.chat.ChatSink;
import dev.colony.config.Secrets;
import dev.colony.chat.DeliveryJournal;
import dev.colony.session.SessionActivitiesImpl;
import dev.colony.workspace.WorkspaceActivities;
import dev.colony.workspace.WorkspaceActivitiesImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
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

  private final WorkerFactory factory;

  private ColonyWorker(WorkerFactory factory) {
    this.factory = factory;
  }

  public static ColonyWorker start(WorkflowClient client, WorkerSettings settings) {
    WorkerFactory factory = WorkerFactory.newInstance(client, WorkerFactoryOptions.newBuilder()
        .setUsingVirtualWorkflowThreads(Runtime.version().feature() >= 21)
        .build());
    WorkerOptions.Builder options = WorkerOptions.newBuilder();
    if (!settings.stickyQueue()) {
      options.setStickyQueueScheduleToStartTimeout(Duration.ZERO);
    }
    if (settings.identity() != null) {
      options.setIdentity(settings.identity());
    }
    Worker worker = factory.newWorker(settings.taskQueue(), options.build());
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class, dev.colony.lease.LeaseWorkflowImpl.class,
        dev.colony.supervision.ColonyWorkflowImpl.class,
        dev.colony.trigger.RepoWatcherImpl.class);
    // Every post passes the worker's one redactor, whichever activity or narrator sends it.
    Secrets secrets = Secrets.process();
    ChatSink chat = post -> settings.chat().deliver(new ChatPost(post.colony(), post.ant(), post.channel(),
        secrets.redact(post.text()), post.idempotencyKey()));
    SessionActivitiesImpl sessions = SessionActivitiesImpl.withDefaultEngines(chat, System.out,
        new dev.colony.session.SessionEnvironment(
            client.getWorkflowServiceStubs().getOptions().getTarget(), client.getOptions().getNamespace(),
            ColonyBin.path()));
    WorkspaceActivitiesImpl workspaces = new WorkspaceActivitiesImpl(secrets, settings.host(), settings.workspaceRoot());
    if (!settings.host().isEmpty()) {
      // Worker affinity: the ants this host holds send their workspace and session activities
      // here; ClaimHost on the shared queue is how an ant comes to this host.
      Worker hostWorker = factory.newWorker(WorkspaceActivities.hostQueue(settings.taskQueue(), settings.host()),
          options.build());
      hostWorker.registerActivitiesImplementations(sessions, workspaces);
    }
    worker.registerActivitiesImplementations(
        sessions,
        workspaces,
        new dev.colony.github.GithubActivitiesImpl(settings.http()),
        new dev.colony.webhook.WebhookActivitiesImpl(settings.http()),
        new dev.colony.oversight.OversightActivitiesImpl(secrets),
        new ChatActivitiesImpl(chat,
            settings.chatJournal() == null ? null : new DeliveryJournal(settings.chatJournal())));
    factory.start();
    log.info("worker polling task queue '{}'{} (sticky queue {})", settings.taskQueue(),
        settings.host().isEmpty() ? "" : " and host queue '" + WorkspaceActivities.hostQueue(settings.taskQueue(), settings.host()) + "'",
        settings.stickyQueue() ? "on" : "off");
    return new ColonyWorker(factory);
  }

  /** Stops polling, gives running activities {@link #SHUTDOWN_GRACE} to finish, then stops. */
  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(SHUTDOWN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
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
