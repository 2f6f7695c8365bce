package dev.colony.secrets;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code ${VAR}} placeholders in config strings. */
public final class Interpolation {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

  private Interpolation() {}

  /** Names referenced by {@code text}, in order of appearance. */
  public static Set<String> variables(String text) {
    Set<String> names = new LinkedHashSet<>();
    if (text != null) {
      Matcher m = PLACEHOLDER.matcher(text);
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /** The first {@code ${} that does not open a well-formed placeholder ({@code ${}}, {@code ${A}, {@code ${1X}}), or null. */
  public static String malformed(String text) {
    if (text == null) {
      return null;
    }
    int at = text.indexOf("${");
    while (at >= 0) {
      Matcher m = PLACEHOLDER.matcher(text);
      if (!m.find(at) || m.start() != at) {
        int end = text.indexOf('}', at);
        return end < 0 || end - at > 40 ? text.substring(at, Math.min(text.length(), at + 12)) : text.substring(at, end + 1);
      }
      at = text.indexOf("${", m.end());
    }
    return null;
  }

  /** {@code text} with every well-formed placeholder taken out: what is written literally. */
  public static String withoutPlaceholders(String text) {
    return text == null ? null : PLACEHOLDER.matcher(text).replaceAll("");
  }

  /** True when the whole value is exactly one placeholder, as a secret must be written. */
  public static boolean isSingleReference(String text) {
    return text != null && PLACEHOLDER.matcher(text.trim()).matches();
  }

  /** Replaces every placeholder; a name {@code lookup} does not know stays as written. */
  public static String resolve(String text, Function<String, String> lookup) {
    if (text == null || text.indexOf("${") < 0) {
      return text;
    }
    Matcher m = PLACEHOLDER.matcher(text);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      String value = lookup.apply(m.group(1));
      m.appendReplacement(sb, Matcher.quoteReplacement(value == null ? m.group() : value));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  public static String resolve(String text, Map<String, String> env) {
    return resolve(text, env::get);
  }
}
