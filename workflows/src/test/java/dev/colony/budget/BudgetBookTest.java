package dev.colony.budget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.colony.errorpolicy.ErrorPolicy;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BudgetBookTest {
  private static ErrorPolicy caps(Double daily, Double monthly, String zone) {
    return new ErrorPolicy(0, 0, null, null, 0, 0, daily, monthly, zone);
  }

  private static long at(String iso) {
    return Instant.parse(iso).toEpochMilli();
  }

  @Test
  void theDailyCapIsReachedAndResetsAtTheNextMidnightOfTheColonysZone() {
    ErrorPolicy policy = caps(5.0, null, "Europe/Paris");
    BudgetBook book = new BudgetBook(null);
    book.add(3.0, at("2026-11-22T10:00:00Z"), "Europe/Paris");
    assertNull(book.reached(policy, at("2026-11-22T10:00:00Z")));
    book.add(2.5, at("2026-11-22T15:00:00Z"), "Europe/Paris");
    BudgetBook.Cap cap = book.reached(policy, at("2026-11-22T15:00:00Z"));
    assertNotNull(cap);
    assertEquals("daily", cap.window());
    assertEquals(5.5, cap.spentUsd(), 1e-9);
    assertEquals(at("2026-11-22T23:00:00Z"), cap.resetsAtMillis(), "midnight in Paris is 23:00 UTC in November");
    assertEquals("daily budget $5.00 reached ($5.50 spent)", cap.describe());
    assertNull(book.reached(policy, at("2026-11-22T23:00:00Z")), "a new day starts at zero");
  }

  @Test
  void theMonthlyCapOutlivesTheDayAndResetsOnTheFirst() {
    ErrorPolicy policy = caps(100.0, 10.0, null);
    BudgetBook book = new BudgetBook(null);
    book.add(6, at("2026-11-20T12:00:00Z"), "UTC");
    book.add(6, at("2026-11-29T12:00:00Z"), "UTC");
    BudgetBook.Cap cap = book.reached(policy, at("2026-11-29T12:00:00Z"));
    assertEquals("monthly", cap.window());
    assertEquals(at("2026-12-01T00:00:00Z"), cap.resetsAtMillis());
    assertNotNull(book.reached(policy, at("2026-11-30T23:59:59Z")), "still November");
    assertNull(book.reached(policy, at("2026-12-01T00:00:00Z")));
  }

  @Test
  void spendSurvivesBeingCarriedOverAndIgnoresNonsenseCosts() {
    BudgetBook book = new BudgetBook(null);
    book.add(1.25, at("2026-11-22T10:00:00Z"), "UTC");
    book.add(Double.NaN, at("2026-11-22T10:00:00Z"), "UTC");
    book.add(-4, at("2026-11-22T10:00:00Z"), "UTC");
    BudgetBook carried = new BudgetBook(book.spend());
    assertEquals(1.25, carried.rolled(at("2026-11-22T11:00:00Z"), "UTC").dayUsd(), 1e-9);
    assertEquals("today $1.25 of $2.00 · this month $1.25 (UTC)",
        carried.summary(caps(2.0, null, null), at("2026-11-22T11:00:00Z")));
    assertEquals(1.25, carried.spend().dayUsd(), 1e-9, "a summary (a query) changes nothing");
  }
}
