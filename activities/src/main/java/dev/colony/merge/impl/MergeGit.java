package dev.colony.merge.impl;

import dev.colony.merge.MergeRepo;
import dev.colony.secrets.Secrets;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * What every git step of the merge queue shares: the worker's {@link Git}, where a repository is
 * (its references resolved here, on the worker, only), the questions asked of commits, and how a
 * failure is reported (infrastructure retryable, bad input or configuration one line, non-retryable;
 * every text through {@link Secrets#redact}).
 */
final class MergeGit {
  /** How often a long step (a test, a wait for the scratch) heartbeats. */
  static final java.time.Duration HEARTBEAT = java.time.Duration.ofSeconds(2);
  final Secrets secrets;
  final Git git;
  final Path rootOverride;
  final Function<Path, Map<String, String>> environment;

  MergeGit(Secrets secrets, Path rootOverride, Function<Path, Map<String, String>> environment) {
    this.secrets = secrets;
    this.rootOverride = rootOverride;
    this.environment = environment;
    this.git = new Git(secrets);
  }

  @FunctionalInterface
  interface Step<T> {
    T run() throws IOException, InterruptedException;
  }

  /** Runs a step: an I/O failure is a retryable {@code GitUnavailable}, an interrupt the activity's. */
  <T> T call(Step<T> step) {
    try {
      return step.run();
    } catch (IOException e) {
      throw ApplicationFailure.newFailure(secrets.redact(String.valueOf(e.getMessage())), "GitUnavailable");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    }
  }

  /** The repository's location with its references resolved (here, on the worker, only). */
  String resolvedRepo(MergeRepo repo) {
    if (repo.repo().indexOf("${") < 0) {
      return repo.repo();
    }
    Map<String, String> env = environment.apply(Path.of(repo.colonyDir()));
    return secrets.resolve(repo.repo(), env);
  }

  /** This host's workspace root: the override, or the colony's. */
  Path workspaceRoot(MergeRepo repo) {
    return rootOverride != null ? rootOverride : Path.of(repo.colonyDir()).resolve(".colony").resolve("workspaces");
  }

  Path localRepo(String path) throws IOException, InterruptedException {
    Path p = Path.of(path);
    if (!Files.isDirectory(p) || !git.run(p, "rev-parse", "--git-dir").ok()) {
      throw nonRetryable("the repository " + path + " does not exist or is not a git repository", "RepoNotFound");
    }
    return p;
  }

  /** A local repository whose target also goes to its origin remote. */
  boolean pushesToOrigin(MergeRepo repo, Path local) throws IOException, InterruptedException {
    return repo.push() && git.run(local, "remote", "get-url", "origin").ok();
  }

  /** The remote's head of {@code branch} (null: no such branch). */
  String remoteHead(Path dir, String branch) throws IOException, InterruptedException {
    Git.Result r = git.check(dir, "ls-remote", "origin", "refs/heads/" + branch);
    String line = r.line();
    return line.isEmpty() ? null : line.split("\\s+")[0];
  }

  String revParse(Path dir, String rev) throws IOException, InterruptedException {
    return revParse(git, dir, rev);
  }

  static String revParse(Git git, Path dir, String rev) throws IOException, InterruptedException {
    Git.Result r = git.run(dir, "rev-parse", "--verify", "--quiet", rev + "^{commit}");
    return r.ok() ? r.line() : null;
  }

  boolean isAncestor(Path dir, String a, String b) throws IOException, InterruptedException {
    return isAncestor(git, dir, a, b);
  }

  static boolean isAncestor(Git git, Path dir, String a, String b) throws IOException, InterruptedException {
    return git.run(dir, "merge-base", "--is-ancestor", a, b).ok();
  }

  boolean hasCommit(Path dir, String sha) throws IOException, InterruptedException {
    return hasCommit(git, dir, sha);
  }

  static boolean hasCommit(Git git, Path dir, String sha) throws IOException, InterruptedException {
    return sha != null && git.run(dir, "cat-file", "-e", sha + "^{commit}").ok();
  }

  int count(Path dir, String from, String to) throws IOException, InterruptedException {
    return count(git, dir, from, to);
  }

  static int count(Git git, Path dir, String from, String to) throws IOException, InterruptedException {
    return Integer.parseInt(git.check(dir, "rev-list", "--count", from + ".." + to).line());
  }

  ApplicationFailure nonRetryable(String message, String type) {
    return ApplicationFailure.newNonRetryableFailure(secrets.redact(message), type);
  }

  /** Heartbeats the running activity (nothing outside one). */
  static void heartbeat(long seconds) {
    io.temporal.activity.ActivityExecutionContext ctx;
    try {
      ctx = Activity.getExecutionContext();
    } catch (IllegalStateException | NullPointerException notInAnActivity) {
      return;
    }
    ctx.heartbeat(seconds);
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

  static String oneLine(String s) {
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
