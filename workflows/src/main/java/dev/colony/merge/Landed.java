package dev.colony.merge;

import java.util.List;

/**
 * One landing, for the card's history and the ant's news.
 *
 * @param from the ant's branch head that was landed (its original commit)
 * @param to the target's new head (or the pull request's head)
 * @param before the target's head before
 * @param commits how many commits landed
 * @param testMillis how long the test command ran
 * @param queueMillis the queue's own time for this item beyond the test (publish, rebase, update)
 * @param paths the files changed (bounded)
 * @param pullRequest the pull request's URL (land: pull_request), else null
 * @param taskIds every task whose work landed (taskId is the first), or empty
 * @param base the commit the ant's landed work started after ({@code base..from} are its commits), or null
 * @param approved with review: the landed head is the one a human approved (nothing after it landed)
 */
public record Landed(String itemId, String ant, String taskId, String from, String to, String before, int commits,
    long testMillis, long queueMillis, long at, List<String> paths, String pullRequest, List<String> taskIds,
    String base, boolean approved) {
  public Landed {
    paths = paths == null ? List.of() : List.copyOf(paths);
    taskIds = taskIds == null ? List.of() : List.copyOf(taskIds);
  }

  public Landed(String itemId, String ant, String taskId, String from, String to, String before, int commits,
      long testMillis, long queueMillis, long at, List<String> paths, String pullRequest) {
    this(itemId, ant, taskId, from, to, before, commits, testMillis, queueMillis, at, paths, pullRequest, null, null,
        false);
  }

  /** The same landing with at most {@code n} paths. */
  Landed withPaths(List<String> p) {
    return new Landed(itemId, ant, taskId, from, to, before, commits, testMillis, queueMillis, at, p, pullRequest,
        taskIds, base, approved);
  }
}
