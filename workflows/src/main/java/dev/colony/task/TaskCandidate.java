package dev.colony.task;

/** A task an ant may claim, as visibility shows it; {@code mine}: already In Progress for this ant. */
public record TaskCandidate(String id, Priority priority, long queuedAtMillis, boolean mine) {}
