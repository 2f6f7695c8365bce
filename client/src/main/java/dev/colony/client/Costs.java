package dev.colony.client;

import dev.colony.client.ColonySource.Row;
import dev.colony.visibility.AntCard;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Spend per ant per day, from the ants' cards (their ledgers), the one computation every surface
 * shows: the console's costs page and CSV, the MCP tool {@code colony_costs}. The days end at the
 * latest "today" among the ants' budget zones (a zone ahead of UTC is in tomorrow already).
 *
 * @param days the days, oldest first, ISO ({@code 2026-11-25})
 * @param ants each ant in the order of the rows given
 * @param totalPerDay the colony's spend on each day
 * @param totalUsd the colony's spend over the days
 */
public record Costs(List<String> days, List<Ant> ants, double[] totalPerDay, double totalUsd) {

  /**
   * One ant's spend.
   *
   * @param usdPerDay spend on each of {@link Costs#days}
   * @param sessionsPerDay sessions begun on each of them
   * @param totalUsd spend over the days
   * @param todayUsd spend today in the ant's budget zone, as a reader sees it now
   * @param monthUsd spend this month in that zone
   * @param dailyBudgetUsd its daily cap; null when none (or no card)
   * @param monthlyBudgetUsd its monthly cap; null when none
   */
  public record Ant(String name, double[] usdPerDay, int[] sessionsPerDay, double totalUsd, double todayUsd,
      double monthUsd, Double dailyBudgetUsd, Double monthlyBudgetUsd) {}

  /** The last {@code days} days' spend of {@code rows} at {@code nowMillis}. */
  public static Costs of(List<Row> rows, int days, long nowMillis) {
    List<String> dayList = days(days, lastDay(rows, nowMillis));
    double[] total = new double[days];
    double sum = 0;
    List<Ant> ants = new ArrayList<>(rows.size());
    for (Row r : rows) {
      AntCard c = r.card();
      double[] usd = new double[days];
      int[] sessions = new int[days];
      double antTotal = 0;
      if (c != null) {
        for (AntCard.DayCost d : c.ledger()) {
          int i = dayList.indexOf(d.day());
          if (i >= 0) {
            usd[i] += d.usd();
            sessions[i] += d.sessions();
            total[i] += d.usd();
            antTotal += d.usd();
          }
        }
      }
      sum += antTotal;
      AntCard now = c == null ? null : c.asOf(c.today(nowMillis));
      ants.add(new Ant(r.name(), usd, sessions, antTotal, now == null ? 0 : now.costTodayUsd(),
          now == null ? 0 : now.costMonthUsd(), c == null ? null : c.dailyBudgetUsd(),
          c == null ? null : c.monthlyBudgetUsd()));
    }
    return new Costs(List.copyOf(dayList), List.copyOf(ants), total, sum);
  }

  /** The latest today among the ants' budget zones at {@code nowMillis}, at least UTC's. */
  public static LocalDate lastDay(List<Row> rows, long nowMillis) {
    LocalDate end = java.time.Instant.ofEpochMilli(nowMillis).atZone(ZoneOffset.UTC).toLocalDate();
    for (Row r : rows) {
      if (r.card() != null) {
        LocalDate t = LocalDate.parse(r.card().today(nowMillis));
        end = t.isAfter(end) ? t : end;
      }
    }
    return end;
  }

  /** The {@code days} days ending with {@code last}, oldest first. */
  public static List<String> days(int days, LocalDate last) {
    List<String> out = new ArrayList<>(days);
    for (int i = days - 1; i >= 0; i--) {
      out.add(last.minusDays(i).toString());
    }
    return out;
  }
}
