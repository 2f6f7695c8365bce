package dev.colony.merge;

/**
 * What an ant that declares no paths (no {@code workspace.touches}, no task {@code touches:} line)
 * holds in its repository's queue: {@code merge.repos[].undeclared}.
 */
public enum Undeclared {
  /**
   * Nothing before its session (it cannot say what it will change); once it submits, its work holds
   * the files its branch changed against the target, read on its host at submission, until that
   * work lands or is dropped.
   */
  CHANGED,
  /** It claims {@code **} before each session: it never works alongside another ant's unlanded work. */
  EVERYTHING;

  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
