package dev.colony.merge;

import java.util.List;
import java.util.Map;

/**
 * What a queue carries across continue-as-new: its settings and its book.
 *
 * @param items open items, and recent closed ones (for their ids)
 * @param landedUpTo per ant, the original commit of its last landed head: its next item's work
 *     starts after it (so nothing lands twice even before the ant's branch is moved)
 * @param counters per ant, the number of its last item (item ids stay unique)
 * @param claimOrder what is held beyond the claims, and the waiters' order (null in older runs)
 * @param reworkSessions the ants with an open item that run a rework as a session of their own (their
 *     submissions say {@code fix}): their tasks are not requeued when their work is sent back (null in
 *     older runs)
 */
public record MergeQueueState(MergeRepo repo, List<MergeItem> items, List<Landed> landed,
    Map<String, String> landedUpTo, Map<String, Integer> counters, Map<String, PathClaim> claims,
    Map<String, PathClaim> waiting, Map<String, List<String>> hotPaths, long landedCount, ClaimOrder claimOrder,
    List<String> reworkSessions) {
  public MergeQueueState(MergeRepo repo, List<MergeItem> items, List<Landed> landed, Map<String, String> landedUpTo,
      Map<String, Integer> counters, Map<String, PathClaim> claims, Map<String, PathClaim> waiting,
      Map<String, List<String>> hotPaths, long landedCount, ClaimOrder claimOrder) {
    this(repo, items, landed, landedUpTo, counters, claims, waiting, hotPaths, landedCount, claimOrder, null);
  }

  public MergeQueueState(MergeRepo repo, List<MergeItem> items, List<Landed> landed, Map<String, String> landedUpTo,
      Map<String, Integer> counters, Map<String, PathClaim> claims, Map<String, PathClaim> waiting,
      Map<String, List<String>> hotPaths, long landedCount) {
    this(repo, items, landed, landedUpTo, counters, claims, waiting, hotPaths, landedCount, null);
  }

  public static MergeQueueState start(MergeRepo repo) {
    return new MergeQueueState(repo, List.of(), List.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), 0);
  }
}
