package dev.colony.spec;

import java.util.List;

/**
 * Something that wakes an event-driven ant: a new GitHub issue, or a human message only. A
 * {@code github_issue} trigger with {@code as: task} makes each matching issue a task on the
 * board instead ({@link Delivery#TASK}), for {@code to} (an ant, {@code pool:P} or {@code @human};
 * null: the ant whose trigger it is); closing the issue moves the task to Done.
 */
public record TriggerSpec(Type type, List<String> labels, Delivery as, String to) {
  public enum Type { GITHUB_ISSUE, DISCORD_COMMAND }

  /** What a matching issue becomes: a wake with the issue in the prompt, or a task on the board. */
  public enum Delivery { WAKE, TASK }

  public TriggerSpec {
    labels = labels == null ? List.of() : List.copyOf(labels);
    as = as == null ? Delivery.WAKE : as;
  }

  public TriggerSpec(Type type, List<String> labels) {
    this(type, labels, Delivery.WAKE, null);
  }

  /** A {@code github_issue} trigger that wakes the ant (the issue goes into its prompt). */
  public boolean wakesOnIssues() {
    return type == Type.GITHUB_ISSUE && as == Delivery.WAKE;
  }

  /** A {@code github_issue} trigger whose issues become tasks. */
  public boolean makesTasks() {
    return type == Type.GITHUB_ISSUE && as == Delivery.TASK;
  }
}
