package dev.colony.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskEvent;
import dev.colony.task.TaskSessionLink;
import dev.colony.task.TaskState;
import dev.colony.task.TaskWork;
import dev.colony.text.Printable;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Predicate;

/**
 * What {@code colony task} prints: the board as a table grouped by column, one task in full, and
 * the JSON of both. Every text from a task (titles, bodies, comments: written by humans, ants and
 * GitHub) passes {@link Printable} before it reaches a terminal.
 */
final class TaskView {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC);
  /** The columns in the order a reader follows work: Done last. */
  static final List<TaskState> COLUMNS = List.of(TaskState.BACKLOG, TaskState.TODO, TaskState.IN_PROGRESS,
      TaskState.IN_REVIEW, TaskState.BLOCKED, TaskState.DONE);
  static final int TITLE_WIDTH = 40;
  static final String GONE = "(ant gone)";

  private TaskView() {}

  /** The board: one block per column that has tasks, each row id, priority, title, who, labels and age. */
  static String table(String colony, List<TaskCard> cards, Predicate<String> antRunning, boolean filtered, Instant now) {
    if (cards.isEmpty()) {
      return filtered ? "no task of colony '" + colony + "' matches\n"
          : "colony '" + colony + "' has no tasks (add one: colony task add TITLE)\n";
    }
    StringBuilder sb = new StringBuilder();
    for (TaskState column : COLUMNS) {
      List<TaskCard> in = cards.stream().filter(c -> c.state() == column).toList();
      if (in.isEmpty()) {
        continue;
      }
      if (!sb.isEmpty()) {
        sb.append('\n');
      }
      sb.append(column.label()).append(" (").append(in.size()).append(")\n");
      int idWidth = in.stream().mapToInt(c -> c.id().length()).max().orElse(6);
      for (TaskCard c : in) {
        String who = who(c, antRunning);
        sb.append("  ").append(pad(c.id(), idWidth)).append("  ").append(pad(c.priority().word(), 6)).append("  ")
            .append(pad(cut(Printable.line(c.title(), TITLE_WIDTH + 10)), TITLE_WIDTH)).append("  ")
            .append(pad(who, 20)).append("  ")
            .append(pad(c.labels().isEmpty() ? "-" : Printable.line(String.join(",", c.labels()), 60), 16)).append("  ")
            .append(age(c.createdAtMillis(), now)).append('\n');
        if (c.state() == TaskState.BLOCKED && c.reason() != null && !c.reason().isBlank()) {
          sb.append("  ").append(" ".repeat(idWidth)).append("  blocked: ").append(Printable.line(c.reason(), 100)).append('\n');
        }
      }
    }
    return sb.toString();
  }

  /** Who has it: In Progress, the worker (marked when its ant no longer runs); else the assignee. */
  static String who(TaskCard c, Predicate<String> antRunning) {
    if (c.state() == TaskState.IN_PROGRESS && c.worker() != null) {
      return c.worker() + (antRunning.test(c.worker()) ? "" : " " + GONE);
    }
    return c.assignee() == null ? "-" : c.assignee().text();
  }

  private static String cut(String s) {
    return s.codePointCount(0, s.length()) <= TITLE_WIDTH ? s
        : s.substring(0, s.offsetByCodePoints(0, TITLE_WIDTH - 1)) + "…";
  }

  private static String pad(String s, int width) {
    int n = s.codePointCount(0, s.length());
    return n >= width ? s : s + " ".repeat(width - n);
  }

  static String age(long atMillis, Instant now) {
    if (atMillis <= 0) {
      return "-";
    }
    return StatusView.human(Duration.ofMillis(Math.max(0, now.toEpochMilli() - atMillis)));
  }

  private static String when(long atMillis, Instant now) {
    return atMillis <= 0 ? "-" : WHEN.format(Instant.ofEpochMilli(atMillis)) + " (" + age(atMillis, now) + " ago)";
  }

  /** One task in full, as {@code colony task show ID} prints it. */
  static String detail(TaskCard c, boolean antGone, Instant now) {
    StringBuilder sb = new StringBuilder();
    sb.append(c.id()).append("  ").append(Printable.line(c.title(), 300)).append('\n');
    row(sb, "state", c.state().label() + " since " + when(c.stateSinceMillis(), now));
    if (c.reason() != null && !c.reason().isBlank()) {
      row(sb, c.state() == TaskState.BLOCKED ? "blocked" : "note", Printable.line(c.reason(), 300));
    }
    row(sb, "assignee", c.assignee() == null ? "nobody (ants that take its labels, or '*')" : c.assignee().text());
    if (c.worker() != null) {
      row(sb, "worker", c.worker() + (c.state() == TaskState.IN_PROGRESS ? (antGone ? " " + GONE : " (working)")
          : " (last worked on it)"));
    }
    row(sb, "priority", c.priority().word());
    row(sb, "labels", c.labels().isEmpty() ? "-" : Printable.line(String.join(", ", c.labels()), 400));
    row(sb, "created", when(c.createdAtMillis(), now));
    if (c.attempts() > 0) {
      row(sb, "attempts", c.attempts() + " failed session" + (c.attempts() == 1 ? "" : "s"));
    }
    if (c.issueUrl() != null && !c.issueUrl().isBlank()) {
      row(sb, "issue", Printable.line(c.issueUrl(), 300));
    }
    TaskWork w = c.work();
    if (w != null) {
      if (w.branch() != null) {
        row(sb, "branch", Printable.line(w.branch(), 200) + "  (" + shortSha(w.base()) + ".." + shortSha(w.head()) + ")");
      }
      row(sb, "changes", w.commits().size() + " commit" + (w.commits().size() == 1 ? "" : "s") + ", " + w.filesChanged()
          + " file" + (w.filesChanged() == 1 ? "" : "s") + ", +" + w.linesAdded() + " -" + w.linesRemoved());
      for (TaskWork.Commit k : w.commits()) {
        sb.append("    ").append(shortSha(k.sha())).append("  ").append(Printable.line(k.subject(), 100)).append('\n');
      }
      if (!w.files().isEmpty()) {
        sb.append("  files:\n");
        w.files().forEach(f -> sb.append("    ").append(Printable.line(f, 200)).append('\n'));
      }
    }
    sb.append("\n  body:\n");
    if (c.body() == null || c.body().isBlank()) {
      sb.append("    (none)\n");
    } else {
      Printable.of(c.body()).lines().forEach(l -> sb.append("    ").append(l).append('\n'));
    }
    sb.append("\n  comments (").append(c.comments().size()).append("):\n");
    for (TaskComment k : c.comments()) {
      sb.append("    ").append(Printable.line(k.author(), 60)).append(", ").append(age(k.atMillis(), now)).append(" ago:\n");
      Printable.of(k.text()).lines().forEach(l -> sb.append("      ").append(l).append('\n'));
    }
    if (!c.sessions().isEmpty()) {
      sb.append("\n  sessions (").append(c.sessions().size()).append("):\n");
      for (TaskSessionLink s : c.sessions()) {
        sb.append("    ").append(s.ant()).append(" #").append(s.session()).append("  ")
            .append(Printable.line(String.valueOf(s.outcome()), 30)).append(String.format("  $%.2f  ", s.costUsd()))
            .append(age(s.atMillis(), now)).append(" ago  ").append(Printable.line(String.valueOf(s.summary()), 200))
            .append('\n');
      }
    }
    if (!c.log().isEmpty()) {
      sb.append("\n  log:\n");
      for (TaskEvent e : c.log()) {
        sb.append("    ").append(e.atMillis() <= 0 ? "-" : WHEN.format(Instant.ofEpochMilli(e.atMillis()))).append("  ")
            .append(Printable.line(e.what(), 200)).append(e.by() == null ? "" : " (" + Printable.line(e.by(), 60) + ")")
            .append('\n');
      }
    }
    return sb.toString();
  }

  private static void row(StringBuilder sb, String name, String value) {
    sb.append("  ").append(pad(name + ":", 10)).append(' ').append(value).append('\n');
  }

  private static String shortSha(String sha) {
    return sha == null ? "?" : sha.substring(0, Math.min(7, sha.length()));
  }

  // ---- JSON ----

  /** {@code {"colony": ..., "count": n, "tasks": [card, ...]}}, each card as {@link #card} writes it. */
  static String json(String colony, List<TaskCard> cards, Predicate<String> antRunning, Instant now) {
    ObjectNode root = JSON.createObjectNode();
    root.put("colony", colony);
    root.put("count", cards.size());
    ArrayNode list = root.putArray("tasks");
    for (TaskCard c : cards) {
      list.add(card(c, c.state() == TaskState.IN_PROGRESS && c.worker() != null && !antRunning.test(c.worker())));
    }
    return write(root);
  }

  /** One card (after a change: the card the workflow answered). */
  static String json(TaskCard c, Instant now) {
    return write(card(c, false));
  }

  static String json(TaskCard c, boolean antGone, Instant now) {
    return write(card(c, antGone));
  }

  /**
   * A card with words a script reads without the Java names: {@code state} {@code in_review},
   * {@code priority} {@code high}, {@code assignee} {@code pool:docs} (null: nobody), times as
   * ISO-8601 instants.
   */
  static ObjectNode card(TaskCard c, boolean antGone) {
    ObjectNode n = JSON.createObjectNode();
    n.put("id", c.id());
    n.put("colony", c.colony());
    n.put("title", c.title());
    n.put("state", c.state().word());
    n.put("column", c.state().label());
    n.put("priority", c.priority().word());
    ArrayNode labels = n.putArray("labels");
    c.labels().forEach(labels::add);
    n.put("assignee", c.assignee() == null ? null : c.assignee().text());
    n.put("worker", c.worker());
    n.put("antGone", antGone);
    n.put("reason", c.reason());
    n.put("attempts", c.attempts());
    n.put("createdAt", iso(c.createdAtMillis()));
    n.put("stateSince", iso(c.stateSinceMillis()));
    n.put("updatedAt", iso(c.updatedAtMillis()));
    n.put("body", c.body());
    n.put("issueUrl", c.issueUrl());
    ArrayNode comments = n.putArray("comments");
    for (TaskComment k : c.comments()) {
      comments.addObject().put("author", k.author()).put("text", k.text()).put("at", iso(k.atMillis()));
    }
    if (c.work() == null) {
      n.putNull("work");
    } else {
      TaskWork w = c.work();
      ObjectNode wn = n.putObject("work");
      wn.put("branch", w.branch());
      wn.put("base", w.base());
      wn.put("head", w.head());
      ArrayNode commits = wn.putArray("commits");
      w.commits().forEach(k -> commits.addObject().put("sha", k.sha()).put("subject", k.subject()));
      wn.put("filesChanged", w.filesChanged());
      wn.put("linesAdded", w.linesAdded());
      wn.put("linesRemoved", w.linesRemoved());
      ArrayNode files = wn.putArray("files");
      w.files().forEach(files::add);
    }
    ArrayNode sessions = n.putArray("sessions");
    for (TaskSessionLink s : c.sessions()) {
      sessions.addObject().put("ant", s.ant()).put("session", s.session()).put("outcome", s.outcome())
          .put("summary", s.summary()).put("costUsd", s.costUsd()).put("at", iso(s.atMillis()));
    }
    ArrayNode log = n.putArray("log");
    for (TaskEvent e : c.log()) {
      log.addObject().put("at", iso(e.atMillis())).put("by", e.by()).put("what", e.what());
    }
    return n;
  }

  private static String iso(long millis) {
    return millis <= 0 ? null : Instant.ofEpochMilli(millis).toString();
  }

  private static String write(ObjectNode root) {
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
