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
    if (Files.exists(dir.resolve(".git"))) {
      configureIdentity(spec, dir);
      return dir;
    }
    Files.createDirectories(root);
    Path repo = Path.of(ws.repo());
    if (ws.repo().contains("://") || ws.repo().startsWith("git@")) {
      repo = root.resolve(".repos").resolve(spec.name());
      if (!Files.exists(repo.resolve(".git"))) {
        Files.createDirectories(repo.getParent());
        git(null, "clone", "--quiet", ws.repo(), repo.toString());
      } else {
        git(repo, "fetch", "--quiet", "origin");
      }
    }
    String branch = ws.branch() != null ? ws.branch() : "colony/" + spec.name();
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
