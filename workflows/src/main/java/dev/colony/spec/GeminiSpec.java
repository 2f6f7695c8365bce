package dev.colony.spec;

/**
 * Options of the {@code gemini} engine.
 *
 * @param inputUsdPerMillion with {@code outputUsdPerMillion}: the model's price ({@code gemini.price}),
 *     US dollars per million tokens, instead of the list price Colony's table holds; null: the table's
 */
public record GeminiSpec(String model, int maxTurns, Double inputUsdPerMillion, Double outputUsdPerMillion) {
  public static final String DEFAULT_MODEL = "gemini-2.5-pro";
  public static final int DEFAULT_MAX_TURNS = 100;
  public static final GeminiSpec DEFAULTS = new GeminiSpec(DEFAULT_MODEL, DEFAULT_MAX_TURNS);

  /** With the table's price for the model. */
  public GeminiSpec(String model, int maxTurns) {
    this(model, maxTurns, null, null);
  }
}
