package dev.colony.cli;

/** Text from the user, made safe to echo in one line. */
final class Problems {
  private Problems() {}

  static String shorten(String text) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < text.length() && sb.length() < 80; i++) {
      char c = text.charAt(i);
      sb.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return sb.length() < text.length() ? sb + "…" : sb.toString();
  }
}
