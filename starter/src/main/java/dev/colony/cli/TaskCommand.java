package dev.colony.cli;

import dev.colony.board.TaskBoard;
import dev.colony.board.TaskBoardException;
import dev.colony.board.TemporalTaskBoard;
import dev.colony.task.Assignee;
import dev.colony.task.NewTask;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskChange;
import dev.colony.task.TaskIds;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskSettings;
import dev.colony.task.TaskState;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code colony task ...}: the colony's task board from a terminal. Reads come from visibility and
 * memos (no worker needed); changes are updates to the task's workflow, answered by a worker. Every
 * refusal (no such task, not in review, ...) is the board's one sentence, exit 1; a malformed word
 * (state, priority, assignee, id) is a usage error, exit 2.
 */
@Command(name = "task", mixinStandardHelpOptions = true,
    description = "The colony's task board: add tasks for ants, pools or humans, list and show them, move, "
        + "assign, comment, approve and re-queue them. Tasks are Temporal workflows (task/<colony>/<id>); "
        + "reads need no worker.",
    subcommands = {TaskCommand.Add.class, TaskCommand.ListTasks.class, TaskCommand.Show.class, TaskCommand.Move.class,
        TaskCommand.Assign.class, TaskCommand.Comment.class, TaskCommand.Approve.class, TaskCommand.Requeue.class},
    footerHeading = "%nExamples:%n",
    footer = {
        "  colony task add \"Fix the login redirect\" --priority high --label web --to pool:web",
        "  colony task add \"Write release notes\" --body-file notes.md --to alpha --backlog",
        "  colony task list --state review",
        "  colony task show k7m2qx --json",
        "  colony task move k7m2qx blocked --reason \"needs the staging password\"",
        "  colony task requeue k7m2qx --comment \"also cover the logout path\" --to beta",
        "  colony task approve k7m2qx",
        "The colony: --colony NAME, else $COLONY_COLONY (set inside a session), else the colony directory "
            + "--dir DIR (default: the current directory when it holds colony.yaml)."})
final class TaskCommand implements Runnable {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** A board to work on, the colony it belongs to, and whether an ant runs (for "(ant gone)"). */
  interface Opened extends AutoCloseable {
    TaskBoard board();

    String colony();

    boolean antRunning(String ant);

    @Override
    void close();
  }

  /** Opens the board a command works on ({@link CliContext#boards}; a test's is over an in-memory board). */
  interface Boards {
    Opened open(Common options);
  }

  /** Who a change is recorded as made by: {@code @USER} when $USER is a plain name, else {@code cli}. */
  static String by(String user) {
    return user != null && Assignee.HUMAN_NAME.matcher(user).matches() ? "@" + user : "cli";
  }

  static Opened openTemporal(Common o) {
    String colony = o.colonyName();
    TaskSettings settings = o.settings();
    Temporal t = Temporal.connect(o.temporal);
    TaskBoard board = new TemporalTaskBoard(t.client, colony, settings);
    return new Opened() {
      @Override
      public TaskBoard board() {
        return board;
      }

      @Override
      public String colony() {
        return colony;
      }

      @Override
      public boolean antRunning(String ant) {
        return Ants.isRunning(t, dev.colony.spec.AntIds.workflowId(colony, ant));
      }

      @Override
      public void close() {
        t.close();
      }
    };
  }

  /** What every task command takes: where the colony is, how to reach Temporal ({@link ColonyChoice}), and --json. */
  static final class Common extends ColonyChoice {
    @Option(names = "--json", description = "Print JSON: the task (or, for list, every task) as the board holds it.")
    boolean json;

    /**
     * The colony's task settings: they matter when a command starts a task's workflow (add, a move
     * out of Done). colony.yaml's {@code tasks:} block is read by the worker's side; the
     * defaults here ({@code ants_may_finish: false}) are the safe reading.
     */
    TaskSettings settings() {
      return TaskSettings.defaults();
    }
  }

  /** One task command: opens the board, runs, and turns the board's refusals into one line. */
  abstract static class Base implements Callable<Integer> {
    @Mixin
    Common common;

    @Spec
    CommandLine.Model.CommandSpec spec;

    /** Who a change is recorded as made by ({@link CliContext#who}). */
    String who() {
      return CliContext.of(spec).who().get();
    }

