package dev.colony.task;

/**
 * A comment on a task: by a human ({@code @alice}, {@code cli}, {@code console}) or an ant
 * ({@code alpha}). A re-queue's comment is one, and reaches the next session's prompt.
 */
public record TaskComment(String author, String text, long atMillis) {}
