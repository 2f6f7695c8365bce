package dev.colony.determinism;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Unmodifiable copies that iterate in key order, for the records and state that workflow code
 * replays. {@code Map.copyOf} and {@code Set.of} iterate in an order salted per JVM: the same
 * history would replay one way on one worker and another way on the next, so a loop over them in
 * workflow code would break every running ant. ({@code ReplayedCollectionsTest} keeps them out.)
 */
public final class SortedCopies {
  private SortedCopies() {}

  /** {@code map} as an unmodifiable map in key order; empty for null. Null keys are refused. */
  public static <K extends Comparable<? super K>, V> SortedMap<K, V> of(Map<K, V> map) {
    return map == null || map.isEmpty() ? Collections.emptySortedMap()
        : Collections.unmodifiableSortedMap(new TreeMap<>(map));
  }
}
