package dev.colony.text;

/**
 * Text that came from an agent, a human, GitHub or a chat, made safe to print to a terminal. A
 * terminal obeys control characters: ESC and the C1 CSI start sequences that retitle, clear or
 * recolour it, BEL rings, a lone CR lets a line overwrite what came before, bidi overrides
 * reorder what the reader sees. Each one is shown as a visible escape instead (ESC as the six
 * characters backslash, u, 0, 0, 1, b); line breaks and tabs stay. Every terminal printer of
 * foreign text goes through here.
 */
public final class Printable {
  private Printable() {}

  /** {@code text} with every control escaped; {@code \n} and {@code \t} kept, {@code \r\n} read as {@code \n}. */
  public static String of(String text) {
    if (text == null) {
      return null;
    }
    int first = firstUnsafe(text);
    if (first < 0) {
      return text;
    }
    StringBuilder sb = new StringBuilder(text.length() + 16).append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
        continue; // a Windows line end: the \n that follows ends the line
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        appendPair(sb, c, text.charAt(++i));
        continue;
      }
      if (c == '\n' || c == '\t' || !unsafe(c)) {
        sb.append(c);
      } else {
        sb.append(escaped(c));
      }
    }
    return sb.toString();
  }

  /**
   * One line of at most {@code max} characters (then a marker saying how much was left out):
   * line breaks and tabs are escaped too, for messages that quote what someone wrote.
   */
  public static String line(String text, int max) {
    if (text == null) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    int i = 0;
    for (; i < text.length() && sb.length() < max; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        // an emoji stays whole: never half of it at the cut
        appendPair(sb, c, text.charAt(++i));
        continue;
      }
      switch (c) {
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (unsafe(c)) {
            sb.append(escaped(c));
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

  /**
   * Whether a terminal could act on {@code c} rather than show it: C0 and C1 controls, DEL, and
   * the invisible format characters (bidi embeddings, overrides and isolates, zero-width marks),
   * except the zero-width joiner and non-joiner that emoji and several scripts need.
   */
  public static boolean unsafe(char c) {
    return unsafe((int) c);
  }

  /**
   * {@link #unsafe(char)} for a whole code point, beyond the first plane too: the tag characters
   * (U+E0000 to U+E007F, invisible, which spell ASCII a reader never sees: "ASCII smuggling"),
   * the other invisible format characters there, and the variation selectors U+E0100 to U+E01EF.
   * Flags of regions (England, Scotland) are spelled with tags and lose them.
   */
  public static boolean unsafe(int cp) {
    return Character.isISOControl(cp)
        || Character.getType(cp) == Character.FORMAT && cp != 0x200c && cp != 0x200d
        || cp >= 0xe0000 && cp <= 0xe01ef;
  }

  /** A surrogate pair, whole: as it is, or both halves escaped when its code point is unsafe. */
  private static void appendPair(StringBuilder sb, char high, char low) {
    if (unsafe(Character.toCodePoint(high, low))) {
      sb.append(escaped(high)).append(escaped(low));
    } else {
      sb.append(high).append(low);
    }
  }

  private static int firstUnsafe(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        if (unsafe(Character.toCodePoint(c, text.charAt(i + 1)))) {
          return i;
        }
        i++;
        continue;
      }
      if (unsafe(c) && c != '\n' && c != '\t') {
        return i;
      }
    }
    return -1;
  }

  /** {@code c} as a Java and JSON escape: backslash, r for a carriage return, else u and four hex digits. */
  public static String escaped(char c) {
    return c == '\r' ? "\\r" : String.format("\\u%04x", (int) c);
  }
}
