package dev.colony.engine;

import java.util.List;
import java.util.Locale;

/**
 * The providers' list prices per model (US dollars per million tokens, input and output; thinking
 * tokens are billed as output), from which Colony estimates what a model's tokens cost where the
 * engine does not say: a Gemini session, a Claude Code session stopped before its {@code result}
 * (cache writes at 1.25 times the input price, cache reads at 0.1 times), the overseer's calls. A
 * model not listed is priced as its family's middle tier (Claude: Sonnet; Gemini: 2.5 Pro), so a
 * new model is counted, not free; an ant's {@code gemini.price} overrides the table for its model.
 */
public final class ModelPrices {
  /** A model's price: US dollars per million input and output tokens. */
  public record Price(double inputPerMillion, double outputPerMillion) {
    /** What {@code inputTokens} read and {@code outputTokens} written cost. */
    public double usd(long inputTokens, long outputTokens) {
      return (Math.max(0, inputTokens) * inputPerMillion + Math.max(0, outputTokens) * outputPerMillion) / 1_000_000;
    }
  }

  private record Entry(String prefix, Price price) {}

  private static Entry e(String prefix, double in, double out) {
    return new Entry(prefix, new Price(in, out));
  }

  /** Longest prefix first where prefixes overlap. */
  private static final List<Entry> TABLE = List.of(
      e("claude-opus-4-0", 15, 75),
      e("claude-opus-4-1", 15, 75),
      e("claude-opus-4-2", 15, 75), // claude-opus-4-20250514
      e("claude-opus-4", 5, 25), // 4.5 and later
      e("claude-3-opus", 15, 75),
      e("claude-haiku-4", 1, 5),
      e("claude-3-5-haiku", 0.80, 4),
      e("claude-3-haiku", 0.25, 1.25),
      e("claude-", 3, 15), // Sonnet, and any Claude model not listed
      e("gemini-2.5-flash-lite", 0.10, 0.40),
      e("gemini-2.5-flash", 0.30, 2.50),
      e("gemini-2.0-flash-lite", 0.075, 0.30),
      e("gemini-2.0-flash", 0.10, 0.40),
      e("gemini-3-flash", 0.50, 3),
      e("gemini-3-pro", 2, 12),
      e("gemini-", 1.25, 10)); // 2.5 Pro, and any Gemini model not listed

  /** Claude's middle tier: the price of a model no row names. */
  private static final Price UNKNOWN = new Price(3, 15);
  private static final Price GEMINI_DEFAULT = TABLE.get(TABLE.size() - 1).price();

  private ModelPrices() {}

  /** The list price of {@code model}; a model no row names costs as Sonnet (or Gemini 2.5 Pro for a {@code gemini} name). */
  public static Price of(String model) {
    String m = model == null ? "" : model.toLowerCase(Locale.ROOT).replaceFirst("^models/", "");
    for (Entry e : TABLE) {
      if (m.startsWith(e.prefix())) {
        return e.price();
      }
    }
    return m.contains("gemini") ? GEMINI_DEFAULT : UNKNOWN;
  }

  /** The cost of {@code inputTokens} and {@code outputTokens} of {@code model} at its list price. */
  public static double costUsd(String model, long inputTokens, long outputTokens) {
    return of(model).usd(inputTokens, outputTokens);
  }

  /**
   * A Claude message's cost from its {@code usage}: plain input, cache writes (1.25 x input), cache
   * reads (0.1 x input), output.
   */
  public static double claudeUsd(String model, long input, long cacheWrite, long cacheRead, long output) {
    Price p = of(model);
    return (Math.max(0, input) * p.inputPerMillion() + Math.max(0, cacheWrite) * p.inputPerMillion() * 1.25
        + Math.max(0, cacheRead) * p.inputPerMillion() * 0.1 + Math.max(0, output) * p.outputPerMillion()) / 1_000_000;
  }
}
