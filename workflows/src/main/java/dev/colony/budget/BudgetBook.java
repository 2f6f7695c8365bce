package dev.colony.budget;

import dev.colony.errorpolicy.ErrorPolicy;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.Locale;

/**
 * Keeps an ant's spend per day and per calendar month of the colony's time zone, and says when a
 * cap is reached and when its window rolls over. Pure (workflow code): time comes in as millis, and
 * days begin where {@link BudgetDays} says (the zone table the spec carries).
 */
public final class BudgetBook {
  private Spend spend;

  public BudgetBook(Spend spend) {
    this.spend = spend == null ? Spend.NONE : spend;
  }

  /** A reached cap: which one, the spend against it, and when its window starts anew. */
  public record Cap(String window, double spentUsd, double capUsd, long resetsAtMillis) {
    public String describe() {
      return String.format(Locale.ROOT, "%s budget $%.2f reached ($%.2f spent)", window, capUsd, spentUsd);
    }
  }

  /** Adds a session's reported cost at {@code nowMillis}. */
  public void add(double usd, long nowMillis, String zone) {
    add(usd, nowMillis, BudgetDays.named(zone));
  }

  /** Adds a session's reported cost at {@code nowMillis}, in the windows of {@code zone}. */
  public void add(double usd, long nowMillis, BudgetDays zone) {
    roll(nowMillis, zone);
    if (usd > 0 && Double.isFinite(usd)) {
      spend = new Spend(spend.day(), spend.dayUsd() + usd, spend.month(), spend.monthUsd() + usd);
    }
  }

  /** Starts new windows when the day or the month changed since the last session. */
  public void roll(long nowMillis, BudgetDays zone) {
    spend = rolled(nowMillis, zone);
  }

  /** The spend as it reads at {@code nowMillis} (windows that ended count zero); changes nothing. */
  public Spend rolled(long nowMillis, String zone) {
    return rolled(nowMillis, BudgetDays.named(zone));
  }

  /** The same in the days of {@code zone}. */
  public Spend rolled(long nowMillis, BudgetDays zone) {
    LocalDate today = zone.dayOf(nowMillis);
    String day = today.toString();
    String month = YearMonth.from(today).toString();
    double dayUsd = day.equals(spend.day()) ? spend.dayUsd() : 0;
    double monthUsd = month.equals(spend.month()) ? spend.monthUsd() : 0;
    return new Spend(day, dayUsd, month, monthUsd);
  }

  /** The first cap of {@code policy} reached at {@code nowMillis}, the monthly one first; null when none. */
  public Cap reached(ErrorPolicy policy, long nowMillis) {
    BudgetDays zone = BudgetDays.of(policy);
    roll(nowMillis, zone);
    LocalDate today = zone.dayOf(nowMillis);
    if (policy.monthlyBudgetUsd() != null && spend.monthUsd() >= policy.monthlyBudgetUsd()) {
      LocalDate first = YearMonth.from(today).plusMonths(1).atDay(1);
      return new Cap("monthly", spend.monthUsd(), policy.monthlyBudgetUsd(), zone.startOf(first));
    }
    if (policy.dailyBudgetUsd() != null && spend.dayUsd() >= policy.dailyBudgetUsd()) {
      return new Cap("daily", spend.dayUsd(), policy.dailyBudgetUsd(), zone.startOf(today.plusDays(1)));
    }
    return null;
  }

  /** Spend against caps in one line, for status: {@code today $1.20 of $5.00 · November $3.40 of $50.00}. */
  public String summary(ErrorPolicy policy, long nowMillis) {
    Spend spend = rolled(nowMillis, BudgetDays.of(policy));
    String day = String.format(Locale.ROOT, "today $%.2f", spend.dayUsd())
        + (policy.dailyBudgetUsd() == null ? "" : String.format(Locale.ROOT, " of $%.2f", policy.dailyBudgetUsd()));
    String month = String.format(Locale.ROOT, "this month $%.2f", spend.monthUsd())
        + (policy.monthlyBudgetUsd() == null ? "" : String.format(Locale.ROOT, " of $%.2f", policy.monthlyBudgetUsd()));
    return day + " · " + month + " (" + policy.budgetZone() + ")";
  }

  public Spend spend() {
    return spend;
  }

}
