package dev.colony.chat.impl;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskState;
import dev.colony.text.SafeText;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The task board's words in a chat ({@code /task ...}, {@code /tasks}) and its buttons (Approve,
 * Re-queue under a task's post), on a {@link TaskBoard}. Who may use them is decided by
 * {@link ChannelCommands}; here every word a human sent is bounded and cleaned before it reaches
 * the board, and every text echoed back is made inert (no {@code @everyone}, no mention, no link
 * markup that a chat would act on).
 */
public final class ChatTasks {
  /** The most of a line this reads: a task's body at most, and the words around it. */
  static final int MAX_INPUT = TaskLimits.BODY + 2_000;
  /** Tasks read per column for {@code /tasks}, to count them; the list shows fewer (see {@link #PER_COLUMN}). */
  static final int LIST_READ = 200;
  /** Tasks shown per column in {@code /tasks}; the rest are counted. */
  static final int PER_COLUMN = 8;
  /** The longest reply: one Discord message, with room for a mention prefix. */
  static final int MAX_REPLY = 1900;
  /** A title as a list shows it. */
  static final int TITLE_SHOWN = 80;
  private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,31}");
  private static final Pattern SPACES = Pattern.compile("\\s+");

  private final TaskBoard board;
  private final String prefix;

  /** @param prefix how commands are written on this chat ("/" on Discord, "/colony " on Slack) */
  public ChatTasks(TaskBoard board, String prefix) {
    this.board = board;
    this.prefix = prefix;
  }

  /** The help's lines for the task words, with {@code %1$s} where the prefix goes. */
  static final String HELP = """
      Tasks: `%1$stask add TITLE [| BODY]` with any of `priority:high|normal|low`, `label:NAME`, `to:ANT`, `to:pool:NAME`, `to:@PERSON`, `to:-` (nobody), `state:backlog` (in an ant's own channel the task is for that ant unless `to:` says otherwise)
      `%1$stasks [STATE]` the board by column · `%1$stask show ID` · `%1$stask approve ID` · `%1$stask requeue ID COMMENT`
      `%1$stask move ID STATE [REASON]` · `%1$stask assign ID WHO` · `%1$stask comment ID TEXT` (STATE: backlog, todo, in_progress, in_review, done, blocked)""";

  /** Whether {@code /task SUB ...} changes who decides on the work (approve, re-queue, move to Done): see {@link ChannelCommands}. */
  static boolean decides(String cmd, String arg) {
    if (!cmd.equals("task")) {
      return false;
    }
    String[] w = SPACES.split(arg.strip(), 4);
    String sub = w[0].toLowerCase(Locale.ROOT);
    return sub.equals("approve") || sub.equals("requeue") || sub.equals("re-queue")
        || (sub.equals("move") && w.length > 2 && TaskState.parse(w[2]) == TaskState.DONE);
  }

  /**
   * {@code /tasks ARG} or {@code /task ARG} from {@code who} in a channel where the ants
   * {@code here} listen. Returns the reply: one sentence when refused or wrong.
   */
  public String command(String cmd, String arg, List<String> here, Speaker who) {
    return fit(answer(cmd, arg, here, who));
  }

  /** A reply fits one chat message (Discord's 2,000 characters): cut at a line, with a marker. */
  static String fit(String reply) {
    if (reply == null || reply.length() <= MAX_REPLY) {
      return reply;
    }
    String marker = "\n… (cut: `tasks STATE` lists one column)";
    int at = reply.lastIndexOf('\n', MAX_REPLY - marker.length());
    return SafeText.cut(reply, at > 0 ? at : MAX_REPLY - marker.length()) + marker;
  }

  /** A chat's words as the task commands read them: control characters gone, bounded, stripped. */
  static String cleaned(String arg) {
    return SafeText.cut(SafeText.clean(arg == null ? "" : arg), MAX_INPUT).strip();
  }

  /** The task id a {@code /task WORD ID ...} names (its second word), or null. */
  static String taskIdOf(String words) {
    String[] w = SPACES.split(words.strip(), 3);
    return w.length > 1 ? w[1] : null;
  }

  /**
   * The ant that works (or last worked) on task {@code id}, else the ant it is assigned to; null
   * for none or when the board cannot say (the channel's ants decide then).
   */
  String ownerAnt(String id) {
    if (id == null || !dev.colony.task.TaskIds.ID.matcher(id).matches()) {
      return null;
    }
    try {
      dev.colony.task.TaskCard c = board.get(id);
      if (c == null) {
        return null;
      }
      if (c.worker() != null) {
        return c.worker();
      }
      return c.assignee() != null && c.assignee().kind() == dev.colony.task.Assignee.Kind.ANT ? c.assignee().name() : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private String answer(String cmd, String arg, List<String> here, Speaker who) {
    String a = cleaned(arg);
    try {
      if (cmd.equals("tasks")) {
        return list(a);
      }
      String[] w = a.split("\\s+", 2);
      String sub = w[0].toLowerCase(Locale.ROOT);
      String rest = w.length > 1 ? w[1].strip() : "";
      return switch (sub) {
        case "add", "new" -> add(rest, here, who);
        case "", "help" -> HELP.formatted(prefix);
        case "list" -> list(rest);
        case "show" -> show(rest);
        case "approve" -> change(rest, "approve", who);
        case "requeue", "re-queue" -> change(rest, "requeue", who);
        case "move" -> change(rest, "move", who);
        case "assign" -> change(rest, "assign", who);
        case "comment" -> change(rest, "comment", who);
        default -> "Unknown task word `" + word(sub) + "`: run `" + prefix + "task help` for the list.";
      };
    } catch (TaskBoardException e) {
      return "⚠️ " + sentence(e.getMessage());
    }
  }

  private String add(String rest, List<String> here, Speaker who) {
    int bar = rest.indexOf('|');
    String head = bar < 0 ? rest : rest.substring(0, bar);
    String body = bar < 0 ? "" : rest.substring(bar + 1).strip();
    Priority priority = Priority.NORMAL;
    List<String> labels = new ArrayList<>();
    Assignee assignee = here.size() == 1 ? Assignee.ant(here.get(0)) : null;
    TaskState state = TaskState.TODO;
    StringBuilder title = new StringBuilder();
    for (String t : SPACES.split(head.strip())) {
      int colon = t.indexOf(':');
      String key = colon > 0 ? t.substring(0, colon).toLowerCase(Locale.ROOT) : "";
      String value = colon > 0 ? t.substring(colon + 1) : "";
      switch (key) {
        case "priority", "prio" -> {
          priority = Priority.parse(value);
          if (priority == null) {
            return "`priority:` takes high, normal or low, not `" + word(value) + "`.";
          }
        }
        case "label", "labels" -> {
          for (String l : value.split(",")) {
            if (!LABEL.matcher(l).matches()) {
              return "`" + word(l) + "` is not a label (letters, digits, '.', '_' and '-', up to 32).";
            }
            if (!labels.contains(l.toLowerCase(Locale.ROOT))) {
              labels.add(l.toLowerCase(Locale.ROOT));
            }
          }
          if (labels.size() > TaskLimits.LABELS) {
            return "A task has at most " + TaskLimits.LABELS + " labels.";
          }
        }
        case "to", "for" -> {
          try {
            assignee = Assignee.parse(value);
          } catch (IllegalArgumentException e) {
            return inert(e.getMessage(), 200) + ".";
          }
        }
        case "pool" -> {
          try {
            assignee = Assignee.parse("pool:" + value);
          } catch (IllegalArgumentException e) {
            return inert(e.getMessage(), 200) + ".";
          }
        }
        case "state", "column" -> {
          TaskState s = TaskState.parse(value);
          if (s != TaskState.BACKLOG && s != TaskState.TODO) {
            return "A new task goes to `backlog` or `todo`.";
          }
          state = s;
        }
        default -> title.append(title.isEmpty() ? "" : " ").append(t);
      }
    }
    if (title.isEmpty()) {
      return "A task needs a title: `" + prefix + "task add Fix the login page | what is wrong and where`.";
    }
    if (title.length() > TaskLimits.TITLE) {
      return "A title is at most " + TaskLimits.TITLE + " characters; put the rest in the body, after `|`.";
    }
    if (body.length() > TaskLimits.BODY) {
      return "A body is at most " + TaskLimits.BODY + " characters.";
    }
    TaskCard c = board.add(new NewTask(null, title.toString(), body.isEmpty() ? null : body, priority, labels,
        assignee, state, null, by(who)));
    return "📋 Added task `" + c.id() + "` to " + c.state().label() + ": " + inert(c.title(), TITLE_SHOWN)
        + " (" + c.priority().word() + ", for " + (c.assignee() == null ? "any ant that takes it" : inert(c.assignee().text(), 70))
        + ").";
  }

  private String list(String rest) {
    TaskState only = null;
    if (!rest.isBlank()) {
      only = TaskState.parse(rest);
      if (only == null) {
        return "`" + word(rest) + "` is not a column: backlog, todo, in_progress, in_review, done or blocked.";
      }
    }
    // One read per column: the newest changes of a busy board are mostly Done tasks, which would
    // crowd the open ones out of a single read.
    Map<TaskState, List<TaskCard>> byState = new EnumMap<>(TaskState.class);
    for (TaskState s : TaskState.values()) {
      if (only == s || (only == null && s != TaskState.DONE)) {
        List<TaskCard> in = board.list(new TaskBoard.Filter(s, null, null, null, LIST_READ));
        if (!in.isEmpty()) {
          byState.put(s, in);
        }
      }
    }
    if (byState.isEmpty()) {
      return only == null ? "📋 No open tasks. Add one: `" + prefix + "task add TITLE`."
          : "📋 No tasks in " + only.label() + ".";
    }
    StringBuilder sb = new StringBuilder("📋 Tasks").append(only == null ? " (open; `" + prefix + "tasks done` for Done)" : "");
    for (Map.Entry<TaskState, List<TaskCard>> e : byState.entrySet()) {
      List<TaskCard> in = e.getValue();
      sb.append("\n**").append(e.getKey().label()).append("** (").append(in.size())
          .append(in.size() == LIST_READ ? "+" : "").append(")");
      for (int i = 0; i < Math.min(PER_COLUMN, in.size()); i++) {
        sb.append("\n").append(line(in.get(i)));
      }
      if (in.size() > PER_COLUMN) {
        sb.append("\n… and ").append(in.size() - PER_COLUMN).append(" more: `").append(prefix).append("tasks ")
            .append(e.getKey().word()).append("`");
      }
    }
    return sb.toString();
  }

  private static String line(TaskCard c) {
    StringBuilder sb = new StringBuilder("`").append(c.id()).append("` ").append(inert(c.title(), TITLE_SHOWN));
    if (c.priority() != Priority.NORMAL) {
      sb.append(" · ").append(c.priority().word());
    }
    if (c.state() == TaskState.IN_PROGRESS && c.worker() != null) {
      sb.append(" · ").append(inert(c.worker(), 64)).append(" working");
    } else if (c.assignee() != null) {
      sb.append(" · for ").append(inert(c.assignee().text(), 70));
    }
    return sb.toString();
  }

  private String show(String rest) {
    String id = id(rest);
    if (id == null) {
      return needsId("show");
    }
    TaskCard c = board.get(id);
    if (c == null) {
      return "There is no task `" + id + "`.";
    }
    StringBuilder sb = new StringBuilder("📋 `").append(c.id()).append("` **").append(inert(c.title(), TaskLimits.TITLE))
        .append("**\n").append(c.state().label()).append(" · ").append(c.priority().word()).append(" · for ")
        .append(c.assignee() == null ? "any ant that takes it" : inert(c.assignee().text(), 70));
    if (c.worker() != null) {
      sb.append(" · worker ").append(inert(c.worker(), 64));
    }
    if (!c.labels().isEmpty()) {
      sb.append(" · labels ").append(inert(String.join(", ", c.labels()), 400));
    }
    if (c.reason() != null && !c.reason().isBlank()) {
      sb.append("\nwhy: ").append(inert(c.reason(), 300));
    }
    if (c.body() != null && !c.body().isBlank()) {
      sb.append("\n> ").append(inert(c.body(), 500));
    }
    if (c.work() != null && !c.work().commits().isEmpty()) {
      sb.append("\nwork: ").append(c.work().commits().size()).append(" commit(s) on ")
          .append(inert(String.valueOf(c.work().branch()), 100)).append(", ").append(c.work().filesChanged())
          .append(" file(s), +").append(c.work().linesAdded()).append(" -").append(c.work().linesRemoved());
    }
    List<TaskComment> comments = c.comments();
    for (TaskComment m : comments.subList(Math.max(0, comments.size() - 3), comments.size())) {
      sb.append("\n💬 ").append(inert(m.author(), 64)).append(": ").append(inert(m.text(), 200));
    }
    if (c.issueUrl() != null) {
      sb.append("\nissue: ").append(inert(c.issueUrl(), 300));
    }
    return sb.toString();
  }

  /** {@code approve|requeue|move|assign|comment ID ...}: the change, then one line saying what it did. */
  private String change(String rest, String what, Speaker who) {
    String[] w = rest.split("\\s+", 2);
    String id = id(w[0]);
    if (id == null) {
      return needsId(what);
    }
    String tail = w.length > 1 ? w[1].strip() : "";
    String by = by(who);
    TaskCard c;
    switch (what) {
      case "approve" -> c = board.approve(id, new TaskChange(by, null, null, tail.isEmpty() ? null : cut(tail, TaskLimits.COMMENT)));
      case "requeue" -> {
        if (tail.isEmpty()) {
          return "A re-queue needs a comment for the next session: `" + prefix + "task requeue " + id
              + " the tests still fail on Windows`.";
        }
        c = board.requeue(id, new TaskChange(by, null, null, cut(tail, TaskLimits.COMMENT)));
      }
      case "move" -> {
        String[] m = tail.split("\\s+", 2);
        TaskState to = TaskState.parse(m[0]);
        if (to == null) {
          return "Move `" + id + "` where? One of backlog, todo, in_progress, in_review, done, blocked.";
        }
        String reason = m.length > 1 ? cut(m[1].strip(), TaskLimits.COMMENT) : null;
        if (to == TaskState.BLOCKED && reason == null) {
          return "A move to Blocked needs a reason: `" + prefix + "task move " + id + " blocked waiting for the API key`.";
        }
        c = board.move(id, new TaskChange(by, to, null, reason));
      }
      case "assign" -> {
        if (tail.isEmpty()) {
          return "Assign `" + id + "` to whom? An ant (`alpha`), a pool (`pool:docs`), a person (`@alice`) or nobody (`-`).";
        }
        try {
          Assignee.parse(tail);
        } catch (IllegalArgumentException e) {
          return inert(e.getMessage(), 200) + ".";
        }
        c = board.assign(id, new TaskChange(by, null, tail, null));
      }
      default -> {
        if (tail.isEmpty()) {
          return "A comment needs text: `" + prefix + "task comment " + id + " use the new client`.";
        }
        c = board.comment(id, TaskChange.comment(by, cut(tail, TaskLimits.COMMENT)));
      }
    }
    return switch (what) {
      case "approve" -> "✅ `" + c.id() + "` approved by " + inert(by, 70) + ": " + c.state().label() + ".";
      case "requeue" -> "🔁 `" + c.id() + "` re-queued by " + inert(by, 70) + ": " + c.state().label() + ", with the comment.";
      case "move" -> "➡️ `" + c.id() + "` moved to " + c.state().label() + " by " + inert(by, 70) + ".";
      case "assign" -> "👤 `" + c.id() + "` is now for " + (c.assignee() == null ? "nobody" : inert(c.assignee().text(), 70)) + ".";
      default -> "💬 comment added to `" + c.id() + "`.";
    };
  }

  // ---- the buttons ----

  /** What became of a button press. */
  public enum Outcome {
    /** Approved or re-queued now. */
    DONE,
    /** Already approved, or no longer waiting for a human: nothing changed. */
    ALREADY,
    /** Refused by the board (one sentence in {@link Answer#text}). */
    FAILED
  }

  /**
   * A button's answer: what to tell the presser (ephemerally) and, when it changed the task, the
   * line that goes under the post ("✅ approved by @dana").
   */
  public record Answer(Outcome outcome, String text, String line) {}

  /** Approve (comment null) or re-queue task {@code id} from a button, pressed by {@code who}; safe to press twice. */
  public Answer press(String id, boolean approve, String comment, Speaker who) {
    if (TaskIds.ID.matcher(id == null ? "" : id).matches()) {
      String by = by(who);
      TaskCard before = board.get(id);
      if (before == null) {
        return new Answer(Outcome.FAILED, "There is no task `" + id + "` any more.", null);
      }
      if (settled(before, approve)) {
        return new Answer(Outcome.ALREADY, alreadyText(before), null);
      }
      try {
        TaskCard c = approve ? board.approve(id, new TaskChange(by, null, null, null))
            : board.requeue(id, new TaskChange(by, null, null, cut(SafeText.clean(comment), TaskLimits.COMMENT)));
        String line = approve ? "✅ approved by " + inert(by, 70) + " (" + c.state().label() + ")"
            : "🔁 re-queued by " + inert(by, 70) + ": " + inert(comment, 200);
        return new Answer(Outcome.DONE, (approve ? "✅ `" : "🔁 `") + c.id() + "` is " + c.state().label() + " now.", line);
      } catch (TaskBoardException e) {
        TaskCard now = board.get(id); // a press a moment before ours wins; ours is then a no-op
        if (now != null && settled(now, approve)) {
          return new Answer(Outcome.ALREADY, alreadyText(now), null);
        }
        return new Answer(Outcome.FAILED, "⚠️ " + sentence(e.getMessage()), null);
      }
    }
    return new Answer(Outcome.FAILED, "That button names no task.", null);
  }

  /**
   * Whether a press of Approve (or Re-queue) has nothing left to do: the task is Done (or back in
   * To Do or Backlog), or otherwise no longer waiting for a human's review.
   */
  private static boolean settled(TaskCard c, boolean approve) {
    return approve ? c.state() == TaskState.DONE
        : c.state() == TaskState.TODO || c.state() == TaskState.BACKLOG || c.state() == TaskState.DONE;
  }

  /** Whether task {@code id} still waits for a human's Approve or Re-queue (a Re-queue's modal opens only then). */
  public String notWaiting(String id) {
    TaskCard c = TaskIds.ID.matcher(id == null ? "" : id).matches() ? board.get(id) : null;
    if (c == null) {
      return "There is no task `" + (id == null ? "" : word(id)) + "` any more.";
    }
    return settled(c, false) ? alreadyText(c) : null;
  }

  private static String alreadyText(TaskCard c) {
    return "ℹ️ `" + c.id() + "` is already " + c.state().label() + "; this changes nothing.";
  }

  // ---- text ----

  /** {@code @name} of a chat user, as the board records who did what. */
  static String by(Speaker who) {
    if (who == null) {
      return "chat";
    }
    String n = who.name() == null ? "" : who.name().replaceAll("[^A-Za-z0-9._@+-]", "");
    if (n.isEmpty()) {
      n = who.id() == null ? "" : who.id().replaceAll("[^A-Za-z0-9._@+-]", "");
    }
    return "@" + (n.isEmpty() ? "someone" : SafeText.cut(n.startsWith("@") ? n.substring(1) : n, 63));
  }

  private static String id(String s) {
    String t = s == null ? "" : s.strip().toLowerCase(Locale.ROOT);
    if (t.startsWith("`") && t.endsWith("`") && t.length() > 2) {
      t = t.substring(1, t.length() - 1);
    }
    return TaskIds.ID.matcher(t).matches() ? t : null;
  }

  private String needsId(String what) {
    return "`" + prefix + "task " + what + "` needs a task id: `" + prefix + "task " + what + " k7m2qx" + "`"
        + (what.equals("show") ? "" : " …") + " (`" + prefix + "tasks` lists them).";
  }

  private static String cut(String s, int max) {
    return SafeText.cut(s, max);
  }

  /** The board's refusal as one sentence: capitalised, ended, inert. */
  static String sentence(String message) {
    String t = inert(message == null ? "the task board refused it" : message, 300);
    if (t.isEmpty()) {
      t = "the task board refused it";
    }
    t = Character.toUpperCase(t.charAt(0)) + t.substring(1);
    return t.endsWith(".") || t.endsWith("?") || t.endsWith("!") || t.endsWith("…") ? t : t + ".";
  }

  /** A word someone typed, shown back: letters, digits and a few marks, at most 40. */
  private static String word(String s) {
    String w = s.replaceAll("[^A-Za-z0-9_.:-]", "");
    return w.length() > 40 ? w.substring(0, 40) + "…" : w;
  }

  /**
   * Text from a task shown in a chat: one line, at most {@code max} characters, and inert. The
   * bridges send no mention anyway (Discord's {@code allowed_mentions} is empty, Slack's text is
   * escaped); this keeps the text from looking like one, or from breaking the reply's markup:
   * {@code @everyone} and {@code @here} get a zero-width space, mention and link brackets are
   * swapped for look-alikes, and backticks for a prime.
   */
  public static String inert(String text, int max) {
    if (text == null) {
      return "";
    }
    String t = SPACES.matcher(SafeText.clean(text)).replaceAll(" ").strip();
    t = t.replace('<', '‹').replace('>', '›').replace('`', 'ʹ');
    t = t.replaceAll("(?i)@(everyone|here|channel)", "@\u200b$1");
    if (t.length() > max) {
      t = SafeText.cut(t, Math.max(1, max - 1)) + "…";
    }
    return t;
  }
}
