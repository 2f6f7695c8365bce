package dev.colony.supervision;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Supervision's circuit breaker per group: a restart is allowed while the group restarted at most
 * {@code maxRestarts - 1} times within the window before it. Pure (workflow code): time in millis.
 */
public final class RestartBreaker {
  private final TreeMap<String, List<Long>> restarts = new TreeMap<>();

  public RestartBreaker(Map<String, List<Long>> carried) {
    carried.forEach((g, times) -> restarts.put(g, new ArrayList<>(times)));
  }

  /** Records a restart of {@code group} at {@code now} and returns true, or returns false: the breaker trips. */
  public boolean allow(GroupSpec group, long now) {
    List<Long> times = restarts.computeIfAbsent(group.name(), g -> new ArrayList<>());
    times.removeIf(t -> t <= now - group.windowSeconds() * 1000);
    if (times.size() >= group.maxRestarts()) {
      return false;
    }
    times.add(now);
    return true;
  }

  /** How many restarts of {@code group} count at {@code now}. */
  public int recent(GroupSpec group, long now) {
    return (int) restarts.getOrDefault(group.name(), List.of()).stream()
        .filter(t -> t > now - group.windowSeconds() * 1000).count();
  }

  public void reset(String group) {
    restarts.remove(group);
  }

  public Map<String, List<Long>> state() {
    Map<String, List<Long>> out = new TreeMap<>();
    restarts.forEach((g, t) -> out.put(g, List.copyOf(t)));
    return out;
  }
}
