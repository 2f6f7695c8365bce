package dev.colony.merge;

/**
 * "Land what this ant has on its branch": the {@code submit} update of a repository's queue.
 * The queue reads the branch when the item's turn comes (on the ant's host), so a submission
 * names no commit: a later submission of the same ant joins its open item.
 *
 * @param ant the ant's name
 * @param host the ant's host ("" when it has none: the shared queue reads the branch)
 * @param branch the ant's branch ({@code colony/<ant>} unless its workspace names another)
 * @param taskId the task the work is for (it moves to Done when it lands), or null
 * @param priority 0 (urgent) to 3 (low); 2 is normal
 * @param by who submitted: "ant" after a session, "cli", "console", or a chat user
 * @param approved whether a human already approved it (a review was done), so it need not wait
 */
public record Submission(String ant, String host, String branch, String taskId, int priority, String by,
    boolean approved) {
  public static final int NORMAL = 2;
}
