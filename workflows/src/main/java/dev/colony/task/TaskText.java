package dev.colony.task;

import dev.colony.text.SafeText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * How text enters a task: cleaned as {@code IssueEvent} cleans (no controls, no half emoji) and
 * bounded by {@link TaskLimits}. Checks answer a sentence a person can act on, or null when the
 * text fits; {@code bounded} cuts what an ant or a program sends, which is not refused. Pure and
 * deterministic: the workflow's validators, the workflow's first run and the board all use it.
 */
public final class TaskText {
  private TaskText() {}

  /** A label: letters, digits, '.', '_' and '-', up to {@link TaskLimits#LABEL}; kept lower case. */
  public static final Pattern LABEL = Pattern.compile("[a-z0-9][a-z0-9._-]{0," + (TaskLimits.LABEL - 1) + "}");
  /** Who made a change, as it is shown ({@code cli}, {@code @alice}, {@code alpha}). */
  public static final int BY = 64;
  /** A session's summary or a report's text, as the card keeps it. */
  public static final int NOTE = 1_000;
  public static final int URL = 500;

  /** Cleaned, stripped; null when blank. */
  public static String clean(String text) {
    if (text == null) {
      return null;
    }
    String t = SafeText.clean(text).strip();
    return t.isEmpty() ? null : t;
  }

  /** Cleaned and cut to {@code max} with a marker saying so; null when blank. */
  public static String bounded(String text, int max) {
    String t = clean(text);
    if (t == null || t.length() <= max) {
      return t;
    }
    return SafeText.cut(t, max - 1) + "…";
  }

  /** Who, as shown on the card: cleaned, one line, at most {@link #BY}; "someone" when nobody says. */
  public static String by(String by) {
    String t = clean(by);
    return t == null ? "someone" : bounded(t.replaceAll("\\s+", " "), BY);
  }

  /** Null when {@code title} is a title a task may have, else why not. */
  public static String titleProblem(String title) {
    String t = clean(title);
    if (t == null) {
      return "a task needs a title";
    }
    if (t.length() > TaskLimits.TITLE) {
      return "the title has " + t.length() + " characters, at most " + TaskLimits.TITLE + " are allowed";
    }
    return null;
  }

  public static String bodyProblem(String body) {
    String t = clean(body);
    if (t != null && t.length() > TaskLimits.BODY) {
      return "the body has " + t.length() + " characters, at most " + TaskLimits.BODY + " are allowed";
    }
    return null;
  }

  /** Null when {@code text} is a comment (required or not) a task takes, else why not. */
  public static String commentProblem(String text, String what) {
    String t = clean(text);
    if (t == null) {
      return what + " needs a text";
    }
    if (t.length() > TaskLimits.COMMENT) {
      return what + " has " + t.length() + " characters, at most " + TaskLimits.COMMENT + " are allowed";
    }
    return null;
  }

  public static String labelsProblem(List<String> labels) {
    if (labels == null) {
      return null;
    }
    if (labels.size() > TaskLimits.LABELS) {
      return "a task has at most " + TaskLimits.LABELS + " labels, not " + labels.size();
    }
    for (String l : labels) {
      String t = l == null ? "" : l.strip().toLowerCase(Locale.ROOT);
      if (!LABEL.matcher(t).matches()) {
        return "'" + SafeText.cut(SafeText.clean(String.valueOf(l)), 40) + "' is not a label (letters, digits, '.', '_'"
            + " and '-', up to " + TaskLimits.LABEL + ")";
      }
    }
    return null;
  }

  /** Labels as a task keeps them: lower case, sorted, no repeats, only valid ones, at most the limit. */
  public static List<String> labels(List<String> labels) {
    TreeSet<String> out = new TreeSet<>();
    if (labels != null) {
      for (String l : labels) {
        String t = l == null ? "" : SafeText.clean(l).strip().toLowerCase(Locale.ROOT);
        if (LABEL.matcher(t).matches() && out.size() < TaskLimits.LABELS) {
          out.add(t);
        }
      }
    }
    return new ArrayList<>(out);
  }

  /** Null when {@code url} may be a task's issue link (http or https, bounded), else why not. */
  public static String urlProblem(String url) {
    String t = clean(url);
    if (t == null) {
      return null;
    }
    if (t.length() > URL || !(t.startsWith("https://") || t.startsWith("http://")) || t.matches(".*\\s.*")) {
      return "the issue link must be an http(s) address of at most " + URL + " characters";
    }
    return null;
  }

  /** An issue link as kept: valid, else none. */
  public static String url(String url) {
    return urlProblem(url) == null ? clean(url) : null;
  }

  /** A report's work as the card keeps it: commit subjects and paths cleaned and cut (they come from git). */
  public static TaskWork work(TaskWork w) {
    List<TaskWork.Commit> commits = new ArrayList<>();
    for (TaskWork.Commit c : w.commits()) {
      commits.add(new TaskWork.Commit(bounded(c.sha(), 64), bounded(c.subject(), 200)));
    }
    List<String> files = new ArrayList<>();
    for (String f : w.files()) {
      String b = bounded(f, 300);
      if (b != null) {
        files.add(b);
      }
    }
    return new TaskWork(bounded(w.branch(), 200), bounded(w.base(), 64), bounded(w.head(), 64), commits,
        w.filesChanged(), w.linesAdded(), w.linesRemoved(), files);
  }
}
