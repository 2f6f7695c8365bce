package dev.colony.trigger;

import java.util.List;

/**
 * An ant watching a repository: its workflow id and the label sets of its {@code github_issue}
 * triggers (an issue matches when it has ALL labels of at least one set; an empty set matches
 * every issue).
 */
public record Subscription(String antWorkflowId, List<List<String>> labelSets) {
  public Subscription {
    labelSets = labelSets == null ? List.of() : labelSets.stream().map(List::copyOf).toList();
  }

  public boolean matches(IssueEvent e) {
    return labelSets.stream().anyMatch(e::hasAll);
  }
}
