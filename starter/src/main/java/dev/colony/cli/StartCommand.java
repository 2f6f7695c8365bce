package dev.colony.cli;

import dev.colony.client.AntRow;
import dev.colony.config.LoadedColony;
import dev.colony.spec.AntSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import io.temporal.api.common.v1.WorkflowExecution;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "start", mixinStandardHelpOptions = true,
    description = "Start the colony's ants (all, or those named). Running it again never duplicates an "
        + "ant: a running ant picks up the new configuration instead.")
final class StartCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The colony directory.")
  Path dir;

  @Parameters(index = "1..*", paramLabel = "ANT", description = "Ants to start (default: all).")
  List<String> names = new ArrayList<>();

  @Mixin
  TemporalOptions temporal;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    LoadedColony colony = ColonyDir.loadRunnable(dir);
    List<AntSpec> chosen = select(colony, names);
    try (Temporal t = Temporal.connect(temporal)) {
      SearchAttributeSetup.ensure(t);
      String taskQueue = temporal.taskQueue(colony.colony().name());
      QueueCheck.refuseShared(t, taskQueue, colony.colony().name());
      startAll(t, taskQueue, colony, chosen, spec.commandLine().getOut());
      spec.commandLine().getOut().printf("colony '%s' runs on task queue '%s': its workers are 'colony worker %s'%s%n",
          colony.colony().name(), taskQueue, dir, temporal.taskQueue == null ? "" : " --task-queue " + taskQueue);
    }
    return 0;
  }

  static List<AntSpec> select(LoadedColony colony, List<String> names) {
    if (names == null || names.isEmpty()) {
      return colony.ants();
    }
    List<AntSpec> out = new ArrayList<>();
    for (String n : names) {
      out.add(colony.ant(n).orElseThrow(() -> new UserError("no ant named '" + n + "' in colony '"
          + colony.colony().name() + "' (ants: " + String.join(", ",
              colony.ants().stream().map(AntSpec::name).toList()) + ")")));
    }
    return out;
  }

  /**
   * Starts the colony's supervisor, then the ants a few at a time (each is one round trip), reporting them in order, then
   * subscribes those with GitHub triggers to their repositories' watchers.
   */
  static void startAll(Temporal t, String taskQueue, LoadedColony colony, List<AntSpec> ants, PrintWriter out) {
    makeSeededRepositories(colony, out); // before any ant makes its worktree of one
    // The supervisor first: an ant that fails at once has someone to tell.
    Supervisors.start(t, taskQueue, colony, out);
    startAnts(t, taskQueue, colony.colony().name(), ants, out);
    Watchers.subscribe(t, taskQueue, colony, ants, out);
    startMergeQueues(t, taskQueue, colony, out);
  }

  /** merge.repos' {@code create_from}: a repository that does not exist yet is made from its seed directory. */
  static void makeSeededRepositories(LoadedColony colony, PrintWriter out) {
    for (var e : colony.seeds().entrySet()) {
      java.nio.file.Path repo = java.nio.file.Path.of(e.getKey());
      String target = colony.merge().stream().filter(m -> repo.toString().equals(m.repo())).map(
          dev.colony.merge.MergeRepo::target).findFirst().orElse(dev.colony.merge.MergeRepo.DEFAULT_TARGET);
      try {
        if (dev.colony.merge.impl.RepoSeed.createIfMissing(repo, java.nio.file.Path.of(e.getValue()), target)) {
          out.println("made " + repo + " from " + e.getValue() + " (" + target + ")");
        }
      } catch (java.io.IOException ex) {
        throw new UserError("cannot make " + repo + ": " + ex.getMessage());
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new UserError("interrupted while making " + repo);
      }
    }
  }

  /**
   * Starts each repository's merge queue ({@code merge/<colony>/<name>}), or gives the running
   * one its settings: signal-with-start of {@code configure}, so a start never doubles a queue.
   */
  static void startMergeQueues(Temporal t, String taskQueue, LoadedColony colony, PrintWriter out) {
    if (colony.merge().isEmpty()) {
      return;
    }
    var queues = new dev.colony.client.MergeQueues(t.client, colony.colony().name());
    for (dev.colony.merge.MergeRepo r : colony.merge()) {
      try {
        SearchAttributeSetup.whileUnmapped(() -> queues.start(taskQueue, r), SearchAttributeSetup.USABLE_WITHIN);
      } catch (dev.colony.client.MergeQueues.MergeQueueException e) {
        throw new UserError(e.getMessage());
      }
      out.println(MergeView.started(r));
    }
    out.flush();
  }

  /** Above this many ants, running ones are found with one listing. */
  private static final int LIST_ABOVE = 20;
  /**
   * Starts in flight at once: each is one round trip, the server does the work. Four keep a start
   * of thousands from taking the server (and, on a small machine, the CPU) from operators' calls.
   */
  private static final int START_THREADS = Integer.getInteger("colony.start.threads", 4);

  private static void startAnts(Temporal t, String taskQueue, String colonyName, List<AntSpec> ants, PrintWriter out) {
    // Which ants already run: one visibility listing for many ants, instead of a describe each.
    java.util.Set<String> running = ants.size() > LIST_ABOVE
        ? Ants.list(t, colonyName).stream().map(AntRow::workflowId).collect(java.util.stream.Collectors.toSet())
        : null;
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(START_THREADS, ants.size())));
    try {
      List<Future<WorkflowExecution>> started = new ArrayList<>();
      for (AntSpec a : ants) {
        started.add(pool.submit(() -> {
          boolean wasRunning = running != null ? running.contains(a.workflowId()) : Ants.isRunning(t, a.workflowId());
          // A running ant is only handed the spec; one that ran before starts with what it spent.
          WorkflowExecution e = SearchAttributeSetup.whileUnmapped(() -> wasRunning
                  ? Ants.start(t.client, taskQueue, a, null) : Ants.start(t.client, taskQueue, a),
              SearchAttributeSetup.USABLE_WITHIN);
          return wasRunning ? null : e;
        }));
      }
      for (int i = 0; i < ants.size(); i++) {
        WorkflowExecution execution;
        try {
          execution = started.get(i).get();
        } catch (ExecutionException e) {
          throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new UserError("interrupted while starting ants");
        }
        if (execution == null) {
          out.printf("%s already running (config sent; a changed config applies between sessions)%n",
              ants.get(i).name());
        } else {
          out.printf("started %s (workflow %s, run %s)%n", ants.get(i).name(), execution.getWorkflowId(),
              execution.getRunId());
        }
      }
    } finally {
      pool.shutdownNow();
      out.flush();
    }
  }
}
