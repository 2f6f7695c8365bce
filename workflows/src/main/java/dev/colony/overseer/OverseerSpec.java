package dev.colony.overseer;

import java.util.Locale;

/**
 * An ant's overseer: a model that reads the agent's recent turns every
 * {@code evalInterval} turns and, when it sees the agent spiralling, drifting, stalling or
 * deciding shallowly, whispers to it; if the pattern persists it escalates to humans.
 *
 * @param provider {@code anthropic} (Claude, through the Anthropic Java SDK) or {@code gemini}
 * @param model the model id, e.g. {@code claude-sonnet-4-6}
 * @param thinking {@code off}, {@code low}, {@code medium} or {@code high}: the model's thinking budget
 * @param windowSize how many recent turns an evaluation reads
 * @param evalInterval an evaluation every this many turns
 * @param escalationThreshold the flagged evaluation in a row that escalates (the ones before it whisper)
 * @param stallAfterSeconds this long without a turn (no tool running, no human awaited) is STALLING,
 *     detected without asking the model
 */
public record OverseerSpec(String provider, String model, String thinking, int windowSize, int evalInterval,
    int escalationThreshold, long stallAfterSeconds) {
  public static final String ANTHROPIC = "anthropic";
  public static final String GEMINI = "gemini";
  public static final String DEFAULT_MODEL = "claude-sonnet-4-6";
  public static final String DEFAULT_THINKING = "medium";
  public static final int DEFAULT_WINDOW = 20;
  public static final int DEFAULT_INTERVAL = 5;
  public static final int DEFAULT_THRESHOLD = 3;
  public static final long DEFAULT_STALL_SECONDS = 10 * 60;
  public static final int MAX_WINDOW = 200;
  public static final int MIN_THRESHOLD = 2;
  public static final int MAX_THRESHOLD = 10;

  public static final OverseerSpec DEFAULTS = new OverseerSpec(ANTHROPIC, DEFAULT_MODEL, DEFAULT_THINKING,
      DEFAULT_WINDOW, DEFAULT_INTERVAL, DEFAULT_THRESHOLD, DEFAULT_STALL_SECONDS);

  public OverseerSpec {
    model = model == null || model.isBlank() ? DEFAULT_MODEL : model;
    provider = provider == null || provider.isBlank() ? providerOf(model) : provider.toLowerCase(Locale.ROOT);
    thinking = thinking == null || thinking.isBlank() ? DEFAULT_THINKING : thinking.toLowerCase(Locale.ROOT);
    windowSize = windowSize <= 0 ? DEFAULT_WINDOW : Math.min(windowSize, MAX_WINDOW);
    evalInterval = evalInterval <= 0 ? DEFAULT_INTERVAL : Math.min(evalInterval, windowSize);
    escalationThreshold = escalationThreshold <= 0 ? DEFAULT_THRESHOLD
        : Math.max(MIN_THRESHOLD, Math.min(escalationThreshold, MAX_THRESHOLD));
    stallAfterSeconds = stallAfterSeconds <= 0 ? DEFAULT_STALL_SECONDS : stallAfterSeconds;
  }

  /** {@code gemini-*} models are Gemini's; anything else is Claude's. */
  public static String providerOf(String model) {
    return model != null && model.toLowerCase(Locale.ROOT).startsWith("gemini") ? GEMINI : ANTHROPIC;
  }

  /** Thinking budget in tokens for the level; 0 for {@code off}. */
  public int thinkingTokens() {
    return switch (thinking) {
      case "off" -> 0;
      case "low" -> 1024;
      case "high" -> 16_384;
      default -> 4096;
    };
  }
}
