package dev.colony.overseer.impl;

import dev.colony.engine.ModelPrices;

/**
 * What an overseer's model call costs, from its token usage at the providers' list prices
 * ({@link ModelPrices}; thinking tokens are billed as output). The estimate counts in the ant's
 * spend and budget like a session's cost.
 */
public final class OverseerPrices {
  private OverseerPrices() {}

  /** The cost of one call to {@code model} that read {@code inputTokens} and wrote {@code outputTokens}. */
  public static double costUsd(String model, long inputTokens, long outputTokens) {
    return ModelPrices.costUsd(model, inputTokens, outputTokens);
  }
}
