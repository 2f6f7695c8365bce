package dev.colony.merge;

import java.util.List;
import java.util.Map;

/**
 * A queue as the console and {@code colony merge status} draw it: the queue's memo {@code queue}
 * (readable without a worker), rewritten at each change.
 *
 * @param items the open items, in the order they will land (the landing one first)
 * @param landed the last {@value #MAX_LANDED} landings, newest first
 * @param claims the granted path claims: ant → its globs
 * @param waiting the ants waiting for paths: ant → "holder: glob, glob"
 * @param hotPaths where ants collide: a directory of landed changes → the ants that changed it
 *     (only directories two or more ants changed; at most {@value #MAX_HOT_PATHS})
 * @param landedCount landings since the queue began (across continue-as-new)
 * @param undeclared the ants of this repository the queue knows to declare no paths (from their
 *     submissions and claims), so not scheduled by paths before their sessions; sorted
 */
public record MergeCard(String colony, String repo, String target, LandMode land, boolean review, String targetHead,
    List<MergeItem> items, List<Landed> landed, Map<String, List<String>> claims, Map<String, String> waiting,
    Map<String, List<String>> hotPaths, long landedCount, long updatedAt, List<String> undeclared) {
  public static final int MAX_LANDED = 50;
  public static final int MAX_HOT_PATHS = 50;
  /** The memo key. */
  public static final String MEMO = "queue";

  public MergeCard {
    items = items == null ? List.of() : List.copyOf(items);
    landed = landed == null ? List.of() : List.copyOf(landed);
    claims = claims == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(claims));
    waiting = waiting == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(waiting));
    hotPaths = hotPaths == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(hotPaths));
    undeclared = undeclared == null ? List.of() : List.copyOf(new java.util.TreeSet<>(undeclared));
  }

  public MergeCard(String colony, String repo, String target, LandMode land, boolean review, String targetHead,
      List<MergeItem> items, List<Landed> landed, Map<String, List<String>> claims, Map<String, String> waiting,
      Map<String, List<String>> hotPaths, long landedCount, long updatedAt) {
    this(colony, repo, target, land, review, targetHead, items, landed, claims, waiting, hotPaths, landedCount,
        updatedAt, null);
  }
}
