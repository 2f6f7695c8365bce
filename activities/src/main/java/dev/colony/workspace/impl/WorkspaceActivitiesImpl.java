package dev.colony.workspace.impl;

import dev.colony.config.Environment;
import dev.colony.config.Secrets;
import dev.colony.config.SpecReferences;
import dev.colony.engine.Processes;
import dev.colony.spec.AntSpec;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.workspace.WorkspaceActivities;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A directory per ant under the workspace root; a git worktree on branch {@code colony/<ant>}
 * (or the configured branch) when the ant names a repository. Safe to call again: an existing
 * worktree is reused as it is. On a host that has not held the ant before (it moved here), the
 * branch is recreated from the remote's copy when there is one.
 */
public final class WorkspaceActivitiesImpl implements WorkspaceActivities {
  /** What a host name may look like (it names a task queue and shows in status). */
  public static final java.util.regex.Pattern HOST_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

  private final Secrets secrets;
  private final String host;
  private final Path rootOverride;
  private final java.util.function.Predicate<String> queuePolled;

  public WorkspaceActivitiesImpl() {
    this(Secrets.process());
  }

  public WorkspaceActivitiesImpl(Secrets secrets) {
    this(secrets, "", null);
  }

  /**
   * @param host this worker's host name ("" for none: ants stay on the shared queue)
   * @param rootOverride where this host keeps workspaces instead of the spec's root; null for the spec's
   */
  public WorkspaceActivitiesImpl(Secrets secrets, String host, Path rootOverride) {
    this(secrets, host, rootOverride, queue -> false);
  }

  /** @param queuePolled whether a worker polled a task queue lately (asked of the server) */
  public WorkspaceActivitiesImpl(Secrets secrets, String host, Path rootOverride,
      java.util.function.Predicate<String> queuePolled) {
    if (!host.isEmpty() && !HOST_NAME.matcher(host).matches()) {
      throw new IllegalArgumentException("invalid host name '" + host + "'");
    }
    this.secrets = secrets;
    this.host = host;
    this.rootOverride = rootOverride;
    this.queuePolled = queuePolled;
  }

  @Override
  public boolean hostPolling(String queue) {
    return queuePolled.test(queue);
  }

  @Override
  public String claimHost() {
    return host;
  }

