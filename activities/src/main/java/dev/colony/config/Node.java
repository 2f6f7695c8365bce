package dev.colony.config;

import dev.colony.secrets.Interpolation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A typed, error-collecting view of one YAML mapping. Reads never throw: each problem is
 * recorded with the file and the full field path, and the read returns null (or the default).
 */
final class Node {
  private final String file;
  private final String prefix;
  private final Map<?, ?> map;
  private final Function<String, String> env;
  private final List<Problem> problems;
  /** Every variable a read referenced (the values the worker must treat as secrets). */
  private final Set<String> referenced;

  Node(String file, String prefix, Map<?, ?> map, Function<String, String> env, List<Problem> problems,
      Set<String> referenced) {
    this.file = file;
    this.prefix = prefix;
    this.map = map;
    this.env = env;
    this.problems = problems;
    this.referenced = referenced;
  }

  String path(String key) {
    return prefix.isEmpty() ? key : prefix + "." + key;
  }

  void problem(String key, String message) {
    problems.add(new Problem(file, key == null ? prefix : path(key), message));
  }

  boolean isMapping(String key) {
    return map.get(key) instanceof Map;
  }

  boolean isList(String key) {
    return map.get(key) instanceof List;
  }

  boolean has(String key) {
    return map.containsKey(key) && map.get(key) != null;
  }

  /** What {@link ConfigSchema} declares for this mapping: its keys and their bounds. */
  private ConfigSchema.Section section;

  /**
   * Rejects keys the schema's section does not have (see {@link ConfigSchema}); later reads check
   * the bounds the section declares for their keys.
   */
  void allowOnly(ConfigSchema.Section section) {
    this.section = section;
    allowOnly(section.names());
  }

  /** The declaration of {@code key}: where the bounds of a number or duration come from. */
  private ConfigSchema.Key declared(String key) {
    ConfigSchema.Key k = section == null ? null : section.key(key);
    if (k == null) {
      throw new IllegalStateException(path(key) + " is read before its section is declared (allowOnly)");
    }
    return k;
  }

  /** Rejects keys outside {@code allowed}, naming the key and the keys that are allowed here. */
  void allowOnly(String... allowed) {
    Set<String> ok = Set.of(allowed);
    for (Object k : map.keySet()) {
      String key = String.valueOf(k);
      if (!ok.contains(key)) {
        problems.add(new Problem(file, path(key), "unknown key '" + key + "' (allowed here: "
            + String.join(", ", allowed) + ")"));
      }
    }
  }

  /** The value as written, placeholders untouched; null when absent or not a scalar. */
  String raw(String key) {
    Object v = map.get(key);
    if (v == null) {
      return null;
    }
    if (v instanceof Map || v instanceof List) {
      problem(key, "expected a text value, found a " + (v instanceof Map ? "mapping" : "list"));
      return null;
    }
    return String.valueOf(v);
  }

  /**
   * The value with placeholders resolved, for settings that stay on this machine (never sent to
   * Temporal). A placeholder naming an unset variable is reported in the reference's words and
   * makes the read return null.
   */
  String string(String key, boolean required) {
    String raw = rawRequired(key, required);
    return raw == null ? null : resolveChecked(key, raw, required);
  }

  private String rawRequired(String key, boolean required) {
    String raw = raw(key);
    if (raw != null && !noCredentials(key, raw)) {
      return null;
    }
    if (raw == null) {
      if (required && !map.containsKey(key)) {
        problem(key, "required");
      } else if (required && map.get(key) == null) {
        problem(key, "required (it is empty)");
      }
    }
    return raw;
  }

  /**
   * A value that is stored in Temporal as it is (names, schedules, durations, choices): a
   * {@code ${VAR}} is refused here, because every value from the environment is a secret.
   */
  String literal(String key, boolean required) {
    String raw = rawRequired(key, required);
    return raw == null ? null : literalChecked(key, raw, required);
  }

  private String literalChecked(String pathKey, String raw, boolean required) {
    if (raw.contains("${")) {
      String shown = Interpolation.variables(raw).stream().findFirst().map(v -> "${" + v + "}")
          .orElseGet(() -> Interpolation.malformed(raw));
      problem(pathKey, "'" + shown + "' cannot be used here: values from the environment are kept secret, "
          + "and this one would be stored in Temporal as it is; write the value itself");
      return null;
    }
    if (required && raw.isBlank()) {
      problem(pathKey, "required (it is empty)");
      return null;
    }
    return raw;
  }

  /**
   * A value that may reference variables, kept as written: the worker resolves it when it uses it,
   * so the value never enters Temporal. Placeholders are checked (well-formed, variable set).
   */
  String reference(String key, boolean required) {
    String raw = rawRequired(key, required);
    return raw == null || resolveChecked(key, raw, required) == null ? null : raw;
  }

  /** What a reference read by {@link #reference} stands for here (for checks at load only). */
  String resolved(String raw) {
    return raw == null ? null : Interpolation.resolve(raw, env);
  }

  private String resolveChecked(String pathKey, String raw, boolean required) {
    return resolveChecked(pathKey, raw, required, true);
  }