    @Override
    public final Integer call() {
      try (Opened opened = CliContext.of(spec).boards().open(common)) {
        PrintWriter out = spec.commandLine().getOut();
        run(opened, out);
        out.flush();
        return 0;
      } catch (TaskBoardException e) {
        throw new UserError(e.getMessage());
      }
    }

    abstract void run(Opened opened, PrintWriter out);

    /** The card's JSON, or {@code line} (foreign text made printable). */
    void print(PrintWriter out, Opened o, TaskCard card, String line) {
      if (common.json) {
        out.print(TaskView.json(card, Instant.now()));
      } else {
        out.println(dev.colony.text.Printable.of(line));
      }
    }
  }

  /** A command about one task: its id, checked before anything is asked. */
  abstract static class OneTask extends Base {
    @Parameters(index = "0", paramLabel = "ID", description = "The task's id (as 'colony task list' shows it).")
    String rawId;

    String id() {
      return id(rawId);
    }

    static String id(String raw) {
      String id = raw == null ? "" : raw.strip().toLowerCase(Locale.ROOT);
      if (!TaskIds.ID.matcher(id).matches()) {
        throw new UsageError("'" + dev.colony.config.Problem.printable(raw, 60)
            + "' is not a task id (lower-case letters, digits, '.', '_' and '-', as 'colony task list' shows them)");
      }
      return id;
    }

    /** The task, or the error naming what is not there. */
    TaskCard existing(Opened o) {
      TaskCard card = o.board().get(id());
      if (card == null) {
        throw new UserError(noSuchTask(id(), o.colony()));
      }
      return card;
    }
  }

  static String noSuchTask(String id, String colony) {
    return "no task '" + id + "' in colony '" + colony + "' (colony task list shows them)";
  }

  @Command(name = "add", mixinStandardHelpOptions = true,
      description = "Add a task: to To Do (ants take it), or to the Backlog with --backlog (ants leave it).",
      footerHeading = "%nExamples:%n",
      footer = {"  colony task add \"Fix the login redirect\" --priority high --label web --to pool:web",
          "  git log -1 --format=%%B | colony task add \"Follow up on the last commit\" --body-file -",
          "  colony task add \"Decide the release date\" --to @alice"})
  static final class Add extends Base {
    @Parameters(index = "0", arity = "1..*", paramLabel = "TITLE", description = "The title (words are joined).")
    List<String> title;

    @Option(names = "--body", paramLabel = "TEXT", description = "What to do, in full.")
    String body;

    @Option(names = "--body-file", paramLabel = "FILE", description = "The body from a file, or '-' for standard input.")
    String bodyFile;

    @Option(names = "--priority", paramLabel = "high|normal|low", description = "Default: normal.")
    String priority;

    @Option(names = "--label", paramLabel = "LABEL", description = "A label (repeatable); ants of a pool take "
        + "unassigned tasks with its name as a label.")
    List<String> labels = new ArrayList<>();

    @Option(names = "--to", paramLabel = "WHO", description = "An ant (alpha), a pool (pool:docs) or a human "
        + "(@alice). Default: nobody, taken by ants that take one of its labels, or '*'.")
    String to;

    @Option(names = "--backlog", description = "Put it in the Backlog, where ants leave it, instead of To Do.")
    boolean backlog;

