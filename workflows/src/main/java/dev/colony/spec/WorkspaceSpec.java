package dev.colony.spec;

/**
 * Where an ant works. {@code root} is the directory holding per-ant workspaces; when {@code repo}
 * (a local path or a git URL) is set, the workspace is a git worktree of it on {@code branch}.
 *
 * @param moveAfterSeconds how long the host holding the workspace may stop polling before the
 *     ant moves to another host and recreates its workspace there (from the remote branch); null
 *     for the default ({@link #DEFAULT_MOVE_AFTER_SECONDS})
 * @param touches the paths (repository-relative globs) the ant's work touches, for conflict-aware
 *     scheduling: two ants whose current work overlaps on one repository do not run at once
 */
public record WorkspaceSpec(String root, String repo, String branch, Long moveAfterSeconds,
    java.util.List<String> touches) {
  public static final long DEFAULT_MOVE_AFTER_SECONDS = 600;

  public WorkspaceSpec {
    touches = touches == null ? java.util.List.of() : java.util.List.copyOf(touches);
  }

  public WorkspaceSpec(String root, String repo, String branch) {
    this(root, repo, branch, null, null);
  }

  public WorkspaceSpec(String root, String repo, String branch, Long moveAfterSeconds) {
    this(root, repo, branch, moveAfterSeconds, null);
  }

  /** The branch the ant works on: the configured one, else {@code colony/<ant>}. */
  public String branchOf(String ant) {
    return branch != null ? branch : "colony/" + ant;
  }

  public long moveAfter() {
    return moveAfterSeconds == null ? DEFAULT_MOVE_AFTER_SECONDS : moveAfterSeconds;
  }
}
