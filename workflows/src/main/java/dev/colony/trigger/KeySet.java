package dev.colony.trigger;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Keys a watcher remembers (issues it made tasks of, ants it told), oldest dropped first once
 * either bound is passed: at most {@code maxKeys} keys and {@code maxChars} characters, so what
 * crosses continue-as-new stays far below Temporal's payload limit however long it runs.
 */
final class KeySet {
  private final LinkedHashSet<String> keys = new LinkedHashSet<>();
  private int maxKeys;
  private long maxChars;
  private long chars;

  KeySet(int maxKeys, long maxChars) {
    this.maxKeys = maxKeys;
    this.maxChars = maxChars;
  }

  /** New bounds (a run decides them once it knows its code version); the oldest go at once. */
  void bound(int maxKeys, long maxChars) {
    this.maxKeys = maxKeys;
    this.maxChars = maxChars;
    trim();
  }

  boolean contains(String key) {
    return keys.contains(key);
  }

  void add(String key) {
    if (keys.add(key)) {
      chars += key.length();
      trim();
    }
  }

  void addAll(List<String> all) {
    all.forEach(this::add);
  }

  void remove(String key) {
    if (keys.remove(key)) {
      chars -= key.length();
    }
  }

  int size() {
    return keys.size();
  }

  List<String> list() {
    return List.copyOf(keys);
  }

  private void trim() {
    Iterator<String> oldest = keys.iterator();
    while ((keys.size() > maxKeys || chars > maxChars) && oldest.hasNext()) {
      chars -= oldest.next().length();
      oldest.remove();
    }
  }
}
