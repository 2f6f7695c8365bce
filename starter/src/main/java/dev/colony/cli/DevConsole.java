package dev.colony.cli;

import dev.colony.client.Actor;
import dev.colony.client.AntSteering;
import dev.colony.client.AntVerb;
import dev.colony.client.Verbs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;

/**
 * The chat of {@code colony dev} without Discord: type {@code <ant> /pause}, {@code <ant> /status}
 * or {@code <ant> some instruction}. Same commands as the Discord channel, same signals.
 */
final class DevConsole {
  static final String HELP = """
      commands:  <ant> /pause | /resume | /status | /stats | /clear
                 <ant> /abort         drop the current task and the queue (answers a 🚨 escalation)
                 <ant> /urgent TEXT   interrupt the running session and start on TEXT now
                 <ant> /approve [id] | /deny [id]   answer a ⚙️ confirmation request
                 <ant> <any text>     queue a work instruction for the ant's next session
                 /status              all ants
                 /tasks               the task board (colony task list)
                 /task add TITLE      a task for any ant (colony task add for the options)
                 /merge               the merge queues, one line each (colony merge status)
                 /help                this help
      to stop an ant for good: colony stop ANT (here /stop does nothing: it could mean /pause)""";
  /** The ant's words, read as typed here, as in the chats; sent by {@link #steering}. */
  private static final Verbs VERBS = Verbs.typed("/");

  private final Temporal temporal;
  private final String colony;
  private final PrintStream out;
  /** Who types here, as every surface records who steered an ant. */
  private final Actor actor = new Actor(System.getProperty("user.name", "someone"), "dev console");
  /** Sends the ant's verbs; made at the first one (a test's console has no Temporal). */
  private AntSteering steering;
  /** The colony's task board, made at the first /task or /tasks; a test puts its own. */
  dev.colony.board.TaskBoard tasks;
  /** The colony's merge queues' cards, for /merge; a test puts its own. */
  java.util.function.Supplier<java.util.List<dev.colony.merge.MergeCard>> mergeCards;
  /** Whether an ant runs (a task's worker that does not is shown as gone); a test puts its own. */
  java.util.function.Predicate<String> antRunning;

  DevConsole(Temporal temporal, String colony, PrintStream out) {
    this.temporal = temporal;
    this.colony = colony;
    this.out = out;
    this.antRunning = ant -> Ants.isRunning(temporal, dev.colony.spec.AntIds.workflowId(colony, ant));
    this.mergeCards = () -> new dev.colony.client.MergeQueues(temporal.client, colony).cards();
  }

  /** {@code /merge}: one line per queue. */
  private void merge() {
    var cards = mergeCards.get();
    if (cards.isEmpty()) {
      out.println("no running merge queue (merge.repos in colony.yaml)");
      return;
    }
    cards.forEach(c -> out.println(MergeView.shortLine(c)));
  }

  private dev.colony.board.TaskBoard tasks() {
    if (tasks == null) {
      tasks = new dev.colony.board.TemporalTaskBoard(temporal.client, colony, dev.colony.task.TaskSettings.defaults());
    }
    return tasks;
  }

  /** {@code /tasks} and {@code /task add TITLE}; true when {@code line} was one of them. */
  private boolean task(String line) {
    if (line.equals("/tasks")) {
      out.print(TaskView.table(colony, tasks().list(dev.colony.board.TaskBoard.Filter.all(200)), antRunning, false,
          Instant.now()));
      return true;
    }
    if (!line.equals("/task") && !line.startsWith("/task ")) {
      return false;
    }
    String rest = line.substring("/task".length()).strip();
    if (!rest.startsWith("add ") || rest.substring(4).isBlank()) {
      out.println("colony: /task add TITLE adds a task for any ant; /tasks shows the board "
          + "(colony task ... for the rest)");
      return true;
    }
    String title = TaskCommand.Texts.checked("the title", rest.substring(4).strip(), dev.colony.task.TaskLimits.TITLE);
    var card = tasks().add(new dev.colony.task.NewTask(null, title, null, dev.colony.task.Priority.NORMAL, java.util.List.of(),
        null, dev.colony.task.TaskState.TODO, null, TaskCommand.by(System.getenv("USER"))));
    out.println(card.id() + " added to " + card.state().label());
    return true;
  }

  void run(BufferedReader in) throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      try {
        handle(line.strip());
      } catch (RuntimeException e) {
        // an update's refusal and Temporal's failures quote what an ant said
        out.println("colony: " + dev.colony.text.Printable.of(e.getMessage()));
      }
    }
  }

  void handle(String line) {
    if (line.isEmpty()) {
      return;
    }
    if (line.equals("/help") || line.equals("help")) {
      out.println(HELP);
      return;
    }
    if (line.equals("/status")) {
      out.print(StatusView.table(Ants.list(temporal, colony), Instant.now()));
      return;
    }
    if (task(line)) {
      return;
    }
    if (line.equals("/merge")) {
      merge();
      return;
    }
    if (line.startsWith("/")) {
      out.println("colony: start with the ant's name, e.g. 'worker " + line + "'; /help lists commands");
      return;
    }
    int space = line.indexOf(' ');
    if (space < 0) {
      out.println("colony: '" + line + "' needs a command or a message after the ant's name; /help lists commands");
      return;
    }
    String name = line.substring(0, space);
    String rest = line.substring(space + 1).strip();
    if (rest.equals("/help")) {
      out.println(HELP);
      return;
    }
    AntVerb verb;
    if (rest.startsWith("/")) {
      String[] parts = rest.substring(1).split("\\s+", 2);
      verb = VERBS.parse(parts[0], parts.length > 1 ? parts[1] : ""); // a refusal: "colony: " and its sentence
    } else {
      verb = VERBS.message(rest, false);
    }
    Ants.Ref ref = Ants.resolve(temporal, name, colony);
    switch (verb) {
      case AntVerb.Status s -> out.print(StatusView.detail(Ants.status(temporal, ref), null, Instant.now()));
      case AntVerb.Stats s -> out.print(StatusView.detail(Ants.status(temporal, ref), Ants.stats(temporal, ref),
          Instant.now()));
      default -> {
        if (steering == null) {
          steering = new AntSteering(temporal.client);
        }
        String sent = steering.send(ref.workflowId(), verb, actor);
        if (verb instanceof AntVerb.Send m && !Verbs.cutNote(m.text()).isEmpty()) {
          out.println(ref.ant() + ": " + sent);
        }
      }
    }
  }
}