    @Override
    void run(Opened o, PrintWriter out) {
      String t = Texts.checked("the title", String.join(" ", title).strip(), TaskLimits.TITLE);
      if (t.isEmpty()) {
        throw new UsageError("the title is empty");
      }
      if (body != null && bodyFile != null) {
        throw new UsageError("give --body or --body-file, not both");
      }
      String b = bodyFile != null ? Texts.checked("the body", Texts.read(bodyFile, CliContext.of(spec).stdin()), TaskLimits.BODY)
          : body == null ? null : Texts.checked("the body", body, TaskLimits.BODY);
      Priority p = Words.priority(priority);
      List<String> ls = Words.labels(labels);
      Assignee a = Words.assignee("--to", to);
      TaskState state = backlog ? TaskState.BACKLOG : TaskState.TODO;
      TaskCard card = o.board().add(new NewTask(null, t, b, p == null ? Priority.NORMAL : p, ls, a, state, null, who()));
      print(out, o, card, card.id() + " added to " + card.state().label()
          + (card.assignee() == null ? ", for any ant that takes " + (card.labels().isEmpty() ? "'*'"
              : "its labels (" + String.join(", ", card.labels()) + ") or '*'") : " for " + card.assignee().text()));
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "The board: tasks grouped by column (Backlog, To Do, In Progress, In Review, Blocked, Done), "
          + "newest change first. An In Progress task whose ant no longer runs is marked (ant gone).",
      footerHeading = "%nExamples:%n",
      footer = {"  colony task list", "  colony task list --state todo --label docs",
          "  colony task list --assignee pool:docs --json"})
  static final class ListTasks extends Base {
    @Option(names = "--state", paramLabel = "STATE",
        description = "Only this column: backlog, todo, in_progress, in_review, done, blocked.")
    String state;

    @Option(names = "--assignee", paramLabel = "WHO", description = "Only tasks for this ant, pool:P or @human ('-': nobody).")
    String assignee;

    @Option(names = "--label", paramLabel = "LABEL", description = "Only tasks with this label.")
    String label;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "200",
        description = "At most this many (default: ${DEFAULT-VALUE}, at most 10000).")
    int limit;

    @Override
    void run(Opened o, PrintWriter out) {
      TaskState s = state == null ? null : Words.state(state);
      String who = assignee == null ? null : assignee.strip().equals("-") ? "-" : Words.assignee("--assignee", assignee).text();
      String l = label == null ? null : Words.label(label);
      if (limit < 1 || limit > 10_000) {
        throw new UsageError("--limit must be between 1 and 10000, not " + limit);
      }
      List<TaskCard> cards = o.board().list(new TaskBoard.Filter(s, who, l, null, limit));
      Predicate<String> running = memo(o::antRunning);
      if (common.json) {
        out.print(TaskView.json(o.colony(), cards, running, Instant.now()));
      } else {
        out.print(TaskView.table(o.colony(), cards, running, s != null || who != null || l != null, Instant.now()));
      }
    }

    /** Each ant is asked about once, however many of its tasks are listed. */
    private static Predicate<String> memo(Predicate<String> p) {
      java.util.Map<String, Boolean> seen = new java.util.HashMap<>();
      return ant -> seen.computeIfAbsent(ant, p::test);
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "Everything about one task: column and since when, assignee, worker, priority, labels, body, "
          + "comments, links (issue, branch, commits, files, lines), sessions and its log.",
      footerHeading = "%nExamples:%n", footer = {"  colony task show k7m2qx", "  colony task show k7m2qx --json"})
  static final class Show extends OneTask {
    @Override
    void run(Opened o, PrintWriter out) {
      TaskCard card = existing(o);
      boolean gone = card.state() == TaskState.IN_PROGRESS && card.worker() != null && !o.antRunning(card.worker());
      if (common.json) {
        out.print(TaskView.json(card, gone, Instant.now()));
      } else {
        out.print(TaskView.detail(card, gone, Instant.now()));
      }
    }
  }

  @Command(name = "move", mixinStandardHelpOptions = true,
      description = "Move a task to another column (update 'move'). To Blocked needs --reason; out of Done the "
          + "task starts again; an ant working on it is told to stop.",
      footerHeading = "%nExamples:%n",
      footer = {"  colony task move k7m2qx todo", "  colony task move k7m2qx blocked --reason \"needs a decision on the API\""})
  static final class Move extends OneTask {
    @Parameters(index = "1", paramLabel = "STATE", description = "backlog, todo, in_progress, in_review, done or blocked.")
    String state;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why (needed for blocked); shown on the card.")
    String reason;

    @Override
    void run(Opened o, PrintWriter out) {
      String id = id();
      TaskState to = Words.state(state);
      String why = reason == null ? null : Texts.checked("the reason", reason.strip(), TaskLimits.COMMENT);
      if (to == TaskState.BLOCKED && (why == null || why.isEmpty())) {
        throw new UsageError("a move to blocked needs --reason TEXT: what the task waits for");
      }
      TaskCard card = o.board().move(id, new TaskChange(who(), to, null, why));
      print(out, o, card, id + " moved to " + card.state().label());
    }
  }

