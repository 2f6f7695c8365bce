package dev.colony.merge;

import dev.colony.spec.AntSpec;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The git steps of landing, each a named activity in the Web UI. The queue's steps work in its
 * scratch worktree ({@link MergeRepo#scratchDir}), rebuilt by every step that needs a clean one,
 * so a step retried after a worker died starts over from the same inputs and gives the same result.
 * {@link #publishBranch} and {@link #syncBranch} run on the ant's host (its worktree is there).
 */
@ActivityInterface
public interface MergeActivities {
  /**
   * On the ant's host: reads the ant's branch (head, the work beyond {@code since} or the target);
   * for a URL repository pushes it to the remote ({@code refs/heads/<branch>}, forced) so the
   * queue can fetch it from anywhere.
   *
   * @param since the original commit of the ant's last landed head, or null
   * @param approved with review: the head a human approved; it is read instead of the branch's head
   *     (commits after it are not landed), and for a URL repository pushed to
   *     {@code refs/colony/approved/<ant>}. Null: the branch's head
   */
  @ActivityMethod(name = "PublishBranch")
  BranchHead publishBranch(MergeRepo repo, String ant, String branch, String since, String approved);

  /**
   * Rebuilds the scratch worktree (or clone) if it is missing or broken, fetches, and returns the
   * target's head. Never touches a worktree of an ant, nor the target's own checkout.
   */
  @ActivityMethod(name = "PrepareScratch")
  String prepareScratch(MergeRepo repo);

  /**
   * In the scratch worktree: replays {@code base..head} onto {@code onto} (squashed into one
   * commit for land: squash, with {@code message}); a conflict aborts and names the files. Never
   * resolves a conflict.
   */
  @ActivityMethod(name = "Rebase")
  RebaseResult rebase(MergeRepo repo, BranchHead branch, String onto, String message);

  /** In the scratch worktree at {@code head}: runs the test command under its timeout; heartbeats. */
  @ActivityMethod(name = "RunTests")
  TestRun runTests(MergeRepo repo, String head);

  /**
   * Compare-and-swap of the target: to {@code head} only if it is still {@code expected}
   * ({@code update-ref} with the old value; {@code push --force-with-lease} to a remote).
   */
  @ActivityMethod(name = "UpdateTarget")
  TargetUpdate updateTarget(MergeRepo repo, String expected, String head);

  /** land: pull_request: pushes {@code head} to the ant's branch on the remote and opens (or finds) its pull request; returns its URL. */
  @ActivityMethod(name = "OpenPullRequest")
  String openPullRequest(MergeRepo repo, String ant, String branch, String head, String title, String body);

  /**
   * On the ant's host, between sessions: moves the ant's branch onto the target after its work
   * {@code landedFrom} landed as {@code landedTo}: a reset when nothing came after it, else its
   * later commits rebased; a conflict or a dirty worktree leaves the branch as it is. Returns one line.
   */
  @ActivityMethod(name = "SyncBranch")
  String syncBranch(AntSpec spec, String landedFrom, String landedTo);
}