  private String resolveChecked(String pathKey, String raw, boolean required, boolean strictPlaceholders) {
    String bad = strictPlaceholders ? Interpolation.malformed(raw) : null;
    if (bad != null) {
      problem(pathKey, "malformed placeholder '" + bad + "': write ${NAME} (letters, digits and _, "
          + "not starting with a digit)");
      return null;
    }
    boolean missing = false;
    for (String var : Interpolation.variables(raw)) {
      referenced.add(var);
      if (env.apply(var) == null) {
        problem(pathKey, "Missing environment variable: " + var);
        missing = true;
      }
    }
    if (missing) {
      return null;
    }
    String value = Interpolation.resolve(raw, env);
    if (required && value.isBlank()) {
      problem(pathKey, "required (it is empty)");
      return null;
    }
    return value;
  }

  /** Like {@link #string} but keeps placeholders for the worker to resolve (free text). */
  String text(String key, boolean required) {
    // Free text (instructions, descriptions) may quote shell code such as ${HOME:-/tmp}: only
    // well-formed ${NAME} placeholders are checked there.
    String raw = rawRequired(key, required);
    if (raw == null) {
      return null;
    }
    String checked = resolveChecked(key, raw, required, false);
    return checked == null ? null : raw;
  }

  Long durationSeconds(String key) {
    String v = literal(key, false);
    if (v == null) {
      return null;
    }
    try {
      long seconds = Durations.parseSeconds(v);
      ConfigSchema.Key k = declared(key);
      String why = k.bounds().why() == null ? "" : " " + k.bounds().why();
      if (seconds > k.max()) {
        problem(key, "'" + v + "' is too long: at most " + Durations.format(k.max()) + why);
        return null;
      }
      if (seconds < k.min()) {
        problem(key, (k.min() == 1 ? "must be longer than 0s" : "at least " + Durations.format(k.min())) + why);
        return null;
      }
      return seconds;
    } catch (IllegalArgumentException e) {
      problem(key, e.getMessage());
      return null;
    }
  }

  /** {@code true} or {@code false} (YAML's booleans, or those words); {@code fallback} when absent. */
  boolean bool(String key, boolean fallback) {
    String v = literal(key, false);
    if (v == null) {
      return fallback;
    }
    return switch (v.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> {
        problem(key, "invalid value '" + v + "': expected true or false");
        yield fallback;
      }
    };
  }

