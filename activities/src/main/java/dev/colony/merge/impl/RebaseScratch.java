package dev.colony.merge.impl;

import dev.colony.merge.BranchHead;
import dev.colony.merge.LandMode;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.RebaseResult;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The queue's scratch and the rebase in it. A local repository's scratch is a detached worktree of
 * that repository (shared objects: a rebased commit is visible to every later step on this disk); a
 * URL repository's scratch is a clone, and {@link #rebase} pushes its result to
 * {@code refs/colony/rebased/<sha>} on the remote so a later step on another host fetches it
 * ({@link TargetRef} deletes that ref). The scratch is {@link MergeRepo#scratchDir}, or
 * {@code <override>/.merge/<name>} on a worker with a workspace root override.
 *
 * <p>Every step first cleans the scratch (a rebase in progress aborted, {@code reset --hard},
 * {@code clean -fdx}), so a step retried after kill -9 starts from the same state, and runs holding
 * the scratch's lock ({@link #locked}). The queue's commits do not depend on the clock: a rebase
 * keeps each commit's author and uses {@code --committer-date-is-author-date} with the fixed
 * committer {@value #COMMITTER_NAME}; a squash commit takes the author (name, e-mail, date) of the
 * branch's last commit and that date as its committer date. The same inputs thus give the same sha
 * on a retry. A branch already on the target (its base an ancestor of the target, the target an
 * ancestor of its head) lands as it is, a fast-forward of the ant's own commits.
 */
final class RebaseScratch {
  static final String COMMITTER_NAME = "Colony merge queue";
  static final String COMMITTER_EMAIL = "merge-queue@colony.invalid";
  static final String REBASED_REFS = "refs/colony/rebased/";
  static final int MAX_DETAIL = 2000;
  static final int MAX_CONFLICTS = 50;
  static final int MAX_SUBJECTS = 20;

  private final MergeGit m;
  private final Git git;

  RebaseScratch(MergeGit m) {
    this.m = m;
    this.git = m.git;
  }

  /** The scratch's directory on this host. */
  Path dir(MergeRepo repo) {
    return m.rootOverride != null ? m.rootOverride.resolve(".merge").resolve(repo.name()) : Path.of(repo.scratchDir());
  }

  /** PrepareScratch: the scratch fetched and detached at the target's head, which it returns. */
  String prepare(MergeRepo repo) throws IOException, InterruptedException {
    Path scratch = checkout(repo, true);
    String target = targetHead(repo, scratch);
    if (repo.remote()) {
      // A new turn (or a turn again after MOVED): no rebased head of an earlier one is needed now
      // (a reworked item's was never deleted by UpdateTarget).
      List<String> stale = new ArrayList<>(List.of("push", "--quiet", "origin"));
      for (String line : git.check(scratch, "ls-remote", "origin", REBASED_REFS + "*").lines()) {
        String[] parts = line.split("\\s+");
        if (parts.length == 2) {
          stale.add(":" + parts[1]);
        }
      }
      if (stale.size() > 3) {
        git.run(scratch, stale.toArray(String[]::new));
      }
    }
    // Detached, always: the scratch holds no branch of its own that could be pushed or go stale.
    git.check(scratch, "checkout", "--quiet", "--detach", "--force", target);
    if (!repo.remote()) {
      Path local = m.localRepo(m.resolvedRepo(repo));
      if (m.pushesToOrigin(repo, local)) {
        // With push on, origin's target counts too: a human who pushed there is not overwritten.
        String branch = repo.target();
        String[] fetch = {"fetch", "--quiet", "origin", "+refs/heads/" + branch + ":refs/remotes/origin/" + branch};
        Git.Result f = git.run(local, fetch);
        if (!f.ok() && m.remoteHead(local, branch) != null) {
          throw ApplicationFailure.newFailure(git.describe(fetch, f), "GitFailed");
        }
        String origin = f.ok() ? m.revParse(local, "refs/remotes/origin/" + branch) : null;
        if (origin != null && !origin.equals(target)) {
          if (m.isAncestor(local, target, origin)) {
            return origin;
          }
          if (!m.isAncestor(local, origin, target)) {
            throw m.nonRetryable(branch + " in " + local + " and origin's " + branch
                + " have diverged; bring them together (or set push: false)", "TargetDiverged");
          }
        }
      }
    }
    return target;
  }

  /** The scratch, rebuilt when missing or broken and cleaned; fetched from the remote when asked. */
  Path checkout(MergeRepo repo, boolean fetch) throws IOException, InterruptedException {
    String url = m.resolvedRepo(repo);
    Path scratch = dir(repo);
    if (repo.remote()) {
      if (!validCheckout(scratch, null)) {
        MergeGit.deleteTree(scratch);
        Files.createDirectories(scratch.getParent());
        Git.Result r = git.run(null, "clone", "--quiet", "--no-checkout", url, scratch.toString());
        if (!r.ok()) {
          String out = r.text().toLowerCase();
          String msg = "cannot clone " + repo.repo() + " for the merge queue " + repo.name() + ": "
              + MergeGit.bounded(r.text(), 500);
          if (out.contains("not found") || out.contains("does not exist") || out.contains("not appear to be a git")
              || out.contains("authentication failed")) {
            throw m.nonRetryable(msg, "RepoNotFound");
          }
          throw ApplicationFailure.newFailure(m.secrets.redact(msg), "GitFailed");
        }
        fetch = true;
      } else {
        git.check(scratch, "remote", "set-url", "origin", url);
      }
      if (fetch) {
        git.check(scratch, "fetch", "--quiet", "--prune", "origin");
      }
      if (m.revParse(scratch, "refs/remotes/origin/" + repo.target()) == null) {
        throw m.nonRetryable("the target branch " + repo.target() + " does not exist on " + repo.repo(), "TargetMissing");
      }
    } else {
      Path local = m.localRepo(url);
      refuseCheckedOutTarget(repo, local);
      String target = m.revParse(local, "refs/heads/" + repo.target());
      if (target == null) {
        throw m.nonRetryable("the target branch " + repo.target() + " does not exist in " + local, "TargetMissing");
      }
      if (!validCheckout(scratch, local)) {
        if (Files.exists(scratch)) {
          git.run(local, "worktree", "remove", "--force", scratch.toString());
          MergeGit.deleteTree(scratch);
        }
        git.check(local, "worktree", "prune");
        Files.createDirectories(scratch.getParent());
        git.check(local, "worktree", "add", "--quiet", "--detach", "--force", scratch.toString(), target);
      }
    }
    clean(scratch);
    return scratch;
  }

  /** Aborts what a killed step left (a rebase, a merge, a lock), then resets and cleans. */
  private void clean(Path dir) throws IOException, InterruptedException {
    List<String> names = List.of("rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD", "index.lock");
    List<String> args = new ArrayList<>(List.of("rev-parse"));
    names.forEach(n -> args.addAll(List.of("--git-path", n)));
    List<String> paths = git.check(dir, args.toArray(String[]::new)).lines();
    List<Path> p = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      Path path = Path.of(i < paths.size() ? paths.get(i) : ".git/" + names.get(i));
      p.add(path.isAbsolute() ? path : dir.resolve(path));
    }
    if (Files.exists(p.get(0)) || Files.exists(p.get(1))) {
      if (!git.run(dir, "rebase", "--abort").ok()) {
        git.run(dir, "rebase", "--quit");
      }
    }
    if (Files.exists(p.get(2))) {
      git.run(dir, "merge", "--abort");
    }
    if (Files.exists(p.get(3))) {
      git.run(dir, "cherry-pick", "--abort");
    }
    // A git killed with the worker leaves its lock; nothing else works in the queue's scratch.
    Files.deleteIfExists(p.get(4));
    Git.Result reset = git.run(dir, "reset", "--quiet", "--hard");
    if (!reset.ok() && m.revParse(dir, "HEAD") != null) {
      throw ApplicationFailure.newFailure(git.describe(new String[] {"reset", "--hard"}, reset), "GitFailed");
    }
    git.check(dir, "clean", "-fdxq");
  }

  /**
   * Whether {@code dir} is the top of a working git checkout with a HEAD: a clone's own .git
   * directory, or a worktree's .git file whose repository is {@code repo} (one git run).
   */
  private boolean validCheckout(Path dir, Path repo) throws IOException, InterruptedException {
    Path dotGit = dir.resolve(".git");
    if (repo == null ? !Files.isDirectory(dotGit) : !Files.isRegularFile(dotGit)) {
      return false;
    }
    Git.Result r = git.run(dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir",
        "HEAD");
    List<String> lines = r.lines();
    if (!r.ok() || lines.size() < 3 || !Path.of(lines.get(0)).toRealPath().equals(dir.toRealPath())) {
      return false;
    }
    return repo == null || Path.of(lines.get(1)).toRealPath().equals(commonDir(repo).toRealPath());
  }

  private Path commonDir(Path repo) throws IOException, InterruptedException {
    return Path.of(git.check(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").line());
  }

  /** Like git refuses a push to a checked-out branch: the queue never moves another worktree's HEAD. */
  private void refuseCheckedOutTarget(MergeRepo repo, Path local) throws IOException, InterruptedException {
    List<String> lines = git.check(local, "worktree", "list", "--porcelain").out().lines().toList();
    String path = null;
    boolean bare = false;
    for (String line : lines) {
      if (line.startsWith("worktree ")) {
        path = line.substring("worktree ".length());
        bare = false;
      } else if (line.equals("bare")) {
        bare = true;
      } else if (line.equals("branch refs/heads/" + repo.target()) && !bare && path != null) {
        throw m.nonRetryable(repo.target() + " is checked out in " + path
            + "; use a bare repository or a target no worktree holds", "TargetCheckedOut");
      }
    }
  }

  private String targetHead(MergeRepo repo, Path scratch) throws IOException, InterruptedException {
    String ref = repo.remote() ? "refs/remotes/origin/" + repo.target() : "refs/heads/" + repo.target();
    String head = m.revParse(scratch, ref);
    if (head == null) {
      throw m.nonRetryable("the target branch " + repo.target() + " of " + repo.name() + " does not exist",
          "TargetMissing");
    }
    return head;
  }

  /** Rebase: the branch's new commits replayed onto {@code onto} (or squashed), or its conflicts. */
  RebaseResult rebase(MergeRepo repo, BranchHead branch, String onto, String message)
      throws IOException, InterruptedException {
    if (branch == null || branch.head() == null || onto == null) {
      throw m.nonRetryable("nothing to rebase: the branch has no head, or there is no target head", "BadInput");
    }
    Path scratch = checkout(repo, false);
    ensureCommit(repo, scratch, branch.head(), branch.fetchRef());
    ensureCommit(repo, scratch, onto, "refs/heads/" + repo.target());
    String base = branch.base();
    if (base == null || !m.hasCommit(scratch, base)) {
      Git.Result mb = git.run(scratch, "merge-base", branch.head(), onto);
      base = mb.ok() ? mb.line() : null;
    }
    git.check(scratch, "checkout", "--quiet", "--detach", "--force", branch.head());
    Map<String, String> committer = committer(null);
    List<String> args = new ArrayList<>(List.of("rebase", "--no-autostash", "--committer-date-is-author-date"));
    if (base == null) {
      args.addAll(List.of("--root", "--onto", onto));
    } else {
      args.addAll(List.of("--onto", onto, base));
    }
    // The branch already sits on the target: it lands as it is (a fast-forward keeps the ant's
    // own commits, so its branch needs no reset afterwards). Else the commits are replayed.
    boolean fastForward = base != null && m.isAncestor(scratch, base, onto) && m.isAncestor(scratch, onto, branch.head());
    Git.Result r = fastForward ? new Git.Result(0, "") : git.run(scratch, committer, Git.TIMEOUT, args);
    if (!r.ok()) {
      List<String> conflicts = git.run(scratch, "diff", "--name-only", "--diff-filter=U").lines();
      if (conflicts.size() > MAX_CONFLICTS) {
        conflicts = conflicts.subList(0, MAX_CONFLICTS);
      }
      git.run(scratch, "rebase", "--abort");
      clean(scratch);
      String detail = m.secrets.redact(MergeGit.bounded(r.text(), MAX_DETAIL));
      return new RebaseResult(null, 0, conflicts, detail, List.of());
    }
    String rebased = m.revParse(scratch, "HEAD");
    int commits = m.count(scratch, onto, rebased);
    if (repo.land() == LandMode.SQUASH && commits > 0) {
      rebased = squash(scratch, branch, onto, rebased, message);
      commits = 1;
    }
    List<String> subjects = subjects(scratch, onto, rebased);
    if (repo.remote() && !rebased.equals(onto)) {
      git.check(scratch, "push", "--quiet", "--force", "origin", rebased + ":" + REBASED_REFS + rebased);
    }
    String detail = commits == 0 ? "nothing left to land: the work is already on " + repo.target()
        : commits + (commits == 1 ? " commit" : " commits") + " onto " + MergeGit.abbrev(onto)
            + (repo.land() == LandMode.SQUASH ? " (squashed)" : "") + ": " + MergeGit.abbrev(rebased);
    return new RebaseResult(rebased, commits, List.of(), m.secrets.redact(detail),
        subjects.stream().map(m.secrets::redact).toList());
  }

  /** One commit on {@code onto} with the rebased tree, the branch's last author and its date. */
  private String squash(Path scratch, BranchHead branch, String onto, String rebased, String message)
      throws IOException, InterruptedException {
    List<String> originals = subjects(scratch, onto, rebased);
    String msg = message == null || message.isBlank() ? String.join("\n", originals) : message;
    Git.Result last = git.check(scratch, "log", "-1", "--format=%an%n%ae%n%aI", branch.head());
    List<String> who = last.out().lines().toList();
    Map<String, String> env = new LinkedHashMap<>(committer(who.get(2)));
    env.put("GIT_AUTHOR_NAME", who.get(0));
    env.put("GIT_AUTHOR_EMAIL", who.get(1));
    env.put("GIT_AUTHOR_DATE", who.get(2));
    git.check(scratch, "reset", "--quiet", "--soft", onto);
    git.check(scratch, env, "commit", "--quiet", "--no-verify", "--allow-empty", "--cleanup=strip", "-m", msg);
    return m.revParse(scratch, "HEAD");
  }

  /** The queue's fixed committer (and a committer date: a squash takes its author's). */
  static Map<String, String> committer(String date) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("GIT_COMMITTER_NAME", COMMITTER_NAME);
    env.put("GIT_COMMITTER_EMAIL", COMMITTER_EMAIL);
    if (date != null) {
      env.put("GIT_COMMITTER_DATE", date);
    }
    return env;
  }

  private List<String> subjects(Path dir, String from, String to) throws IOException, InterruptedException {
    List<String> all = git.check(dir, "log", "--reverse", "--format=%s", from + ".." + to).lines();
    return all.size() <= MAX_SUBJECTS ? all : all.subList(0, MAX_SUBJECTS);
  }

  /** A commit the step needs: a URL repository's scratch fetches it (from {@code refs}) when it lacks it. */
  void ensureCommit(MergeRepo repo, Path scratch, String sha, String... refs) throws IOException, InterruptedException {
    if (m.hasCommit(scratch, sha)) {
      return;
    }
    if (repo.remote()) {
      List<String> tried = new ArrayList<>(List.of(REBASED_REFS + sha));
      tried.addAll(List.of(refs));
      for (String ref : tried) {
        if (ref != null && git.run(scratch, "fetch", "--quiet", "origin", ref).ok() && m.hasCommit(scratch, sha)) {
          return;
        }
      }
      git.run(scratch, "fetch", "--quiet", "origin");
      if (m.hasCommit(scratch, sha)) {
        return;
      }
    }
    throw m.nonRetryable("commit " + sha + " is not in " + repo.repo() + " (was the branch rewritten?)", "CommitMissing");
  }

  /** The rebased head a URL repository's scratch pushed for later steps: gone once it landed or went elsewhere. */
  void deleteRebasedRef(Path scratch, String head) throws IOException, InterruptedException {
    git.run(scratch, "push", "--quiet", "origin", ":" + REBASED_REFS + head);
  }

  /**
   * Runs a step of the queue's scratch holding its lock ({@code <scratch>.lock}), so a step
   * retried while an abandoned attempt still runs on this host (a start-to-close timeout) waits
   * for it instead of working in the same checkout.
   */
  <T> T locked(MergeRepo repo, MergeGit.Step<T> step) {
    return m.call(() -> {
      Path scratch = dir(repo);
      Path lockFile = scratch.resolveSibling(scratch.getFileName() + ".lock");
      Files.createDirectories(lockFile.getParent());
      long wait = Duration.ofMinutes(5).toNanos() + Math.max(Duration.ofMinutes(10).toNanos(),
          Duration.ofSeconds(repo.testTimeoutSeconds()).toNanos());
      try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        long start = System.nanoTime();
        long beat = start;
        FileLock lock = null;
        while (lock == null) {
          try {
            lock = channel.tryLock();
          } catch (OverlappingFileLockException heldInThisWorker) {
            lock = null;
          }
          if (lock == null) {
            long now = System.nanoTime();
            if (now - start > wait) {
              throw ApplicationFailure.newFailure("the scratch of the merge queue " + repo.name()
                  + " is busy with another step", "ScratchBusy");
            }
            if (now - beat > MergeGit.HEARTBEAT.toNanos()) {
              MergeGit.heartbeat(0);
              beat = now;
            }
            Thread.sleep(100);
          }
        }
        try {
          return step.run();
        } finally {
          lock.release();
        }
      }
    });
  }
}
