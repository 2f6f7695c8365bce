package dev.colony.merge.impl;

import dev.colony.config.SpecReferences;
import dev.colony.merge.BranchHead;
import dev.colony.merge.MergeRepo;
import dev.colony.sandbox.GitWalls;
import dev.colony.spec.AntSpec;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An ant's branch on its way to the queue and back. PublishBranch ({@link #publish}): the branch
 * read from the ant's own repository (through {@code git upload-pack} in the ant's walls) into the
 * shared repository (local) or the worker's mirror of the remote, which pushes it there (URL); the
 * head a human approved is what lands with review. SyncBranch ({@link #sync}): after a landing, the
 * ant's branch moved to the landed commit (reset, or its later commits rebased onto it), by git
 * inside the ant's walls. An ant's own repository is its clone {@code <root>/<ant>} (URL) or its
 * repository of its own beside the shared one (local).
 */
final class AntBranches {
  /** Where a URL repository's approved head goes on the remote (the queue fetches it from there). */
  static final String APPROVED_REFS = "refs/colony/approved/";
  private final MergeGit m;
  private final Git git;
  private final MergeActivitiesImpl.WorkspacePreparer workspaces;

  AntBranches(MergeGit m, MergeActivitiesImpl.WorkspacePreparer workspaces) {
    this.m = m;
    this.git = m.git;
    this.workspaces = workspaces;
  }

  /** PublishBranch: the ant's branch (or the head a human approved) and what is new on it. */
  BranchHead publish(MergeRepo repo, String ant, String branch, String since, String approved) {
    return m.call(() -> {
      String url = m.resolvedRepo(repo);
      String fetchRef = "refs/heads/" + branch;
      BranchHead none = new BranchHead(null, null, 0, List.of(), fetchRef);
      Path dir = repo.remote() ? intoMirror(repo, url, ant, branch, approved) : intoShared(repo, url, ant, branch, approved);
      if (dir == null) {
        return none;
      }
      String head = m.revParse(dir, "refs/heads/" + branch);
      if (head == null && approved == null) {
        return none;
      }
      if (approved != null) {
        // With review what lands is the head a human approved, never the branch as it is now (the
        // ant may have committed more since: that waits for its own approval).
        head = approvedHead(repo, dir, ant, approved);
        if (repo.remote()) {
          fetchRef = APPROVED_REFS + ant;
          git.check(dir, "push", "--quiet", "--force", "origin", head + ":" + fetchRef);
        }
      } else if (repo.remote()) {
        // The queue may run anywhere: it finds the branch on the remote.
        git.check(dir, "push", "--quiet", "--force", "origin", head + ":refs/heads/" + branch);
      }
      String target = repo.remote() ? "refs/remotes/origin/" + repo.target() : "refs/heads/" + repo.target();
      return newWork(repo, dir, target, head, since, fetchRef);
    });
  }

  /**
   * A URL repository: the ant's repository is the ant's, the worker runs no git there. Its branch
   * is fetched (through upload-pack in the ant's walls) into the worker's mirror of the remote on
   * this host, which fetches the remote and pushes the branch to it. A workspace of the layout
   * before (a worktree of a clone .repos/<ant>) is read from that clone.
   *
   * @return the mirror; null when the ant has no repository here or no such branch
   */
  private Path intoMirror(MergeRepo repo, String url, String ant, String branch, String approved)
      throws IOException, InterruptedException {
    Path root = m.workspaceRoot(repo);
    Path dir = dev.colony.workspace.impl.WorkspaceActivitiesImpl.mirror(root, ant);
    Path clone = root.resolve(ant);
    List<Path> borrowed = List.of(dir.resolve("objects").toAbsolutePath());
    if (!GitWalls.ownRepository(clone)) {
      clone = root.resolve(".repos").resolve(ant);
      borrowed = List.of();
    }
    if (!Files.exists(clone.resolve(".git"))) {
      return null;
    }
    // One at a time with the ant's own session on this host (which fetches into the mirror too).
    synchronized (dev.colony.workspace.impl.WorkspaceActivitiesImpl.lockOf(dir)) {
      if (!Files.exists(dir.resolve("HEAD"))) {
        Files.createDirectories(dir);
        git.check(dir, "init", "--quiet", "--bare");
      }
      // The ant's repository borrows these objects: none is ever pruned.
      if (!"never".equals(git.run(dir, "config", "--get", "gc.pruneExpire").out().strip())) {
        git.check(dir, "config", "gc.pruneExpire", "never");
      }
      Git.Result current = git.run(dir, "config", "--get", "remote.origin.url");
      if (!current.ok()) {
        git.check(dir, "remote", "add", "origin", url);
      } else if (!current.out().strip().equals(url)) {
        git.check(dir, "remote", "set-url", "origin", url);
      }
      git.check(dir, "-c", "gc.auto=0", "fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/remotes/origin/*");
      return fetchFromAnt(repo, dir, ant, clone, borrowed, branch, approved) ? dir : null;
    }
  }

  /** A local repository: the ant's branch fetched into it. @return it; null when there is no such branch */
  private Path intoShared(MergeRepo repo, String url, String ant, String branch, String approved)
      throws IOException, InterruptedException {
    Path dir = m.localRepo(url);
    Path root = m.workspaceRoot(repo);
    return fetchFromAnt(repo, dir, ant, root.resolve(ant), List.of(GitWalls.sharedGitDir(dir.toAbsolutePath())),
        branch, approved) ? dir : null;
  }

  /** The commit a human approved, which must be here. */
  private String approvedHead(MergeRepo repo, Path dir, String ant, String approved)
      throws IOException, InterruptedException {
    if (!approved.matches("[0-9a-fA-F]{4,64}")) {
      throw m.nonRetryable("the approved head " + MergeGit.oneLine(MergeGit.bounded(approved, 80)) + " is not a commit id",
          "BadInput");
    }
    String pinned = m.revParse(dir, approved);
    if (pinned == null) {
      throw m.nonRetryable("the approved commit " + approved + " of " + ant + " is not in " + repo.repo()
          + " (was the branch rewritten?)", "CommitMissing");
    }
    return pinned;
  }

  /**
   * What is new on {@code head}: after the later of the ant's last landed commit ({@code since})
   * and what the branch shares with the target; a branch rebased onto the target since (a rework)
   * brings others' landed commits with it, and those are not the ant's to land again.
   */
  private BranchHead newWork(MergeRepo repo, Path dir, String target, String head, String since, String fetchRef)
      throws IOException, InterruptedException {
    boolean sinceUsable = since != null && !since.isBlank() && m.isAncestor(dir, since, head);
    String mergeBase = null;
    if (m.revParse(dir, target) != null) {
      Git.Result mb = git.run(dir, "merge-base", head, target);
      mergeBase = mb.ok() ? mb.line() : null;
    } else if (!sinceUsable) {
      throw m.nonRetryable("the target branch " + repo.target() + " of " + repo.name() + " does not exist",
          "TargetMissing");
    }
    String base = sinceUsable && (mergeBase == null || !m.isAncestor(dir, since, mergeBase)) ? since : mergeBase;
    if (base == null) {
      // No common history with the target: everything reachable is new.
      int commits = Integer.parseInt(git.check(dir, "rev-list", "--count", head).line());
      return new BranchHead(head, null, commits, paths(dir, "4b825dc642cb6eb9a060e54bf8d69288fbee4904", head),
          fetchRef);
    }
    int commits = Integer.parseInt(git.check(dir, "rev-list", "--count", base + ".." + head).line());
    return new BranchHead(head, base, commits, commits == 0 ? List.of() : paths(dir, base, head), fetchRef);
  }

  /**
   * A local repository's ant works in a repository of its own ({@code <root>/<ant>}): its branch
   * (and the head a human approved) is fetched from there into the shared repository's
   * {@code refs/heads/<branch>}, the one ref of the shared repository that is the ant's. The
   * ant's repository is never git's repository here: only {@code git upload-pack} reads it, inside
   * the ant's walls ({@link GitWalls#uploadPack}), so nothing the ant wrote in it (config, hooks,
   * filters, links, alternates) runs or reaches past its workspace. An older workspace (a worktree
   * of the shared repository) has its branch in the shared repository already.
   *
   * @return false when the ant's repository has no such branch (and no approved head to fetch)
   */
  private boolean fetchFromAnt(MergeRepo repo, Path shared, String ant, Path workspace, List<Path> readOnly,
      String branch, String approved) throws IOException, InterruptedException {
    if (branch.equals(repo.target()) || !branch.matches("[A-Za-z0-9._/-]+") || branch.startsWith("-")) {
      throw m.nonRetryable("the branch " + MergeGit.oneLine(MergeGit.bounded(branch, 80)) + " of " + ant
          + " cannot go through the merge queue of " + repo.name() + " (it is the target, or not a branch name)",
          "BadInput");
    }
    if (!GitWalls.ownRepository(workspace)) {
      return !repo.remote(); // a worktree of the shared repository (or no workspace on this host): read it there
    }
    String uploadPack = GitWalls.uploadPack(ant, workspace, readOnly);
    String from = "file://" + workspace.toAbsolutePath();
    List<String> base = List.of("-c", "protocol.file.allow=always", "fetch", "--quiet", "--no-tags",
        "--no-write-fetch-head", "--no-recurse-submodules", "--upload-pack=" + uploadPack, from);
    List<String> args = new ArrayList<>(base);
    args.add("+refs/heads/" + branch + ":refs/heads/" + branch);
    Git.Result r = git.run(shared, Map.of(), Git.TIMEOUT, args);
    boolean found = r.ok();
    if (!r.ok()) {
      if (!r.text().contains("couldn't find remote ref")) {
        throw ApplicationFailure.newFailure(m.secrets.redact("cannot read the branch " + branch + " of " + ant + ": "
            + MergeGit.bounded(r.text(), 1000)), "GitFailed");
      }
      // The ant deleted its branch: the shared repository's copy goes too.
      git.run(shared, "update-ref", "-d", "refs/heads/" + branch);
    }
    if (approved != null && approved.matches("[0-9a-fA-F]{40,64}") && !m.hasCommit(shared, approved)) {
      List<String> pin = new ArrayList<>(base);
      pin.add(approved);
      git.run(shared, Map.of(), Git.TIMEOUT, pin);
      return true;
    }
    return found || approved != null;
  }

  private List<String> paths(Path dir, String from, String to) throws IOException, InterruptedException {
    List<String> all = git.check(dir, "diff", "--name-only", "--no-renames", from, to).lines();
    return all.size() <= BranchHead.MAX_PATHS ? all : all.subList(0, BranchHead.MAX_PATHS);
  }

  String sync(AntSpec spec, String landedFrom, String landedTo) {
    return m.secrets.redact(m.call(() -> syncWalled(spec, landedFrom, landedTo)));
  }

  private String syncWalled(AntSpec spec, String landedFrom, String landedTo) throws IOException, InterruptedException {
    if (spec.workspace() == null || spec.workspace().repo() == null) {
      return spec.name() + " has no repository: nothing to sync";
    }
    Map<String, String> env = m.environment.apply(Path.of(spec.colonyDir()));
    AntSpec resolved = SpecReferences.resolve(spec, env, m.secrets);
    Path dir = workspaces.prepare(resolved);
    boolean url = resolved.workspace().repo().contains("://") || resolved.workspace().repo().startsWith("git@");
    if (url) {
      handLanded(resolved, dir, landedTo);
    }
    // The ant's repository is the ant's: git runs there inside its walls, where whatever it
    // configured (hooks, filters, fsmonitor, an editor) runs as the ant, not as the worker.
    try (dev.colony.sandbox.SessionWalls walls = dev.colony.sandbox.SessionWalls.of(resolved, dir.toAbsolutePath(), env,
        Map.of(), List.of(), "sync-" + spec.name() + "-" + System.nanoTime())) {
      if (walls.refusal() != null) {
        return resolved.workspace().branchOf(spec.name()) + " left as it is: " + walls.refusal();
      }
      return sync(spec, resolved, dir.toAbsolutePath(), git.inside(walls.confinement()), landedFrom, landedTo);
    }
  }

  /**
   * A URL repository's ant: the landed commit is handed to its repository from the worker's
   * mirror of the remote (fetched when it lacks the commit; the worker runs no git in the ant's
   * repository), pushed through {@code git receive-pack} in the ant's walls to its
   * {@code refs/remotes/origin/<target>}. Nothing when there is nothing to hand (the walled sync
   * then says the commit is not there).
   */
  private void handLanded(AntSpec resolved, Path workspace, String landedTo) throws IOException, InterruptedException {
    Path root = workspace.toAbsolutePath().getParent();
    Path publish = dev.colony.workspace.impl.WorkspaceActivitiesImpl.mirror(root, resolved.name());
    if (!Files.exists(publish.resolve("HEAD")) || !GitWalls.ownRepository(workspace) || landedTo == null
        || !landedTo.matches("[0-9a-fA-F]{40,64}")) {
      return;
    }
    if (!m.hasCommit(publish, landedTo)) {
      git.run(publish, "fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/remotes/origin/*");
    }
    if (m.hasCommit(publish, landedTo)) {
      String target = resolved.merge() != null ? resolved.merge().target() : MergeRepo.DEFAULT_TARGET;
      git.run(publish, Map.of(), Git.TIMEOUT, List.of("-c", "protocol.file.allow=always", "push", "--quiet",
          "--force", "--no-verify", "--receive-pack=" + GitWalls.receivePack(resolved.name(),
              workspace.toAbsolutePath(), List.of(publish.resolve("objects").toAbsolutePath())),
          "file://" + workspace.toAbsolutePath(), landedTo + ":refs/remotes/origin/" + target));
    }
  }

  private String sync(AntSpec spec, AntSpec resolved, Path dir, Git git, String landedFrom, String landedTo)
      throws IOException, InterruptedException {
    String branch = resolved.workspace().branchOf(spec.name());
    Git.Result dirty = git.run(dir, "status", "--porcelain", "--untracked-files=no");
    if (!dirty.ok()) {
      // The ant's repository is the ant's: one its own config breaks is left to it, not retried.
      return m.secrets.redact(branch + " left as it is: git cannot read its workspace ("
          + MergeGit.bounded(MergeGit.oneLine(dirty.text()), 300) + ")");
    }
    if (!dirty.out().isBlank()) {
      return branch + " left as it is: its worktree has uncommitted changes";
    }
    if (!MergeGit.hasCommit(git, dir, landedTo)) {
      return branch + " left as it is: the landed commit " + MergeGit.abbrev(landedTo) + " is not here";
    }
    String head = MergeGit.revParse(git, dir, "HEAD");
    if (head == null) {
      return branch + " left as it is: it has no commit";
    }
    if (head.equals(landedTo)) {
      return branch + " is already at " + MergeGit.abbrev(landedTo);
    }
    if (head.equals(landedFrom)) {
      git.check(dir, "reset", "--quiet", "--hard", landedTo);
      return branch + " reset to the landed " + MergeGit.abbrev(landedTo);
    }
    if (landedFrom != null && MergeGit.hasCommit(git, dir, landedFrom) && MergeGit.isAncestor(git, dir, landedFrom, head)) {
      Map<String, String> who = git.run(dir, "config", "user.email").ok() ? Map.of() : RebaseScratch.committer(null);
      Git.Result r = git.run(dir, who, Git.TIMEOUT, List.of("rebase", "--no-autostash", "--onto", landedTo, landedFrom));
      if (!r.ok()) {
        List<String> conflicts = git.run(dir, "diff", "--name-only", "--diff-filter=U").lines();
        git.run(dir, "rebase", "--abort");
        return m.secrets.redact(branch + " left as it is: its later commits conflict with the landed work"
            + (conflicts.isEmpty() ? "" : " in " + MergeGit.bounded(String.join(", ", conflicts), 300)));
      }
      int later = MergeGit.count(git, dir, landedTo, "HEAD");
      return branch + " rebased onto the landed " + MergeGit.abbrev(landedTo) + " (" + later
          + (later == 1 ? " later commit)" : " later commits)");
    }
    return branch + " left as it is: its head " + MergeGit.abbrev(head) + " does not follow the landed work";
  }
}
