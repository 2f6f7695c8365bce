package dev.colony.chat.impl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The last {@code limit} post keys seen by this worker, oldest forgotten first (thread-safe). */
final class RecentKeys {
  private final Set<String> keys;

  RecentKeys(int limit) {
    keys = Collections.newSetFromMap(Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, false) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
        return size() > limit;
      }
    }));
  }

  boolean contains(String key) {
    return keys.contains(key);
  }

  void add(String key) {
    keys.add(key);
  }
}