  /** One of the enum's values, written as the schema lists them: lower case, exactly. */
  <E extends Enum<E>> E enumValue(String key, Class<E> type, E fallback) {
    String v = literal(key, false);
    if (v == null) {
      return fallback;
    }
    for (E e : type.getEnumConstants()) {
      if (e.name().toLowerCase(Locale.ROOT).equals(v)) {
        return e;
      }
    }
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      names.add('"' + e.name().toLowerCase(Locale.ROOT) + '"');
    }
    problem(key, "invalid value '" + v + "': expected one of " + String.join(", ", names));
    return fallback;
  }

  /** A whole number within the bounds the schema declares for {@code key} (a count: at least 1). */
  Integer positiveInt(String key) {
    return wholeNumber(key);
  }

  /** A whole number within the bounds the schema declares for {@code key}. */
  Integer wholeNumber(String key) {
    ConfigSchema.Key k = declared(key);
    String expected = k.min() == 1 ? "a whole number greater than 0" : "a whole number";
    Integer n = positive(key, Integer::valueOf, x -> x >= 1 || k.min() != 1, expected);
    if (n == null || k.min() == 1 && k.bounds().max() == null) {
      return n;
    }
    if (n < k.min() || n > k.max()) {
      String why = k.bounds().why() == null ? "" : " " + k.bounds().why();
      problem(key, (k.bounds().min() != null && k.bounds().max() != null ? "must be between " + k.min() + " and "
          + k.max() : k.bounds().max() != null ? "must be at most " + k.max() : "must be at least " + k.min()) + why);
      return null;
    }
    return n;
  }

  Double positiveNumber(String key) {
    return positive(key, s -> {
      if (!s.matches(ConfigSchema.AMOUNT)) {
        throw new NumberFormatException(s);
      }
      return Double.valueOf(s);
    }, d -> d > 0 && Double.isFinite(d), "a number greater than 0");
  }

  private <T> T positive(String key, Function<String, T> parse, java.util.function.Predicate<T> ok, String expected) {
    String v = literal(key, false);
    if (v == null) {
      return null;
    }
    try {
      T n = parse.apply(v.trim());
      if (ok.test(n)) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    problem(key, "expected " + expected + ", found '" + v + "'");
    return null;
  }

  /** A nested mapping; null when absent. A scalar or list here is reported. */
  Node child(String key) {
    Object v = map.get(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Map<?, ?> m)) {
      problem(key, "expected a mapping of keys, found " + describe(v));
      return null;
    }
    return new Node(file, path(key), m, env, problems, referenced);
  }

  /**
   * A list of text values; a single text value is accepted as a list of one. With
   * {@code references}, items may use {@code ${VAR}} and are kept as written (see
   * {@link #reference}); without, they are literals (see {@link #literal}).
   */
  List<String> stringList(String key, boolean references) {
    Object v = map.get(key);
    if (v == null) {
      return null;
    }
    List<?> items = v instanceof List<?> l ? l : List.of(v);
    if (v instanceof Map) {
      problem(key, "expected a list, found a mapping");
      return null;
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.get(i);
      String itemPath = key + "[" + i + "]";
      if (item == null || item instanceof Map || item instanceof List) {
        problem(itemPath, "expected a text value, found " + describe(item));
        continue;
      }
      String raw = String.valueOf(item);
      if (!noCredentials(itemPath, raw)) {
        continue;
      }
      String ok = references ? resolveChecked(itemPath, raw, false) : literalChecked(itemPath, raw, false);
      if (ok != null) {
        out.add(raw);
      }
    }
    return out;
  }

  /** A list of mappings, each handed to {@code each} with its index. */
  List<Node> mappingList(String key) {
    Object v = map.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> items)) {
      problem(key, "expected a list, found " + describe(v));
      return List.of();
    }
    List<Node> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.get(i);
      if (item instanceof Map<?, ?> m) {
        out.add(new Node(file, path(key) + "[" + i + "]", m, env, problems, referenced));
      } else {
        problems.add(new Problem(file, path(key) + "[" + i + "]",
            "expected a mapping of keys, found " + describe(item)));
      }
    }
    return out;
  }

  /** A mapping of text to text (e.g. environment variables); values keep placeholders. */
  Map<String, String> stringMap(String key) {
    Object v = map.get(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Map<?, ?> m)) {
      problem(key, "expected a mapping of keys, found " + describe(v));
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      String k = String.valueOf(e.getKey());
      Object val = e.getValue();
      if (val instanceof Map || val instanceof List) {
        problem(key + "." + k, "expected a text value, found " + describe(val));
        continue;
      }
      String raw = val == null ? "" : String.valueOf(val);
      if (noCredentials(key + "." + k, raw) && resolveChecked(key + "." + k, raw, false) != null) {
        out.put(k, raw);
      }
    }
    return out;
  }

  /**
   * Checks that {@code raw}, with its references resolved as the worker will, is a regular
   * expression; returns {@code raw} (messages quote it as written, never a secret's value).
   */
  String regex(String pathKey, String raw) {
    try {
      Pattern.compile(resolved(raw));
      return raw;
    } catch (PatternSyntaxException e) {
      problem(pathKey, "invalid regular expression '" + raw + "': " + e.getDescription());
      return null;
    }
  }

  /**
   * A URL's user name and password are secrets wherever they are written (a webhook, an ntfy topic,
   * a repository, a base URL in an engine's env, free text): everything the loader keeps enters
   * the ant's spec and so its workflow's history and the Web UI. Written as {@code ${VAR}}, in
   * the URL or as the whole URL, they are resolved on the worker only. False after reporting one.
   */
  private boolean noCredentials(String pathKey, String raw) {
    String url = literalCredentials(raw);
    if (url == null) {
      return true;
    }
    problem(pathKey, "a URL with a user name or password is a secret: write it as ${VAR} (e.g. "
        + "https://user:${PASSWORD}@host/..., or the whole URL as ${URL}) and set the variable in the environment "
        + "or the colony's .env; found " + url);
    return false;
  }

  /** scheme://userinfo@ ; userinfo holds no '/', '?', '#' or '@' (RFC 3986), and no blank. */
  private static final Pattern USERINFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*)://([^\\s/?#@]*)@(\\S*)");

  /**
   * The first URL in {@code raw} whose user name or password is written literally, with them
   * masked (for a message); null when there is none. A password, or a user name alone in an
   * http(s) URL (a token passed as the user, as GitHub takes it), must be a reference; a user name before a password
   * reference ({@code https://bot:${TOKEN}@...}) and an ssh login ({@code ssh://git@...}) are not
   * secrets.
   */
  static String literalCredentials(String raw) {
    Matcher m = USERINFO.matcher(raw);
    while (m.find()) {
      String scheme = m.group(1).toLowerCase(Locale.ROOT);
      String info = m.group(2);
      int colon = info.indexOf(':');
      boolean literalPassword = colon >= 0 && !Interpolation.withoutPlaceholders(info.substring(colon + 1)).isEmpty();
      // A user name alone is a secret only where a token goes as the user (GitHub over HTTPS);
      // postgres://app@db or ftp://anonymous@host name a login, not a credential.
      boolean literalUserAlone = colon < 0 && (scheme.equals("https") || scheme.equals("http"))
          && !Interpolation.withoutPlaceholders(info).isEmpty();
      if (literalPassword || literalUserAlone) {
        // the host only: the rest could hold another URL with its own password
        return m.group(1) + "://***@" + m.group(3).split("[/?#]", 2)[0];
      }
    }
    return null;
  }

  static String describe(Object v) {
    if (v == null) {
      return "nothing";
    }
    if (v instanceof Map) {
      return "a mapping";
    }
    if (v instanceof List) {
      return "a list";
    }
    return "'" + v + "'";
  }
}
