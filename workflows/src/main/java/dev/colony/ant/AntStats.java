package dev.colony.ant;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * Lifetime statistics of an ant, answered by the {@code stats} query.
 *
 * @param costUsd sum of the costs the engine reported; {@code costReported} says whether any did
 * @param spentTodayUsd spend in the current budget day (the colony's time zone)
 * @param spentThisMonthUsd spend in the current budget month
 * @param dailyBudgetUsd the daily cap, null when none
 * @param monthlyBudgetUsd the monthly cap, null when none
 * @param overseerCostUsd what the overseer's model calls cost, estimated from their token
 *     usage; already part of {@code costUsd} and of the budget's spend
 */
public record AntStats(
    String ant,
    long startedAtMillis,
    long uptimeSeconds,
    int sessions,
    Map<String, Integer> sessionsByOutcome,
    long turns,
    double costUsd,
    boolean costReported,
    long inputTokens,
    long outputTokens,
    double spentTodayUsd,
    double spentThisMonthUsd,
    Double dailyBudgetUsd,
    Double monthlyBudgetUsd,
    @JsonProperty("supervisorCostUsd") @JsonAlias("overseerCostUsd") double overseerCostUsd) { // the JSON name clients read

  public AntStats {
    sessionsByOutcome = dev.colony.determinism.SortedCopies.of(sessionsByOutcome);
  }
}
