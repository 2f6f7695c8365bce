package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.worker.ColonyWorker;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "worker", mixinStandardHelpOptions = true,
    description = "Run a worker that hosts the colony's ants (their workflows and sessions).")
class WorkerCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Mixin
  TemporalOptions temporal;

  @Mixin
  StickyOption sticky;

  @Mixin
  HostOption host;

  @Mixin
  VersionOption version;

  @Mixin
  MetricsOption metricsOption;

  @picocli.CommandLine.Option(names = "--github-webhook", paramLabel = "PORT",
      description = "Also receive GitHub 'issues' webhooks on this port (signed with integrations.github.webhook_secret).")
  Integer githubWebhook;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    LoadedColony colony = ColonyDir.loadRunnable(dir);
    String hostName = host.resolve(); // a bad --host or --build-id fails here, before anything starts
    String taskQueue = temporal.taskQueue(colony.colony().name());
    var deploymentVersion = version.resolve(taskQueue);
    metricsOption.address(); // a bad --metrics-port or --metrics-bind too
    TracingSetup.install("colony-worker"); // and bad OTEL_* variables, when they ask for traces
    Preflight.print(colony, new java.io.PrintWriter(System.err, true));
    dev.colony.worker.Metrics metrics = metricsOption.start(spec.commandLine().getOut());
    Temporal t;
    ColonyWorker worker;
    try {
      t = Temporal.connect(temporal, metrics == null ? null : metrics.scope());
      SearchAttributeSetup.ensure(t);
      String shared = QueueCheck.refuseSharedUnlessAsked(t, taskQueue, colony.colony().name(), temporal.taskQueue != null);
      if (shared != null) {
        System.err.println("colony: " + shared);
      }
      String elsewhere = QueueCheck.elsewhereNote(t, taskQueue, colony.colony().name());
      if (elsewhere != null) {
        System.err.println("colony: " + elsewhere);
      }
      if (deploymentVersion == null) {
        // After `colony upgrade` the server gives this queue's tasks to the current version's workers only.
        String idle = WorkerCheck.unversionedWorker(t, taskQueue);
        if (idle != null) {
          System.err.println("colony: " + idle);
        }
      }
      worker = WorkerRuntime.start(t, taskQueue, sticky.mode, host, System.out, colony,
          deploymentVersion, CliContext.of(spec).antWorkflow(), () -> MetricsOption.close(metrics));
    } catch (RuntimeException e) {
      // refused before the worker ran (a shared queue, the server gone): the metrics port is let go
      MetricsOption.close(metrics);
      throw e;
    }
    spec.commandLine().getOut().printf("worker for colony '%s' polling '%s' (host %s%s) at %s%n",
        colony.colony().name(), taskQueue, hostName,
        deploymentVersion == null ? "" : ", version " + deploymentVersion.getDeploymentName() + ":"
            + deploymentVersion.getBuildId(), t.address);
    spec.commandLine().getOut().flush();
    if (githubWebhook != null) {
      startWebhook(t, colony);
    }
    afterWorkerStarted(t, colony);
    worker.awaitTermination();
    return 0;
  }

  private void startWebhook(Temporal t, LoadedColony colony) {
    String var = colony.colony().githubWebhookSecretVar();
    String secret = var == null ? null : dev.colony.config.Environment.forColony(Path.of(colony.colony().dir())).get(var);
    if (secret == null || secret.isBlank()) {
      throw new UserError("--github-webhook needs integrations.github.webhook_secret: ${GITHUB_WEBHOOK_SECRET} in "
          + "colony.yaml, with the variable set (GitHub signs each delivery with it)");
    }
    String colonyName = colony.colony().name();
    try {
      new dev.colony.github.impl.WebhookServer(new java.net.InetSocketAddress(githubWebhook), secret, issue -> {
        try {
          t.client.newWorkflowStub(dev.colony.trigger.RepoWatcher.class,
              dev.colony.trigger.RepoWatcher.workflowId(colonyName, issue.repo())).issue(issue);
        } catch (io.temporal.client.WorkflowException e) {
          if (!dev.colony.client.Rpc.notFound(e)) {
            throw e;
          }
          // no ant of this colony watches that repository
        }
      });
    } catch (java.io.IOException e) {
      throw new UserError("cannot listen for GitHub webhooks on port " + githubWebhook + ": " + e.getMessage());
    }
    spec.commandLine().getOut().printf("receiving GitHub webhooks on port %d%n", githubWebhook);
  }

  /** What else to do once the worker polls ({@code run} starts the ants here). */
  void afterWorkerStarted(Temporal t, LoadedColony colony) {}
}
