package dev.colony.overseer.impl;

import dev.colony.overseer.OverseerSpec;
import java.util.List;
import java.util.Locale;

/**
 * What an overseer's model call costs, from its token usage at the providers' list prices
 * (US dollars per million tokens, input and output; thinking tokens are billed as output). The
 * estimate counts in the ant's spend and budget like a session's cost. A model not listed is
 * priced as its family's middle tier (Claude: Sonnet; Gemini: 2.5 Pro), so a new model is
 * counted, not free; the table is the place to add one.
 */
public final class OverseerPrices {
  private record Price(String prefix, double inputPerMillion, double outputPerMillion) {}

  /** Longest prefix first where prefixes overlap. */
  private static final List<Price> PRICES = List.of(
      new Price("claude-opus-4-0", 15, 75),
      new Price("claude-opus-4-1", 15, 75),
      new Price("claude-opus-4-2", 15, 75), // claude-opus-4-20250514
      new Price("claude-opus-4", 5, 25), // 4.5 and later
      new Price("claude-3-opus", 15, 75),
      new Price("claude-haiku-4", 1, 5),
      new Price("claude-3-5-haiku", 0.80, 4),
      new Price("claude-3-haiku", 0.25, 1.25),
      new Price("claude-", 3, 15), // Sonnet, and any Claude model not listed
      new Price("gemini-2.5-flash-lite", 0.10, 0.40),
      new Price("gemini-2.5-flash", 0.30, 2.50),
      new Price("gemini-2.0-flash-lite", 0.075, 0.30),
      new Price("gemini-2.0-flash", 0.10, 0.40),
      new Price("gemini-3-flash", 0.50, 3),
      new Price("gemini-3-pro", 2, 12),
      new Price("gemini-", 1.25, 10)); // 2.5 Pro, and any Gemini model not listed

  private OverseerPrices() {}

  /** The cost of one call to {@code model} that read {@code inputTokens} and wrote {@code outputTokens}. */
  public static double costUsd(String model, long inputTokens, long outputTokens) {
    String m = model == null ? "" : model.toLowerCase(Locale.ROOT);
    Price price = PRICES.stream().filter(p -> m.startsWith(p.prefix())).findFirst()
        .orElse(OverseerSpec.GEMINI.equals(OverseerSpec.providerOf(m)) ? PRICES.get(PRICES.size() - 1)
            : new Price("", 3, 15));
    return (Math.max(0, inputTokens) * price.inputPerMillion() + Math.max(0, outputTokens) * price.outputPerMillion())
        / 1_000_000;
  }
}
