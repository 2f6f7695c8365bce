package dev.colony.spec;

/**
 * Where an ant works. {@code root} is the directory holding per-ant workspaces; when {@code repo}
 * (a local path or a git URL) is set, the workspace is a git worktree of it on {@code branch}.
 */
public record WorkspaceSpec(String root, String repo, String branch) {}
