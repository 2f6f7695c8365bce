package dev.colony.supervision;

import java.util.List;
import java.util.Map;

/**
 * A colony supervisor's input: its groups, where it posts, the webhook, and what it carries over
 * continue-as-new (the event log, the breaker's restart times, the failed groups).
 *
 * @param webhook where events are POSTed too; null for none
 */
public record ColonyRun(String colony, List<GroupSpec> groups, String alertsChannel, List<ColonyEvent> events,
    Map<String, List<Long>> restarts, List<String> failedGroups, long seq, Webhook webhook) {

  /** The colony's webhook, by reference: {@code url} may hold {@code ${VAR}}; the secret is a variable name. */
  public record Webhook(String colonyDir, String url, String secretVar) {}

  public ColonyRun {
    groups = groups == null ? List.of() : List.copyOf(groups);
    events = events == null ? List.of() : List.copyOf(events);
    restarts = dev.colony.determinism.SortedCopies.of(restarts);
    failedGroups = failedGroups == null ? List.of() : List.copyOf(failedGroups);
  }

  public static ColonyRun fresh(String colony, List<GroupSpec> groups, String alertsChannel) {
    return fresh(colony, groups, alertsChannel, null);
  }

  public static ColonyRun fresh(String colony, List<GroupSpec> groups, String alertsChannel, Webhook webhook) {
    return new ColonyRun(colony, groups, alertsChannel, List.of(), Map.of(), List.of(), 0, webhook);
  }
}
