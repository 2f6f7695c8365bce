package dev.colony.visibility;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A card read on a later day than it counted: today's and this month's figures come from its ledger. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AntCardTest {
  private static AntCard card(String costDay, String zone) {
    List<AntCard.DayCost> ledger = List.of(new AntCard.DayCost("2026-10-31", 9.0, 3),
        new AntCard.DayCost("2026-11-24", 4.8, 6), new AntCard.DayCost("2026-11-25", 1.5, 2));
    return new AntCard(AntCard.VERSION, 7, "waiting", 0, "waiting", null, null, null, 8, false, null, 6, 4.8, 20.3,
        5.0, 50.0, zone, null, null, ledger, List.of(), List.of(), List.of(), 0, costDay);
  }

  @Test
  void theSameDayReadsAsWritten() {
    AntCard c = card("2026-11-24", "UTC");
    assertSame(c, c.asOf("2026-11-24"));
  }

  @Test
  void aLaterDayReadsTodayAndTheMonthFromTheLedger() {
    AntCard later = card("2026-11-24", "UTC").asOf("2026-11-25");
    assertEquals(1.5, later.costTodayUsd(), 1e-9);
    assertEquals(2, later.sessionsToday());
    assertEquals(4.8 + 1.5, later.costMonthUsd(), 1e-9);
    AntCard nextMonth = card("2026-11-25", "UTC").asOf("2026-12-01");
    assertEquals(0, nextMonth.costTodayUsd(), 1e-9);
    assertEquals(0, nextMonth.costMonthUsd(), 1e-9, "last month's spend is not this month's");
  }

  @Test
  void todayIsTheDayInTheBudgetsZone() {
    long lateEveningInNewYork = Instant.parse("2026-11-25T03:30:00Z").toEpochMilli();
    assertEquals("2026-11-24", card(null, "America/New_York").today(lateEveningInNewYork));
    assertEquals("2026-11-25", card(null, "UTC").today(lateEveningInNewYork));
    assertEquals("2026-11-25", card(null, "Not/AZone").today(lateEveningInNewYork), "an unknown zone reads as UTC");
  }
}
