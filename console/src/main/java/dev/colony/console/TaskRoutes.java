package dev.colony.console;

import dev.colony.client.ColonySource;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.board.TaskBoard;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskState;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The board's part of the JSON API (docs/console.md, "Board"): reads from the {@link TaskBoard}
 * (visibility and memos), changes as its updates. Every input is checked here first, so a bad one
 * is a 400 naming the field before anything reaches Temporal; the board's own refusals (not in
 * review, no such task) come back as {@link dev.colony.board.TaskBoardException}, a 409.
 */
final class TaskRoutes {
  static final List<String> ACTIONS = List.of("approve", "requeue", "move", "assign", "comment");

  private final TaskBoard board;
  private final ColonySource source;
  private final Views views;

  TaskRoutes(TaskBoard board, ColonySource source, Views views) {
    this.board = board;
    this.source = source;
    this.views = views;
  }

  private TaskBoard board() {
    if (board == null) {
      throw new NoSuchElementException("this console has no task board");
    }
    return board;
  }

  /** {@code GET /api/tasks?state=todo,in_review&assignee=&label=&worker=&limit=}: the board, newest change first. */
  Map<String, Object> board(Context ctx) {
    TaskBoard b = board();
    List<TaskState> states = new ArrayList<>();
    String st = ctx.queryParam("state");
    if (st != null && !st.isBlank()) {
      for (String w : st.split(",", 7)) {
        TaskState s = TaskState.parse(w);
        if (s == null) {
          throw new IllegalArgumentException("unknown state '" + clip(w) + "' (backlog, todo, in_progress, in_review, "
              + "done, blocked)");
        }
        if (!states.contains(s)) {
          states.add(s);
        }
      }
    }
    String assignee = ctx.queryParam("assignee");
    if (assignee != null && !assignee.isBlank() && !assignee.strip().equals("-")) {
      Assignee parsed = Assignee.parse(assignee); // a bad name is a 400 with the parser's sentence
      assignee = parsed == null ? "-" : parsed.text(); // "nobody" reads as nobody
    }
    String label = ctx.queryParam("label");
    if (label != null && !label.isBlank()) {
      String problem = dev.colony.task.TaskText.labelsProblem(List.of(label.strip()));
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
    }
    String worker = ctx.queryParam("worker");
    if (worker != null && !worker.isBlank() && !ConsoleServer.ANT_NAME.matcher(worker).matches()) {
      throw new IllegalArgumentException("worker is not an ant name");
    }
    int limit = limit(ctx.queryParam("limit"));
    String a = blankToNull(assignee);
    String l = blankToNull(label);
    String wk = blankToNull(worker);
    String perParam = ctx.queryParam("per");
    if (perParam != null && !perParam.isBlank()) {
      return firstCards(b, states, a, l, wk, per(perParam));
    }
    List<TaskCard> cards = new ArrayList<>();
    if (states.isEmpty()) {
      cards.addAll(b.list(new TaskBoard.Filter(null, a, l, wk, limit)));
    } else {
      for (TaskState s : states) {
        cards.addAll(b.list(new TaskBoard.Filter(s, a, l, wk, limit)));
      }
      cards.sort(Comparator.comparingLong(TaskCard::updatedAtMillis).reversed());
    }
    boolean more = cards.size() >= limit;
    if (cards.size() > limit) {
      cards = cards.subList(0, limit);
    }
    Set<String> gone = gone(cards);
    List<Map<String, Object>> out = new ArrayList<>(cards.size());
    for (TaskCard c : cards) {
      out.add(views.task(c, antGone(c, gone)));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("columns", Views.columns());
    m.put("tasks", out);
    m.put("limit", limit);
    m.put("more", more);
    return m;
  }

  /**
   * {@code GET /api/tasks?per=N}: the board's first paint, fast however many tasks there are: the
   * newest {@code N} cards of each column and each column's count (a visibility count), so the
   * page draws its columns at once and reads the whole board after.
   */
  private Map<String, Object> firstCards(TaskBoard b, List<TaskState> states, String a, String l, String wk, int per) {
    List<TaskState> columns = states.isEmpty() ? List.of(TaskState.values()) : states;
    List<TaskCard> cards = new ArrayList<>();
    Map<String, Object> counts = new LinkedHashMap<>();
    // The columns' reads and counts go to Temporal at once (a dozen small queries, on virtual threads).
    try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      List<java.util.concurrent.Future<List<TaskCard>>> lists = new ArrayList<>();
      List<java.util.concurrent.Future<Long>> sizes = new ArrayList<>();
      for (TaskState s : columns) {
        lists.add(pool.submit(() -> b.list(new TaskBoard.Filter(s, a, l, wk, per))));
        sizes.add(pool.submit(() -> b.count(new TaskBoard.Filter(s, a, l, wk, 1))));
      }
      for (int i = 0; i < columns.size(); i++) {
        cards.addAll(result(lists.get(i)));
        counts.put(columns.get(i).word(), result(sizes.get(i)));
      }
    }
    Set<String> gone = gone(cards);
    List<Map<String, Object>> out = new ArrayList<>(cards.size());
    for (TaskCard c : cards) {
      out.add(views.task(c, antGone(c, gone)));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("columns", Views.columns());
    m.put("tasks", out);
    m.put("counts", counts);
    m.put("partial", true);
    return m;
  }

  /** A column's answer; the board's own failure (a sentence) as it was thrown. */
  private static <T> T result(java.util.concurrent.Future<T> f) {
    try {
      return f.get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static int per(String v) {
    try {
      int i = Integer.parseInt(v.strip());
      if (i >= 1 && i <= 500) {
        return i;
      }
    } catch (NumberFormatException bad) {
      // below
    }
    throw new IllegalArgumentException("per must be a number from 1 to 500");
  }

  /** {@code GET /api/tasks/{id}}: the drawer. */
  Map<String, Object> detail(Context ctx) {
    String id = id(ctx);
    TaskCard c = board().get(id);
    if (c == null) {
      throw new NoSuchElementException("no task '" + id + "' in colony '" + source.colony() + "'");
    }
    return views.taskDetail(c, antGone(c, gone(List.of(c))));
  }

  /** {@code POST /api/tasks}: {@code {"title", "body"?, "priority"?, "labels"?, "assignee"?, "backlog"?}}. */
  Map<String, Object> add(Context ctx, byte[] raw, String operator) {
    TaskBoard b = board();
    JsonNode body = Views.jsonObject(raw);
    String title = ConsoleServer.textField(body, "title");
    if (title == null || title.isBlank()) {
      throw new IllegalArgumentException("a task needs a title: send {\"title\": \"...\"}");
    }
    title = title.strip();
    bounded("title", title, TaskLimits.TITLE);
    String text = ConsoleServer.textField(body, "body");
    bounded("body", text, TaskLimits.BODY);
    Priority priority = Priority.NORMAL;
    String p = ConsoleServer.textField(body, "priority");
    if (p != null && !p.isBlank()) {
      priority = Priority.parse(p);
      if (priority == null) {
        throw new IllegalArgumentException("unknown priority '" + clip(p) + "' (high, normal, low)");
      }
    }
    List<String> labels = labels(body.get("labels"));
    Assignee assignee = Assignee.parse(ConsoleServer.textField(body, "assignee"));
    JsonNode backlog = body.get("backlog");
    if (backlog != null && !backlog.isNull() && !backlog.isBoolean()) {
      throw new IllegalArgumentException("backlog must be true or false");
    }
    TaskState state = backlog != null && backlog.asBoolean() ? TaskState.BACKLOG : TaskState.TODO;
    TaskCard c = b.add(new NewTask(null, title, text == null || text.isBlank() ? "" : text, priority, labels, assignee,
        state, null, by(operator)));
    return answer("added task " + c.id() + " to " + c.state().label(), c);
  }

  /** {@code POST /api/tasks/{id}/{approve|requeue|move|assign|comment}}. */
  Map<String, Object> act(Context ctx, byte[] raw, String operator) {
    TaskBoard b = board();
    String id = id(ctx);
    String action = ctx.pathParam("action");
    if (!ACTIONS.contains(action)) {
      throw new IllegalArgumentException("unknown action '" + action.replaceAll("[^A-Za-z0-9_-]", "?") + "' ("
          + String.join(", ", ACTIONS) + ")");
    }
    JsonNode body = Views.jsonObject(raw);
    String text = ConsoleServer.textField(body, "text");
    bounded("text", text, TaskLimits.COMMENT);
    text = text == null || text.isBlank() ? null : text.strip();
    String by = by(operator);
    return switch (action) {
      case "approve" -> answer("approved " + id + ": Done", b.approve(id, new TaskChange(by, null, null, text)));
      case "requeue" -> {
        if (text == null) {
          throw new IllegalArgumentException("a re-queue needs a comment for the next session: send {\"text\": \"...\"}");
        }
        String assignee = assignee(body, false);
        yield answer("re-queued " + id + " to To Do", b.requeue(id, new TaskChange(by, null, assignee, text)));
      }
      case "move" -> {
        String to = ConsoleServer.textField(body, "to");
        TaskState state = TaskState.parse(to);
        if (state == null) {
          throw new IllegalArgumentException("move where? send {\"to\": \"backlog|todo|in_progress|in_review|done|blocked\"}");
        }
        if (state == TaskState.BLOCKED && text == null) {
          throw new IllegalArgumentException("a move to Blocked needs a reason: send {\"to\": \"blocked\", \"text\": \"...\"}");
        }
        yield answer("moved " + id + " to " + state.label(), b.move(id, new TaskChange(by, state, null, text)));
      }
      case "assign" -> {
        String assignee = assignee(body, true);
        yield answer(assignee.isEmpty() ? "unassigned " + id : "assigned " + id + " to " + assignee,
            b.assign(id, new TaskChange(by, null, assignee, text)));
      }
      case "comment" -> {
        if (text == null) {
          throw new IllegalArgumentException("the comment is empty: send {\"text\": \"...\"}");
        }
        yield answer("commented on " + id, b.comment(id, TaskChange.comment(by, text)));
      }
      default -> throw new IllegalArgumentException("unknown action");
    };
  }

  /** The assignee as the board takes it ({@code alpha}, {@code pool:docs}, {@code @alice}; "" nobody), checked; null when absent and optional. */
  private static String assignee(JsonNode body, boolean required) {
    if (!body.has("assignee")) {
      if (required) {
        throw new IllegalArgumentException("assign to whom? send {\"assignee\": \"ANT\" | \"pool:NAME\" | \"@human\" | \"\"}");
      }
      return null;
    }
    String s = ConsoleServer.textField(body, "assignee");
    if (s != null && s.length() > 100) {
      throw new IllegalArgumentException("assignee is over 100 characters");
    }
    Assignee a = Assignee.parse(s);
    return a == null ? "" : a.text();
  }

  private Map<String, Object> answer(String message, TaskCard card) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", true);
    m.put("message", message);
    m.put("task", card == null ? null : views.task(card, antGone(card, gone(List.of(card)))));
    return m;
  }

  /** Who acts, as the task's log and comments name them: the operator, as a human ({@code @alice}). */
  private static String by(String operator) {
    return "@" + (operator == null || operator.isBlank() ? "console" : operator);
  }

  /**
   * The workers of {@code cards} In Progress that are not running ants; empty when that cannot be
   * read now (the board still answers, without the badge).
   */
  private Set<String> gone(List<TaskCard> cards) {
    Set<String> workers = new HashSet<>();
    for (TaskCard c : cards) {
      if (c.state() == TaskState.IN_PROGRESS && c.worker() != null) {
        workers.add(c.worker());
      }
    }
    if (workers.isEmpty()) {
      return Set.of();
    }
    try {
      Set<String> running = source.running(workers);
      workers.removeAll(running);
      return workers;
    } catch (RuntimeException unknown) {
      return null;
    }
  }

  private static Boolean antGone(TaskCard c, Set<String> gone) {
    if (c.state() != TaskState.IN_PROGRESS || c.worker() == null) {
      return false;
    }
    return gone == null ? null : gone.contains(c.worker());
  }

  private static String id(Context ctx) {
    String id = ctx.pathParam("id");
    if (!TaskIds.ID.matcher(id).matches()) {
      throw new IllegalArgumentException("not a task id (lower-case letters, digits, '.', '_', '-'; 100 at most)");
    }
    return id;
  }

  private static int limit(String v) {
    if (v == null || v.isEmpty()) {
      return ConsoleServer.MAX_TASKS;
    }
    try {
      int i = Integer.parseInt(v);
      if (i >= 1 && i <= ConsoleServer.MAX_TASKS) {
        return i;
      }
    } catch (NumberFormatException bad) {
      // below
    }
    throw new IllegalArgumentException("limit must be a number from 1 to " + ConsoleServer.MAX_TASKS);
  }

  private static List<String> labels(JsonNode n) {
    if (n == null || n.isNull()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (n.isTextual()) {
      // "docs, backend" as typed in a form
      for (String s : n.textValue().split(",")) {
        if (!s.isBlank()) {
          out.add(s.strip());
        }
      }
    } else if (n.isArray()) {
      for (JsonNode x : n) {
        if (!x.isTextual()) {
          throw new IllegalArgumentException("labels must be strings");
        }
        if (!x.textValue().isBlank()) {
          out.add(x.textValue().strip());
        }
      }
    } else {
      throw new IllegalArgumentException("labels must be a list of strings");
    }
    if (out.size() > TaskLimits.LABELS) {
      throw new IllegalArgumentException("at most " + TaskLimits.LABELS + " labels");
    }
    for (String l : out) {
      if (l.length() > TaskLimits.LABEL || !Assignee.NAME.matcher(l).matches()) {
        throw new IllegalArgumentException("label '" + clip(l) + "' is not a label (letters, digits, '.', '_' and '-', up to "
            + TaskLimits.LABEL + ")");
      }
    }
    return out.stream().distinct().toList();
  }

  private static void bounded(String field, String value, int max) {
    if (value != null && value.length() > max) {
      throw new IllegalArgumentException(field + " is over " + max + " characters");
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  /** A value quoted back in an error: short and printable (the page shows it as text anyway). */
  private static String clip(String s) {
    String t = s.replaceAll("[^A-Za-z0-9 ._:@-]", "?");
    return t.length() > 40 ? t.substring(0, 40) + "…" : t;
  }
}
