package dev.colony.task;

/**
 * A human's change to a task (updates {@code approve}, {@code requeue}, {@code move},
 * {@code assign}, {@code comment}).
 *
 * @param by who ({@code cli}, {@code console}, {@code @alice} from a chat)
 * @param to the column to move to ({@code move} only)
 * @param assignee the new assignee as written ({@code assign}, and optionally {@code requeue}); "" or "-" is nobody
 * @param text the comment, or the reason of a move (a move to Blocked needs one)
 */
public record TaskChange(String by, TaskState to, String assignee, String text) {
  public static TaskChange comment(String by, String text) {
    return new TaskChange(by, null, null, text);
  }
}
