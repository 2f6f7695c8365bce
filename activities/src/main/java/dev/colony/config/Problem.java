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
    if (text == null) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    int i = 0;
    for (; i < text.length() && sb.length() < max; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (Character.isISOControl(c) || (Character.getType(c) == Character.FORMAT && c != '\u200d')) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    if (i < text.length()) {
      sb.append("… [").append(text.length() - i).append(" more characters]");
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return (path == null || path.isEmpty() ? "" : path + ": ") + message;
  }
}
