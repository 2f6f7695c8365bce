package dev.colony.merge;

import java.util.List;

/**
 * An ant's branch as the queue reads it when the item's turn comes.
 *
 * @param head the branch's head commit (null: the branch does not exist)
 * @param base the commit its new work starts after: the last landed original if it is an ancestor
 *     of head, else the merge base with the target
 * @param commits commits in base..head (0: nothing to land)
 * @param paths files changed in base..head (at most {@value #MAX_PATHS})
 * @param fetchRef where the landing finds head: the branch itself for a local repository, a ref on
 *     the remote it was pushed to for a URL one
 */
public record BranchHead(String head, String base, int commits, List<String> paths, String fetchRef) {
  public static final int MAX_PATHS = 200;

  public BranchHead {
    paths = paths == null ? List.of() : List.copyOf(paths);
  }
}
