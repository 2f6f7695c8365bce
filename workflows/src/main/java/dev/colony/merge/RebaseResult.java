package dev.colony.merge;

import java.util.List;

/**
 * A rebase of an item onto the target in the queue's scratch worktree.
 *
 * @param head the rebased (or squashed) head, null on a conflict
 * @param conflicts the files that conflicted (at most 50), empty when it applied
 * @param detail for a conflict: git's own lines (bounded), else a one-line summary
 * @param subjects the landed commits' subjects, oldest first (at most 20)
 */
public record RebaseResult(String head, int commits, List<String> conflicts, String detail, List<String> subjects) {
  public RebaseResult {
    conflicts = conflicts == null ? List.of() : List.copyOf(conflicts);
    subjects = subjects == null ? List.of() : List.copyOf(subjects);
  }

  public boolean conflicted() {
    return head == null;
  }
}
