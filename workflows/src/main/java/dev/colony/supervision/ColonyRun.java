package dev.colony.supervision;

import java.util.List;
import java.util.Map;

/**
 * A colony supervisor's input: its groups, where it posts, and what it carries over
 * continue-as-new (the event log, the breaker's restart times, the failed groups).
 */
public record ColonyRun(String colony, List<GroupSpec> groups, String alertsChannel, List<ColonyEvent> events,
    Map<String, List<Long>> restarts, List<String> failedGroups, long seq) {
  public ColonyRun {
    groups = groups == null ? List.of() : List.copyOf(groups);
    events = events == null ? List.of() : List.copyOf(events);
    restarts = restarts == null ? Map.of() : Map.copyOf(restarts);
    failedGroups = failedGroups == null ? List.of() : List.copyOf(failedGroups);
  }

  public static ColonyRun fresh(String colony, List<GroupSpec> groups, String alertsChannel) {
    return new ColonyRun(colony, groups, alertsChannel, List.of(), Map.of(), List.of(), 0);
  }
}
