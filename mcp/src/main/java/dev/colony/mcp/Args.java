package dev.colony.mcp;

import dev.colony.client.Verbs;
import dev.colony.text.Printable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A tool call's arguments, read with the bounds its {@link Schema} states: a missing, unknown,
 * mistyped or out-of-bounds argument is {@link Refused} with one sentence naming it (the tool's
 * error result), whatever the client checked before sending.
 */
final class Args {
  static final Pattern ANT = Pattern.compile(Verbs.ANT_NAME);

  private final String tool;
  private final Map<String, Object> values;

  Args(String tool, Map<String, Object> values, List<String> known) {
    this.tool = tool;
    this.values = values == null ? Map.of() : values;
    for (String k : this.values.keySet()) {
      if (!known.contains(k)) {
        throw new Refused(tool + " takes no argument '" + Printable.line(k, 40) + "'"
            + (known.isEmpty() ? " (it takes none)" : " (it takes " + String.join(", ", known) + ")"));
      }
    }
  }

  /** One sentence saying why a call was not made; the tool's error result. */
  static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message, null, false, false);
    }
  }

  boolean has(String name) {
    return values.get(name) != null;
  }

  /** A text argument, stripped; null when absent (refused when required); refused when longer than {@code max}. */
  String text(String name, int max, boolean required) {
    Object v = values.get(name);
    if (v == null) {
      if (required) {
        throw new Refused(tool + " needs '" + name + "'");
      }
      return null;
    }
    if (!(v instanceof String s)) {
      throw new Refused("'" + name + "' must be text, not " + kind(v));
    }
    if (s.length() > max) {
      throw new Refused(String.format("'%s' is %,d characters; %s takes at most %,d", name, s.length(), tool, max));
    }
    String t = s.strip();
    if (required && t.isEmpty()) {
      throw new Refused("'" + name + "' is empty");
    }
    return t;
  }

  /** A name matching {@code pattern} ({@code what} says what it is, for the refusal). */
  String name(String name, Pattern pattern, String what, boolean required) {
    String s = text(name, 200, required);
    if (s == null || !required && s.isEmpty()) {
      return null;
    }
    if (!pattern.matcher(s).matches()) {
      throw new Refused("'" + name + "' is not " + what + ": '" + Printable.line(s, 64) + "'");
    }
    return s;
  }

  /** The {@code ant} argument: an ant's name. */
  String ant() {
    return name("ant", ANT, "an ant's name (letters, digits, '.', '_', '-'; 63 at most)", true);
  }

  Integer integer(String name, int min, int max, Integer dflt) {
    Object v = values.get(name);
    if (v == null) {
      return dflt;
    }
    long n;
    if (v instanceof Integer || v instanceof Long || v instanceof Short) {
      n = ((Number) v).longValue();
    } else if (v instanceof Double d && d == Math.rint(d) && !d.isInfinite()) {
      n = d.longValue();
    } else {
      throw new Refused("'" + name + "' must be a whole number, not " + kind(v));
    }
    if (n < min || n > max) {
      throw new Refused("'" + name + "' must be from " + min + " to " + max + ", not " + n);
    }
    return (int) n;
  }

  Boolean bool(String name) {
    Object v = values.get(name);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Boolean b)) {
      throw new Refused("'" + name + "' must be true or false, not " + kind(v));
    }
    return b;
  }

  /** One of {@code choices}; {@code dflt} when absent. */
  String oneOf(String name, List<String> choices, String dflt) {
    String s = text(name, 100, false);
    if (s == null || s.isEmpty()) {
      if (dflt == null) {
        throw new Refused(tool + " needs '" + name + "' (" + String.join(", ", choices) + ")");
      }
      return dflt;
    }
    if (!choices.contains(s)) {
      throw new Refused("'" + name + "' is one of " + String.join(", ", choices) + ", not '" + Printable.line(s, 40) + "'");
    }
    return s;
  }

  /** A list of texts, at most {@code maxItems}; empty when absent. */
  List<String> texts(String name, int maxItems, int maxLength) {
    Object v = values.get(name);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> list)) {
      throw new Refused("'" + name + "' must be a list of texts, not " + kind(v));
    }
    if (list.size() > maxItems) {
      throw new Refused("'" + name + "' holds " + list.size() + " items; at most " + maxItems);
    }
    List<String> out = new ArrayList<>();
    for (Object o : list) {
      if (!(o instanceof String s) || s.length() > maxLength) {
        throw new Refused("'" + name + "' must hold texts of at most " + maxLength + " characters");
      }
      out.add(s.strip());
    }
    return out;
  }

  private static String kind(Object v) {
    return switch (v) {
      case String s -> "text";
      case Boolean b -> "true/false";
      case Number n -> "a number";
      case List<?> l -> "a list";
      case Map<?, ?> m -> "an object";
      default -> "a " + v.getClass().getSimpleName();
    };
  }
}
