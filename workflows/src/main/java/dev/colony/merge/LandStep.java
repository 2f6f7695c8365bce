package dev.colony.merge;

import java.util.List;

/**
 * What a step of a landing ends in ({@link MergeQueueWorkflowImpl#land}): the input of the next
 * step ({@link Read}, {@link Rebased}, {@link Tested}), the target moved under the update
 * ({@link Moved}: rebase again), or the item's outcome, which {@code land} applies in one place
 * ({@link Landed}, {@link Rework}, {@link NeedsHuman}, {@link Closed}, {@link Held},
 * {@link Abandoned}). A step issues its own activities and timers; an outcome's news, task moves
 * and card follow in the same order whichever step ended in it.
 */
sealed interface LandStep {
  /** The ant's branch, published: what lands. */
  record Read(BranchHead branch) implements LandStep {}

  /** Rebased onto the target's head {@code onto}. */
  record Rebased(String onto, RebaseResult rebased) implements LandStep {}

  /** The rebased head passed its tests (or there are none): it may land. */
  record Tested(String onto, RebaseResult rebased, long testMillis) implements LandStep {}

  /** The target moved under the update: it is now {@code head}. */
  record Moved(String head) implements LandStep {}

  /** On the target (or in a pull request, {@code url}). */
  record Landed(BranchHead branch, Tested tested, String url) implements LandStep {}

  /** Back to the ant: a conflict or red tests ({@code why}, the closed category the metrics count). */
  record Rework(dev.colony.ant.AntMetrics.Rework why, String reason, String text, List<String> files)
      implements LandStep {}

  /** A step failed in a way only a human resolves. */
  record NeedsHuman(String reason) implements LandStep {}

  /** Nothing to land ({@code target}: the target's name the step saw, for the ant's news). */
  record Closed(String why, String target) implements LandStep {}

  /** Skipped until {@code until} (0: now), at the back of the line when {@code back}. */
  record Held(String reason, long until, boolean back) implements LandStep {}

  /** The tests outlived this run's history: tested again after continue-as-new. */
  record Abandoned() implements LandStep {}
}
