package dev.colony.workspace.impl;

import dev.colony.config.Environment;
import dev.colony.secrets.Secrets;
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
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(WorkspaceActivitiesImpl.class);
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
    if (Files.isSymbolicLink(dir)) {
      // The workspace is a directory of the worker's making: a link (the ant's doing, or a
      // human's) would have the worker's git write wherever it points, and the queue never reads it.
      throw ApplicationFailure.newNonRetryableFailure("the workspace " + dir
          + " is a symbolic link: move it away (a workspace is a directory Colony makes)", "GitFailed");
    }
    if (!url) {
      return ownRepository(spec, Path.of(ws.repo()), dir, branch);
    }
    return urlRepository(spec, ws.repo(), root, dir, branch);
  }

  /**
   * A URL repository's ant works in a repository of its own, like a local repository's: its refs,
   * its objects, borrowing those of the worker's mirror of the remote ({@code <root>/.publish/<ant>.git},
   * see {@link #mirror}) through its alternates. The URL and its credentials stay in the mirror,
   * which the ant never sees (its walls bind the mirror's objects only, read-only); the ant's
   * {@code origin} is the URL without credentials. Before each session the worker fetches the
   * remote into the mirror and hands the remote's branches to the ant's {@code refs/remotes/origin/}
   * through {@code git receive-pack} in the ant's walls: the worker runs no git in the ant's
   * repository once the ant has it. A workspace of the layout before (a worktree of a clone
   * {@code <root>/.repos/<ant>} that held the URL) becomes such a repository in place: its branch,
   * its files and its uncommitted changes stay, and the clone is removed.
   */
  private Path urlRepository(AntSpec spec, String url, Path root, Path dir, String branch)
      throws IOException, InterruptedException {
    Path mirror = mirror(root, spec.name());
    Path dotGit = dir.resolve(".git");
    finishMove(dir);
    boolean own = Files.isDirectory(dotGit, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    Path old = root.resolve(".repos").resolve(spec.name());
    synchronized (lockOf(mirror)) {
      boolean fetched = refreshMirror(mirror, url, own);
      if (own) {
        if (fetched) {
          handOrigin(spec, mirror, dir);
        }
        // A migration that ended before its last step: the old clone (the URL in its config) goes.
        deleteTree(old);
        return dir; // in the ant's hands: nothing written into it (the identity comes in the environment)
      }
      Files.createDirectories(root);
      Path made = dir.resolveSibling("." + dir.getFileName() + ".new");
      deleteTree(made);
      git(null, "init", "--quiet", made.toString());
      Files.writeString(made.resolve(".git/objects/info/alternates"),
          mirror.resolve("objects").toAbsolutePath() + "\n");
      git(made, "fetch", "--quiet", "--no-tags", mirror.toAbsolutePath().toString(),
          "+refs/remotes/origin/*:refs/remotes/origin/*");
      git(made, "remote", "add", "origin", withoutCredentials(url));
      String start = null;
      String detached = null;
      boolean fromOld = Files.isDirectory(old.resolve(".git"), java.nio.file.LinkOption.NOFOLLOW_LINKS);
      if (fromOld) {
        // The layout before: the ant's work (its branches, tags and stash, published or not) is in
        // its old clone, which is the ant's: fetched through upload-pack in the ant's walls. The
        // old clone is deleted only once that worked; until then nothing changes.
        Result r = run(made, List.of("-c", "protocol.file.allow=always", "fetch", "--quiet", "--no-tags",
            "--update-head-ok", "--upload-pack=" + antsGit(spec, "upload-pack", old, List.<Path>of()),
            "file://" + old.toAbsolutePath(), "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"),
            Map.of(), WALLED_TIMEOUT);
        if (r.exit != 0) {
          deleteTree(made);
          throw new IOException("the ant's old clone " + old + " could not be read; it is left as it is: "
              + dev.colony.text.Printable.of(withoutCredentials(r.output.strip())));
        }
        start = revParse(made, "refs/heads/" + branch);
        detached = detachedHead(old, dotGit);
        if (detached != null) {
          // The worktree was on a commit of no branch: kept, and checked out again below.
          Result d = run(made, List.of("-c", "protocol.file.allow=always", "-c", "uploadpack.allowAnySHA1InWant=true",
              "fetch", "--quiet", "--no-tags", "--upload-pack=" + antsGit(spec, "upload-pack", old, List.<Path>of()),
              "file://" + old.toAbsolutePath(), detached), Map.of(), WALLED_TIMEOUT);
          if (d.exit != 0 || revParse(made, detached) == null) {
            deleteTree(made);
            throw new IOException("the ant's old clone " + old + " did not give its detached HEAD " + detached
                + "; it is left as it is");
          }
          git(made, "update-ref", "refs/colony/detached-head", detached);
        }
      }
      if (start == null && revParse(mirror, "refs/heads/" + branch) != null) {
        // Published from this host before (the workspace was lost since): the ant's last published work.
        git(made, "fetch", "--quiet", "--no-tags", mirror.toAbsolutePath().toString(),
            "+refs/heads/" + branch + ":refs/heads/" + branch);
        start = revParse(made, "refs/heads/" + branch);
      }
      boolean tracking = false;
      if (start == null) {
        // The ant worked elsewhere before (its host died): carry on from what it pushed.
        start = revParse(made, "refs/remotes/origin/" + branch);
        tracking = start != null;
      }
      String defaultBranch = defaultBranch(mirror);
      if (start == null && defaultBranch != null) {
        start = revParse(made, "refs/remotes/origin/" + defaultBranch);
      }
      if (start != null) {
        git(made, "update-ref", "refs/heads/" + branch, start);
      }
      git(made, "symbolic-ref", "HEAD", "refs/heads/" + branch);
      if (detached != null) {
        git(made, "update-ref", "--no-deref", "HEAD", detached);
      }
      if (tracking) {
        git(made, "config", "branch." + branch + ".remote", "origin");
        git(made, "config", "branch." + branch + ".merge", "refs/heads/" + branch);
      }
      if (defaultBranch != null && !defaultBranch.equals(branch) && revParse(made, "refs/heads/" + defaultBranch) == null
          && revParse(made, "refs/remotes/origin/" + defaultBranch) != null) {
        // The remote's default branch by its name (`git rebase main`), as origin's as of the last session.
        git(made, "symbolic-ref", "refs/heads/" + defaultBranch, "refs/remotes/origin/" + defaultBranch);
      }
      if (Files.isRegularFile(dotGit, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        // A worktree of the old clone: its files stay, its git moves here (in two renames: a worker
        // that dies between them finishes at the next prepare, above).
        replaceGit(made, dir);
        gitOnTheAntsFiles(dir, "reset", "--quiet");
      } else {
        placeNew(made, dir, start == null ? null : detached != null ? detached : branch);
      }
      // The old clone held the URL (its credentials) and was the ant's to write: gone.
      deleteTree(old);
      configureIdentity(spec, dir);
      return dir;
    }
  }

  /** Where a migration puts the new git directory before it takes the old one's place. */
  private static Path moving(Path dir) {
    return dir.resolve(".git.colony-new");
  }

  /**
   * An old worktree's files stay; its {@code .git} file gives way to the made repository's git
   * directory, in two renames (a worker that dies between them finishes at the next prepare:
   * {@link #finishMove}).
   */
  private static void replaceGit(Path made, Path dir) throws IOException {
    Path moving = moving(dir);
    deleteTree(moving);
    Files.move(made.resolve(".git"), moving, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    deleteTree(made);
    Files.delete(dir.resolve(".git"));
    Files.move(moving, dir.resolve(".git"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** A migration stopped between its two renames (the worker died): finished. */
  private static void finishMove(Path dir) throws IOException {
    Path moving = moving(dir);
    if (!Files.exists(dir.resolve(".git"), java.nio.file.LinkOption.NOFOLLOW_LINKS)
        && Files.isDirectory(moving, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      Files.move(moving, dir.resolve(".git"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /** The made repository becomes the workspace (none there, or an empty directory), {@code checkout} checked out. */
  private static void placeNew(Path made, Path dir, String checkout) throws IOException, InterruptedException {
    if (Files.exists(dir) && isEmptyDir(dir)) {
      Files.delete(dir);
    }
    if (Files.exists(dir)) {
      deleteTree(made);
      throw ApplicationFailure.newNonRetryableFailure("the workspace " + dir
          + " exists and is not a git repository: move it away", "GitFailed");
    }
    Files.move(made, dir, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    if (checkout != null) {
      gitOnTheAntsFiles(dir, "checkout", "--quiet", "--force", checkout);
    }
  }

  /**
   * The commit an old-layout worktree was on when it was on no branch (its HEAD file names a
   * commit), read as data from the old clone's worktree directory; null otherwise.
   */
  private static String detachedHead(Path old, Path gitFile) {
    try {
      if (!Files.isRegularFile(gitFile, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        return null;
      }
      String line = Files.readString(gitFile).strip();
      if (!line.startsWith("gitdir:")) {
        return null;
      }
      Path admin = gitFile.getParent().resolve(line.substring("gitdir:".length()).strip()).normalize();
      if (!admin.startsWith(old.resolve(".git/worktrees").toAbsolutePath().normalize())
          && !admin.startsWith(old.resolve(".git/worktrees").normalize())) {
        return null;
      }
      Path head = admin.resolve("HEAD");
      if (!Files.isRegularFile(head, java.nio.file.LinkOption.NOFOLLOW_LINKS) || Files.size(head) > 200) {
        return null;
      }
      String h = Files.readString(head).strip();
      return h.matches("[0-9a-f]{40}|[0-9a-f]{64}") ? h : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static final Map<Path, Object> MIRROR_LOCKS = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * The lock of one mirror on this worker: the ant's session (fetching the remote, handing its
   * branches) and the merge queue (publishing the ant's branch) use it; git's own config lock
   * would fail one of two at once.
   */
  public static Object lockOf(Path mirror) {
    return MIRROR_LOCKS.computeIfAbsent(mirror.toAbsolutePath().normalize(), k -> new Object());
  }

  /** git in the ant's working tree with the worker's own config off ({@link #WORKER_CONFIG_OFF}). */
  private static void gitOnTheAntsFiles(Path dir, String... args) throws IOException, InterruptedException {
    Result r = run(dir, List.of(args), WORKER_CONFIG_OFF, CLONE_TIMEOUT);
    if (r.exit != 0) {
      throw ApplicationFailure.newNonRetryableFailure(withoutCredentials(
          "git " + String.join(" ", args) + " failed (exit " + r.exit + "): " + r.output.strip()), "GitFailed");
    }
  }

  /**
   * The worker's own repository for an ant's URL repository on this host: a bare repository whose
   * {@code origin} is the URL (with its credentials), holding the remote's branches under
   * {@code refs/remotes/origin/} and the ant's published branch under {@code refs/heads/}. The ant
   * never sees it but its objects (read-only); the merge queue publishes the ant's branch from it.
   */
  public static Path mirror(Path root, String ant) {
    return root.resolve(".publish").resolve(ant + ".git");
  }

  /**
   * Fetches the remote into the mirror (made when missing): whether the mirror has the remote's
   * branches to hand over. A failed fetch is not the session's end when {@code tolerant} (the ant
   * has its repository) or the mirror has them from before (a network blip): the ant works on what
   * this host has.
   */
  private boolean refreshMirror(Path mirror, String url, boolean tolerant) throws IOException, InterruptedException {
    if (!Files.exists(mirror.resolve("HEAD"))) {
      Files.createDirectories(mirror);
      git(mirror, "init", "--quiet", "--bare");
    }
    // The ant's repository borrows these objects (its alternates): none is ever pruned, in a
    // mirror made before this setting too.
    if (!"never".equals(run(mirror, List.of("config", "--get", "gc.pruneExpire")).output.strip())) {
      git(mirror, "config", "gc.pruneExpire", "never");
    }
    Result current = run(mirror, List.of("config", "--get", "remote.origin.url"));
    if (current.exit != 0) {
      git(mirror, "remote", "add", "origin", url);
    } else if (!current.output.strip().equals(url)) {
      git(mirror, "remote", "set-url", "origin", url);
    }
    Result r = run(mirror, List.of("-c", "gc.auto=0", "fetch", "--quiet", "--prune", "--no-tags", "origin",
        "+refs/heads/*:refs/remotes/origin/*"));
    if (r.exit == 0) {
      return true;
    }
    boolean hasRefs = !run(mirror, List.of("for-each-ref", "--count=1", "refs/remotes/origin/")).output.isBlank();
    if (!tolerant && !hasRefs) {
      throw ApplicationFailure.newNonRetryableFailure("git fetch of " + withoutCredentials(url) + " failed (exit "
          + r.exit + "): " + withoutCredentials(r.output.strip()), "GitFailed");
    }
    log.warn("workspace: fetching the remote failed; the ant works on what this host has of it: {}",
        secrets.redact(dev.colony.text.Printable.of(withoutCredentials(r.output.strip()))));
    return hasRefs;
  }

  /** The remote's default branch (what its HEAD names), or null when it cannot tell. */
  private static String defaultBranch(Path mirror) throws IOException, InterruptedException {
    Result r = run(mirror, List.of("ls-remote", "--symref", "origin", "HEAD"));
    if (r.exit == 0) {
      for (String line : r.output.split("\n")) {
        if (line.startsWith("ref: refs/heads/") && line.endsWith("\tHEAD")) {
          return line.substring("ref: refs/heads/".length(), line.length() - "\tHEAD".length());
        }
      }
    }
    for (String guess : List.of("main", "master")) {
      if (revParse(mirror, "refs/remotes/origin/" + guess) != null) {
        return guess;
      }
    }
    return null;
  }

  /**
   * Hands the mirror's copy of the remote's branches to the ant's {@code refs/remotes/origin/}:
   * pushed through {@code git receive-pack} in the ant's walls (its repository, its config: what
   * they name runs as the ant), with the mirror's objects read-only there. A failure is the ant's
   * to see (it broke its own repository): logged, and the session runs.
   */
  private void handOrigin(AntSpec spec, Path mirror, Path dir) throws IOException, InterruptedException {
    String ant = spec.name();
    String receive;
    try {
      receive = antsGit(spec, "receive-pack", dir, List.of(mirror.resolve("objects").toAbsolutePath()));
    } catch (IOException noWalls) {
      log.warn("workspace: {}'s repository did not get the remote's branches: {}", ant, noWalls.getMessage());
      return;
    }
    Result r = run(mirror, List.of("-c", "protocol.file.allow=always", "push", "--quiet", "--force", "--prune",
        "--no-verify", "--receive-pack=" + receive, "file://" + dir.toAbsolutePath(),
        "+refs/remotes/origin/*:refs/remotes/origin/*"), Map.of(), WALLED_TIMEOUT);
    if (r.exit != 0) {
      log.warn("workspace: {}'s repository did not take the remote's branches: {}", ant,
          secrets.redact(dev.colony.text.Printable.of(withoutCredentials(r.output.strip()))));
    }
  }

  /**
   * The command that runs git's {@code program} (upload-pack, receive-pack) in the ant's
   * repository {@code dir}: inside the ant's walls, or plain for an ant with {@code sandbox: off}
   * (it has the worker's powers anyway). Fails when walls are due and this worker cannot make them.
   */
  private static String antsGit(AntSpec spec, String program, Path dir, List<Path> readOnly) throws IOException {
    if (dev.colony.spec.SandboxSpec.of(spec).off()) {
      return "git " + String.join(" ", dev.colony.sandbox.GitWalls.SAFE_CONFIG) + " " + program;
    }
    return program.equals("receive-pack")
        ? dev.colony.sandbox.GitWalls.receivePack(spec.name(), dir.toAbsolutePath(), readOnly)
        : dev.colony.sandbox.GitWalls.uploadPack(spec.name(), dir.toAbsolutePath(), readOnly);
  }

  private static final java.util.regex.Pattern CREDENTIALS =
      java.util.regex.Pattern.compile("(?i)\\b(https?|ftps?)://[^/\\s]*@");

  /**
   * The URL without its credentials ({@code https://user:token@host/x} becomes {@code https://host/x});
   * in any text, each http(s) or ftp(s) URL's (a password may hold an {@code @}). An ssh URL's user
   * ({@code ssh://git@host/x}, {@code git@host:x}) stays: its key is the worker's, not in the URL.
   */
  public static String withoutCredentials(String text) {
    return CREDENTIALS.matcher(text).replaceAll("$1://");
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
    finishMove(dir);
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
      replaceGit(made, dir);
      gitOnTheAntsFiles(dir, "reset", "--quiet");
      if (admin != null) {
        deleteTree(admin);
      }
      git(repo, "worktree", "prune");
    } else {
      placeNew(made, dir, start == null ? null : branch);
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
      throw ApplicationFailure.newNonRetryableFailure(withoutCredentials(
          "git " + String.join(" ", args) + " failed (exit " + r.exit + "): " + r.output.strip()), "GitFailed");
    }
  }

  private record Result(int exit, String output) {}

  private static Result run(Path cwd, List<String> args) throws IOException, InterruptedException {
    return run(cwd, args, Map.of(), CLONE_TIMEOUT);
  }

  /** Clones and fetches of a remote may be big; git on the ant's side is held to less. */
  private static final java.time.Duration CLONE_TIMEOUT = java.time.Duration.ofMinutes(10);
  static java.time.Duration WALLED_TIMEOUT = java.time.Duration.ofMinutes(2);

  /**
   * The worker's git on a working tree the ant wrote (a checkout, a reset of its files): none of
   * the worker's own config (a global git-lfs filter, say, would fetch what the tree's
   * {@code .lfsconfig} names with the worker's credentials), only the repository's, which the worker wrote.
   */
  private static final Map<String, String> WORKER_CONFIG_OFF = Map.of("GIT_CONFIG_NOSYSTEM", "1",
      "GIT_CONFIG_GLOBAL", "/dev/null", "GIT_LFS_SKIP_SMUDGE", "1", "GIT_ATTR_NOSYSTEM", "1");

  private static Result run(Path cwd, List<String> args, Map<String, String> env, java.time.Duration timeout)
      throws IOException, InterruptedException {
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
    ProcessBuilder pb = new ProcessBuilder(Processes.tiedToWorker(cmd)).redirectErrorStream(true);
    pb.environment().put("GIT_TERMINAL_PROMPT", "0");
    pb.environment().putAll(env);
    Processes.Captured c = Processes.capture(pb, timeout, 1 << 20);
    return new Result(c.exit(), c.output());
  }
}
