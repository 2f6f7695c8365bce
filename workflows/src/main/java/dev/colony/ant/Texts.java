package dev.colony.ant;

import dev.colony.text.SafeText;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import java.util.Locale;

/** Small text helpers the ant's parts share: bounds, control characters, failures in words. */
final class Texts {
  private Texts() {}

  /** At most {@code max} characters, an ellipsis marking a cut. */
  static String bounded(String text, int max) {
    return text.length() <= max ? text : SafeText.cut(text, max - 1) + "…";
  }

  static String clip(String text, int max) {
    if (text == null) {
      return "";
    }
    return text.length() <= max ? text : SafeText.cut(text, max) + "…";
  }

  static boolean longer(String s, int max) {
    return s != null && s.length() > max;
  }

  /**
   * Text as it may enter the ant, from any door: controls dropped (line breaks and tabs kept), a
   * lone surrogate replaced by U+FFFD ({@link SafeText#clean}). Null stays null.
   */
  static String clean(String text) {
    return SafeText.clean(text);
  }

  /** What went wrong, in words: an application failure's own message, a timeout named as one. */
  static String failureText(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof ApplicationFailure a) {
        return a.getOriginalMessage();
      }
      if (c instanceof TimeoutFailure to) {
        return "timed out (" + to.getTimeoutType().name().toLowerCase(Locale.ROOT).replace("timeout_type_", "") + ")";
      }
    }
    return rootMessage(t);
  }

  static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    String m = c.getMessage();
    return m == null ? c.getClass().getSimpleName() : m;
  }
}
