package dev.colony.budget;

/**
 * An ant's spend in its current budget windows (carried across continue-as-new).
 *
 * @param day the day the daily figure counts, {@code 2026-11-22} in the budget's zone
 * @param month the month the monthly figure counts, {@code 2026-11}
 */
public record Spend(String day, double dayUsd, String month, double monthUsd) {
  public static final Spend NONE = new Spend(null, 0, null, 0);
}
