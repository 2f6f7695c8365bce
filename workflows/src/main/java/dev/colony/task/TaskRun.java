package dev.colony.task;

/**
 * A task workflow's input: the new task (first run) or, at continue-as-new, the card it carries.
 * Exactly one of {@code task} and {@code card} is set.
 */
public record TaskRun(String colony, NewTask task, TaskCard card, TaskSettings settings) {}
