package dev.colony.supervision;

/**
 * The supervisor's order to an ant: start afresh (a running session is interrupted, a parked ant
 * un-parked with its counters reset). {@code clean} drops the agent's conversation; otherwise the
 * next session resumes it (the ant's {@code recovery} policy).
 */
public record Restart(String reason, boolean clean) {}
