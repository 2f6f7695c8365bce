package dev.colony.budget;

import dev.colony.errorpolicy.ErrorPolicy;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;

/**
 * Where an ant's budget days (and months) begin. From the {@link ZoneTable} its spec carries
 * (read from the zone's rules when the config was loaded): replay-safe, whatever time-zone data
 * the worker's JVM has. Specs recorded before the table existed count with the JVM's rules for
 * their zone, as they did. Pure (workflow code).
 */
public final class BudgetDays {
  private final String zone;
  private final ZoneTable table;

  private BudgetDays(String zone, ZoneTable table) {
    this.zone = zone;
    this.table = table;
  }

  /** The days of {@code policy}'s budget zone: its table, else (older specs) the zone by name. */
  public static BudgetDays of(ErrorPolicy policy) {
    return new BudgetDays(policy.budgetZone(), policy.budgetZoneTable());
  }

  /** The days of {@code zone} by its name (UTC when unknown), with the JVM's rules. */
  public static BudgetDays named(String zone) {
    return new BudgetDays(zone == null || zone.isBlank() ? "UTC" : zone, null);
  }

  public String zone() {
    return zone;
  }

  /** The day of {@code millis}. */
  public LocalDate dayOf(long millis) {
    return table != null ? table.dayOf(millis) : Instant.ofEpochMilli(millis).atZone(zoneId()).toLocalDate();
  }

  /** When {@code day} begins. */
  public long startOf(LocalDate day) {
    return table != null ? table.startOf(day) : day.atStartOfDay(zoneId()).toInstant().toEpochMilli();
  }

  private ZoneId zoneId() {
    try {
      return ZoneId.of(zone);
    } catch (RuntimeException e) {
      return ZoneId.of("UTC");
    }
  }
}
