package dev.colony.spec;

/**
 * Where an ant works. {@code root} is the directory holding per-ant workspaces; when {@code repo}
 * (a local path or a git URL) is set, the workspace is a git worktree of it on {@code branch}.
 *
 * @param moveAfterSeconds how long the host holding the workspace may stop polling before the
 *     ant moves to another host and recreates its workspace there (from the remote branch); null
 *     for the default ({@link #DEFAULT_MOVE_AFTER_SECONDS})
 */
public record WorkspaceSpec(String root, String repo, String branch, Long moveAfterSeconds) {
  public static final long DEFAULT_MOVE_AFTER_SECONDS = 600;

  public WorkspaceSpec(String root, String repo, String branch) {
    this(root, repo, branch, null);
  }

  public long moveAfter() {
    return moveAfterSeconds == null ? DEFAULT_MOVE_AFTER_SECONDS : moveAfterSeconds;
  }
}