  @Override
  public String prepareWorkspace(AntSpec spec) {
    try {
      // References (a token in the repository URL, say) are resolved here and only here.
      Map<String, String> env = Environment.forColony(Path.of(spec.colonyDir()));
      return prepare(SpecReferences.resolve(spec, env, secrets)).toString();
    } catch (IOException e) {
      throw Activity.wrap(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    }
  }

  public Path prepare(AntSpec spec) throws IOException, InterruptedException {
    WorkspaceSpec ws = spec.workspace();
    Path root = rootOverride != null ? rootOverride : Path.of(ws.root());
    Path dir = root.resolve(spec.name());
    if (ws.repo() == null) {
      Files.createDirectories(dir);
      return dir;
    }
    boolean url = ws.repo().contains("://") || ws.repo().startsWith("git@");
    String branch = ws.branch() != null ? ws.branch() : "colony/" + spec.name();
    if (!url) {
      return ownRepository(spec, Path.of(ws.repo()), dir, branch);
    }
    if (Files.exists(dir.resolve(".git"))) {
      return dir; // in the ant's hands: nothing written into it (the identity comes in the environment)
    }
    Files.createDirectories(root);
    Path repo = root.resolve(".repos").resolve(spec.name());
    if (!Files.exists(repo.resolve(".git"))) {
      Files.createDirectories(repo.getParent());
      git(null, "clone", "--quiet", ws.repo(), repo.toString());
    } else {
      git(repo, "fetch", "--quiet", "origin");
    }
    if (Files.exists(dir) && isEmptyDir(dir)) {
      Files.delete(dir);
    }
    git(repo, "worktree", "prune");
    if (branchExists(repo, branch)) {
      git(repo, "worktree", "add", "--quiet", dir.toString(), branch);
    } else if (remoteBranchExists(repo, branch)) {
      // The ant worked elsewhere before (its host died): carry on from what it pushed.
      git(repo, "worktree", "add", "--quiet", "--track", "-b", branch, dir.toString(), "origin/" + branch);
    } else {
      git(repo, "worktree", "add", "--quiet", "-b", branch, dir.toString());
    }
    configureIdentity(spec, dir);
    return dir;
  }

  /**
   * A local repository's ant works in a repository of its own ({@code git clone --shared}: it
   * borrows the shared repository's objects through its alternates, and has its own refs), on
   * its branch. Its sandbox mounts the shared repository read-only, so the ant commits to its own
   * branch and reads (fetches) the target, and cannot move the target or another ant's branch;
   * the merge queue fetches its branch from here ({@code PublishBranch}). A workspace made before
   * (a worktree of the shared repository) becomes such a repository in place: its branch, its
   * files and its uncommitted changes stay (staged changes become unstaged).
   */
  private Path ownRepository(AntSpec spec, Path repo, Path dir, String branch) throws IOException, InterruptedException {
    Path dotGit = dir.resolve(".git");
    if (Files.isDirectory(dotGit, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      // The ant's repository, in its hands since it was made: the worker writes nothing into it
      // (a .git whose commondir points elsewhere would have the worker write there). Its commit
      // identity comes with each session's environment (SessionEnvironment).
      return dir;
    }
    Files.createDirectories(dir.getParent());
    String start = revParse(repo, "refs/heads/" + branch);
    if (start == null) {
      // The ant worked elsewhere before (its host died): carry on from what it pushed.
      start = revParse(repo, "refs/remotes/origin/" + branch);
    }
    if (start == null) {
      start = revParse(repo, "HEAD");
    }
    Path made = dir.resolveSibling("." + dir.getFileName() + ".new");
    deleteTree(made);
    git(null, "clone", "--quiet", "--shared", "--no-checkout", "--origin", "origin", repo.toAbsolutePath().toString(),
        made.toString());
    if (start != null) {
      git(made, "update-ref", "refs/heads/" + branch, start);
    }
    git(made, "symbolic-ref", "HEAD", "refs/heads/" + branch);
    // The shared repository's other branches (the target) are names for origin's: `git rebase main`
    // works in the ant's repository, and sees main as of the last fetch (each session starts with one).
    for (String other : run(made, List.of("for-each-ref", "--format=%(refname)", "refs/heads/")).output.split("\n")) {
      String name = other.strip();
      if (!name.isEmpty() && !name.equals("refs/heads/" + branch)) {
        git(made, "update-ref", "-d", name);
        git(made, "symbolic-ref", name, "refs/remotes/origin/" + name.substring("refs/heads/".length()));
      }
    }
    if (Files.isRegularFile(dotGit, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      // A worktree of the shared repository (made before): its files stay, its git moves here.
      Path admin = worktreeAdmin(repo, dotGit);
      Files.delete(dotGit);
      Files.move(made.resolve(".git"), dotGit, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      deleteTree(made);
      git(dir, "reset", "--quiet");
      if (admin != null) {
        deleteTree(admin);
      }
      git(repo, "worktree", "prune");
    } else {
      if (Files.exists(dir) && isEmptyDir(dir)) {
        Files.delete(dir);
      }
      if (Files.exists(dir)) {
        deleteTree(made);
        throw ApplicationFailure.newNonRetryableFailure("the workspace " + dir
            + " exists and is not a git repository: move it away", "GitFailed");
      }
      Files.move(made, dir, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      if (start != null) {
        git(dir, "checkout", "--quiet", "--force", branch);
      }
    }
    configureIdentity(spec, dir);
    return dir;
  }

  /** The shared repository's admin directory of an old worktree (under its {@code worktrees/}), or null. */
  private static Path worktreeAdmin(Path repo, Path gitFile) throws IOException {
    String line = Files.readString(gitFile).strip();
    if (!line.startsWith("gitdir:")) {
      return null;
    }
    Path admin = gitFile.getParent().resolve(line.substring("gitdir:".length()).strip()).normalize();
    Path worktrees = dev.colony.sandbox.GitWalls.sharedGitDir(repo.toAbsolutePath()).resolve("worktrees").normalize();
    // Only ever a directory of the shared repository's worktrees/ that names this workspace (the
    // file is the ant's to write: it may point at another worktree's, the queue's scratch's).
    if (admin.getParent() == null || !admin.getParent().equals(worktrees)) {
      return null;
    }
    Path back = admin.resolve("gitdir");
    return Files.isRegularFile(back) && Path.of(Files.readString(back).strip()).toAbsolutePath().normalize()
        .equals(gitFile.toAbsolutePath().normalize()) ? admin : null;
  }

  private static String revParse(Path repo, String rev) throws IOException, InterruptedException {
    Result r = run(repo, List.of("rev-parse", "--verify", "--quiet", rev + "^{commit}"));
    return r.exit == 0 && !r.output.isBlank() ? r.output.strip() : null;
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static void configureIdentity(AntSpec spec, Path dir) throws IOException, InterruptedException {
    if (spec.git() == null) {
      return;
    }
    if (spec.git().userName() != null) {
      git(dir, "config", "user.name", spec.git().userName());
    }
    if (spec.git().userEmail() != null) {
      git(dir, "config", "user.email", spec.git().userEmail());
    }
  }

  private static boolean isEmptyDir(Path dir) throws IOException {
    try (var s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }

  private static boolean branchExists(Path repo, String branch) throws IOException, InterruptedException {
    return run(repo, List.of("rev-parse", "--verify", "--quiet", "refs/heads/" + branch)).exit == 0;
  }

  private static boolean remoteBranchExists(Path repo, String branch) throws IOException, InterruptedException {
    return run(repo, List.of("rev-parse", "--verify", "--quiet", "refs/remotes/origin/" + branch)).exit == 0;
  }

  private static void git(Path cwd, String... args) throws IOException, InterruptedException {
    Result r = run(cwd, List.of(args));
    if (r.exit != 0) {
      // A bad repository path or URL will not fix itself: fail without retries. The message may
      // hold a URL with a token: the worker's failure converter masks it on the way out.
      throw ApplicationFailure.newNonRetryableFailure(
          "git " + String.join(" ", args) + " failed (exit " + r.exit + "): " + r.output.strip(), "GitFailed");
    }
  }

  private record Result(int exit, String output) {}

  private static Result run(Path cwd, List<String> args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("git");
    // No hooks, no fsmonitor daemon: the workspace's files are the ant's.
    cmd.addAll(dev.colony.sandbox.GitWalls.SAFE_CONFIG);
    if (cwd != null) {
      cmd.add("-C");
      cmd.add(cwd.toString());
    }
    cmd.addAll(args);
    // Like agents, git runs in a session of its own (a Ctrl-C in the worker's terminal must not
    // kill a clone half way) and dies with the worker.
    Process p = Processes.start(new ProcessBuilder(Processes.tiedToWorker(cmd)).redirectErrorStream(true));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      return new Result(-1, "timed out");
    }
    return new Result(p.exitValue(), out);
  }
}
