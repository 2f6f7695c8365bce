package dev.colony.autonomy;

/**
 * Input of the {@code decide} signal: approve or deny confirmation {@code id} (null: the oldest
 * one pending). {@code by} names the human, for the history.
 */
public record Decide(Integer id, boolean approve, String by, String note) {}
