package dev.colony.task;

import java.util.List;

/**
 * What a task's work produced on the ant's branch: the commits since the task began, and their
 * diff stat. Computed on the ant's host by the session activity ({@code git log base..HEAD}).
 *
 * @param branch the ant's branch (e.g. {@code colony/alpha}); null when the workspace is not a git repository
 * @param base the commit the branch was at when the task's first session began
 * @param head the commit after the last session
 * @param commits newest first, at most {@link #MAX_COMMITS}
 * @param files the changed paths, at most {@link #MAX_FILES}
 */
public record TaskWork(String branch, String base, String head, List<Commit> commits, int filesChanged,
    long linesAdded, long linesRemoved, List<String> files) {
  public static final int MAX_COMMITS = 50;
  public static final int MAX_FILES = 100;

  public record Commit(String sha, String subject) {}

  public TaskWork {
    commits = commits == null ? List.of() : List.copyOf(commits.subList(0, Math.min(commits.size(), MAX_COMMITS)));
    files = files == null ? List.of() : List.copyOf(files.subList(0, Math.min(files.size(), MAX_FILES)));
  }
}
