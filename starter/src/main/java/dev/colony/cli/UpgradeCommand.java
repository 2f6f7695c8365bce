package dev.colony.cli;

import dev.colony.client.Rpc;
import dev.colony.client.VisibilityQuery;
import io.grpc.StatusRuntimeException;
import io.temporal.api.deployment.v1.WorkerDeploymentVersion;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentVersionRequest;
import io.temporal.api.workflowservice.v1.SetWorkerDeploymentCurrentVersionRequest;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code colony upgrade --build-id NEW}: makes a version of the worker deployment current, tells
 * every running ant and colony supervisor on the task queue, and waits until no workflow runs on
 * an older version any more, so that the old workers can be stopped. {@code colony upgrade
 * --unversioned}: without Worker Versioning, moves every running workflow to a new run on the
 * build it runs on before a deploy. See "Upgrading Colony".
 */
@Command(name = "upgrade", mixinStandardHelpOptions = true,
    description = "Move the colony to a new version of its worker deployment (Worker Versioning): make it "
        + "current, tell every ant, and wait until the old versions are drained.")
class UpgradeCommand implements Callable<Integer> {
  private static final String IDENTITY = "colony upgrade";
  /**
   * The longest --wait: a week is longer than any session a drain waits for, and seconds beyond it
   * would overflow the deadline's nanoseconds (a huge --wait once gave up after a second).
   */
  static final long MAX_WAIT_SECONDS = 7 * 24 * 3600;

  @Mixin
  TemporalOptions temporal;

  @Mixin
  VersionOption version;

