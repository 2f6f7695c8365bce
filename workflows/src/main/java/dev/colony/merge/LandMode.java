package dev.colony.merge;

/** How a green item reaches the target branch. */
public enum LandMode {
  /** The ant's commits, rebased onto the target, become the target (a fast-forward). */
  REBASE,
  /** The rebased commits are squashed into one commit on the target. */
  SQUASH,
  /** The rebased branch is pushed and a pull request opened instead of updating the target. */
  PULL_REQUEST;

  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
