package dev.colony.merge;

import java.util.List;
import java.util.Map;

/**
 * What the queue remembers of claims beyond the claims themselves, across continue-as-new (absent
 * in the state of older runs: then nothing is held beyond the claims, and waiters are served by name).
 *
 * @param held per ant, the globs of its submitted work that has not landed yet: they stay held when
 *     the ant claims other paths for its next work, until that work lands or is dropped
 * @param heldAt per ant, the moment (in {@code seq}) its held globs were last added to
 * @param claimedAt per ant, the moment (in {@code seq}) of its current claim
 * @param waitingSince per waiting ant, the moment it began to wait: waiters are served in that order
 * @param seq the book's clock: one tick per claim or submission
 * @param undeclared the ants known to declare no paths (absent in older runs: none known yet)
 */
public record ClaimOrder(Map<String, List<String>> held, Map<String, Long> heldAt, Map<String, Long> claimedAt,
    Map<String, Long> waitingSince, long seq, List<String> undeclared) {
  public ClaimOrder {
    held = held == null ? Map.of() : held;
    heldAt = heldAt == null ? Map.of() : heldAt;
    claimedAt = claimedAt == null ? Map.of() : claimedAt;
    waitingSince = waitingSince == null ? Map.of() : waitingSince;
    undeclared = undeclared == null ? List.of() : undeclared;
  }

  public ClaimOrder(Map<String, List<String>> held, Map<String, Long> heldAt, Map<String, Long> claimedAt,
      Map<String, Long> waitingSince, long seq) {
    this(held, heldAt, claimedAt, waitingSince, seq, null);
  }
}