  @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "600",
      description = "How long to wait for the older versions to drain (default: ${DEFAULT-VALUE}; at most a week, 604800; 0: do not wait).")
  long waitSeconds;

  @Option(names = "--colony", paramLabel = "NAME",
      description = "The colony to upgrade (its task queue is colony-NAME; default: the one colony running).")
  String colony;

  @Option(names = "--unversioned",
      description = "Without Worker Versioning (workers with no --build-id, as colony dev's): move every running "
          + "workflow of the colony to a new run on the build it runs on, and wait until no run begun before is "
          + "left; then stop the workers, deploy the new release and start them.")
  boolean unversioned;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  /** The task queue to upgrade: --task-queue, --colony's own, else that of the only colony with running ants. */
  private String taskQueue(Temporal t) {
    if (temporal.taskQueue != null || colony != null) {
      return temporal.taskQueue(colony);
    }
    java.util.TreeSet<String> queues = new java.util.TreeSet<>();
    Ants.list(t, null).forEach(r -> queues.add(r.taskQueue() == null || r.taskQueue().isEmpty()
        ? temporal.taskQueue(r.colony()) : r.taskQueue()));
    if (queues.isEmpty() && (version.deployment != null || System.getenv("COLONY_DEPLOYMENT") != null)) {
      return null; // no ant runs yet: nothing to tell, and the deployment is named
    }
    if (queues.size() != 1) {
      throw new UsageError(queues.isEmpty() ? "no ant is running: name the colony to upgrade with --colony NAME"
          : "ants run on several task queues (" + String.join(", ", queues) + "): name the colony with --colony NAME");
    }
    return queues.first();
  }

  @Override
  public Integer call() throws InterruptedException {
    if (unversioned) {
      return renew();
    }
    String buildId = version.buildId != null ? version.buildId : System.getenv("COLONY_BUILD_ID");
    if (buildId == null || buildId.isBlank()) {
      throw new UsageError("upgrade needs --build-id: the version to move to (its workers must be running)");
    }
    VersionOption.check("--build-id", buildId);
    if (waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
      throw new UsageError("invalid --wait " + waitSeconds + ": give seconds from 0 to " + MAX_WAIT_SECONDS + " (a week)");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (Temporal t = Temporal.connect(temporal)) {
      String taskQueue = taskQueue(t);
      String deployment = version.deploymentName(taskQueue == null ? "" : taskQueue);
      String target = deployment + ":" + buildId;
      var stub = t.stubs.blockingStub();
      try {
        stub.describeWorkerDeploymentVersion(DescribeWorkerDeploymentVersionRequest.newBuilder()
            .setNamespace(t.namespace)
            .setDeploymentVersion(WorkerDeploymentVersion.newBuilder().setDeploymentName(deployment).setBuildId(buildId))
            .build());
      } catch (StatusRuntimeException e) {
        if (Rpc.notFound(e)) {
          throw new UserError("no worker serves version " + target + " yet: start one first ('colony worker DIR "
              + "--build-id " + buildId + (version.deployment == null ? "" : " --deployment " + deployment)
              + "'); it must poll before it can take the colony over");
        }
        throw e;
      }
      var info = stub.describeWorkerDeployment(DescribeWorkerDeploymentRequest.newBuilder()
          .setNamespace(t.namespace).setDeploymentName(deployment).build()).getWorkerDeploymentInfo();
      String current = info.getRoutingConfig().getCurrentDeploymentVersion().getBuildId();
      if (!buildId.equals(current)) {
        stub.setWorkerDeploymentCurrentVersion(SetWorkerDeploymentCurrentVersionRequest.newBuilder()
            .setNamespace(t.namespace).setDeploymentName(deployment).setBuildId(buildId).setIdentity(IDENTITY)
            // A host whose queue the new version does not poll is gone after the upgrade: its ants move
            // (see "Several hosts").
            .setIgnoreMissingTaskQueues(true)
            .build());
        out.printf("%s is now the current version%s%n", target, current.isEmpty() ? "" : " (was " + deployment + ":" + current + ")");
      } else {
        out.printf("%s is already the current version%n", target);
      }
      List<String> older = new ArrayList<>();
      info.getVersionSummariesList().forEach(v -> {
        String id = v.getDeploymentVersion().getBuildId();
        if (!id.equals(buildId)) {
          older.add(id);
        }
      });
      if (taskQueue != null) {
        int told = tellEveryWorkflow(t, taskQueue, target);
        out.printf("told %d running workflow(s) on task queue '%s' to move at their next safe point%n", told,
            taskQueue);
      }
      out.flush();
      return awaitDrained(t, deployment, buildId, older, out);
    }
  }

  /** The workflow types {@code colony upgrade} moves. */
  static final List<String> TYPES = List.of("AntWorkflow", "ColonyWorkflow", "Lease", "MergeQueue", "RepoWatcher",
      "TaskWorkflow");

  /**
   * {@code --unversioned}: every running Colony workflow of the task queue gets the {@code upgrade}
   * signal and continues as new at its next safe point, on the build its workers run; waits until
   * none of the runs told is still running. After it, every open run began on this build, so the
   * next release's build may drop the old paths of the changes this build has (see "What a release
   * may drop" in docs/operations.md).
   */
  private int renew() throws InterruptedException {
    if (version.buildId != null || version.deployment != null) {
      throw new UsageError("--unversioned moves runs without Worker Versioning: give it no --build-id or --deployment");
    }
    if (waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
      throw new UsageError("invalid --wait " + waitSeconds + ": give seconds from 0 to " + MAX_WAIT_SECONDS + " (a week)");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (Temporal t = Temporal.connect(temporal)) {
      String taskQueue = taskQueue(t);
      List<String> told = new ArrayList<>();
      t.client.listExecutions(everyRun(taskQueue)).forEach(w -> {
        try {
          t.client.newUntypedWorkflowStub(w.getExecution().getWorkflowId(),
              java.util.Optional.of(w.getExecution().getRunId()), java.util.Optional.empty()).signal("upgrade");
          told.add(w.getExecution().getRunId());
        } catch (io.temporal.client.WorkflowException e) {
          if (!Rpc.notFound(e)) {
            throw e;
          }
          // it ended (or continued as new) meanwhile
        }
      });
      out.printf("told %d running workflow(s) on task queue '%s' to continue as new at their next safe point%n",
          told.size(), taskQueue);
      out.flush();
      long deadline = System.nanoTime() + waitSeconds * 1_000_000_000L;
      long shown = -1;
      while (true) {
        long left = 0;
        for (int i = 0; i < told.size(); i += 100) {
          left += t.client.countWorkflows(VisibilityQuery.where().eq("TaskQueue", taskQueue).running()
              .in("RunId", told.subList(i, Math.min(told.size(), i + 100))).toString()).getCount();
        }
        if (left == 0) {
          out.printf("every workflow on task queue '%s' runs in a run begun after this call: stop the workers, "
              + "deploy the new release and start them%n", taskQueue);
          return 0;
        }
        if (left != shown) {
          out.printf("still in a run begun before: %d (each moves once its session, confirmation or update is "
              + "over)%n", left);
          out.flush();
          shown = left;
        }
        if (System.nanoTime() >= deadline) {
          out.printf("not all moved after %d s: do not deploy yet; 'colony upgrade --unversioned' tells them again "
              + "and waits%n", waitSeconds);
          return 1;
        }
        Thread.sleep(1000);
      }
    }
  }

  /** The visibility query of every running Colony workflow on {@code taskQueue}. */
  static String everyRun(String taskQueue) {
    return VisibilityQuery.where().eq("TaskQueue", taskQueue).running().in("WorkflowType", TYPES).toString();
  }

  /**
   * Sends the {@code upgrade} signal to every running Colony workflow on the task queue that is not
   * on {@code target} yet: it continues as new onto it at its next safe point.
   */
  private int tellEveryWorkflow(Temporal t, String taskQueue, String target) {
    java.util.Set<String> ids = new java.util.LinkedHashSet<>();
    for (String query : notOnTarget(taskQueue, target)) {
      t.client.listExecutions(query).forEach(w -> ids.add(w.getExecution().getWorkflowId()));
    }
    int n = 0;
    for (String id : ids) {
      try {
        t.client.newUntypedWorkflowStub(id).signal("upgrade");
        n++;
      } catch (io.temporal.client.WorkflowException e) {
        if (!Rpc.notFound(e)) {
          throw e;
        }
        // it ended meanwhile
      }
    }
    return n;
  }

  /** The visibility queries of the running Colony workflows on {@code taskQueue} not on {@code target} yet. */
  static List<String> notOnTarget(String taskQueue, String target) {
    VisibilityQuery mine = VisibilityQuery.where().eq("TaskQueue", taskQueue).running().in("WorkflowType", TYPES);
    return List.of(mine.notEq("TemporalWorkerDeploymentVersion", target).toString(),
        mine.isNull("TemporalWorkerDeploymentVersion").toString());
  }

  /** The visibility query of the running workflows on {@code version} ({@code deployment:buildId}). */
  static String runningOn(String version) {
    return VisibilityQuery.where().eq("TemporalWorkerDeploymentVersion", version).running().toString();
  }

  private int awaitDrained(Temporal t, String deployment, String buildId, List<String> older, PrintWriter out)
      throws InterruptedException {
    long deadline = System.nanoTime() + waitSeconds * 1_000_000_000L;
    String shown = null;
    while (true) {
      Map<String, Long> left = new LinkedHashMap<>();
      for (String id : older) {
        long c = t.client.countWorkflows(runningOn(deployment + ":" + id)).getCount();
        if (c > 0) {
          left.put(deployment + ":" + id, c);
        }
      }
      if (left.isEmpty()) {
        out.printf("every workflow runs on %s:%s; no workflow is left on an older version: stop their workers%s%n",
            deployment, buildId, older.isEmpty() ? "" : " (" + String.join(", ", older) + ")");
        return 0;
      }
      String now = left.toString();
      if (!now.equals(shown)) {
        out.printf("still running on older versions: %s (each moves once its session, confirmation or "
            + "update is over)%n", now.replace("{", "").replace("}", "").replace("=", ": "));
        out.flush();
        shown = now;
      }
      if (System.nanoTime() >= deadline) {
        out.printf("not drained after %d s: keep the workers of %s running; 'colony upgrade --build-id %s' "
            + "shows the state again%n", waitSeconds, String.join(", ", left.keySet()), buildId);
        return 1;
      }
      Thread.sleep(1000);
    }
  }
}
