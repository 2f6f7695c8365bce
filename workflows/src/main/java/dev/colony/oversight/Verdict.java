package dev.colony.oversight;

/**
 * What one evaluation concluded.
 *
 * @param pattern OK or the pattern seen
 * @param whisper what the supervisor would tell the agent (empty for OK)
 * @param reason why, in a sentence, for humans (status, the escalation alert)
 */
public record Verdict(Pattern pattern, String whisper, String reason) {
  public Verdict {
    pattern = pattern == null ? Pattern.OK : pattern;
  }

  public static Verdict ok() {
    return new Verdict(Pattern.OK, "", "");
  }
}
