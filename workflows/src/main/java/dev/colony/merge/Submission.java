package dev.colony.merge;

/**
 * "Land what this ant has on its branch": the {@code submit} update of a repository's queue.
 * The queue reads the branch when the item's turn comes (on the ant's host); a submission may name
 * the head it is for ({@code head}), which is what a review approves. A later submission of the
 * same ant joins its open item as a part of its own.
 *
 * @param ant the ant's name
 * @param host the ant's host ("" when it has none: the shared queue reads the branch)
 * @param branch the ant's branch ({@code colony/<ant>} unless its workspace names another)
 * @param taskId the task the work is for (it moves to Done when it lands), or null
 * @param priority 0 (urgent) to 3 (low); 2 is normal
 * @param by who submitted: "ant" after a session, "cli", "console", or a chat user
 * @param approved whether a human already approved it (a review was done), so it need not wait
 * @param head the branch head the work ends at (an ant's session says it), or null: with review, an
 *     approval covers exactly this head; later commits need an approval of their own
 * @param base the commit the work starts after (its task's base), or null
 * @param fix from an ant that runs a rework as a session of its own: true for that session's
 *     submission (the item's fix, which ends its rework), false for any other (it joins an item in
 *     rework without ending it); null from anyone else (a human, an older ant): any submission
 *     ends a rework, as before
 * @param changed from an ant that declares no paths: the files its branch changed against the target
 *     when it submitted (read on its host; empty when they could not be read), which its work holds
 *     until it lands or is dropped; null from an ant with declared paths (its claim is held), a
 *     human, or an older ant
 */
public record Submission(String ant, String host, String branch, String taskId, int priority, String by,
    boolean approved, String head, String base, Boolean fix, java.util.List<String> changed) {
  public static final int NORMAL = 2;

  public Submission {
    changed = changed == null ? null : java.util.List.copyOf(changed);
  }

  public Submission(String ant, String host, String branch, String taskId, int priority, String by,
      boolean approved, String head, String base, Boolean fix) {
    this(ant, host, branch, taskId, priority, by, approved, head, base, fix, null);
  }

  public Submission(String ant, String host, String branch, String taskId, int priority, String by,
      boolean approved, String head, String base) {
    this(ant, host, branch, taskId, priority, by, approved, head, base, null);
  }

  public Submission(String ant, String host, String branch, String taskId, int priority, String by, boolean approved) {
    this(ant, host, branch, taskId, priority, by, approved, null, null);
  }
}
