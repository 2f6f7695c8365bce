package dev.colony.cli;

import dev.colony.ant.AntWorkflow;
import dev.colony.fault.Cluster;
import dev.colony.spec.AntIds;
import dev.colony.task.Assignee;
import dev.colony.task.impl.TaskActivitiesImpl;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One task added with N idle ants (default 10,000; {@code -Dbench.ants=}): what its announcement
 * ({@code AnnounceTask}) costs, on the real Temporal dev server. The ants are workflows started
 * with an ant's search attributes ({@code AntTakes = [take:ant:NAME, take:any]},
 * {@code AntState = 'waiting'}) on a queue no worker polls, so a signal reaches their history and
 * nothing else runs. Measured: the announcement as today's {@code TaskActivitiesImpl.announce}
 * makes it, and as the release before made it (list every ant that takes the task, signal each),
 * bounded by that activity's 30 s. Prints a Markdown section for {@code bench/TASKS.md}.
 */
public final class AnnounceBench {
  private static final String COLONY = "bench";

  private AnnounceBench() {}

  public static void main(String[] args) throws Exception {
    int n = Integer.getInteger("bench.ants", 10_000);
    int runs = Integer.getInteger("bench.runs", 20);
    Path tmp = Files.createTempDirectory("colony-announce-bench");
    TemporalCli cli = TemporalCli.find();
    if (cli == null) {
      throw new IllegalStateException("no temporal CLI (bin/temporal.sh installs it)");
    }
    long began = System.nanoTime();
    try (DevServer server = DevServer.start(cli, Cluster.freePort(), Cluster.freePort(), null, tmp.resolve("server.log"));
        Temporal temporal = Temporal.connect(server.address(), "default")) {
      WorkflowClient client = temporal.client;
      long t0 = System.nanoTime();
      startAnts(client, n);
      long startedMs = (System.nanoTime() - t0) / 1_000_000;
      String all = "WorkflowType = '" + AntIds.WORKFLOW_TYPE + "' AND ColonyName = '" + COLONY + "'";
      dev.colony.testing.Eventually.eventually(Duration.ofMinutes(5), () -> count(client, all) >= n,
          "visibility lists the ants");

      // Today: a few waiting ants.
      TaskActivitiesImpl today = new TaskActivitiesImpl(client, "default");
      List<Long> todayMs = new ArrayList<>();
      int told = 0;
      for (int i = 0; i < runs; i++) {
        long s = System.nanoTime();
        told = today.announce(COLONY, List.of(Assignee.TAKE_ANY));
        todayMs.add((System.nanoTime() - s) / 1_000_000);
      }
      long s = System.nanoTime();
      int byName = today.announce(COLONY, List.of(Assignee.takeAnt("a42")));
      long byNameMs = (System.nanoTime() - s) / 1_000_000;

      // Before: every ant that takes the task, one signal each, within the activity's 30 s.
      long b = System.nanoTime();
      long deadline = b + Duration.ofSeconds(30).toNanos();
      int signalled = 0;
      boolean finished = true;
      String takers = "WorkflowType = '" + AntIds.WORKFLOW_TYPE + "' AND ExecutionStatus = 'Running' AND ColonyName = '"
          + COLONY + "' AND AntTakes IN ('take:any')";
      for (WorkflowExecutionMetadata m : (Iterable<WorkflowExecutionMetadata>) client.listExecutions(takers)::iterator) {
        if (System.nanoTime() > deadline) {
          finished = false;
          break;
        }
        client.newWorkflowStub(AntWorkflow.class, m.getExecution().getWorkflowId()).tasksWaiting();
        signalled++;
      }
      long beforeMs = (System.nanoTime() - b) / 1_000_000;

      Collections.sort(todayMs);
      StringBuilder out = new StringBuilder();
      out.append("## One task added with ").append(String.format(Locale.ROOT, "%,d", n)).append(" idle ants\n\n");
      out.append("Measured by `AnnounceBench` (starter's tests) on the Temporal dev server: ")
          .append(String.format(Locale.ROOT, "%,d", n))
          .append(" ants that take `*` and wait for work (workflows with an ant's search attributes on a queue no ")
          .append("worker polls, started in ").append(String.format(Locale.ROOT, "%,d", startedMs))
          .append(" ms), one task for `*` announced (`AnnounceTask`), timed in the activity's process. ")
          .append(runs).append(" announcements.\n\n");
      out.append("| announcement | ants signalled | visibility rows read | p50 | max |\n|---|---|---|---|---|\n");
      out.append(String.format(Locale.ROOT, "| now: a few waiting ants, at random | %d | at most %d | %d ms | %d ms |%n",
          told, 200, todayMs.get(todayMs.size() / 2), todayMs.get(todayMs.size() - 1)));
      out.append(String.format(Locale.ROOT, "| now: a task assigned by name | %d | 0 | %d ms | %d ms |%n", byName,
          byNameMs, byNameMs));
      out.append(String.format(Locale.ROOT, "| before: every ant that takes it, one signal each | %,d%s | %,d | %,d ms%s | — |%n",
          signalled, finished ? "" : " (of " + String.format(Locale.ROOT, "%,d", n) + ")", signalled, beforeMs,
          finished ? "" : " (cut at the activity's 30 s: it timed out and was retried, signalling again)"));
      out.append(String.format(Locale.ROOT, "%nMachine: %d cores, Java %s. Took %d s.%n",
          Runtime.getRuntime().availableProcessors(), Runtime.version(), (System.nanoTime() - began) / 1_000_000_000L));
      System.out.println(out);
      if (args.length > 0) {
        Files.writeString(Path.of(args[0]), out.toString());
      }
    }
  }

  private static long count(WorkflowClient client, String query) {
    return client.getWorkflowServiceStubs().blockingStub().countWorkflowExecutions(CountWorkflowExecutionsRequest
        .newBuilder().setNamespace("default").setQuery(query).build()).getCount();
  }

  private static void startAnts(WorkflowClient client, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> started = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String name = "a" + i;
        started.add(pool.submit(() -> {
          SearchAttributes sa = SearchAttributes.newBuilder()
              .set(AntSearchAttributes.COLONY, COLONY).set(AntSearchAttributes.ANT, name)
              .set(AntSearchAttributes.STATE, "waiting")
              .set(AntSearchAttributes.TAKES, List.of(Assignee.TAKE_ANY, Assignee.takeAnt(name)))
              .build();
          client.newUntypedWorkflowStub(AntIds.WORKFLOW_TYPE, WorkflowOptions.newBuilder()
              .setWorkflowId(AntIds.workflowId(COLONY, name)).setTaskQueue("nobody-polls-this")
              .setTypedSearchAttributes(sa).build()).start();
          return null;
        }));
      }
      for (Future<?> f : started) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }
}
