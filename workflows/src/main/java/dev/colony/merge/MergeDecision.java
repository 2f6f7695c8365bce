package dev.colony.merge;

/**
 * A human's decision on an item.
 *
 * @param item an item id ({@code alpha-3}) or an ant's name (its open item)
 * @param action approve, retry or cancel
 * @param by who decided (for the card and the ant's channel)
 */
public record MergeDecision(String item, String action, String by) {}
