package dev.colony.merge.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.config.Environment;
import dev.colony.secrets.Secrets;
import dev.colony.config.SpecReferences;
import dev.colony.engine.Processes;
import dev.colony.merge.BranchHead;
import dev.colony.merge.LandMode;
import dev.colony.merge.MergeActivities;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.RebaseResult;
import dev.colony.merge.TargetUpdate;
import dev.colony.merge.TestRun;
import dev.colony.sandbox.GitWalls;
import dev.colony.spec.AntSpec;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The git side of the merge queue (issue 32), on real git.
 *
 * <p><b>Where things are.</b> A local repository's scratch is a detached worktree of that
 * repository (shared objects: a rebased commit is visible to every later step on this disk); a URL
 * repository's scratch is a clone, and {@link #rebase} pushes its result to
 * {@code refs/colony/rebased/<sha>} on the remote so a later step on another host fetches it
 * ({@link #updateTarget} deletes that ref). The scratch is {@link MergeRepo#scratchDir}, or
 * {@code <override>/.merge/<name>} on a worker with a workspace root override. An ant's own
 * repository is its clone {@code <root>/.repos/<ant>} (URL) or the repository itself (local).
 *
 * <p><b>Reproducible.</b> Every step first cleans the scratch (a rebase in progress aborted,
 * {@code reset --hard}, {@code clean -fdx}), so a step retried after kill -9 starts from the same
 * state. The queue's commits do not depend on the clock: a rebase keeps each commit's author and
 * uses {@code --committer-date-is-author-date} with the fixed committer {@value #COMMITTER_NAME};
 * a squash commit takes the author (name, e-mail, date) of the branch's last commit and that date
 * as its committer date. Hooks and signing are off ({@link Git}). The same inputs thus give the
 * same sha on a retry. A branch already on the target (its base an ancestor of the target, the
 * target an ancestor of its head) lands as it is, a fast-forward of the ant's own commits.
 *
 * <p><b>Failures.</b> Infrastructure (git missing, a full disk, a network error) throws a
 * retryable failure; bad configuration (no such repository, no target branch, the target checked
 * out in a worktree) a non-retryable {@link ApplicationFailure} with one line. Every text returned
 * (test tails, git's lines, messages) passes {@link Secrets#redact}.
 */
public final class MergeActivitiesImpl implements MergeActivities {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MergeActivitiesImpl.class);
  static final String COMMITTER_NAME = "Colony merge queue";
  static final String COMMITTER_EMAIL = "merge-queue@colony.invalid";
  static final String REBASED_REFS = "refs/colony/rebased/";
  /** Where a URL repository's ant pushes the head a human approved (the queue fetches it from there). */
  static final String APPROVED_REFS = "refs/colony/approved/";
  static final int MAX_DETAIL = 2000;
  static final int MAX_CONFLICTS = 50;
  static final int MAX_SUBJECTS = 20;
  /** How often a running test heartbeats. */
  static final Duration HEARTBEAT = Duration.ofSeconds(2);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType JSON_TYPE = MediaType.get("application/json; charset=utf-8");

  /** Makes an ant's workspace (its worktree) from its resolved spec: {@code WorkspaceActivitiesImpl::prepare}. */
  @FunctionalInterface
  public interface WorkspacePreparer {
    Path prepare(AntSpec spec) throws IOException, InterruptedException;
  }

  private static final java.util.concurrent.atomic.AtomicBoolean TEST_LIMITS_WARNED = new java.util.concurrent.atomic.AtomicBoolean();
  private final Secrets secrets;
  private final WorkspacePreparer workspaces;
  private final OkHttpClient http;
  private final Path rootOverride;
  private final Function<Path, Map<String, String>> environment;
  private final Git git;

  /**
   * @param workspaces makes (or finds) an ant's worktree, for {@link #syncBranch}
   * @param http for pull requests
   * @param rootOverride this host's workspace root instead of the colony's; null for the colony's
   */
  public MergeActivitiesImpl(Secrets secrets, WorkspacePreparer workspaces, OkHttpClient http, Path rootOverride) {
    this(secrets, workspaces, http, rootOverride, Environment::forColony);
  }

  /** @param environment the colony's environment ({@code .env} and the process's) by colony directory */
  MergeActivitiesImpl(Secrets secrets, WorkspacePreparer workspaces, OkHttpClient http, Path rootOverride,
      Function<Path, Map<String, String>> environment) {
    this.secrets = secrets;
    this.workspaces = workspaces;
    this.http = http;
    this.rootOverride = rootOverride;
    this.environment = environment;
    this.git = new Git(secrets);
  }

  // ---------------------------------------------------------------------------------------------
  // PublishBranch

  @Override
  public BranchHead publishBranch(MergeRepo repo, String ant, String branch, String since, String approved) {
    return call(() -> {
      String url = resolvedRepo(repo);
      Path dir;
      String target;
      String fetchRef = "refs/heads/" + branch;
      if (repo.remote()) {
        Path root = rootOverride != null ? rootOverride
            : Path.of(repo.colonyDir()).resolve(".colony").resolve("workspaces");
        // The ant's repository is the ant's: the worker runs no git there. Its branch is fetched
        // (through upload-pack in the ant's walls) into the worker's mirror of the remote on this
        // host, which fetches the remote and pushes the branch to it. A workspace of the layout
        // before (a worktree of a clone .repos/<ant>) is read from that clone.
        dir = dev.colony.workspace.impl.WorkspaceActivitiesImpl.mirror(root, ant);
        Path clone = root.resolve(ant);
        List<Path> borrowed = List.of(dir.resolve("objects").toAbsolutePath());
        if (!GitWalls.ownRepository(clone)) {
          clone = root.resolve(".repos").resolve(ant);
          borrowed = List.of();
        }
        if (!Files.exists(clone.resolve(".git"))) {
          return new BranchHead(null, null, 0, List.of(), fetchRef);
        }
        target = "refs/remotes/origin/" + repo.target();
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
          if (!fetchFromAnt(repo, dir, ant, clone, borrowed, branch, approved)) {
            return new BranchHead(null, null, 0, List.of(), fetchRef);
          }
        }
      } else {
        dir = localRepo(url);
        target = "refs/heads/" + repo.target();
        Path root = rootOverride != null ? rootOverride
            : Path.of(repo.colonyDir()).resolve(".colony").resolve("workspaces");
        if (!fetchFromAnt(repo, dir, ant, root.resolve(ant),
            List.of(GitWalls.sharedGitDir(dir.toAbsolutePath())), branch, approved)) {
          return new BranchHead(null, null, 0, List.of(), fetchRef);
        }
      }
      String head = revParse(dir, "refs/heads/" + branch);
      if (head == null && approved == null) {
        return new BranchHead(null, null, 0, List.of(), fetchRef);
      }
      if (approved != null) {
        // With review what lands is the head a human approved, never the branch as it is now (the
        // ant may have committed more since: that waits for its own approval).
        if (!approved.matches("[0-9a-fA-F]{4,64}")) {
          throw nonRetryable("the approved head " + oneLine(bounded(approved, 80)) + " is not a commit id", "BadInput");
        }
        String pinned = revParse(dir, approved);
        if (pinned == null) {
          throw nonRetryable("the approved commit " + approved + " of " + ant + " is not in " + repo.repo()
              + " (was the branch rewritten?)", "CommitMissing");
        }
        head = pinned;
        if (repo.remote()) {
          fetchRef = APPROVED_REFS + ant;
          git.check(dir, "push", "--quiet", "--force", "origin", head + ":" + fetchRef);
        }
      } else if (repo.remote()) {
        // The queue may run anywhere: it finds the branch on the remote.
        git.check(dir, "push", "--quiet", "--force", "origin", head + ":refs/heads/" + branch);
      }
      String base = null;
      boolean sinceUsable = since != null && !since.isBlank() && isAncestor(dir, since, head);
      String mergeBase = null;
      if (revParse(dir, target) != null) {
        Git.Result mb = git.run(dir, "merge-base", head, target);
        mergeBase = mb.ok() ? mb.line() : null;
      } else if (!sinceUsable) {
        throw nonRetryable("the target branch " + repo.target() + " of " + repo.name() + " does not exist",
            "TargetMissing");
      }
      // The new work starts after the later of the ant's last landed commit and what the branch
      // shares with the target: a branch rebased onto the target since (a rework) brings others'
      // landed commits with it, and those are not the ant's to land again.
      if (sinceUsable && (mergeBase == null || !isAncestor(dir, since, mergeBase))) {
        base = since;
      } else {
        base = mergeBase;
      }
      if (base == null) {
        // No common history with the target: everything reachable is new.
        int commits = Integer.parseInt(git.check(dir, "rev-list", "--count", head).line());
        return new BranchHead(head, null, commits, paths(dir, "4b825dc642cb6eb9a060e54bf8d69288fbee4904", head),
            fetchRef);
      }
      int commits = Integer.parseInt(git.check(dir, "rev-list", "--count", base + ".." + head).line());
      return new BranchHead(head, base, commits, commits == 0 ? List.of() : paths(dir, base, head), fetchRef);
    });
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
      throw nonRetryable("the branch " + oneLine(bounded(branch, 80)) + " of " + ant
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
        throw ApplicationFailure.newFailure(secrets.redact("cannot read the branch " + branch + " of " + ant + ": "
            + bounded(r.text(), 1000)), "GitFailed");
      }
      // The ant deleted its branch: the shared repository's copy goes too.
      git.run(shared, "update-ref", "-d", "refs/heads/" + branch);
    }
    if (approved != null && approved.matches("[0-9a-fA-F]{40,64}") && !hasCommit(shared, approved)) {
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

  // ---------------------------------------------------------------------------------------------
  // PrepareScratch

  @Override
  public String prepareScratch(MergeRepo repo) {
    return inScratch(repo, () -> {
      Path scratch = scratch(repo, true);
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
        Path local = localRepo(resolvedRepo(repo));
        if (pushesToOrigin(repo, local)) {
          // With push on, origin's target counts too: a human who pushed there is not overwritten.
          String branch = repo.target();
          String[] fetch = {"fetch", "--quiet", "origin", "+refs/heads/" + branch + ":refs/remotes/origin/" + branch};
          Git.Result f = git.run(local, fetch);
          if (!f.ok() && remoteHead(local, branch) != null) {
            throw ApplicationFailure.newFailure(git.describe(fetch, f), "GitFailed");
          }
          String origin = f.ok() ? revParse(local, "refs/remotes/origin/" + branch) : null;
          if (origin != null && !origin.equals(target)) {
            if (isAncestor(local, target, origin)) {
              return origin;
            }
            if (!isAncestor(local, origin, target)) {
              throw nonRetryable(branch + " in " + local + " and origin's " + branch
                  + " have diverged; bring them together (or set push: false)", "TargetDiverged");
            }
          }
        }
      }
      return target;
    });
  }

  /** The scratch, rebuilt when missing or broken and cleaned; fetched from the remote when asked. */
  private Path scratch(MergeRepo repo, boolean fetch) throws IOException, InterruptedException {
    String url = resolvedRepo(repo);
    Path scratch = scratchDir(repo);
    if (repo.remote()) {
      if (!validCheckout(scratch, null)) {
        deleteTree(scratch);
        Files.createDirectories(scratch.getParent());
        Git.Result r = git.run(null, "clone", "--quiet", "--no-checkout", url, scratch.toString());
        if (!r.ok()) {
          String out = r.text().toLowerCase();
          String msg = "cannot clone " + repo.repo() + " for the merge queue " + repo.name() + ": "
              + bounded(r.text(), 500);
          if (out.contains("not found") || out.contains("does not exist") || out.contains("not appear to be a git")
              || out.contains("authentication failed")) {
            throw nonRetryable(msg, "RepoNotFound");
          }
          throw ApplicationFailure.newFailure(secrets.redact(msg), "GitFailed");
        }
        fetch = true;
      } else {
        git.check(scratch, "remote", "set-url", "origin", url);
      }
      if (fetch) {
        git.check(scratch, "fetch", "--quiet", "--prune", "origin");
      }
      if (revParse(scratch, "refs/remotes/origin/" + repo.target()) == null) {
        throw nonRetryable("the target branch " + repo.target() + " does not exist on " + repo.repo(), "TargetMissing");
      }
    } else {
      Path local = localRepo(url);
      refuseCheckedOutTarget(repo, local);
      String target = revParse(local, "refs/heads/" + repo.target());
      if (target == null) {
        throw nonRetryable("the target branch " + repo.target() + " does not exist in " + local, "TargetMissing");
      }
      if (!validCheckout(scratch, local)) {
        if (Files.exists(scratch)) {
          git.run(local, "worktree", "remove", "--force", scratch.toString());
          deleteTree(scratch);
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
    if (!reset.ok() && revParse(dir, "HEAD") != null) {
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
        throw nonRetryable(repo.target() + " is checked out in " + path
            + "; use a bare repository or a target no worktree holds", "TargetCheckedOut");
      }
    }
  }

  private String targetHead(MergeRepo repo, Path scratch) throws IOException, InterruptedException {
    String ref = repo.remote() ? "refs/remotes/origin/" + repo.target() : "refs/heads/" + repo.target();
    String head = revParse(scratch, ref);
    if (head == null) {
      throw nonRetryable("the target branch " + repo.target() + " of " + repo.name() + " does not exist",
          "TargetMissing");
    }
    return head;
  }

  // ---------------------------------------------------------------------------------------------
  // Rebase

  @Override
  public RebaseResult rebase(MergeRepo repo, BranchHead branch, String onto, String message) {
    return inScratch(repo, () -> {
      if (branch == null || branch.head() == null || onto == null) {
        throw nonRetryable("nothing to rebase: the branch has no head, or there is no target head", "BadInput");
      }
      Path scratch = scratch(repo, false);
      ensureCommit(repo, scratch, branch.head(), branch.fetchRef());
      ensureCommit(repo, scratch, onto, "refs/heads/" + repo.target());
      String base = branch.base();
      if (base == null || !hasCommit(scratch, base)) {
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
      boolean fastForward = base != null && isAncestor(scratch, base, onto) && isAncestor(scratch, onto, branch.head());
      Git.Result r = fastForward ? new Git.Result(0, "") : git.run(scratch, committer, Git.TIMEOUT, args);
      if (!r.ok()) {
        List<String> conflicts = git.run(scratch, "diff", "--name-only", "--diff-filter=U").lines();
        if (conflicts.size() > MAX_CONFLICTS) {
          conflicts = conflicts.subList(0, MAX_CONFLICTS);
        }
        git.run(scratch, "rebase", "--abort");
        clean(scratch);
        String detail = secrets.redact(bounded(r.text(), MAX_DETAIL));
        return new RebaseResult(null, 0, conflicts, detail, List.of());
      }
      String rebased = revParse(scratch, "HEAD");
      int commits = count(scratch, onto, rebased);
      List<String> subjects;
      if (repo.land() == LandMode.SQUASH && commits > 0) {
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
        rebased = revParse(scratch, "HEAD");
        commits = 1;
        subjects = subjects(scratch, onto, rebased);
      } else {
        subjects = subjects(scratch, onto, rebased);
      }
      if (repo.remote() && !rebased.equals(onto)) {
        git.check(scratch, "push", "--quiet", "--force", "origin", rebased + ":" + REBASED_REFS + rebased);
      }
      String detail = commits == 0 ? "nothing left to land: the work is already on " + repo.target()
          : commits + (commits == 1 ? " commit" : " commits") + " onto " + abbrev(onto)
              + (repo.land() == LandMode.SQUASH ? " (squashed)" : "") + ": " + abbrev(rebased);
      return new RebaseResult(rebased, commits, List.of(), secrets.redact(detail),
          subjects.stream().map(secrets::redact).toList());
    });
  }

  private Map<String, String> committer(String date) {
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

  private int count(Path dir, String from, String to) throws IOException, InterruptedException {
    return count(git, dir, from, to);
  }

  private static int count(Git git, Path dir, String from, String to) throws IOException, InterruptedException {
    return Integer.parseInt(git.check(dir, "rev-list", "--count", from + ".." + to).line());
  }

  /** A commit the step needs: a URL repository's scratch fetches it (from {@code refs}) when it lacks it. */
  private void ensureCommit(MergeRepo repo, Path scratch, String sha, String... refs)
      throws IOException, InterruptedException {
    if (hasCommit(scratch, sha)) {
      return;
    }
    if (repo.remote()) {
      List<String> tried = new ArrayList<>(List.of(REBASED_REFS + sha));
      tried.addAll(List.of(refs));
      for (String ref : tried) {
        if (ref != null && git.run(scratch, "fetch", "--quiet", "origin", ref).ok() && hasCommit(scratch, sha)) {
          return;
        }
      }
      git.run(scratch, "fetch", "--quiet", "origin");
      if (hasCommit(scratch, sha)) {
        return;
      }
    }
    throw nonRetryable("commit " + sha + " is not in " + repo.repo() + " (was the branch rewritten?)", "CommitMissing");
  }

  private boolean hasCommit(Path dir, String sha) throws IOException, InterruptedException {
    return hasCommit(git, dir, sha);
  }

  private static boolean hasCommit(Git git, Path dir, String sha) throws IOException, InterruptedException {
    return sha != null && git.run(dir, "cat-file", "-e", sha + "^{commit}").ok();
  }

  // ---------------------------------------------------------------------------------------------
  // RunTests

  @Override
  public TestRun runTests(MergeRepo repo, String head) {
    return inScratch(repo, () -> {
      if (repo.test().isEmpty()) {
        return new TestRun(true, 0, false, 0, "");
      }
      Path scratch = scratch(repo, false);
      ensureCommit(repo, scratch, head, "refs/heads/" + repo.target());
      git.check(scratch, "checkout", "--quiet", "--detach", "--force", head);
      git.check(scratch, "clean", "-fdxq");
      Duration timeout = Duration.ofSeconds(Math.max(1, repo.testTimeoutSeconds()));
      if (MergeRepo.TEST_SANDBOX_OFF.equals(repo.testSandbox())) {
        return runTest(repo.test(), scratch, timeout);
      }
      String problem = GitWalls.problem();
      if (problem != null) {
        // Fail closed: the tests are the ants' code; without walls they do not run.
        return new TestRun(false, 126, false, 0, "sandbox: " + problem + " (or test_sandbox: off in merge.repos)");
      }
      // The tests are bounded like a session: memory and processes (test_memory, test_processes: a
      // fork bomb or a memory hog in an ant's test stops at its limit, not at the worker). Without
      // a control group here the walls still stand, unlimited.
      Object made = repo.testMemoryBytes() <= 0 && repo.testProcesses() <= 0 ? null : dev.colony.sandbox.SessionLimits.create("test-" + repo.colony() + "-" + repo.name(),
          Math.max(0, repo.testMemoryBytes()), Math.max(0, repo.testProcesses()));
      dev.colony.sandbox.SessionLimits limits = made instanceof dev.colony.sandbox.SessionLimits l ? l : null;
      if (limits == null && made instanceof dev.colony.sandbox.SessionLimits.Refusal r && TEST_LIMITS_WARNED.compareAndSet(false, true)) {
        log.warn("merge: test runs go without memory and process limits on this worker: {}", r.reason());
      }
      try {
        return runTest(repo.test(), scratch, timeout, testWalls(repo, scratch, limits));
      } finally {
        if (limits != null) {
          limits.close();
        }
      }
    });
  }

  /**
   * The test command's walls: the scratch read-write, the repository's git directory read-only
   * (a local repository's scratch is its worktree), a fresh private home each run, no network
   * (the host's with {@code test_sandbox: open}), and an environment built from nothing: the
   * basics and the variables {@code test_secrets} names. No Temporal, no other workspace, none of
   * the worker's tokens.
   */
  private dev.colony.sandbox.Confinement testWalls(MergeRepo repo, Path scratch, dev.colony.sandbox.SessionLimits limits)
      throws IOException, InterruptedException {
    Map<String, String> env = new LinkedHashMap<>();
    Map<String, String> worker = repo.testSecrets().isEmpty() ? Map.of() : environment.apply(Path.of(repo.colonyDir()));
    env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    env.put("HOME", dev.colony.sandbox.Bubblewrap.HOME);
    env.put("USER", "ant");
    env.put("LOGNAME", "ant");
    env.put("TMPDIR", "/tmp");
    env.put("TERM", "dumb");
    env.put("LANG", System.getenv().getOrDefault("LANG", "C.UTF-8"));
    env.put("GIT_TERMINAL_PROMPT", "0");
    for (String name : repo.testSecrets()) {
      if (worker.get(name) != null) {
        env.put(name, worker.get(name));
      }
    }
    // The scratch's git (a clone's .git, a worktree's .git file) is read-only inside: the queue's
    // next steps run git there with the worker's powers, so the tests must not plant a config
    // or point it at a git directory of their own.
    List<Path> readOnly = new ArrayList<>(List.of(scratch.toAbsolutePath().resolve(".git")));
    if (!repo.remote()) {
      readOnly.add(GitWalls.sharedGitDir(localRepo(resolvedRepo(repo)).toAbsolutePath()));
    }
    Path home = scratch.resolveSibling(scratch.getFileName() + ".home");
    deleteTree(home); // what an earlier test left there (a planted config) never reaches the next
    return GitWalls.forTest(repo.name(), scratch.toAbsolutePath(), readOnly,
        MergeRepo.TEST_SANDBOX_OPEN.equals(repo.testSandbox()), env, limits);
  }

  TestRun runTest(List<String> argv, Path cwd, Duration timeout) throws IOException, InterruptedException {
    return runTest(argv, cwd, timeout, null);
  }

  /** Runs the test command in {@code cwd}, inside {@code walls} (null: as a child of the worker). */
  TestRun runTest(List<String> argv, Path cwd, Duration timeout, dev.colony.sandbox.Confinement walls)
      throws IOException, InterruptedException {
    ProcessBuilder pb;
    if (walls == null) {
      pb = new ProcessBuilder(Processes.tiedToWorker(argv)).directory(cwd.toFile()).redirectErrorStream(true);
      pb.environment().put("GIT_TERMINAL_PROMPT", "0");
    } else {
      pb = walls.processFor(argv, Map.of(), Map.of(), cwd).redirectErrorStream(true);
    }
    long start = System.nanoTime();
    Process p;
    try {
      p = Processes.start(pb);
    } catch (IOException e) {
      // A test command that does not exist is a red test the ant can fix, not an outage.
      return new TestRun(false, 127, false, 0, secrets.redact(bounded(
          "cannot start " + argv.getFirst() + ": " + e.getMessage(), TestRun.MAX_TAIL)));
    }
    p.getOutputStream().close();
    Tail tail = new Tail(p.getInputStream());
    Thread reader = Thread.ofVirtual().start(tail);
    long deadline = start + timeout.toNanos();
    boolean timedOut = false;
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          timedOut = true;
          break;
        }
        if (p.waitFor(Math.min(left, HEARTBEAT.toNanos()), TimeUnit.NANOSECONDS)) {
          break;
        }
        heartbeat((System.nanoTime() - start) / 1_000_000_000L);
      }
    } catch (RuntimeException | Error | InterruptedException e) {
      // Cancelled (the heartbeat says so), the worker stopping: the test's tree goes too.
      killProcessTree(p);
      throw e;
    }
    if (timedOut) {
      killProcessTree(p);
    }
    p.waitFor(10, TimeUnit.SECONDS);
    reader.join(Duration.ofSeconds(5));
    long millis = (System.nanoTime() - start) / 1_000_000;
    String text = tail.text();
    if (timedOut) {
      text = text + (text.isEmpty() || text.endsWith("\n") ? "" : "\n") + "[killed after " + timeout.toSeconds()
          + " s: the test timed out]";
    }
    String out = printable(secrets.redact(text));
    if (out.length() > TestRun.MAX_TAIL) {
      out = out.substring(out.length() - TestRun.MAX_TAIL);
    }
    int exit = timedOut ? -1 : p.exitValue();
    return new TestRun(!timedOut && exit == 0, exit, timedOut, millis, out);
  }

  static void heartbeat(long seconds) {
    io.temporal.activity.ActivityExecutionContext ctx;
    try {
      ctx = Activity.getExecutionContext();
    } catch (IllegalStateException | NullPointerException notInAnActivity) {
      return;
    }
    ctx.heartbeat(seconds);
  }

  /** The test, its process group and everything it started (a child whose parent died included, when it kept the group). */
  static void killProcessTree(Process p) {
    List<ProcessHandle> tree = p.descendants().toList();
    if (p.isAlive()) {
      // The test leads a session and process group of its own (Processes.tiedToWorker: setsid).
      try {
        Process k = new ProcessBuilder("kill", "-KILL", "--", "-" + p.pid()).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        k.waitFor(5, TimeUnit.SECONDS);
      } catch (IOException | InterruptedException ignored) {
        // the handles below still do it
      }
    }
    tree.forEach(ProcessHandle::destroyForcibly);
    Processes.killTree(p);
  }

  /** Keeps the last bytes of a stream. */
  static final class Tail implements Runnable {
    private static final int KEEP = 64 * 1024;
    private final InputStream in;
    private final byte[] ring = new byte[KEEP];
    private long total;

    Tail(InputStream in) {
      this.in = in;
    }

    @Override
    public void run() {
      byte[] buf = new byte[8192];
      try {
        int n;
        while ((n = in.read(buf)) > 0) {
          synchronized (this) {
            for (int i = 0; i < n; i++) {
              ring[(int) (total++ % KEEP)] = buf[i];
            }
          }
        }
      } catch (IOException ignored) {
        // the process is gone
      }
    }

    synchronized String text() {
      int len = (int) Math.min(total, KEEP);
      byte[] out = new byte[len];
      for (int i = 0; i < len; i++) {
        out[i] = ring[(int) ((total - len + i) % KEEP)];
      }
      return new String(out, StandardCharsets.UTF_8);
    }
  }

  /** Without control characters (escape sequences of colored output, NULs), keeping lines and tabs. */
  static String printable(String s) {
    String noAnsi = s.replaceAll("\u001B\\[[0-9;?]*[ -/]*[@-~]", "").replace("\r\n", "\n");
    StringBuilder b = new StringBuilder(noAnsi.length());
    noAnsi.codePoints().forEach(c -> {
      if (c == '\n' || c == '\t' || !(Character.isISOControl(c) || c == 0xFFFD
          || Character.getType(c) == Character.FORMAT && c != 0x200D)) {
        b.appendCodePoint(c);
      }
    });
    return b.toString();
  }

  // ---------------------------------------------------------------------------------------------
  // UpdateTarget

  @Override
  public TargetUpdate updateTarget(MergeRepo repo, String expected, String head) {
    return inScratch(repo, () -> {
      String url = resolvedRepo(repo);
      if (repo.remote()) {
        Path scratch = scratch(repo, false);
        String now = remoteHead(scratch, repo.target());
        if (head.equals(now)) {
          deleteRebasedRef(scratch, head);
          return new TargetUpdate(TargetUpdate.Outcome.ALREADY, head);
        }
        if (!expected.equals(now)) {
          if (now != null && !hasCommit(scratch, now)) {
            git.run(scratch, "fetch", "--quiet", "origin");
          }
          if (now != null && landedBefore(scratch, expected, head, now)) {
            deleteRebasedRef(scratch, head);
            return new TargetUpdate(TargetUpdate.Outcome.ALREADY, head);
          }
          return new TargetUpdate(TargetUpdate.Outcome.MOVED, now);
        }
        ensureCommit(repo, scratch, head);
        TargetUpdate.Outcome done = pushWithLease(scratch, repo.target(), expected, head);
        if (done == null) {
          now = remoteHead(scratch, repo.target());
          return head.equals(now) ? new TargetUpdate(TargetUpdate.Outcome.ALREADY, head)
              : new TargetUpdate(TargetUpdate.Outcome.MOVED, now);
        }
        deleteRebasedRef(scratch, head);
        git.run(scratch, "fetch", "--quiet", "origin");
        return new TargetUpdate(TargetUpdate.Outcome.UPDATED, head);
      }
      Path local = localRepo(url);
      String ref = "refs/heads/" + repo.target();
      boolean push = pushesToOrigin(repo, local);
      String now = revParse(local, ref);
      if (now == null) {
        throw nonRetryable("the target branch " + repo.target() + " does not exist in " + local, "TargetMissing");
      }
      String remote = push ? remoteHead(local, repo.target()) : null;
      if (push && remote != null && !head.equals(remote) && !hasCommit(local, remote)) {
        git.run(local, "fetch", "--quiet", "origin", "+" + ref + ":refs/remotes/origin/" + repo.target());
      }
      if (push && remote != null && (head.equals(remote) || landedBefore(local, expected, head, remote))) {
        // With push on, origin's compare-and-swap decided, and it has the landing (a retry after
        // the push): the local target follows it; whatever it did meanwhile, this is ALREADY.
        follow(local, ref, head);
        return new TargetUpdate(TargetUpdate.Outcome.ALREADY, head);
      }
      // Only with push on may the local target lag behind expected (origin was ahead): otherwise a
      // target that is not exactly expected moved, forwards or backwards (a human's reset), and the
      // queue rebases again instead of landing on a head that is not the target's; unless head is
      // already in it (written before a worker died, a human pushed on top since): landed.
      if (!now.equals(expected) && !now.equals(head) && !(push && isAncestor(local, now, expected))) {
        return landedBefore(local, expected, head, now) ? new TargetUpdate(TargetUpdate.Outcome.ALREADY, head)
            : new TargetUpdate(TargetUpdate.Outcome.MOVED, now);
      }
      if (push) {
        // One compare-and-swap decides: origin's (push --force-with-lease). Origin behind expected
        // is origin lagging the local target (pushed forward here); anything else moved on origin.
        if (remote != null && !remote.equals(expected)
            && !(hasCommit(local, remote) && isAncestor(local, remote, expected))) {
          return new TargetUpdate(TargetUpdate.Outcome.MOVED, remote);
        }
        if (pushWithLease(local, repo.target(), remote == null ? "" : remote, head) == null) {
          String after = remoteHead(local, repo.target());
          if (!head.equals(after)) {
            return new TargetUpdate(TargetUpdate.Outcome.MOVED, after);
          }
        }
        git.run(local, "fetch", "--quiet", "origin", "+" + ref + ":refs/remotes/origin/" + repo.target());
        // The landing is on origin: the local target follows (or is left for PrepareScratch to
        // report, when a human committed to it meanwhile); it never turns the landing into MOVED.
        follow(local, ref, head);
        return new TargetUpdate(TargetUpdate.Outcome.UPDATED, head);
      }
      if (now.equals(head)) {
        return new TargetUpdate(TargetUpdate.Outcome.ALREADY, head);
      }
      Git.Result r = git.run(local, "update-ref", "-m", "colony merge queue: land " + abbrev(head), ref, head, now);
      if (r.ok()) {
        return new TargetUpdate(TargetUpdate.Outcome.UPDATED, head);
      }
      String after = revParse(local, ref);
      if (head.equals(after)) {
        return new TargetUpdate(TargetUpdate.Outcome.ALREADY, head);
      }
      if (after != null && !after.equals(now)) {
        return new TargetUpdate(TargetUpdate.Outcome.MOVED, after);
      }
      throw ApplicationFailure.newFailure(git.describe(new String[] {"update-ref", ref}, r), "GitFailed");
    });
  }

  /**
   * With push on, after origin took {@code head}: the local target moves to it when it is behind
   * it (a compare-and-swap, tried again if it moved meanwhile). A local target that already holds
   * head stays; one a human moved elsewhere meanwhile stays too (PrepareScratch reports the
   * divergence): origin, which decided, has the landing either way.
   */
  private void follow(Path local, String ref, String head) throws IOException, InterruptedException {
    for (int attempt = 0; attempt < 3; attempt++) {
      String cur = revParse(local, ref);
      if (cur == null || cur.equals(head) || isAncestor(local, head, cur)) {
        return;
      }
      if (!isAncestor(local, cur, head)) {
        log.warn("merge: {} moved to {} while {} landed on origin; left as it is", ref, abbrev(cur), abbrev(head));
        return;
      }
      if (git.run(local, "update-ref", "-m", "colony merge queue: land " + abbrev(head), ref, head, cur).ok()) {
        return;
      }
    }
  }

  /**
   * Whether {@code head}, built on {@code expected}, is already below the target's {@code now}: an
   * earlier attempt of this update moved the target (its worker was killed before it reported) and
   * the target moved on since (a human's push). The retry reports ALREADY, not MOVED: MOVED would
   * rebase work that is on the target again (nothing left, or a conflict with what came after it).
   */
  private boolean landedBefore(Path dir, String expected, String head, String now)
      throws IOException, InterruptedException {
    return !head.equals(expected) && hasCommit(dir, now) && isAncestor(dir, expected, head)
        && isAncestor(dir, head, now);
  }

  /** A local repository whose target also goes to its origin remote. */
  private boolean pushesToOrigin(MergeRepo repo, Path local) throws IOException, InterruptedException {
    return repo.push() && git.run(local, "remote", "get-url", "origin").ok();
  }

  /** The remote's head of {@code branch} (null: no such branch). */
  private String remoteHead(Path dir, String branch) throws IOException, InterruptedException {
    Git.Result r = git.check(dir, "ls-remote", "origin", "refs/heads/" + branch);
    String line = r.line();
    return line.isEmpty() ? null : line.split("\\s+")[0];
  }

  /** UPDATED, or null when the lease failed (the remote's branch is not {@code expected}). */
  private TargetUpdate.Outcome pushWithLease(Path dir, String target, String expected, String head)
      throws IOException, InterruptedException {
    String ref = "refs/heads/" + target;
    String[] args = {"push", "--porcelain", "--force-with-lease=" + ref + ":" + expected, "origin", head + ":" + ref};
    Git.Result r = git.run(dir, args);
    if (r.ok()) {
      return TargetUpdate.Outcome.UPDATED;
    }
    String said = r.text();
    if (said.contains("stale info") || said.contains("[rejected]") || said.contains("fetch first")) {
      return null;
    }
    throw ApplicationFailure.newFailure(git.describe(args, r), "GitFailed");
  }

  private void deleteRebasedRef(Path scratch, String head) throws IOException, InterruptedException {
    git.run(scratch, "push", "--quiet", "origin", ":" + REBASED_REFS + head);
  }

  // ---------------------------------------------------------------------------------------------
  // OpenPullRequest

  @Override
  public String openPullRequest(MergeRepo repo, String ant, String branch, String head, String title, String body) {
    return inScratch(repo, () -> {
      if (repo.githubRepo() == null || !repo.githubRepo().contains("/")) {
        throw nonRetryable("the merge queue " + repo.name() + " opens pull requests but names no github_repo (owner/name)",
            "BadConfig");
      }
      Path dir;
      if (repo.remote()) {
        dir = scratch(repo, false);
        ensureCommit(repo, dir, head);
      } else {
        dir = localRepo(resolvedRepo(repo));
        if (!git.run(dir, "remote", "get-url", "origin").ok()) {
          throw nonRetryable("the repository " + dir + " has no origin remote to open a pull request from",
              "BadConfig");
        }
      }
      git.check(dir, "push", "--quiet", "--force", "origin", head + ":refs/heads/" + branch);
      if (repo.remote()) {
        deleteRebasedRef(dir, head);
      }
      Map<String, String> env = environment.apply(Path.of(repo.colonyDir()));
      String token = repo.githubTokenVar() == null ? null : env.get(repo.githubTokenVar());
      secrets.register(repo.githubTokenVar() == null ? "GITHUB_TOKEN" : repo.githubTokenVar(), token);
      String api = env.getOrDefault("COLONY_GITHUB_API_URL", "https://api.github.com");
      api = api.endsWith("/") ? api.substring(0, api.length() - 1) : api;
      var json = JSON.createObjectNode();
      json.put("title", title);
      json.put("head", branch);
      json.put("base", repo.target());
      json.put("body", body == null ? "" : body);
      Request post = github(api + "/repos/" + repo.githubRepo() + "/pulls", token)
          .post(RequestBody.create(JSON.writeValueAsString(json), JSON_TYPE)).build();
      try (Response r = http.newCall(post).execute()) {
        String text = r.body() == null ? "" : r.body().string();
        if (r.isSuccessful()) {
          return JSON.readTree(text).path("html_url").asText();
        }
        if (r.code() == 422 && text.contains("already exists")) {
          String owner = repo.githubRepo().substring(0, repo.githubRepo().indexOf('/'));
          String q = java.net.URLEncoder.encode(owner + ":" + branch, StandardCharsets.UTF_8);
          Request get = github(api + "/repos/" + repo.githubRepo() + "/pulls?head=" + q + "&state=open", token)
              .get().build();
          try (Response g = http.newCall(get).execute()) {
            if (!g.isSuccessful()) {
              throw new IOException("GitHub answered " + g.code() + " listing the pull requests of " + branch);
            }
            JsonNode list = JSON.readTree(g.body().string());
            if (list.isArray() && !list.isEmpty()) {
              return list.get(0).path("html_url").asText();
            }
            throw new IOException("GitHub says a pull request for " + branch + " exists but lists none open");
          }
        }
        if (r.code() == 401 || r.code() == 403 || r.code() == 404 || r.code() == 422) {
          throw nonRetryable("GitHub refused the pull request for " + branch + " on " + repo.githubRepo() + " ("
              + r.code() + "): " + bounded(oneLine(text), 500), "GithubRefused");
        }
        throw new IOException("GitHub answered " + r.code() + " opening a pull request for " + branch);
      }
    });
  }

  private static Request.Builder github(String url, String token) {
    Request.Builder b = new Request.Builder().url(url)
        .header("Accept", "application/vnd.github+json")
        .header("X-GitHub-Api-Version", "2022-11-28")
        .header("User-Agent", "colony");
    if (token != null && !token.isBlank()) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  // ---------------------------------------------------------------------------------------------
  // SyncBranch

  @Override
  public String syncBranch(AntSpec spec, String landedFrom, String landedTo) {
    return secrets.redact(call(() -> sync(spec, landedFrom, landedTo)));
  }

  private String sync(AntSpec spec, String landedFrom, String landedTo) throws IOException, InterruptedException {
    if (spec.workspace() == null || spec.workspace().repo() == null) {
      return spec.name() + " has no repository: nothing to sync";
    }
    Map<String, String> env = environment.apply(Path.of(spec.colonyDir()));
    AntSpec resolved = SpecReferences.resolve(spec, env, secrets);
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
    if (!hasCommit(publish, landedTo)) {
      git.run(publish, "fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/remotes/origin/*");
    }
    if (hasCommit(publish, landedTo)) {
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
      return secrets.redact(branch + " left as it is: git cannot read its workspace ("
          + bounded(oneLine(dirty.text()), 300) + ")");
    }
    if (!dirty.out().isBlank()) {
      return branch + " left as it is: its worktree has uncommitted changes";
    }
    if (!hasCommit(git, dir, landedTo)) {
      return branch + " left as it is: the landed commit " + abbrev(landedTo) + " is not here";
    }
    String head = revParse(git, dir, "HEAD");
    if (head == null) {
      return branch + " left as it is: it has no commit";
    }
    if (head.equals(landedTo)) {
      return branch + " is already at " + abbrev(landedTo);
    }
    if (head.equals(landedFrom)) {
      git.check(dir, "reset", "--quiet", "--hard", landedTo);
      return branch + " reset to the landed " + abbrev(landedTo);
    }
    if (landedFrom != null && hasCommit(git, dir, landedFrom) && isAncestor(git, dir, landedFrom, head)) {
      Map<String, String> who = git.run(dir, "config", "user.email").ok() ? Map.of() : committer(null);
      Git.Result r = git.run(dir, who, Git.TIMEOUT, List.of("rebase", "--no-autostash", "--onto", landedTo, landedFrom));
      if (!r.ok()) {
        List<String> conflicts = git.run(dir, "diff", "--name-only", "--diff-filter=U").lines();
        git.run(dir, "rebase", "--abort");
        return secrets.redact(branch + " left as it is: its later commits conflict with the landed work"
            + (conflicts.isEmpty() ? "" : " in " + bounded(String.join(", ", conflicts), 300)));
      }
      int later = count(git, dir, landedTo, "HEAD");
      return branch + " rebased onto the landed " + abbrev(landedTo) + " (" + later
          + (later == 1 ? " later commit)" : " later commits)");
    }
    return branch + " left as it is: its head " + abbrev(head) + " does not follow the landed work";
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  @FunctionalInterface
  private interface Step<T> {
    T run() throws IOException, InterruptedException;
  }

  private <T> T call(Step<T> step) {
    try {
      return step.run();
    } catch (IOException e) {
      throw ApplicationFailure.newFailure(secrets.redact(String.valueOf(e.getMessage())), "GitUnavailable");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    }
  }

  /**
   * Runs a step of the queue's scratch holding its lock ({@code <scratch>.lock}), so a step
   * retried while an abandoned attempt still runs on this host (a start-to-close timeout) waits
   * for it instead of working in the same checkout.
   */
  private <T> T inScratch(MergeRepo repo, Step<T> step) {
    return call(() -> {
      Path scratch = scratchDir(repo);
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
            if (now - beat > HEARTBEAT.toNanos()) {
              heartbeat(0);
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

  /** The repository's location with its references resolved (here, on the worker, only). */
  private String resolvedRepo(MergeRepo repo) {
    if (repo.repo().indexOf("${") < 0) {
      return repo.repo();
    }
    Map<String, String> env = environment.apply(Path.of(repo.colonyDir()));
    return secrets.resolve(repo.repo(), env);
  }

  Path scratchDir(MergeRepo repo) {
    return rootOverride != null ? rootOverride.resolve(".merge").resolve(repo.name()) : Path.of(repo.scratchDir());
  }

  private Path localRepo(String path) throws IOException, InterruptedException {
    Path p = Path.of(path);
    if (!Files.isDirectory(p) || !git.run(p, "rev-parse", "--git-dir").ok()) {
      throw nonRetryable("the repository " + path + " does not exist or is not a git repository", "RepoNotFound");
    }
    return p;
  }

  private String revParse(Path dir, String rev) throws IOException, InterruptedException {
    return revParse(git, dir, rev);
  }

  private static String revParse(Git git, Path dir, String rev) throws IOException, InterruptedException {
    Git.Result r = git.run(dir, "rev-parse", "--verify", "--quiet", rev + "^{commit}");
    return r.ok() ? r.line() : null;
  }

  private boolean isAncestor(Path dir, String a, String b) throws IOException, InterruptedException {
    return isAncestor(git, dir, a, b);
  }

  private static boolean isAncestor(Git git, Path dir, String a, String b) throws IOException, InterruptedException {
    return git.run(dir, "merge-base", "--is-ancestor", a, b).ok();
  }

  private ApplicationFailure nonRetryable(String message, String type) {
    return ApplicationFailure.newNonRetryableFailure(secrets.redact(message), type);
  }

  /** Deletes a directory and everything in it (a link is removed, never followed); absent: nothing. */
  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  static String abbrev(String sha) {
    return sha == null ? "?" : sha.length() > 12 ? sha.substring(0, 12) : sha;
  }

  private static String oneLine(String s) {
    return s.replaceAll("\\s+", " ").strip();
  }

  /** At most {@code max} characters: the first and the last part of a long text. */
  static String bounded(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int head = max / 2 - 10;
    return s.substring(0, head) + "\n[…]\n" + s.substring(s.length() - (max - head - 6));
  }
}
