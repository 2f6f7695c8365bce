package dev.colony.merge;

/**
 * A human's decision on an item.
 *
 * @param item an item id ({@code alpha-3}) or an ant's name (its open item)
 * @param action approve, retry or cancel
 * @param by who decided (for the card and the ant's channel)
 * @param head for approve: the head the human saw (the console sends the item's last head); the
 *     approval covers the item's submissions up to it, and none that came after. Null: every
 *     submission the item holds when the decision arrives
 */
public record MergeDecision(String item, String action, String by, String head) {
  public MergeDecision(String item, String action, String by) {
    this(item, action, by, null);
  }
}
