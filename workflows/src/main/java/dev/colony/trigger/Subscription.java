package dev.colony.trigger;

import java.util.List;

/**
 * An ant watching a repository: its workflow id and the label sets of its {@code github_issue}
 * triggers (an issue matches when it has ALL labels of at least one set; an empty set matches
 * every issue). {@code labelSets} wake the ant; {@code taskRoutes} ({@code as: task} triggers)
 * make the issue a task for their assignee instead.
 */
public record Subscription(String antWorkflowId, List<List<String>> labelSets, List<TaskRoute> taskRoutes) {
  /**
   * An {@code as: task} trigger: the labels an issue must carry, and who its task is for
   * ({@code alpha}, {@code pool:docs}, {@code @alice}: as {@code Assignee.parse} reads it).
   */
  public record TaskRoute(List<String> labels, String assignee) {
    public TaskRoute {
      labels = labels == null ? List.of() : List.copyOf(labels);
    }
  }

  public Subscription {
    labelSets = labelSets == null ? List.of() : labelSets.stream().map(List::copyOf).toList();
    taskRoutes = taskRoutes == null ? List.of() : List.copyOf(taskRoutes);
  }

  public Subscription(String antWorkflowId, List<List<String>> labelSets) {
    this(antWorkflowId, labelSets, List.of());
  }

  /** Whether the issue wakes this ant. */
  public boolean matches(IssueEvent e) {
    return labelSets.stream().anyMatch(e::hasAll);
  }

  /** The first task route the issue matches, or null. */
  public TaskRoute taskRoute(IssueEvent e) {
    return taskRoutes.stream().filter(r -> e.hasAll(r.labels())).findFirst().orElse(null);
  }
}
