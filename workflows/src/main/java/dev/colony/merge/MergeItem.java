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
 * @param taskId the first task the item holds (see {@code parts} for all of them), or null
 * @param approved whether some of its work is approved to land (with review: the parts up to {@code approvedHead})
 * @param parts the submissions it holds, in order: every task whose work it holds, and the head each named
 * @param approvedHead with review: the head its approval covers (what lands; later commits wait for
 *     their own approval), or null (not approved, or approved before a head was known)
 */
public record MergeItem(String id, String ant, String host, String branch, String taskId, int priority,
    ItemState state, String step, long submittedAt, long updatedAt, int tries, String reason, String head,
    List<String> paths, String by, boolean approved, List<ItemPart> parts, String approvedHead) {
  public MergeItem {
    paths = paths == null ? List.of() : List.copyOf(paths);
    parts = parts == null ? List.of() : List.copyOf(parts);
  }

  public MergeItem(String id, String ant, String host, String branch, String taskId, int priority, ItemState state,
      String step, long submittedAt, long updatedAt, int tries, String reason, String head, List<String> paths,
      String by, boolean approved) {
    this(id, ant, host, branch, taskId, priority, state, step, submittedAt, updatedAt, tries, reason, head, paths, by,
        approved, null, null);
  }

  /** Every task whose work the item holds, in order, without repeats. */
  public List<String> taskIds() {
    List<String> out = new java.util.ArrayList<>();
    for (ItemPart p : parts) {
      if (p.taskId() != null && !out.contains(p.taskId())) {
        out.add(p.taskId());
      }
    }
    if (out.isEmpty() && taskId != null) {
      out.add(taskId);
    }
    return out;
  }
}
