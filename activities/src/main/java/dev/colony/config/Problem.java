package dev.colony.config;

/**
 * One thing wrong with a colony directory: which file, which field, what. Messages quote what the
 * user wrote, so they are made safe to print here, once for all: control characters are escaped
 * (nothing reaches the terminal raw) and a message is cut at {@link #MAX_MESSAGE} characters (a
 * 3 MB value is not echoed whole).
 */
public record Problem(String file, String path, String message) {
  static final int MAX_MESSAGE = 300;

  public Problem {
    file = printable(file, MAX_MESSAGE);
    path = printable(path, MAX_MESSAGE);
    message = printable(message, MAX_MESSAGE);
  }

  /** {@code text} with control characters escaped, cut at {@code max} characters with a marker. */
  public static String printable(String text, int max) {
    return dev.colony.text.Printable.line(text, max);
  }

  @Override
  public String toString() {
    return (path == null || path.isEmpty() ? "" : path + ": ") + message;
  }
}
