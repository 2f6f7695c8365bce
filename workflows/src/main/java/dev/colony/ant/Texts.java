package dev.colony.ant;

import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import java.util.Locale;

/** Small text helpers the ant's parts share: bounds, control characters, failures in words. */
final class Texts {
  private Texts() {}

  /** At most {@code max} characters, an ellipsis marking a cut. */
  static String bounded(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }

  static String clip(String text, int max) {
    if (text == null) {
      return "";
    }
    return text.length() <= max ? text : text.substring(0, max) + "…";
  }

  static boolean longer(String s, int max) {
    return s != null && s.length() > max;
  }

  /** Keeps text, line breaks and tabs; drops NULs and the other C0/C1 controls (terminal escapes). */
  static String withoutControlCharacters(String text) {
    StringBuilder sb = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isISOControl(c) || c == '\n' || c == '\t') {
        sb.append(c);
      }
    }
    return sb.toString();
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
