package dev.colony.merge.impl;

import dev.colony.config.Environment;
import dev.colony.github.impl.PullRequests;
import dev.colony.merge.BranchHead;
import dev.colony.merge.MergeActivities;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.RebaseResult;
import dev.colony.merge.TargetUpdate;
import dev.colony.merge.TestRun;
import dev.colony.secrets.Secrets;
import dev.colony.spec.AntSpec;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import okhttp3.OkHttpClient;

/**
 * The git side of the merge queue, on real git: each activity hands its step to the part that
 * does it, under the scratch's lock where it works in the scratch.
 * <ul>
 *   <li>{@link AntBranches}: PublishBranch (an ant's branch read into the shared repository, or the
 *       worker's mirror of the remote) and SyncBranch (the ant's branch moved after a landing);
 *   <li>{@link RebaseScratch}: PrepareScratch and Rebase, in the queue's scratch (a worktree of a
 *       local repository, a clone of a URL one);
 *   <li>{@link TestRunner}: RunTests, in walls of their own, under a timeout, with the process-tree
 *       kill every child of the worker gets;
 *   <li>{@link TargetRef}: UpdateTarget, one compare-and-swap of the target, local or on origin;
 *   <li>{@link PullRequests}: OpenPullRequest on GitHub, after the landed head is pushed to the
 *       ant's branch on origin.
 * </ul>
 *
 * <p>Infrastructure failures (git missing, a full disk, a network error) throw a retryable
 * failure; bad configuration (no such repository, no target branch, the target checked out in a
 * worktree) a non-retryable {@link ApplicationFailure} with one line. Every text returned (test
 * tails, git's lines, messages) passes {@link Secrets#redact}. Hooks and signing are off ({@link Git}).
 */
public final class MergeActivitiesImpl implements MergeActivities {
  /** Makes an ant's workspace (its worktree) from its resolved spec: {@code WorkspaceActivitiesImpl::prepare}. */
  @FunctionalInterface
  public interface WorkspacePreparer {
    Path prepare(AntSpec spec) throws IOException, InterruptedException;
  }

  private final MergeGit m;
  private final AntBranches branches;
  private final RebaseScratch scratches;
  private final TestRunner tests;
  private final TargetRef target;
  private final PullRequests pullRequests;

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
    this.m = new MergeGit(secrets, rootOverride, environment);
    this.branches = new AntBranches(m, workspaces);
    this.scratches = new RebaseScratch(m);
    this.tests = new TestRunner(m, scratches);
    this.target = new TargetRef(m, scratches);
    this.pullRequests = new PullRequests(http, secrets);
  }

  @Override
  public BranchHead publishBranch(MergeRepo repo, String ant, String branch, String since, String approved) {
    return branches.publish(repo, ant, branch, since, approved);
  }

  @Override
  public String prepareScratch(MergeRepo repo) {
    return scratches.locked(repo, () -> scratches.prepare(repo));
  }

  @Override
  public RebaseResult rebase(MergeRepo repo, BranchHead branch, String onto, String message) {
    return scratches.locked(repo, () -> scratches.rebase(repo, branch, onto, message));
  }

  @Override
  public TestRun runTests(MergeRepo repo, String head) {
    return scratches.locked(repo, () -> tests.run(repo, head));
  }

  @Override
  public TargetUpdate updateTarget(MergeRepo repo, String expected, String head) {
    return scratches.locked(repo, () -> target.update(repo, expected, head));
  }

  @Override
  public String openPullRequest(MergeRepo repo, String ant, String branch, String head, String title, String body) {
    return scratches.locked(repo, () -> {
      if (repo.githubRepo() == null || !repo.githubRepo().contains("/")) {
        throw m.nonRetryable("the merge queue " + repo.name() + " opens pull requests but names no github_repo (owner/name)",
            "BadConfig");
      }
      pushForPullRequest(repo, branch, head);
      return pullRequests.open(m.environment.apply(Path.of(repo.colonyDir())), repo.githubTokenVar(),
          repo.githubRepo(), branch, repo.target(), title, body);
    });
  }

  /** The landed head to the ant's branch on origin, where the pull request is opened from. */
  private void pushForPullRequest(MergeRepo repo, String branch, String head) throws IOException, InterruptedException {
    Path dir;
    if (repo.remote()) {
      dir = scratches.checkout(repo, false);
      scratches.ensureCommit(repo, dir, head);
    } else {
      dir = m.localRepo(m.resolvedRepo(repo));
      if (!m.git.run(dir, "remote", "get-url", "origin").ok()) {
        throw m.nonRetryable("the repository " + dir + " has no origin remote to open a pull request from",
            "BadConfig");
      }
    }
    m.git.check(dir, "push", "--quiet", "--force", "origin", head + ":refs/heads/" + branch);
    if (repo.remote()) {
      scratches.deleteRebasedRef(dir, head);
    }
  }

  @Override
  public String syncBranch(AntSpec spec, String landedFrom, String landedTo) {
    return branches.sync(spec, landedFrom, landedTo);
  }

  /** The queue's scratch on this host. */
  Path scratchDir(MergeRepo repo) {
    return scratches.dir(repo);
  }

}
