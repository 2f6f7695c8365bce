package dev.colony.budget;

import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntCard.DayCost;
import java.util.List;

/**
 * What an ant's stopped run spent, handed to its next run by {@code colony start}: the cost ledger
 * (the console's cost table) and the budget windows (what the caps count). Read from the stopped
 * run's memo card, which the run writes before it ends.
 *
 * @param ledger spend and sessions per day, oldest first
 * @param spend the budget windows as the card last counted them
 */
public record CarriedSpend(List<DayCost> ledger, Spend spend) {
  public CarriedSpend {
    ledger = ledger == null ? List.of() : List.copyOf(ledger);
    spend = spend == null ? Spend.NONE : spend;
  }

  /** What {@code card} (a closed run's) says was spent; null when there is no card. */
  public static CarriedSpend fromCard(AntCard card) {
    if (card == null) {
      return null;
    }
    String day = card.costDay();
    Spend spend = day == null || day.length() < 7 ? Spend.NONE
        : new Spend(day, card.costTodayUsd(), day.substring(0, 7), card.costMonthUsd());
    return new CarriedSpend(card.ledger(), spend);
  }

  /** Whether there is anything to carry. */
  public boolean nothing() {
    return ledger.isEmpty() && spend.dayUsd() == 0 && spend.monthUsd() == 0;
  }
}
