package dev.colony.toolgate;

import dev.colony.spec.ConfirmationSpec;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decides whether a tool call is dangerous: the built-in rules (git push, recursive rm, sudo,
 * piping downloads into a shell, DROP/TRUNCATE TABLE, computer use) plus an ant's
 * {@code always_confirm_tools} and {@code dangerous_patterns}. Shell commands are parsed, not
 * pattern-matched, so {@code git -C dir push}, {@code /usr/bin/sudo}, {@code rm -fr},
 * {@code bash <(curl ...)} and commands hidden behind {@code ;}, {@code &&} or {@code $(...)} are
 * all seen for what they run.
 */
public final class DangerDetector {
  /** Tools whose input is a shell command line (Claude Code's Bash, Colony's Gemini shell tool). */
  private static final Set<String> SHELL_TOOLS = Set.of("bash", "shell", "run_shell", "run_shell_command",
      "execute_command", "exec", "terminal");
  private static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "mksh", "fish",
      "csh", "tcsh", "ash", "busybox");
  private static final Set<String> ROOT = Set.of("sudo", "doas", "su", "pkexec", "run0");
  private static final Set<String> DOWNLOADERS = Set.of("curl", "wget", "fetch", "aria2c", "http", "httpie");
  /** Programs that run the rest of their arguments as a command. */
  private static final Set<String> WRAPPERS = Set.of("env", "nohup", "time", "nice", "ionice", "timeout",
      "command", "exec", "builtin", "xargs", "stdbuf", "setsid", "chrt", "taskset", "watch", "unbuffer");
  private static final Pattern SQL = Pattern.compile("(?i)\\b(drop|truncate)\\s+table\\b");
  // Compiled once (String.matches compiled them for every word of a command line).
  private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*");
  private static final Pattern DURATION = Pattern.compile("[0-9.]+[smhd]?");
  private static final Pattern SHELL_C = Pattern.compile("-[a-zA-Z]*c[a-zA-Z]*");
  private static final Pattern SHORT_RECURSIVE = Pattern.compile("-[a-zA-Z]*[rR][a-zA-Z]*");

  private final List<String> alwaysConfirm;
  private final List<Pattern> patterns;

  static final String TOO_DEEP = "nested too deeply to check what it runs";

  public DangerDetector(ConfirmationSpec extra) {
    ConfirmationSpec c = extra == null ? ConfirmationSpec.NONE : extra;
    this.alwaysConfirm = c.alwaysConfirmTools();
    this.patterns = c.dangerousPatterns().stream().map(Pattern::compile).toList();
  }

  /** Why the call needs a human, or empty when it does not. */
  public Optional<String> check(String tool, Map<String, ?> input) {
    String name = tool == null ? "" : tool;
    for (String t : alwaysConfirm) {
      if (t.equalsIgnoreCase(name)) {
        return Optional.of("the " + name + " tool always needs confirmation");
      }
    }
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.contains("computer")) {
      return Optional.of("uses the computer_use tool");
    }
    String command = SHELL_TOOLS.contains(lower) && input != null && input.get("command") != null
        ? String.valueOf(input.get("command")) : null;
    if (command != null) {
      Optional<String> r = checkShell(command);
      if (r.isPresent()) {
        return r;
      }
    }
    String text = flatten(input);
    if (SQL.matcher(text).find()) {
      return Optional.of("a destructive SQL statement (DROP/TRUNCATE TABLE)");
    }
    return Optional.empty();
  }

  /** Checks one shell command line. */
  public Optional<String> checkShell(String command) {
    return checkShell(command, 0);
  }

  /**
   * {@code nesting}: how many {@code eval}s and {@code sh -c}s this line is inside. Past
   * {@link ShellParser#MAX_DEPTH} the line is not followed further but called dangerous: a chain of
   * evals took quadratic time and then the stack (found by the parser's fuzz test).
   */
  private Optional<String> checkShell(String command, int nesting) {
    if (nesting > ShellParser.MAX_DEPTH) {
      return Optional.of(TOO_DEEP);
    }
    List<ShellParser.Command> commands = ShellParser.parse(command);
    for (ShellParser.Command c : commands) {
      Optional<String> r = checkCommand(c.words(), c.piped(), c.processSubstitutions(), 0, nesting);
      if (r.isPresent()) {
        return r;
      }
    }
    if (SQL.matcher(command).find()) {
      return Optional.of("a destructive SQL statement (DROP/TRUNCATE TABLE)");
    }
    String normalized = String.join(" ", commands.stream().map(c -> String.join(" ", c.words())).toList());
    for (Pattern p : patterns) {
      if (p.matcher(command).find() || p.matcher(normalized).find()) {
        return Optional.of("matches the dangerous pattern " + p.pattern());
      }
    }
    return Optional.empty();
  }

  private Optional<String> checkCommand(List<String> words, boolean piped, List<String> procSubs, int depth,
      int nesting) {
    if (words.size() == 1 && words.get(0).equals(ShellParser.TOO_DEEP) || depth > ShellParser.MAX_DEPTH) {
      return Optional.of(TOO_DEEP); // what runs is not known: a human decides
    }
    int k = 0;
    // Leading variable assignments (FOO=bar cmd) are not the program.
    while (k < words.size() && ASSIGNMENT.matcher(words.get(k)).matches()) {
      k++;
    }
    if (k >= words.size()) {
      return Optional.empty();
    }
    String program = basename(words.get(k));
    List<String> args = words.subList(k + 1, words.size());
    if (ROOT.contains(program)) {
      return Optional.of("runs a command as root (" + program + ")");
    }
    if (WRAPPERS.contains(program)) {
      // Skip the wrapper's own options (and their values where obvious) to find the program.
      int j = 0;
      while (j < args.size() && (args.get(j).startsWith("-") || ASSIGNMENT.matcher(args.get(j)).matches()
          || (program.equals("timeout") || program.equals("nice")) && DURATION.matcher(args.get(j)).matches())) {
        j++;
      }
      return checkCommand(args.subList(Math.min(j, args.size()), args.size()), piped, procSubs, depth + 1, nesting);
    }
    if (program.equals("eval")) {
      return checkShell(String.join(" ", args), nesting + 1);
    }
    if (SHELLS.contains(program)) {
      for (int j = 0; j < args.size(); j++) {
        if (SHELL_C.matcher(args.get(j)).matches() && j + 1 < args.size()) {
          String script = args.get(j + 1);
          if (downloads(script)) {
            return Optional.of("runs downloaded code in a shell");
          }
          return checkShell(script, nesting + 1);
        }
      }
      if (piped) {
        return Optional.of("pipes into a shell (" + program + ")");
      }
      for (String p : procSubs) {
        if (downloads(p)) {
          return Optional.of("runs downloaded code in a shell");
        }
      }
    }
    if ((program.equals("source") || program.equals(".")) && !procSubs.isEmpty()) {
      return Optional.of("runs downloaded code in a shell");
    }
    if (program.equals("git") && isGitPush(args)) {
      return Optional.of("pushes to a git remote (git push)");
    }
    if (program.equals("rm") && isRecursive(args)) {
      return Optional.of("deletes recursively (rm -r)");
    }
    return Optional.empty();
  }

  private static boolean downloads(String script) {
    for (ShellParser.Command c : ShellParser.parse(script)) {
      for (String w : c.words()) {
        if (DOWNLOADERS.contains(basename(w))) {
          return true;
        }
      }
    }
    return script.contains("curl") || script.contains("wget");
  }

  private static boolean isGitPush(List<String> args) {
    for (int j = 0; j < args.size(); j++) {
      String a = args.get(j);
      if (a.equals("-C") || a.equals("-c") || a.equals("--git-dir") || a.equals("--work-tree")
          || a.equals("--namespace") || a.equals("--exec-path") || a.equals("--config-env")) {
        j++;
        continue;
      }
      if (a.startsWith("-")) {
        continue;
      }
      return a.equals("push");
    }
    return false;
  }

  private static boolean isRecursive(List<String> args) {
    for (String a : args) {
      if (a.equals("--")) {
        return false;
      }
      if (a.equals("--recursive") || !a.startsWith("--") && SHORT_RECURSIVE.matcher(a).matches()) {
        return true;
      }
    }
    return false;
  }

  static String basename(String word) {
    String w = word;
    int slash = w.lastIndexOf('/');
    return (slash >= 0 ? w.substring(slash + 1) : w).toLowerCase(Locale.ROOT);
  }

  private static String flatten(Object value) {
    StringBuilder sb = new StringBuilder();
    flatten(value, sb);
    return sb.toString();
  }

  private static void flatten(Object value, StringBuilder sb) {
    if (value instanceof Map<?, ?> m) {
      for (Object v : m.values()) {
        flatten(v, sb);
      }
    } else if (value instanceof Iterable<?> l) {
      for (Object v : l) {
        flatten(v, sb);
      }
    } else if (value != null) {
      sb.append(value).append('\n');
    }
  }
}
