package dev.colony.secrets;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The secret values a process knows, and the one redactor everything leaving a worker passes
 * through (activity results and failures, chat posts, log and console lines, query answers).
 *
 * <p>Every value that came from a {@code ${VAR}} is a secret: it is registered when the config
 * is loaded and again whenever a worker resolves a reference, and replaced by {@code ${VAR}}
 * wherever it appears afterwards. Variables of the process environment whose names look secret
 * ({@code *KEY*}, {@code *TOKEN*}, ...) are registered too, because agents inherit them.
 *
 * <p>Masking must never change what a worker executes. A short value can coincide with part of
 * a path (a process id inside a temporary folder's name, a project name in a directory), and the
 * ant's spec, its workspace and its command travel through history as text. So the places the
 * colony itself names, its directory and its workspace root, are registered as public text: a
 * secret's occurrence that lies inside an occurrence of public text is left as it is (the text is
 * public anyway, it names where the colony lives), every other occurrence is masked.
 */
public final class Secrets {
  /** Values shorter than this cannot be told apart from ordinary text: they are not masked. */
  public static final int MIN_LENGTH = 4;
  /** Unreferenced variables are masked only when their name looks secret and the value is this long. */
  private static final int MIN_LENGTH_BY_NAME = 8;
  private static final Pattern SECRET_NAME =
      Pattern.compile("(?i).*(key|token|secret|passw|credential|auth|headers).*");
  private static final Secrets PROCESS = new Secrets();

  /** value (and its URL-encoded form) -> variable name */
  private final Map<String, String> names = new ConcurrentHashMap<>();
  /** Longest first, so a value containing another is replaced whole. */
  private volatile List<Map.Entry<String, String>> ordered = List.of();
  /** Text known not to be secret (the colony's own paths); secrets inside it are kept. */
  private volatile List<String> publicText = List.of();

  /**
   * The registry of the caller: this process's (the worker's, a command's), or in the resident
   * process the registry of the command running on this thread ({@link Invocation}).
   */
  public static Secrets process() {
    return Invocation.secrets();
  }

  /** The registry of this process itself, whoever runs on this thread. */
  static Secrets processRegistry() {
    return PROCESS;
  }

