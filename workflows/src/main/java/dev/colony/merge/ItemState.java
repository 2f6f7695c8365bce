package dev.colony.merge;

/** Where an item of a merge queue is. */
public enum ItemState {
  /** Waiting its turn. */
  QUEUED,
  /** Green but waiting for a human's approval (review: true): its task, or {@code colony merge approve}. */
  AWAITING_REVIEW,
  /** Being landed now (one item at a time per repository): see {@link MergeItem#step}. */
  LANDING,
  /** Out of the queue: a conflict or a red test; the ant was told, its next submission brings it back. */
  REWORK,
  /** Out of the queue after {@code maxTries} reworks (or a failure no rework fixes): a human decides. */
  NEEDS_HUMAN,
  /** On the target (or its pull request opened). Final. */
  LANDED,
  /** Nothing to land (no commits beyond the target), or cancelled by a human. Final. */
  CLOSED;

  public boolean open() {
    return this != LANDED && this != CLOSED;
  }

  /** In the line for landing (the others wait for someone). */
  public boolean waiting() {
    return this == QUEUED;
  }
}
