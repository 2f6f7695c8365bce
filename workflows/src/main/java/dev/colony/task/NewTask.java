package dev.colony.task;

import java.util.List;

/**
 * A task to add (from the CLI, the console, a chat or a GitHub issue). {@code by} names who added
 * it ({@code cli}, {@code console}, {@code @alice}, {@code github}).
 */
public record NewTask(String id, String title, String body, Priority priority, List<String> labels,
    Assignee assignee, TaskState state, String issueUrl, String by) {
  public NewTask {
    labels = labels == null ? List.of() : List.copyOf(labels);
  }
}
