package dev.colony.toolgate;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a shell command line into the simple commands it runs, the way a shell would: quotes
 * and escapes are removed; {@code ;}, {@code &&}, {@code ||}, {@code &}, newlines and pipes
 * separate commands; {@code $(...)}, backticks and {@code <(...)} are parsed as commands of
 * their own. It does not need to be a complete shell: it needs to see every program a command
 * line would start, so detection rules cannot be dodged by spelling.
 */
final class ShellParser {
  /** One simple command: its words, and whether it reads a pipe. */
  record Command(List<String> words, boolean piped, List<String> processSubstitutions) {}

  /** How deep substitutions are followed; deeper text is reported as {@link #TOO_DEEP}, never skipped. */
  static final int MAX_DEPTH = 8;

  /** Compiled once: a huge command line has as many words (String.matches compiled it per word). */
  private static final java.util.regex.Pattern REDIRECTION = java.util.regex.Pattern.compile("\\d*[<>]+&?\\d*.*");

  /**
   * The one word of the command standing for text nested deeper than {@link #MAX_DEPTH}: what it
   * runs is not known, so it is treated as dangerous (a deeper nesting used to hide a command).
   */
  static final String TOO_DEEP = "\u0000nested too deeply to check";

  private final String s;
  private int i;
  private final List<Command> out;

  private ShellParser(String s, List<Command> out) {
    this.s = s;
    this.out = out;
  }

  static List<Command> parse(String line) {
    List<Command> out = new ArrayList<>();
    parseInto(line, out, 0);
    return out;
  }

  private static void parseInto(String line, List<Command> out, int depth) {
    if (line == null) {
      return;
    }
    if (depth > MAX_DEPTH) {
      out.add(new Command(List.of(TOO_DEEP), false, List.of()));
      return;
    }
    new ShellParser(line, out).run(depth);
  }

  private void run(int depth) {
    List<String> words = new ArrayList<>();
    List<String> procSubs = new ArrayList<>();
    boolean piped = false;
    StringBuilder word = null;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        if (s.charAt(i + 1) == '\n') {
          i += 2;
          continue;
        }
        word = word == null ? new StringBuilder() : word;
        word.append(s.charAt(i + 1));
        i += 2;
      } else if (c == '\'') {
        word = word == null ? new StringBuilder() : word;
        int end = s.indexOf('\'', i + 1);
        end = end < 0 ? s.length() : end;
        word.append(s, i + 1, end);
        i = end + 1;
      } else if (c == '"') {
        word = word == null ? new StringBuilder() : word;
        i++;
        while (i < s.length() && s.charAt(i) != '"') {
          char d = s.charAt(i);
          if (d == '\\' && i + 1 < s.length()) {
            word.append(s.charAt(i + 1));
            i += 2;
          } else if (d == '$' && i + 1 < s.length() && s.charAt(i + 1) == '(') {
            String inner = balanced(i + 1);
            parseInto(inner, out, depth + 1);
            word.append("$(").append(inner).append(')');
          } else if (d == '`') {
            String inner = backtick();
            parseInto(inner, out, depth + 1);
            word.append('`').append(inner).append('`');
          } else {
            word.append(d);
            i++;
          }
        }
        i++;
      } else if (c == '$' && i + 1 < s.length() && s.charAt(i + 1) == '(') {
        String inner = balanced(i + 1);
        parseInto(inner, out, depth + 1);
        word = word == null ? new StringBuilder() : word;
        word.append("$(").append(inner).append(')');
      } else if (c == '`') {
        String inner = backtick();
        parseInto(inner, out, depth + 1);
        word = word == null ? new StringBuilder() : word;
        word.append('`').append(inner).append('`');
      } else if ((c == '<' || c == '>') && i + 1 < s.length() && s.charAt(i + 1) == '(') {
        String inner = balanced(i + 1);
        parseInto(inner, out, depth + 1);
        procSubs.add(inner);
        word = flush(words, word);
        words.add("<(" + inner + ")");
      } else if (c == ';' || c == '\n' || c == '&' || c == '|' || c == '(' || c == ')' || c == '{' && isWordStart(word)) {
        word = flush(words, word);
        boolean pipe = c == '|' && !(i + 1 < s.length() && s.charAt(i + 1) == '|');
        end(words, piped, procSubs);
        words = new ArrayList<>();
        procSubs = new ArrayList<>();
        piped = pipe;
        if ((c == '|' || c == '&') && i + 1 < s.length() && (s.charAt(i + 1) == c || c == '|' && s.charAt(i + 1) == '&')) {
          i++;
        }
        i++;
      } else if (Character.isWhitespace(c)) {
        word = flush(words, word);
        i++;
      } else if (c == '#' && word == null) {
        while (i < s.length() && s.charAt(i) != '\n') {
          i++;
        }
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
        i++;
      }
    }
    flush(words, word);
    end(words, piped, procSubs);
  }

  private static boolean isWordStart(StringBuilder word) {
    return word == null;
  }

  private void end(List<String> words, boolean piped, List<String> procSubs) {
    // Redirections are not programs: drop "2>&1", ">file" and the like.
    List<String> clean = new ArrayList<>();
    for (String w : words) {
      if (!REDIRECTION.matcher(w).matches() || w.startsWith("<(")) {
        clean.add(w);
      }
    }
    if (!clean.isEmpty()) {
      out.add(new Command(List.copyOf(clean), piped, List.copyOf(procSubs)));
    }
  }

  private static StringBuilder flush(List<String> words, StringBuilder word) {
    if (word != null) {
      words.add(word.toString());
    }
    return null;
  }

  /** Returns the text inside the parenthesis at {@code open} and moves past the closing one. */
  private String balanced(int open) {
    int depth = 0;
    int j = open;
    for (; j < s.length(); j++) {
      char c = s.charAt(j);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
        if (depth == 0) {
          break;
        }
      } else if (c == '\\') {
        j++;
      }
    }
    String inner = s.substring(open + 1, Math.min(j, s.length()));
    i = Math.min(j + 1, s.length());
    return inner;
  }

  private String backtick() {
    int end = s.indexOf('`', i + 1);
    end = end < 0 ? s.length() : end;
    String inner = s.substring(i + 1, end);
    i = end + 1;
    return inner;
  }
}
