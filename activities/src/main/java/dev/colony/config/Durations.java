package dev.colony.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Config durations: a whole number and one unit, {@code s}, {@code m} or {@code h}. */
public final class Durations {
  private static final Pattern FORM = Pattern.compile("(\\d{1,9})([smh])");
  public static final String ACCEPTED = "use a whole number followed by s, m or h (e.g. 30s, 5m, 1h)";

  private Durations() {}

  /** Seconds in {@code text}; IllegalArgumentException naming the accepted forms otherwise. */
  public static long parseSeconds(String text) {
    Matcher m = FORM.matcher(text == null ? "" : text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("invalid duration '" + text + "': " + ACCEPTED);
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "s" -> n;
      case "m" -> n * 60;
      default -> n * 3600;
    };
  }

  /** Shortest exact form, the inverse of {@link #parseSeconds}. */
  public static String format(long seconds) {
    if (seconds > 0 && seconds % 3600 == 0) {
      return seconds / 3600 + "h";
    }
    if (seconds > 0 && seconds % 60 == 0) {
      return seconds / 60 + "m";
    }
    return seconds + "s";
  }
}
