package dev.colony.overseer;

/**
 * What one evaluation concluded.
 *
 * @param pattern OK or the pattern seen
 * @param whisper what the overseer would tell the agent (empty for OK)
 * @param reason why, in a sentence, for humans (status, the escalation alert)
 * @param costUsd what the model call cost, estimated from its token usage at list prices; it
 *     counts in the ant's spend and budget like a session's cost (0 when unknown; verdicts
 *     recorded before the field read as 0)
 */
public record Verdict(Pattern pattern, String whisper, String reason, double costUsd) {
  public Verdict {
    pattern = pattern == null ? Pattern.OK : pattern;
    whisper = dev.colony.text.SafeText.clean(whisper); // it goes into the agent's prompt
    reason = dev.colony.text.SafeText.clean(reason);
    costUsd = Double.isFinite(costUsd) && costUsd > 0 ? costUsd : 0;
  }

  /** A verdict whose cost is not known (or nothing: the silence watchdog asks no model). */
  public Verdict(Pattern pattern, String whisper, String reason) {
    this(pattern, whisper, reason, 0);
  }

  public static Verdict ok() {
    return new Verdict(Pattern.OK, "", "");
  }

  /** The same verdict with the cost of the call that produced it. */
  public Verdict costing(double usd) {
    return new Verdict(pattern, whisper, reason, usd);
  }
}
