package dev.colony.merge;

import java.util.List;

/**
 * What a queue tells an ant (its {@code mergeNews} signal): the ant posts it in its channel, and
 * acts: LANDED moves its branch onto the new target before its next session; REWORK becomes a
 * rework session of its own (an urgent message in runs before {@code merge-rework-item});
 * NEEDS_HUMAN waits for a human (inbox, notice); PATHS_FREE wakes an ant waiting for paths another
 * ant held.
 *
 * @param text the line for the ant's channel and, for REWORK, the agent's message (bounded)
 * @param files the conflicting files of a conflict (bounded), else empty
 */
public record MergeNews(Kind kind, String repo, String itemId, String text, Landed landed, List<String> files,
    String target) {
  public enum Kind { LANDED, REWORK, NEEDS_HUMAN, PATHS_FREE, CLOSED }

  public MergeNews {
    files = files == null ? List.of() : List.copyOf(files);
  }
}