  @Command(name = "assign", mixinStandardHelpOptions = true,
      description = "Give a task to an ant, a pool or a human (update 'assign'); '-' for nobody. An ant working on "
          + "it is told to stop.",
      footerHeading = "%nExamples:%n",
      footer = {"  colony task assign k7m2qx beta", "  colony task assign k7m2qx pool:docs", "  colony task assign k7m2qx @alice"})
  static final class Assign extends OneTask {
    @Parameters(index = "1", paramLabel = "WHO", description = "alpha, pool:docs, @alice, or '-' for nobody.")
    String to;

    @Override
    void run(Opened o, PrintWriter out) {
      String id = id();
      Assignee a = Words.assignee("WHO", to);
      TaskCard card = o.board().assign(id, new TaskChange(who(), null, a == null ? "-" : a.text(), null));
      print(out, o, card, id + (card.assignee() == null ? " assigned to nobody" : " assigned to " + card.assignee().text())
          + " (" + card.state().label() + ")");
    }
  }

  @Command(name = "comment", mixinStandardHelpOptions = true,
      description = "Comment on a task (update 'comment'); the next session on it reads the comments.",
      footerHeading = "%nExamples:%n", footer = {"  colony task comment k7m2qx \"the staging password is in the vault\""})
  static final class Comment extends OneTask {
    @Parameters(index = "1..*", arity = "1..*", paramLabel = "TEXT", description = "The comment (words are joined).")
    List<String> words;

    @Override
    void run(Opened o, PrintWriter out) {
      String id = id();
      String text = Texts.checked("the comment", String.join(" ", words).strip(), TaskLimits.COMMENT);
      if (text.isEmpty()) {
        throw new UsageError("the comment is empty");
      }
      TaskCard card = o.board().comment(id, TaskChange.comment(who(), text));
      print(out, o, card, "comment added to " + id + " (" + card.comments().size() + " comment"
          + (card.comments().size() == 1 ? "" : "s") + ")");
    }
  }

  @Command(name = "approve", mixinStandardHelpOptions = true,
      description = "Approve a task In Review: it moves to Done (update 'approve').",
      footerHeading = "%nExamples:%n", footer = {"  colony task approve k7m2qx --comment \"merged, thanks\""})
  static final class Approve extends OneTask {
    @Option(names = "--comment", paramLabel = "TEXT", description = "A comment to add with the approval.")
    String comment;

    @Override
    void run(Opened o, PrintWriter out) {
      String id = id();
      String text = comment == null ? null : Texts.checked("the comment", comment.strip(), TaskLimits.COMMENT);
      TaskCard card = o.board().approve(id, new TaskChange(who(), null, null, text == null || text.isEmpty() ? null : text));
      print(out, o, card, id + " approved: " + card.state().label());
    }
  }

  @Command(name = "requeue", mixinStandardHelpOptions = true,
      description = "Send a task back to To Do with a comment the next session reads (update 'requeue'), from "
          + "In Progress, In Review or Blocked; --to gives it to someone else.",
      footerHeading = "%nExamples:%n",
      footer = {"  colony task requeue k7m2qx --comment \"the tests for logout are missing\"",
          "  colony task requeue k7m2qx --comment \"beta knows this code\" --to beta"})
  static final class Requeue extends OneTask {
    @Option(names = "--comment", required = true, paramLabel = "TEXT", description = "What to do differently.")
    String comment;

    @Option(names = "--to", paramLabel = "WHO", description = "A new assignee: alpha, pool:docs, @alice, or '-' for nobody.")
    String to;

    @Override
    void run(Opened o, PrintWriter out) {
      String id = id();
      String text = Texts.checked("the comment", comment.strip(), TaskLimits.COMMENT);
      if (text.isEmpty()) {
        throw new UsageError("--comment is empty: say what the next session should do differently");
      }
      String assignee = null;
      if (to != null) {
        Assignee a = Words.assignee("--to", to);
        assignee = a == null ? "-" : a.text();
      }
      TaskCard card = o.board().requeue(id, new TaskChange(who(), null, assignee, text));
      print(out, o, card, id + " re-queued to " + card.state().label()
          + (card.assignee() == null ? "" : " for " + card.assignee().text()));
    }
  }

