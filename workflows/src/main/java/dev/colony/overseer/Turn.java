package dev.colony.overseer;

/**
 * One agent turn as its engine reports it: a tool call with a bounded summary of its input and
 * result, or something the agent said.
 *
 * @param kind {@code tool} or {@code text}
 * @param name the tool's name (null for text)
 * @param input what the tool was given, summarised (or the text said)
 * @param result what the tool returned, summarised
 * @param error whether the tool failed
 */
public record Turn(String kind, String name, String input, String result, boolean error) {
  public static final String TOOL = "tool";
  public static final String TEXT = "text";
  public static final int MAX_NAME = 80;
  public static final int MAX_INPUT = 400;
  public static final int MAX_RESULT = 600;

  public static Turn tool(String name, String input, String result, boolean error) {
    return new Turn(TOOL, name, input, result, error).bounded();
  }

  public static Turn text(String text) {
    return new Turn(TEXT, null, text, null, false).bounded();
  }

  /** The turn with every field cut to its bound and stripped of control characters. */
  public Turn bounded() {
    return new Turn(TEXT.equals(kind) ? TEXT : TOOL, clip(name, MAX_NAME), clip(input, MAX_INPUT),
        clip(result, MAX_RESULT), error);
  }

  /** One line for the evaluation prompt. */
  public String describe() {
    if (TEXT.equals(kind)) {
      return "said: " + (input == null ? "" : input);
    }
    return (error ? "tool FAILED " : "tool ") + (name == null ? "?" : name)
        + (input == null || input.isEmpty() ? "" : " " + input)
        + (result == null || result.isEmpty() ? "" : " -> " + result);
  }

  static String clip(String raw, int max) {
    if (raw == null) {
      return null;
    }
    String s = dev.colony.text.SafeText.clean(raw);
    StringBuilder sb = new StringBuilder(Math.min(s.length(), max + 16));
    for (int i = 0; i < s.length() && sb.length() <= max; i++) {
      char c = s.charAt(i);
      if (c == '\n' || c == '\t' || c == '\r') {
        sb.append(' ');
      } else if (!Character.isISOControl(c)) {
        sb.append(c);
      }
    }
    String out = sb.toString().strip();
    return out.length() > max ? dev.colony.text.SafeText.cut(out, max) + "…" : out;
  }
}