  /** Registers {@code value} as the secret {@code ${name}}; short or empty values are ignored. */
  public void register(String name, String value) {
    if (value == null || value.length() < MIN_LENGTH) {
      return;
    }
    boolean changed = names.putIfAbsent(value, name) == null;
    String encoded = URLEncoder.encode(value, StandardCharsets.UTF_8);
    if (!encoded.equals(value)) {
      changed |= names.putIfAbsent(encoded, name) == null;
    }
    if (changed) {
      synchronized (this) {
        List<Map.Entry<String, String>> list = new ArrayList<>(names.entrySet().stream()
            .map(e -> Map.entry(e.getKey(), e.getValue())).toList());
        list.sort(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length()).reversed());
        ordered = List.copyOf(list);
      }
    }
  }

  /**
   * Registers {@code text} (a path the colony itself names) as public: a secret's value found
   * inside it is not masked there. Text shorter than two characters is ignored.
   */
  public synchronized void registerPublic(String text) {
    if (text == null || text.length() < 2 || publicText.contains(text)) {
      return;
    }
    List<String> list = new ArrayList<>(publicText);
    list.add(text);
    publicText = List.copyOf(list);
  }

  /** Registers each named variable's value from {@code env}. */
  public void registerAll(Iterable<String> variables, Map<String, String> env) {
    for (String v : variables) {
      register(v, env.get(v));
    }
  }

  /** Registers the variables of {@code env} whose names look secret. */
  public void registerSecretLookingNames(Map<String, String> env) {
    for (Map.Entry<String, String> e : env.entrySet()) {
      if (e.getValue() != null && e.getValue().length() >= MIN_LENGTH_BY_NAME
          && SECRET_NAME.matcher(e.getKey()).matches()) {
        register(e.getKey(), e.getValue());
        if (e.getKey().toUpperCase(java.util.Locale.ROOT).endsWith("HEADERS")) {
          // OTEL_EXPORTER_OTLP_HEADERS and the like: "name=value,name=value", each value on its own
          // too (a token printed without its header's name), and a "Bearer x" token alone
          for (String pair : e.getValue().split(",")) {
            int eq = pair.indexOf('=');
            String value = eq < 0 ? pair.strip() : pair.substring(eq + 1).strip();
            register(e.getKey(), value);
            int space = value.indexOf(' ');
            if (space > 0) {
              register(e.getKey(), value.substring(space + 1).strip());
            }
          }
        }
      }
    }
  }

  /** Resolves the {@code ${VAR}} references of {@code text} and registers every value used. */
  public String resolve(String text, Map<String, String> env) {
    if (text == null || text.indexOf("${") < 0) {
      return text;
    }
    return Interpolation.resolve(text, name -> {
      String value = env.get(name);
      register(name, value);
      return value;
    });
  }

  /** True when {@code text} holds a registered secret. */
  public boolean contains(String text) {
    if (text == null) {
      return false;
    }
    for (Map.Entry<String, String> s : ordered) {
      if (text.contains(s.getKey())) {
        return true;
      }
    }
    return false;
  }

  /** {@code text} with every registered secret replaced by its {@code ${VAR}}. */
  public String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    List<String> keep = publicText;
    for (Map.Entry<String, String> s : ordered) {
      if (out.contains(s.getKey())) {
        out = keep.isEmpty() ? out.replace(s.getKey(), "${" + s.getValue() + "}")
            : replaceOutside(out, s.getKey(), "${" + s.getValue() + "}", keep);
      }
    }
    return out;
  }

  /** The length of the longest value known (characters): the context a slice of a longer text needs. */
  public int longest() {
    List<Map.Entry<String, String>> o = ordered;
    return o.isEmpty() ? 0 : o.get(0).getKey().length();
  }

  /**
   * {@link #redact} of {@code page}, a slice of a longer text (a page of a transcript) read with
   * the text around it ({@code before} and {@code after}, at least {@link #longest()} characters of
   * each where the text has them): every secret that overlaps the page, also one the page's edge
   * cuts, is masked (the part of it inside the page, once), except inside public text as
   * {@link #redact} keeps it. With {@code openEnd} ({@code after} reaches the text's end so far,
   * and it may go on: a transcript still written), a secret's beginning at that end, at least
   * {@link #MIN_LENGTH} characters of it, is masked where it is in the page.
   */
  public String redactSlice(String before, String page, String after, boolean openEnd) {
    if (page == null || page.isEmpty()) {
      return page;
    }
    String full = before + page + after;
    int p0 = before.length();
    int p1 = p0 + page.length();
    List<String> keep = publicText;
    String[] names = new String[page.length()];
    for (Map.Entry<String, String> s : ordered) { // longest first: a longer secret claims its characters
      String v = s.getKey();
      List<int[]> cover = cover(full, v, keep);
      for (int at = full.indexOf(v, Math.max(0, p0 - v.length() + 1)); at >= 0 && at < p1; at = full.indexOf(v, at + 1)) {
        if (!covered(cover, at, at + v.length())) {
          mark(names, Math.max(at, p0) - p0, Math.min(at + v.length(), p1) - p0, s.getValue());
        }
      }
      if (openEnd) {
        // The text's end may be a secret's beginning, its rest not written yet: the part in the page is masked.
        for (int k = Math.min(v.length() - 1, full.length()); k >= MIN_LENGTH; k--) {
          int start = full.length() - k;
          if (full.regionMatches(start, v, 0, k)) {
            if (start < p1) {
              mark(names, Math.max(start, p0) - p0, p1 - p0, s.getValue());
            }
            break;
          }
        }
      }
    }
    StringBuilder out = new StringBuilder(page.length());
    for (int i = 0; i < page.length(); ) {
      if (names[i] == null) {
        out.append(page.charAt(i++));
        continue;
      }
      out.append("${").append(names[i]).append('}');
      String name = names[i];
      while (i < page.length() && name.equals(names[i])) {
        i++;
      }
    }
    return out.toString();
  }

  /** Where the public texts at least as long as {@code value} occur in {@code text}. */
  private static List<int[]> cover(String text, String value, List<String> keep) {
    List<int[]> cover = new ArrayList<>();
    for (String p : keep) {
      if (p.length() >= value.length()) {
        for (int at = text.indexOf(p); at >= 0; at = text.indexOf(p, at + 1)) {
          cover.add(new int[] {at, at + p.length()});
        }
      }
    }
    return cover;
  }

  private static boolean covered(List<int[]> cover, int from, int to) {
    for (int[] c : cover) {
      if (c[0] <= from && to <= c[1]) {
        return true;
      }
    }
    return false;
  }

  private static void mark(String[] names, int from, int to, String name) {
    for (int i = from; i < to; i++) {
      if (names[i] == null) {
        names[i] = name;
      }
    }
  }

  /**
   * {@code text} with each occurrence of {@code value} replaced, except those inside public text.
   * Linear in the text: the public texts' occurrences are found once, in order, and each
   * occurrence of the value is checked against them with a pointer that only moves forward.
   */
  private static String replaceOutside(String text, String value, String replacement, List<String> keep) {
    List<int[]> cover = new ArrayList<>();
    for (String p : keep) {
      if (p.length() < value.length()) {
        continue;
      }
      for (int at = text.indexOf(p); at >= 0; at = text.indexOf(p, at + 1)) {
        cover.add(new int[] {at, at + p.length()});
      }
    }
    if (cover.isEmpty()) {
      return text.replace(value, replacement);
    }
    cover.sort(Comparator.comparingInt((int[] r) -> r[0]));
    StringBuilder out = new StringBuilder(text.length());
    int from = 0;
    int next = 0;
    // The furthest end of the public ranges starting at or before the occurrence.
    int reach = -1;
    for (int at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length())) {
      while (next < cover.size() && cover.get(next)[0] <= at) {
        reach = Math.max(reach, cover.get(next)[1]);
        next++;
      }
      if (reach >= at + value.length()) {
        continue;
      }
      out.append(text, from, at).append(replacement);
      from = at + value.length();
    }
    return out.append(text, from, text.length()).toString();
  }

  /** Variables whose values are too short to mask (for a warning before the worker starts). */
  public static List<String> tooShortToMask(Iterable<String> variables, Map<String, String> env) {
    List<String> out = new ArrayList<>();
    for (String v : variables) {
      String value = env.get(v);
      if (value != null && !value.isEmpty() && value.length() < MIN_LENGTH) {
        out.add(v);
      }
    }
    return out;
  }
}
