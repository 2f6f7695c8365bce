package dev.colony.spec;

import java.util.List;

/** Something that wakes an event-driven ant: a new GitHub issue, or a human message only. */
public record TriggerSpec(Type type, List<String> labels) {
  public enum Type { GITHUB_ISSUE, DISCORD_COMMAND }

  public TriggerSpec {
    labels = labels == null ? List.of() : List.copyOf(labels);
  }
}
