package dev.colony.overseer;

/**
 * The overseer's escalation ladder as a pure function. A flagged evaluation is a strike: strikes
 * below the threshold whisper (the second and later ones more firmly), the strike that reaches
 * it escalates to humans. A clean evaluation resets the strikes; a first observation never
 * escalates (the threshold is at least 2).
 */
public final class Ladder {
  private Ladder() {}

  public enum Action { QUIET, WHISPER, ESCALATE }

  /**
   * @param strikes flagged evaluations in a row after this one (0 after OK)
   * @param kind the whisper's kind (null when quiet)
   * @param text the whisper's text, without its {@code [KIND]} tag
   */
  public record Step(Action action, int strikes, String kind, String text) {}

  public static Step next(int strikes, Verdict verdict, int threshold) {
    if (verdict.pattern() == Pattern.OK) {
      return new Step(Action.QUIET, 0, null, null);
    }
    int now = strikes + 1;
    int limit = Math.max(OverseerSpec.MIN_THRESHOLD, threshold);
    String advice = verdict.whisper() == null || verdict.whisper().isBlank()
        ? defaultAdvice(verdict.pattern()) : verdict.whisper().strip();
    if (now >= limit) {
      return new Step(Action.ESCALATE, now, Whisper.ESCALATION, "Still " + describe(verdict.pattern()) + " after "
          + (now - 1) + " notice" + (now - 1 == 1 ? "" : "s") + ". Humans have been alerted and this ant will pause"
          + " after this session. Finish the step you are on, write down where you are and what blocks you, and"
          + " stop.");
    }
    if (now == 1) {
      return new Step(Action.WHISPER, now, verdict.pattern().whisperKind(), advice);
    }
    return new Step(Action.WHISPER, now, verdict.pattern().whisperKind(), "Notice " + now + " of " + (limit - 1)
        + ": you are still " + describe(verdict.pattern()) + ". " + advice
        + " Change your approach now; if you cannot make progress, stop and say what blocks you.");
  }

  static String describe(Pattern p) {
    return switch (p) {
      case SPIRALING -> "retrying the same approach without progress";
      case DRIFT -> "working away from your task";
      case STALLING -> "producing no meaningful output";
      case SHALLOW -> "taking complex decisions without enough reasoning";
      case OK -> "fine";
    };
  }

  static String defaultAdvice(Pattern p) {
    return switch (p) {
      case SPIRALING -> "You have tried this approach several times without progress. Step back and try a different one.";
      case DRIFT -> "This has moved away from your task. Return to what you were asked to do.";
      case STALLING -> "Nothing meaningful has happened for a while. Decide on the next concrete step and take it.";
      case SHALLOW -> "This decision deserves more thought. Think it through before acting.";
      case OK -> "";
    };
  }
}
