package dev.colony.budget;

import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntCard.DayCost;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An ant's spend and sessions per day of its budget's time zone, the last {@link AntCard#LEDGER_DAYS}
 * days (counted back from the newest day it holds), carried across continue-as-new so the
 * console's cost table survives restarts and upgrades. Pure (workflow code): time comes in as
 * millis; days are ISO dates ({@code 2026-11-25}), ordered oldest first.
 */
public final class CostLedger {
  /** Day → entry, sorted by day (ISO dates sort as dates). */
  private final TreeMap<String, DayCost> days = new TreeMap<>();

  public CostLedger(List<DayCost> carried) {
    if (carried != null) {
      for (DayCost d : carried) {
        if (d != null && parse(d.day()) != null) {
          days.merge(d.day(), d, CostLedger::sum);
        }
      }
    }
    trim();
  }

  /** Money spent at {@code nowMillis} (ignored unless positive and finite). */
  public void addCost(double usd, long nowMillis, String zone) {
    addCost(usd, nowMillis, BudgetDays.named(zone));
  }

  /** The same in the days of {@code zone}. */
  public void addCost(double usd, long nowMillis, BudgetDays zone) {
    if (usd > 0 && Double.isFinite(usd)) {
      add(zone.dayOf(nowMillis).toString(), usd, 0);
    }
  }

  /** A session began at {@code nowMillis}. */
  public void addSession(long nowMillis, String zone) {
    addSession(nowMillis, BudgetDays.named(zone));
  }

  /** The same in the days of {@code zone}. */
  public void addSession(long nowMillis, BudgetDays zone) {
    add(zone.dayOf(nowMillis).toString(), 0, 1);
  }

  /** The days, oldest first, at most {@link AntCard#LEDGER_DAYS}. */
  public List<DayCost> days() {
    return List.copyOf(days.values());
  }

  /** The newest day with an entry; null when the ledger is empty. */
  public String lastDay() {
    return days.isEmpty() ? null : days.lastKey();
  }

  /** The entry of {@code day}: zero when the ledger has none. */
  public DayCost on(String day) {
    DayCost d = day == null ? null : days.get(day);
    return d == null ? new DayCost(day, 0, 0) : d;
  }

  /** Spend in the calendar month of {@code day} ({@code 2026-11-25} → November 2026) that the ledger holds. */
  public double monthUsd(String day) {
    if (day == null || day.length() < 7) {
      return 0;
    }
    String month = day.substring(0, 7);
    double usd = 0;
    for (DayCost d : days.values()) {
      if (d.day().startsWith(month)) {
        usd += d.usd();
      }
    }
    return usd;
  }

  /** The ISO day of {@code millis} in {@code zone} (UTC when the zone is unknown). */
  public static String dayOf(long millis, String zone) {
    return Instant.ofEpochMilli(millis).atZone(zoneOf(zone)).toLocalDate().toString();
  }

  private void add(String day, double usd, int sessions) {
    days.merge(day, new DayCost(day, usd, sessions), CostLedger::sum);
    trim();
  }

  /** Keeps the last LEDGER_DAYS days, counted back from the newest. */
  private void trim() {
    if (days.isEmpty()) {
      return;
    }
    LocalDate newest = parse(days.lastKey());
    String oldestKept = newest.minusDays(AntCard.LEDGER_DAYS - 1L).toString();
    days.headMap(oldestKept, false).clear();
  }

  private static DayCost sum(DayCost a, DayCost b) {
    return new DayCost(a.day(), a.usd() + b.usd(), a.sessions() + b.sessions());
  }

  private static LocalDate parse(String day) {
    try {
      return day == null ? null : LocalDate.parse(day);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static ZoneId zoneOf(String zone) {
    try {
      return zone == null || zone.isBlank() ? ZoneId.of("UTC") : ZoneId.of(zone);
    } catch (RuntimeException e) {
      return ZoneId.of("UTC");
    }
  }

  /** For tests and the card: the ledger as a map day → usd. */
  Map<String, Double> usdByDay() {
    Map<String, Double> out = new TreeMap<>();
    days.forEach((k, v) -> out.put(k, v.usd()));
    return out;
  }
}
