package dev.colony.merge;

/**
 * The queue's answer to a submission.
 *
 * @param itemId the item it joined or opened ({@code <ant>-<n>})
 * @param state the item's state now
 * @param position 1 = next to land; 0 when not in the line (landing, awaiting review)
 * @param text one line for a human
 */
public record SubmitReply(String itemId, ItemState state, int position, String text) {}
