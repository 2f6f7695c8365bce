package dev.colony.merge;

/**
 * A compare-and-swap of the target branch.
 *
 * @param outcome UPDATED (it was {@code expected} and is now the new head), ALREADY (the new head is
 *     already on it: a retry after the update, even when the target moved on since), or MOVED (someone else moved it: rebase again)
 * @param head the target's head now
 */
public record TargetUpdate(Outcome outcome, String head) {
  public enum Outcome { UPDATED, ALREADY, MOVED }
}