  /** The words a user types for states, priorities, labels and assignees, read or refused in one line. */
  static final class Words {
    private Words() {}

    static TaskState state(String s) {
      TaskState t = TaskState.parse(s);
      if (t == null) {
        throw new UsageError("'" + dev.colony.config.Problem.printable(s, 40)
            + "' is not a column: backlog, todo, in_progress, in_review, done or blocked");
      }
      return t;
    }

    static Priority priority(String s) {
      if (s == null) {
        return null;
      }
      Priority p = Priority.parse(s);
      if (p == null) {
        throw new UsageError("--priority: '" + dev.colony.config.Problem.printable(s, 40) + "' is not high, normal or low");
      }
      return p;
    }

    static Assignee assignee(String what, String s) {
      try {
        return Assignee.parse(s);
      } catch (IllegalArgumentException e) {
        throw new UsageError(what + ": " + dev.colony.text.Printable.line(e.getMessage(), 200));
      }
    }

    static String label(String s) {
      String l = s.strip();
      if (l.isEmpty() || l.length() > TaskLimits.LABEL || l.chars().anyMatch(c -> Character.isWhitespace(c) || c == ','
          || dev.colony.text.Printable.unsafe((char) c))) {
        throw new UsageError("'" + dev.colony.config.Problem.printable(s, 40) + "' is not a label (1 to "
            + TaskLimits.LABEL + " characters, no spaces or commas)");
      }
      return l;
    }

    static List<String> labels(List<String> given) {
      List<String> out = new ArrayList<>();
      for (String g : given) {
        String l = label(g);
        if (out.stream().noneMatch(x -> x.equalsIgnoreCase(l))) {
          out.add(l);
        }
      }
      if (out.size() > TaskLimits.LABELS) {
        throw new UsageError("a task takes at most " + TaskLimits.LABELS + " labels, not " + out.size());
      }
      return out;
    }
  }

  /** Text a person gives: read, checked to be text, and within its bound. */
  static final class Texts {
    private Texts() {}

    /**
     * {@code text} when it is text within {@code max} characters; else one sentence naming
     * {@code what}. A NUL or other control character (a binary file) is refused, not cleaned away.
     */
    static String checked(String what, String text, int max) {
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (Character.isISOControl(c) && c != '\n' && c != '\t' && c != '\r') {
          throw new UserError(what + " is not text: it holds the control character "
              + dev.colony.text.Printable.escaped(c) + " at position " + (i + 1) + " (a binary file?)");
        }
      }
      if (text.length() > max) {
        throw new UserError(String.format("%s is %,d characters; a task takes at most %,d", what, text.length(), max));
      }
      return text.replace("\r\n", "\n");
    }

    /** A file's text (or standard input's, for '-'), read within a bound and decoded as UTF-8 strictly. */
    static String read(String file, java.util.function.Supplier<InputStream> stdin) {
      // A body of BODY characters is at most 4 bytes each; one byte more says "too long".
      int bound = TaskLimits.BODY * 4 + 1;
      byte[] bytes;
      String name = file.equals("-") ? "standard input" : file;
      try (InputStream in = file.equals("-") ? stdin.get() : Files.newInputStream(dev.colony.secrets.Invocation.resolve(Path.of(file)))) {
        bytes = in.readNBytes(bound);
      } catch (java.nio.file.NoSuchFileException e) {
        throw new UserError("--body-file: no file " + dev.colony.config.Problem.printable(file, 200));
      } catch (IOException | java.nio.file.InvalidPathException e) {
        throw new UserError("--body-file: cannot read " + dev.colony.config.Problem.printable(name, 200) + ": "
            + dev.colony.config.Problem.printable(String.valueOf(e.getMessage()), 200));
      }
      if (bytes.length >= bound) {
        throw new UserError(String.format("--body-file: %s is over %,d bytes; a task's body takes at most %,d characters",
            dev.colony.config.Problem.printable(name, 200), bound - 1, TaskLimits.BODY));
      }
      try {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
      } catch (CharacterCodingException e) {
        throw new UserError("--body-file: " + dev.colony.config.Problem.printable(name, 200)
            + " is not UTF-8 text (a binary file?)");
      }
    }
  }
}
