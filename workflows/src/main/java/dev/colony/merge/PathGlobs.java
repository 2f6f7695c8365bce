package dev.colony.merge;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Repository-relative globs ({@code src/api/**}, {@code docs/*.md}, {@code README.md}) as the merge
 * queue's path claims use them. Two lists overlap when some glob of one could share a file with some
 * glob of the other. The test is conservative: it compares the literal directories before the first
 * segment with a wildcard and says "overlap" whenever one could lead into the other, so it may see an
 * overlap where none can be (say {@code docs/*.md} and {@code docs/a/b.txt}), never the reverse.
 * A glob without a wildcard names a file or a whole directory. Pure and deterministic.
 */
public final class PathGlobs {
  private PathGlobs() {}

  /** Longest glob accepted in a claim. */
  public static final int MAX_GLOB = 200;
  /** Most globs in one claim. */
  public static final int MAX_GLOBS = 50;

  /**
   * The glob as compared: trimmed, without a leading {@code ./} or {@code /}, a trailing {@code /}
   * read as the directory's whole tree, doubled slashes collapsed. Null or blank: null.
   */
  public static String normalize(String glob) {
    if (glob == null) {
      return null;
    }
    String g = glob.strip().replace('\\', '/');
    boolean dir = g.endsWith("/") || g.endsWith("/.");
    // One spelling per path: "src/./a", "./src//a/" and "src/a/" are the same directory, and
    // "src/b/../a" is "src/a" (a ".." that would leave the repository stays, for problem() to refuse).
    List<String> out = new ArrayList<>();
    for (String seg : g.split("/")) {
      if (seg.isEmpty() || seg.equals(".")) {
        continue;
      }
      if (seg.equals("..") && !out.isEmpty() && !out.get(out.size() - 1).equals("..")) {
        out.remove(out.size() - 1);
        continue;
      }
      out.add(seg);
    }
    if (out.isEmpty()) {
      return g.isEmpty() ? null : "**";
    }
    String n = String.join("/", out);
    return dir ? n + "/**" : n;
  }

  /** What is wrong with a glob as a claim's path, in one sentence; null when it is fine. */
  public static String problem(String glob) {
    if (glob == null || glob.isBlank()) {
      return "a glob is empty";
    }
    if (glob.length() > MAX_GLOB) {
      return "a glob is longer than " + MAX_GLOB + " characters";
    }
    for (int i = 0; i < glob.length(); i++) {
      if (Character.isISOControl(glob.charAt(i))) {
        return "glob " + dev.colony.text.Printable.line(glob, 60) + " holds a control character";
      }
    }
    String g = normalize(glob);
    for (String s : g.split("/")) {
      if (s.equals("..")) {
        return "glob " + glob.strip() + " leaves the repository (..)";
      }
    }
    try {
      Pattern.compile(regex(g));
    } catch (java.util.regex.PatternSyntaxException bad) {
      return "glob " + dev.colony.text.Printable.line(glob.strip(), 60) + " is not a valid pattern (a [set] or {a,b} is malformed)";
    }
    return null;
  }

  /** The globs of {@code held} that could share a file with one of {@code wanted}, in {@code held}'s order. */
  public static List<String> overlapping(List<String> wanted, List<String> held) {
    List<String> out = new ArrayList<>();
    for (String h : held) {
      for (String w : wanted) {
        if (overlap(w, h)) {
          out.add(h);
          break;
        }
      }
    }
    return out;
  }

  /** Whether two globs could match one file (conservative: true when unsure). */
  public static boolean overlap(String a, String b) {
    String na = normalize(a);
    String nb = normalize(b);
    if (na == null || nb == null) {
      return false;
    }
    Literal la = literal(na);
    Literal lb = literal(nb);
    int common = Math.min(la.dirs.size(), lb.dirs.size());
    for (int i = 0; i < common; i++) {
      if (!la.dirs.get(i).equals(lb.dirs.get(i))) {
        return false; // different literal directories: no file can be in both
      }
    }
    if (la.dirs.size() == lb.dirs.size()) {
      return true; // the same literal path, or the same directory with wildcards after it
    }
    // one literal path is a prefix of the other: the shorter one leads into the longer one when it
    // has a wildcard after it, or is a whole directory (no wildcard at all)
    return true;
  }

  /** The literal segments before the first segment with a wildcard, and whether there is one. */
  private record Literal(List<String> dirs, boolean wild) {}

  private static Literal literal(String g) {
    List<String> dirs = new ArrayList<>();
    for (String s : g.split("/")) {
      if (wild(s)) {
        return new Literal(dirs, true);
      }
      dirs.add(s);
    }
    return new Literal(dirs, false);
  }

  private static boolean wild(String segment) {
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == '{') {
        return true;
      }
    }
    return false;
  }

  /** Whether one of {@code globs} matches {@code path}. */
  public static boolean matchesAny(List<String> globs, String path) {
    for (String g : globs) {
      if (matches(g, path)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code glob} matches the repository-relative file {@code path}: {@code *} and {@code ?}
   * stay within a segment, {@code **} crosses them ({@code a/**} is everything under {@code a},
   * {@code **}{@code /x} is {@code x} in any directory), {@code [abc]} and {@code {a,b}} as in a
   * shell; a glob without a wildcard matches that file or everything under that directory.
   */
  public static boolean matches(String glob, String path) {
    String g = normalize(glob);
    String p = normalize(path);
    if (g == null || p == null) {
      return false;
    }
    if (p.endsWith("/**")) {
      p = p.substring(0, p.length() - 3);
    }
    if (!literal(g).wild) {
      return p.equals(g) || p.startsWith(g + "/");
    }
    try {
      return Pattern.compile(regex(g)).matcher(p).matches();
    } catch (java.util.regex.PatternSyntaxException bad) {
      return true; // refused where globs come in; one that slipped through holds everything under its literal part
    }
  }

  static String regex(String g) {
    StringBuilder re = new StringBuilder();
    int braces = 0;
    for (int i = 0; i < g.length(); i++) {
      char c = g.charAt(i);
      switch (c) {
        case '*' -> {
          if (i + 1 < g.length() && g.charAt(i + 1) == '*') {
            i++;
            boolean slashBefore = i - 2 < 0 || g.charAt(i - 2) == '/';
            if (i + 1 < g.length() && g.charAt(i + 1) == '/' && slashBefore) {
              i++;
              re.append("(?:.*/)?"); // **/ : any directories, none included
            } else {
              re.append(".*");
            }
          } else {
            re.append("[^/]*");
          }
        }
        case '?' -> re.append("[^/]");
        case '[' -> {
          int end = g.indexOf(']', i + 2);
          if (end < 0) {
            re.append("\\[");
          } else {
            String set = g.substring(i + 1, end);
            if (set.startsWith("!")) {
              set = "^" + set.substring(1);
            }
            re.append('[').append(set.replace("\\", "\\\\").replace("[", "\\[")).append(']');
            i = end;
          }
        }
        case '{' -> {
          braces++;
          re.append("(?:");
        }
        case '}' -> {
          if (braces > 0) {
            braces--;
            re.append(')');
          } else {
            re.append("\\}");
          }
        }
        case ',' -> re.append(braces > 0 ? "|" : ",");
        default -> {
          if ("\\.^$+()|".indexOf(c) >= 0) {
            re.append('\\');
          }
          re.append(c);
        }
      }
    }
    while (braces-- > 0) {
      re.append(')');
    }
    return re.toString();
  }
}
