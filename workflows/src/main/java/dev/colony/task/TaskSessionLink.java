package dev.colony.task;

/**
 * One session that worked on a task: which ant, its session number (the ant's history in the
 * Web UI, and {@code /ants/ANT} in the console), how it ended and its one-line summary.
 */
public record TaskSessionLink(String ant, int session, String outcome, String summary, double costUsd, long atMillis) {}
