package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.colony.client.ColonySource.Row;
import dev.colony.visibility.AntCard;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Costs}, the spend per ant per day that the console's costs page, its CSV and the MCP tool
 * colony_costs show: the days end at the latest today among the ants' budget zones, each ant's
 * ledger lands on its days (the days before the window left out), the colony's total per day and
 * over the days, today's and this month's spend as a reader sees them now, and an ant without a card.
 */
@Timeout(30)
class CostsTest {
  /** 2026-11-29 23:30 UTC: already 2026-11-30 in Auckland. */
  static final long NOW = Instant.parse("2026-11-29T23:30:00Z").toEpochMilli();

  static Row row(String name, String zone, String costDay, double today, double month, Double daily,
      List<AntCard.DayCost> ledger) {
    AntCard card = new AntCard(AntCard.VERSION, 1, "waiting", 0, "", null, null, null, 0, false, null, 1, today, month,
        daily, null, zone, null, null, ledger, List.of(), List.of(), List.of(), 0, costDay);
    return new Row(name, "waiting", false, null, 0, 0, 0, null, null, false, null, card, true, 0);
  }

  @Test
  void spendPerAntPerDayEndsAtTheLatestTodayAndCountsTheColony() {
    Row alpha = row("alpha", "UTC", "2026-11-29", 2.0, 5.0, 10.0, List.of(
        new AntCard.DayCost("2026-11-20", 7.0, 3), // before the window
        new AntCard.DayCost("2026-11-28", 1.0, 1),
        new AntCard.DayCost("2026-11-29", 2.0, 2)));
    Row kiwi = row("kiwi", "Pacific/Auckland", "2026-11-30", 0.25, 0.25, null, List.of(
        new AntCard.DayCost("2026-11-30", 0.25, 1)));
    Row bare = new Row("bare", "waiting", false, null, 0, 0, 0, null, null, false, null, null, true, 0);

    Costs c = Costs.of(List.of(alpha, kiwi, bare), 3, NOW);

    assertEquals(List.of("2026-11-28", "2026-11-29", "2026-11-30"), c.days(), "ending with Auckland's today");
    assertEquals(List.of("alpha", "kiwi", "bare"), c.ants().stream().map(Costs.Ant::name).toList());
    Costs.Ant a = c.ants().get(0);
    assertArrayEquals(new double[] {1.0, 2.0, 0}, a.usdPerDay(), 1e-9);
    assertArrayEquals(new int[] {1, 2, 0}, a.sessionsPerDay());
    assertEquals(3.0, a.totalUsd(), 1e-9);
    assertEquals(2.0, a.todayUsd(), 1e-9, "alpha's today is still 2026-11-29 in UTC");
    assertEquals(5.0, a.monthUsd(), 1e-9);
    assertEquals(10.0, a.dailyBudgetUsd());
    Costs.Ant k = c.ants().get(1);
    assertArrayEquals(new double[] {0, 0, 0.25}, k.usdPerDay(), 1e-9);
    assertEquals(0.25, k.todayUsd(), 1e-9);
    assertNull(k.dailyBudgetUsd());
    Costs.Ant b = c.ants().get(2);
    assertEquals(0, b.totalUsd());
    assertArrayEquals(new double[] {0, 0, 0}, b.usdPerDay());
    assertArrayEquals(new double[] {1.0, 2.0, 0.25}, c.totalPerDay(), 1e-9);
    assertEquals(3.25, c.totalUsd(), 1e-9);

    // A card that counted an earlier day: a reader on a later day reads today's spend from the ledger.
    Costs later = Costs.of(List.of(alpha), 1, NOW + 86_400_000L);
    assertEquals(List.of("2026-11-30"), later.days());
    assertEquals(0, later.ants().get(0).todayUsd(), 1e-9, "nothing spent on 2026-11-30");
    assertEquals(10.0, later.ants().get(0).monthUsd(), 1e-9, "November's ledger: 7 + 1 + 2");
  }
}
