package dev.colony.cli;

import dev.colony.config.LoadedColony;
import dev.colony.spec.AntSpec;
import dev.colony.spec.TriggerSpec;
import dev.colony.trigger.RepoWatcher;
import dev.colony.trigger.Subscription;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Starts one {@link RepoWatcher} per colony and repository (signal-with-start) and subscribes the
 * ants with {@code github_issue} triggers to it (those with {@code as: task} as task routes). One
 * poller per repository keeps the cost flat however many ants watch it: one conditional request
 * per interval (two while issues become tasks: open ones, and those closed since).
 */
final class Watchers {
  private Watchers() {}

  static void subscribe(Temporal t, String taskQueue, LoadedColony colony, List<AntSpec> ants, PrintWriter out) {
    Map<String, Integer> perRepo = new TreeMap<>();
    for (AntSpec a : ants) {
      List<List<String>> labelSets = a.triggers().stream().filter(TriggerSpec::wakesOnIssues)
          .map(TriggerSpec::labels).toList();
      // `as: task`: the issue becomes a task for `to`, or for this ant.
      List<Subscription.TaskRoute> routes = a.triggers().stream().filter(TriggerSpec::makesTasks)
          .map(tr -> new Subscription.TaskRoute(tr.labels(), tr.to() != null ? tr.to() : a.name())).toList();
      if (labelSets.isEmpty() && routes.isEmpty()) {
        continue;
      }
      for (String repo : a.githubRepos()) {
        RepoWatcher w = t.client.newWorkflowStub(RepoWatcher.class, WorkflowOptions.newBuilder()
            .setWorkflowId(RepoWatcher.workflowId(colony.colony().name(), repo)).setTaskQueue(taskQueue).build());
        BatchRequest req = t.client.newSignalWithStartRequest();
        req.add(w::run, new RepoWatcher.WatchState(colony.colony().name(), repo, colony.colony().dir(),
            colony.colony().githubTokenVar(), colony.colony().githubPollSeconds(), List.of(), null, List.of()));
        req.add(w::subscribe, new Subscription(a.workflowId(), labelSets, routes));
        t.client.signalWithStart(req);
        perRepo.merge(repo, 1, Integer::sum);
      }
    }
    perRepo.forEach((repo, n) -> out.printf("watching %s for GitHub issues (%d ant%s, every %ds)%n", repo, n,
        n == 1 ? "" : "s", colony.colony().githubPollSeconds()));
    out.flush();
  }
}
