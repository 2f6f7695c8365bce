package dev.colony.merge;

import java.util.List;

/**
 * One ant's work in a repository's queue, as the queue's book and its card hold it.
 *
 * @param id {@code <ant>-<n>}, n counting the ant's items in this queue
 * @param step while LANDING: what is happening ("publishing", "rebasing", "testing", "updating main")
 * @param submittedAt epoch ms (workflow time) of the first submission; aging counts from here
 * @param tries reworks so far
 * @param reason the last rework's or human's reason (bounded), or null
 * @param head the commit last read from the ant's branch (null before its first turn)
 * @param paths the files its work changes (bounded), learned when it was rebased
 */
public record MergeItem(String id, String ant, String host, String branch, String taskId, int priority,
    ItemState state, String step, long submittedAt, long updatedAt, int tries, String reason, String head,
    List<String> paths, String by, boolean approved) {
  public MergeItem {
    paths = paths == null ? List.of() : List.copyOf(paths);
  }
}
