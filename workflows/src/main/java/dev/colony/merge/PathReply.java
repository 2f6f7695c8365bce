package dev.colony.merge;

import java.util.List;

/**
 * The answer to a {@link PathClaim}: granted, or who holds which of the paths.
 *
 * @param holder the ant whose work overlaps (null when granted)
 * @param overlap the holder's globs that overlap the claim
 */
public record PathReply(boolean granted, String holder, List<String> overlap) {
  public PathReply {
    overlap = overlap == null ? List.of() : List.copyOf(overlap);
  }

  public static PathReply grant() {
    return new PathReply(true, null, List.of());
  }
}
