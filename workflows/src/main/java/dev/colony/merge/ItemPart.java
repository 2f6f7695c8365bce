package dev.colony.merge;

/**
 * One submission an item holds: the task it was for and the branch head it named. An item carries
 * every task whose work it holds (in the order they came); with {@code review: true} each part is
 * approved on its own, and an approval covers exactly the head its part named.
 *
 * @param taskId the task the work is for, or null
 * @param head the ant's branch head the submission named (the commit its session ended at), or null
 *     when it named none (a human's {@code colony merge submit}): then the branch is read at the turn
 * @param base the commit the part's work starts after, when the submission said (its task's base), or null
 * @param approved whether a human approved this part (always true in effect with {@code review: false})
 * @param fresh true when the part came after its task was approved (a rework's fix, or later work for a
 *     task approved already): only an approval given after it (the task's approve, {@code colony merge
 *     approve}) approves it, not its task being Done on the board; null otherwise (and in older runs)
 */
public record ItemPart(String taskId, String head, String base, boolean approved, Boolean fresh) {
  public ItemPart(String taskId, String head, String base, boolean approved) {
    this(taskId, head, base, approved, null);
  }

  /**
   * Parts one item holds at most; a submission beyond it waits for the item to land. With
   * {@link MergeBook#MAX_OPEN} items it bounds what the card and the continue-as-new input carry.
   */
  public static final int MAX = 8;
  /** Without review a part is only its task (no head is kept): tasks one item holds at most. */
  public static final int MAX_TASKS = 20;

  ItemPart approve() {
    return new ItemPart(taskId, head, base, true, null);
  }

  /** Unapproved, waiting for an approval that comes after it (its task's Done state does not count). */
  ItemPart unapprovedFresh(String atHead) {
    return new ItemPart(taskId, atHead, base, false, Boolean.TRUE);
  }

  /** Whether only an approval given after it approves it. */
  boolean isFresh() {
    return Boolean.TRUE.equals(fresh) && !approved;
  }
}
