package dev.colony.budget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.errorpolicy.ErrorPolicy;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Budget days come from the zone table the spec carries, not from the worker JVM's time-zone
 * data: the table agrees with the zone's rules where it was made, and where a JVM's rules would
 * say otherwise the table (what the history holds) decides.
 */
@Timeout(30)
class BudgetDaysTest {
  /** Zones with daylight saving, one without, one whose clocks jump at midnight. */
  static final List<String> ZONES = List.of("Europe/Paris", "America/New_York", "Australia/Sydney", "Asia/Kolkata",
      "UTC", "America/Havana", "America/Santiago");

  @Test
  void theTableAgreesWithTheZonesRulesHourByHourAndAtEveryMidnight() {
    long from = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();
    long to = Instant.parse("2028-01-01T00:00:00Z").toEpochMilli();
    for (String zone : ZONES) {
      ZoneTable table = ZoneTable.of(zone);
      ZoneId id = ZoneId.of(zone);
      for (long t = from; t < to; t += 3_600_000L) {
        assertEquals(Instant.ofEpochMilli(t).atZone(id).toLocalDate(), table.dayOf(t), zone + " at " + Instant.ofEpochMilli(t));
      }
      for (LocalDate d = LocalDate.of(2025, 1, 1); d.isBefore(LocalDate.of(2028, 1, 1)); d = d.plusDays(1)) {
        assertEquals(d.atStartOfDay(id).toInstant().toEpochMilli(), table.startOf(d), zone + " " + d);
      }
    }
  }

  @Test
  void theSpecsTableDecidesNotTheJvmsRules() {
    // A table that says Paris is at +10:00 (as if the JVM that loaded the config knew other rules):
    ZoneTable tenHoursAhead = new ZoneTable("Europe/Paris", List.of(36_000), List.of());
    ErrorPolicy policy = new ErrorPolicy(0, 0, null, null, 0, 0, 1.0, null, "Europe/Paris", tenHoursAhead);
    long t = Instant.parse("2026-07-01T15:00:00Z").toEpochMilli(); // 17:00 in Paris, 01:00 on July 2nd at +10
    assertEquals(LocalDate.of(2026, 7, 2), BudgetDays.of(policy).dayOf(t));
    BudgetBook book = new BudgetBook(null);
    book.add(1.5, t, BudgetDays.of(policy));
    assertEquals("2026-07-02", book.spend().day());
    BudgetBook.Cap cap = book.reached(policy, t);
    assertNotNull(cap);
    assertEquals(Instant.parse("2026-07-02T14:00:00Z").toEpochMilli(), cap.resetsAtMillis(), "midnight at +10:00");
    // A spec recorded before the table counts with the zone's name, as it did.
    ErrorPolicy old = new ErrorPolicy(0, 0, null, null, 0, 0, 1.0, null, "Europe/Paris");
    assertEquals(LocalDate.of(2026, 7, 1), BudgetDays.of(old).dayOf(t));
  }

  @Test
  void theTableCrossesTemporalAndOldSpecsHaveNone() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ErrorPolicy p = new ErrorPolicy(0, 0, null, null, 0, 0, 1.0, null, "Europe/Paris", ZoneTable.of("Europe/Paris"));
    ErrorPolicy back = json.readValue(json.writeValueAsString(p), ErrorPolicy.class);
    assertEquals(p, back);
    ErrorPolicy recordedBefore = json.readValue("{\"backoffInitialSeconds\":0,\"backoffMaxSeconds\":0,"
        + "\"dailyBudgetUsd\":1.0,\"budgetTimezone\":\"Europe/Paris\"}", ErrorPolicy.class);
    assertNull(recordedBefore.budgetZoneTable());
  }
}
