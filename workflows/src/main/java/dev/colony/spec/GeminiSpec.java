package dev.colony.spec;

/** Options of the {@code gemini} engine. */
public record GeminiSpec(String model, int maxTurns) {
  public static final String DEFAULT_MODEL = "gemini-2.5-pro";
  public static final int DEFAULT_MAX_TURNS = 100;
  public static final GeminiSpec DEFAULTS = new GeminiSpec(DEFAULT_MODEL, DEFAULT_MAX_TURNS);
}
