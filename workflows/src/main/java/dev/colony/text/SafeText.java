package dev.colony.text;

/**
 * Text from outside (a human, another program, an issue, a model) as the ant may keep it, and cuts
 * that cannot break it. Java strings are UTF-16: half of a surrogate pair (half an emoji, from a
 * cut or sent alone as {@code "\ud83d"} through the signal API) is no character at all, and
 * writing it as UTF-8 fails ("Input length = 1"): a prompt file, a chat post, a notice. So every
 * text is cleaned where it enters the workflow, and every cut keeps pairs whole. Deterministic.
 */
public final class SafeText {
  /** What a lone surrogate becomes: U+FFFD, the replacement character. */
  public static final char REPLACEMENT = '\uFFFD';

  private SafeText() {}

  /**
   * Keeps text, line breaks and tabs; drops NULs and the other C0/C1 controls (terminal escapes);
   * replaces each lone surrogate by U+FFFD. Null stays null.
   */
  public static String clean(String text) {
    if (text == null) {
      return null;
    }
    StringBuilder sb = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1));
      if (pair) {
        if (sb != null) {
          sb.append(c).append(text.charAt(i + 1));
        }
        i++;
        continue;
      }
      boolean drop = Character.isISOControl(c) && c != '\n' && c != '\t';
      boolean lone = Character.isSurrogate(c);
      if ((drop || lone) && sb == null) {
        sb = new StringBuilder(text.length()).append(text, 0, i);
      }
      if (sb != null && !drop) {
        sb.append(lone ? REPLACEMENT : c);
      }
    }
    return sb == null ? text : sb.toString();
  }

  /** The first {@code max} characters at most, one fewer when the cut would split a surrogate pair. */
  public static String cut(String text, int max) {
    if (text == null || text.length() <= max) {
      return text;
    }
    int end = Math.max(0, max);
    if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1)) && Character.isLowSurrogate(text.charAt(end))) {
      end--;
    }
    return text.substring(0, end);
  }
}
