package dev.colony.merge;

import dev.colony.text.Printable;
import dev.colony.text.SafeText;
import java.util.List;

/**
 * The merge queue's texts: the rework message an ant's agent reads (bounded, printable, saying what
 * failed and what to do) and the one-line texts of the card, the news and the Web UI. Pure.
 */
public final class MergeText {
  private MergeText() {}

  /** The longest rework message (the agent's urgent mail). */
  public static final int MAX_MESSAGE = 4_000;
  /** The longest one-line reason on an item. */
  public static final int MAX_LINE = 300;
  /** Files named in a message. */
  static final int MAX_FILES = 50;

  /** {@code text} as one printable line of at most {@code max} characters (null stays null). */
  public static String line(String text, int max) {
    if (text == null) {
      return null;
    }
    return Printable.line(SafeText.clean(text).strip(), Math.max(1, max));
  }

  /** A short commit id for a line ({@code 1a2b3c4}); "?" when none. */
  public static String shortSha(String sha) {
    if (sha == null || sha.isBlank()) {
      return "?";
    }
    return sha.length() > 7 ? sha.substring(0, 7) : sha;
  }

  /** Printable text with line breaks, at most {@code max} characters (the end kept when {@code tail}). */
  public static String block(String text, int max, boolean tail) {
    if (text == null) {
      return "";
    }
    String t = Printable.of(SafeText.clean(text));
    if (t.length() <= max) {
      return t;
    }
    return tail ? "…" + t.substring(t.length() - (max - 1)) : SafeText.cut(t, max - 1) + "…";
  }

  private static String files(List<String> files) {
    StringBuilder sb = new StringBuilder();
    int n = 0;
    for (String f : files) {
      if (n == MAX_FILES) {
        sb.append("\n  … and ").append(files.size() - n).append(" more");
        break;
      }
      sb.append("\n  ").append(line(f, 200));
      n++;
    }
    return sb.toString();
  }

  /** The agent's message after a conflict: the files, git's lines, and what to do. */
  public static String conflict(String itemId, String branch, String target, List<String> files, String detail) {
    String head = "Merge queue: your work (" + itemId + ", branch " + line(branch, 100) + ") does not rebase onto "
        + line(target, 100) + ": it conflicts with what landed since.\nConflicting files:"
        + (files.isEmpty() ? "\n  (git named none)" : files(files));
    String todo = "\n\nWhat to do: rebase " + line(branch, 100) + " onto " + line(target, 100)
        + " (git fetch if it is a remote; git rebase " + line(target, 100) + "), resolve the conflicts in "
        + (files.isEmpty() ? "the files git names"
            : String.join(", ", files.subList(0, Math.min(5, files.size())).stream().map(f -> line(f, 200)).toList()))
        + " keeping both changes' intent, run the tests, commit. The queue takes the work again after your session.";
    String git = detail == null || detail.isBlank() ? "" : "\n\nGit said:\n";
    int room = MAX_MESSAGE - head.length() - todo.length() - git.length();
    String body = git.isEmpty() || room < 40 ? "" : git + block(detail, room, true);
    return bound(head + body + todo);
  }

  /** The agent's message after a red (or timed out) test: the tail of the output, and what to do. */
  public static String redTests(String itemId, String branch, String target, List<String> test, TestRun run) {
    String what = run.timedOut() ? "did not finish in time (killed)" : "failed (exit code " + run.exitCode() + ")";
    String head = "Merge queue: your work (" + itemId + ", branch " + line(branch, 100) + ") rebased onto "
        + line(target, 100) + " cleanly, but the tests " + what + ": " + line(String.join(" ", test), 200) + ".";
    String todo = "\n\nWhat to do: rebase " + line(branch, 100) + " onto " + line(target, 100)
        + ", run the tests, fix what fails, commit. The queue takes the work again after your session.";
    String out = "\n\nLast lines of the output:\n";
    int room = MAX_MESSAGE - head.length() - todo.length() - out.length();
    String body = run.tail() == null || run.tail().isBlank() || room < 40 ? "" : out + block(run.tail(), room, true);
    return bound(head + body + todo);
  }

  private static String bound(String text) {
    return text.length() <= MAX_MESSAGE ? text : SafeText.cut(text, MAX_MESSAGE - 1) + "…";
  }

  /** The post after a landing: "🔀 alpha: 3 commits on main, tests 42 s". */
  public static String landed(Landed l, String target) {
    String where = l.pullRequest() != null ? "pull request " + line(l.pullRequest(), 200)
        : "on " + line(target, 100) + " (" + shortSha(l.to()) + ")";
    return "🔀 " + line(l.ant(), 64) + ": " + l.commits() + (l.commits() == 1 ? " commit " : " commits ") + where
        + (l.approved() ? ", the approved " + range(l.base(), l.from()) : "")
        + (l.taskIds().size() > 1 ? ", tasks " + line(String.join(", ", l.taskIds()), 200) : "")
        + (l.testMillis() > 0 ? ", tests " + seconds(l.testMillis()) : "");
  }

  /** "0f0e0d0..1a2b3c4", or "up to 1a2b3c4" without a base. */
  public static String range(String base, String head) {
    return base == null ? "up to " + shortSha(head) : shortSha(base) + ".." + shortSha(head);
  }

  static String seconds(long millis) {
    long s = Math.round(millis / 1000.0);
    return s < 120 ? s + " s" : s / 60 + " min " + s % 60 + " s";
  }

  /** "tests alpha-3 · 3 commits". */
  public static String plural(int n, String one) {
    return n + " " + one + (n == 1 ? "" : "s");
  }
}
