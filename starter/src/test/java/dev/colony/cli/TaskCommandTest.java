package dev.colony.cli;

import dev.colony.board.FakeTaskBoard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.board.TaskBoard;
import dev.colony.task.Assignee;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskComment;
import dev.colony.task.TaskEvent;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskSessionLink;
import dev.colony.task.TaskState;
import dev.colony.task.TaskWork;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code colony task ...} over an in-memory board: what each subcommand prints, its JSON, and every refusal. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TaskCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private final FakeTaskBoard board = new FakeTaskBoard("acme");
  /** When the tasks a test puts were last changed: one time, so the board lists them in the order they were put. */
  private final long now = System.currentTimeMillis();

  {
    board.newId = n -> "k7m2q" + "xyzabc".charAt((n - 1) % 6); // ids as the real board writes them
  }
  private final Set<String> running = new java.util.HashSet<>(Set.of("alpha"));
  private final List<String> asked = new java.util.ArrayList<>();
  /** What a command reads from standard input (--body-file -). */
  private String stdin = "";
  /** The commands' world: the board in memory, @tester, {@link #stdin}. */
  private final CliContext context = CliContext.standard()
      .withBoards(options -> {
        String colony = options.colonyName(); // the real resolution: --colony, $COLONY_COLONY or --dir
        return new TaskCommand.Opened() {
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
            asked.add(ant);
            return running.contains(ant);
          }

          @Override
          public void close() {}
        };
      })
      .withWho(() -> "@tester")
      .withStdin(() -> new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));

  record Result(int code, String out, String err) {}

  Result run(String... args) {
    CommandLine cl = ColonyCli.commandLine(args, context);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /** Same, with {@code --colony acme} after the subcommand's words. */
  Result task(String... args) {
    String[] all = new String[args.length + 3];
    all[0] = "task";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "--colony";
    all[args.length + 2] = "acme";
    return run(all);
  }

  /** A failure: the exit code, nothing on stdout, one line on stderr, no stack trace. */
  private static void fails(Result r, int code, String message) {
    assertEquals(code, r.code(), r.out() + r.err());
    assertEquals("", r.out());
    assertTrue(r.err().startsWith("colony: "), r.err());
    assertTrue(r.err().contains(message), r.err());
    assertEquals(1, r.err().lines().count(), "one line: " + r.err());
    assertFalse(r.err().contains("\tat "), r.err());
  }

  /** Picocli's own usage errors (an unknown word, a missing option): exit 2, the reason first, then the usage. */
  private static void usage(Result r, String message) {
    assertEquals(2, r.code(), r.out() + r.err());
    assertEquals("", r.out());
    assertTrue(r.err().startsWith(message), r.err());
    assertFalse(r.err().contains("\tat "), r.err());
  }

  private TaskCard put(String id, String title, TaskState state, Assignee a, String worker, List<String> labels) {
    long t = now - 3_600_000;
    TaskCard c = new TaskCard("acme", id, title, "the body", Priority.NORMAL, labels, a, state,
        state == TaskState.BLOCKED ? "needs the staging password" : null, worker, null, 0, t, t, t, List.of(), null,
        null, List.of(), List.of());
    board.tasks.put(id, c);
    return c;
  }

  // ---- add ----

  @Test
  void addPrintsTheIdAndWhereItWent() {
    Result r = task("add", "Fix", "the", "login", "redirect", "--to", "pool:docs", "--priority", "high",
        "--label", "web", "--label", "ui");
    assertEquals(0, r.code(), r.err());
    assertEquals("k7m2qx added to To Do for pool:docs\n", r.out());
    TaskCard c = board.get("k7m2qx");
    assertEquals("Fix the login redirect", c.title());
    assertEquals(Priority.HIGH, c.priority());
    assertEquals(List.of("web", "ui"), c.labels());
    assertEquals(Assignee.pool("docs"), c.assignee());
    assertEquals(TaskState.TODO, c.state());
    assertEquals(List.of("add k7m2qx by @tester: Fix the login redirect"), board.changes);

    Result backlog = task("add", "Someday", "--backlog", "--label", "docs");
    assertEquals("k7m2qy added to Backlog, for any ant that takes its labels (docs) or '*'\n", backlog.out());
    assertEquals("k7m2qz added to To Do for @alice\n", task("add", "Decide", "--to", "@alice").out());
  }

  @Test
  void addReadsTheBodyFromAFileOrStandardInput() throws Exception {
    Path f = tmp.resolve("body.md");
    Files.writeString(f, "Line one\r\nLine two é\n");
    assertEquals(0, task("add", "From a file", "--body-file", f.toString()).code());
    assertEquals("Line one\nLine two é\n", board.get("k7m2qx").body());
    stdin = "piped body";
    assertEquals(0, task("add", "From stdin", "--body-file", "-").code());
    assertEquals("piped body", board.get("k7m2qy").body());
  }

  @Test
  void addJsonIsTheNewCard() throws Exception {
    Result r = task("add", "A task", "--body", "do it", "--label", "docs", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode n = JSON.readTree(r.out());
    assertEquals("k7m2qx", n.path("id").asText());
    assertEquals("acme", n.path("colony").asText());
    assertEquals("todo", n.path("state").asText());
    assertEquals("To Do", n.path("column").asText());
    assertEquals("normal", n.path("priority").asText());
    assertEquals("docs", n.path("labels").get(0).asText());
    assertTrue(n.path("assignee").isNull());
    assertEquals("do it", n.path("body").asText());
    assertTrue(n.path("createdAt").asText().endsWith("Z"), n.toString());
    assertTrue(n.path("comments").isArray() && n.path("sessions").isArray() && n.path("log").isArray());
  }

  @Test
  void addRefusesBadInputInOneLine() throws Exception {
    fails(task("add", "T", "--priority", "urgentest"), 2, "--priority: 'urgentest' is not high, normal or low");
    fails(task("add", "T", "--to", "pool:bad name"), 2, "--to: 'bad name' is not a name for a pool");
    fails(task("add", "T", "--to", "al/pha"), 2, "is not a name for an ant");
    fails(task("add", "T", "--label", "two words"), 2, "'two words' is not a label");
    fails(task("add", " "), 2, "the title is empty");
    fails(task("add", "T", "--body", "b", "--body-file", "-"), 2, "give --body or --body-file, not both");
    fails(task("add", "x".repeat(TaskLimits.TITLE + 1)), 1, "the title is 201 characters; a task takes at most 200");
    fails(task("add", "T", "--body", "y".repeat(TaskLimits.BODY + 1)), 1, "the body is 20,001 characters");
    Path bin = tmp.resolve("a.out");
    Files.write(bin, new byte[] {0x7f, 'E', 'L', 'F', 0, 1, 2});
    fails(task("add", "T", "--body-file", bin.toString()), 1, "the body is not text: it holds the control character");
    Path latin1 = tmp.resolve("latin1.txt");
    Files.write(latin1, new byte[] {'c', 'a', 'f', (byte) 0xe9});
    fails(task("add", "T", "--body-file", latin1.toString()), 1, "is not UTF-8 text");
    fails(task("add", "T", "--body-file", tmp.resolve("missing.md").toString()), 1, "--body-file: no file");
    Path big = tmp.resolve("big.txt");
    Files.write(big, new byte[TaskLimits.BODY * 4 + 10]);
    fails(task("add", "T", "--body-file", big.toString()), 1, "is over 80,000 bytes");
    fails(task("add", "T", "--label", "a", "--label", "b", "--label", "c", "--label", "d", "--label", "e",
        "--label", "f", "--label", "g", "--label", "h", "--label", "i", "--label", "j", "--label", "k"), 2,
        "a task takes at most 10 labels, not 11");
    assertTrue(board.tasks.isEmpty(), "nothing was added");
  }

  @Test
  void theColonyMustBeKnown() throws Exception {
    if (System.getenv("COLONY_COLONY") == null) { // inside a session the variable names the colony
      fails(run("task", "list"), 2, "which colony? Give --colony NAME, or --dir DIR");
    }
    Path dir = tmp.resolve("c");
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("colony.yaml"), "name: fromdir\n");
    Result r = run("task", "list", "--dir", dir.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals("colony 'fromdir' has no tasks (add one: colony task add TITLE)\n", r.out());
    Result missing = run("task", "list", "--dir", tmp.resolve("nowhere").toString());
    assertEquals(1, missing.code());
    assertTrue(missing.err().contains("not a directory"), missing.err());
  }

  // ---- list ----

  @Test
  void listGroupsByColumnAndMarksTasksWhoseAntIsGone() {
    put("aaaaaa", "Write the README", TaskState.TODO, Assignee.pool("docs"), null, List.of("docs"));
    put("bbbbbb", "Fix the flaky test in the payment service that fails on Mondays", TaskState.IN_PROGRESS,
        Assignee.ant("alpha"), "alpha", List.of());
    put("cccccc", "Port the build", TaskState.IN_PROGRESS, null, "beta", List.of("build", "ci"));
    put("dddddd", "Rotate keys", TaskState.BLOCKED, Assignee.human("alice"), null, List.of());
    Result r = task("list");
    assertEquals(0, r.code(), r.err());
    String out = r.out();
    assertTrue(out.indexOf("To Do (1)") < out.indexOf("In Progress (2)"), out);
    assertTrue(out.indexOf("In Progress (2)") < out.indexOf("Blocked (1)"), out);
    assertTrue(out.contains("aaaaaa  normal  Write the README"), out);
    assertTrue(out.contains("pool:docs"), out);
    assertTrue(out.contains("Fix the flaky test in the payment servi…"), "title cut at 40: " + out);
    assertTrue(out.lines().anyMatch(l -> l.contains("bbbbbb") && l.contains("alpha ") && !l.contains("gone")), out);
    assertTrue(out.lines().anyMatch(l -> l.contains("cccccc") && l.contains("beta (ant gone)") && l.contains("build,ci")), out);
    assertTrue(out.contains("blocked: needs the staging password"), out);
    assertTrue(out.lines().anyMatch(l -> l.contains("aaaaaa") && l.endsWith("1h")), "age: " + out);
    assertFalse(out.contains("Done"), out);
    assertEquals(List.of("alpha", "beta"), asked, "each worker asked about once, no other ant");
  }

  @Test
  void listFiltersAndJson() throws Exception {
    put("aaaaaa", "Docs", TaskState.TODO, Assignee.pool("docs"), null, List.of("docs"));
    put("bbbbbb", "Code", TaskState.IN_PROGRESS, null, "gamma", List.of());
    Result r = task("list", "--state", "In Progress", "--assignee", "-", "--label", "x", "--limit", "5");
    assertEquals(0, r.code(), r.err());
    assertEquals(new TaskBoard.Filter(TaskState.IN_PROGRESS, "-", "x", null, 5), board.lastFilter);
    assertEquals("no task of colony 'acme' matches\n", r.out());
    task("list", "--assignee", "POOL:Docs".replace("POOL", "pool"));
    assertEquals("pool:docs", board.lastFilter.assignee());

    JsonNode n = JSON.readTree(task("list", "--json").out());
    assertEquals("acme", n.path("colony").asText());
    assertEquals(2, n.path("count").asInt());
    JsonNode code = n.path("tasks").get(0).path("id").asText().equals("bbbbbb") ? n.path("tasks").get(0) : n.path("tasks").get(1);
    assertEquals("in_progress", code.path("state").asText());
    assertEquals("gamma", code.path("worker").asText());
    assertTrue(code.path("antGone").asBoolean());
  }

  @Test
  void listRefusesBadWords() {
    fails(task("list", "--state", "finished"), 2, "'finished' is not a column: backlog, todo, in_progress");
    fails(task("list", "--limit", "0"), 2, "--limit must be between 1 and 10000");
    fails(task("list", "--assignee", "@"), 2, "is not a name for a human");
    usage(task("list", "--limit", "many"), "Invalid value for option '--limit': 'many' is not an int");
  }

  // ---- show ----

  @Test
  void showPrintsEverything() throws Exception {
    long t = now - 600_000;
    board.tasks.put("k7m2qx", new TaskCard("acme", "k7m2qx", "Fix \u001b[31mlogin", "Steps:\n1. open\n2. log in",
        Priority.HIGH, List.of("web", "ui"), Assignee.pool("web"), TaskState.IN_REVIEW, null, "alpha", "tok", 1, t, t, t,
        List.of(new TaskComment("@alice", "cover logout too", t)), "https://github.com/acme/app/issues/7",
        new TaskWork("colony/alpha", "aaaaaaaaaa", "bbbbbbbbbb", List.of(new TaskWork.Commit("bbbbbbbbbb", "Fix login")),
            2, 40, 3, List.of("src/Login.java", "src/LoginTest.java")),
        List.of(new TaskSessionLink("alpha", 12, "success", "fixed the redirect", 0.42, t)),
        List.of(new TaskEvent(t, "cli", "created in To Do"), new TaskEvent(t, "alpha", "moved to In Review"))));
    Result r = task("show", "K7M2QX");
    assertEquals(0, r.code(), r.err());
    String out = r.out();
    for (String s : List.of("k7m2qx  Fix \\u001b[31mlogin", "state:     In Review since", "assignee:  pool:web",
        "worker:    alpha (last worked on it)", "priority:  high", "labels:    web, ui",
        "issue:     https://github.com/acme/app/issues/7", "attempts:  1 failed session",
        "branch:    colony/alpha  (aaaaaaa..bbbbbbb)", "changes:   1 commit, 2 files, +40 -3", "bbbbbbb  Fix login",
        "src/LoginTest.java", "    2. log in", "comments (1):", "@alice, 10m ago:", "      cover logout too",
        "alpha #12  success  $0.42", "fixed the redirect", "moved to In Review (alpha)")) {
      assertTrue(out.contains(s), s + " in:\n" + out);
    }
    assertFalse(out.contains("\u001b"), "no raw escape reaches the terminal");

    JsonNode n = JSON.readTree(task("show", "k7m2qx", "--json").out());
    assertEquals("in_review", n.path("state").asText());
    assertEquals("pool:web", n.path("assignee").asText());
    assertEquals(40, n.path("work").path("linesAdded").asInt());
    assertEquals("bbbbbbbbbb", n.path("work").path("commits").get(0).path("sha").asText());
    assertEquals("@alice", n.path("comments").get(0).path("author").asText());
    assertEquals(12, n.path("sessions").get(0).path("session").asInt());
    assertEquals(2, n.path("log").size());
    assertFalse(n.path("antGone").asBoolean());
  }

  @Test
  void showMarksAGoneWorker() {
    put("aaaaaa", "Code", TaskState.IN_PROGRESS, null, "gamma", List.of());
    assertTrue(task("show", "aaaaaa").out().contains("worker:    gamma (ant gone)"));
    put("bbbbbb", "Code", TaskState.IN_PROGRESS, null, "alpha", List.of());
    assertTrue(task("show", "bbbbbb").out().contains("worker:    alpha (working)"));
  }

  @Test
  void anUnknownOrMalformedIdIsOneLine() {
    fails(task("show", "nope42"), 1, "no task 'nope42' in colony 'acme' (colony task list shows them)");
    fails(task("show", "no/such"), 2, "'no/such' is not a task id");
    // a change of a task that is not there: the board's own sentence
    fails(task("move", "nope42", "done"), 1, "there is no task nope42 in colony acme");
    fails(task("approve", "nope42"), 1, "there is no task nope42 in colony acme");
    fails(task("assign", "nope42", "alpha"), 1, "there is no task nope42 in colony acme");
    fails(task("comment", "nope42", "hi"), 1, "there is no task nope42 in colony acme");
    fails(task("requeue", "nope42", "--comment", "again"), 1, "there is no task nope42 in colony acme");
  }

  // ---- changes ----

  @Test
  void moveAssignCommentApproveRequeue() throws Exception {
    put("aaaaaa", "Code", TaskState.TODO, null, null, List.of());
    assertEquals("aaaaaa moved to In Review\n", task("move", "aaaaaa", "review").out());
    assertEquals("aaaaaa assigned to beta (In Review)\n", task("assign", "aaaaaa", "beta").out());
    assertEquals("comment added to aaaaaa (1 comment)\n", task("comment", "aaaaaa", "looks", "good").out());
    assertEquals("aaaaaa re-queued to To Do for pool:docs\n",
        task("requeue", "aaaaaa", "--comment", "cover logout", "--to", "pool:docs").out());
    assertEquals("aaaaaa assigned to nobody (To Do)\n", task("assign", "aaaaaa", "-").out());
    task("move", "aaaaaa", "in_review");
    assertEquals("aaaaaa approved: Done\n", task("approve", "aaaaaa", "--comment", "merged").out());
    assertEquals(List.of("move aaaaaa to in_review by @tester", "assign aaaaaa to beta by @tester",
        "comment aaaaaa by @tester: looks good", "requeue aaaaaa by @tester to pool:docs: cover logout",
        "assign aaaaaa to - by @tester", "move aaaaaa to in_review by @tester", "approve aaaaaa by @tester: merged"),
        board.changes);
    // a Done task takes no assignment: the workflow's own sentence
    fails(task("assign", "aaaaaa", "beta"), 1, "task aaaaaa is Done");

    JsonNode n = JSON.readTree(task("move", "aaaaaa", "blocked", "--reason", "waits for a key", "--json").out());
    assertEquals("blocked", n.path("state").asText());
    assertEquals("waits for a key", n.path("reason").asText());
    n = JSON.readTree(task("comment", "aaaaaa", "note", "--json").out());
    assertEquals("note", n.path("comments").get(n.path("comments").size() - 1).path("text").asText());
    n = JSON.readTree(task("requeue", "aaaaaa", "--comment", "again", "--json").out());
    assertEquals("todo", n.path("state").asText());
    n = JSON.readTree(task("assign", "aaaaaa", "@bob", "--json").out());
    assertEquals("@bob", n.path("assignee").asText());
    task("move", "aaaaaa", "in_review");
    n = JSON.readTree(task("approve", "aaaaaa", "--json").out());
    assertEquals("done", n.path("state").asText());
  }

  @Test
  void refusedChangesAreOneLine() {
    put("aaaaaa", "Code", TaskState.TODO, null, null, List.of());
    fails(task("approve", "aaaaaa"), 1, "aaaaaa is To Do, not In Review: only a task in review can be approved");
    fails(task("requeue", "aaaaaa", "--comment", "x"), 1, "task aaaaaa is already To Do");
    fails(task("move", "aaaaaa", "todo"), 1, "task aaaaaa is already To Do");
    fails(task("move", "aaaaaa", "blocked"), 2, "a move to blocked needs --reason TEXT");
    fails(task("move", "aaaaaa", "sideways"), 2, "'sideways' is not a column");
    fails(task("assign", "aaaaaa", "pool:"), 2, "WHO: '' is not a name for a pool");
    usage(task("requeue", "aaaaaa"), "Missing required option: '--comment=TEXT'");
    fails(task("requeue", "aaaaaa", "--comment", " "), 2, "--comment is empty");
    fails(task("comment", "aaaaaa", "c".repeat(TaskLimits.COMMENT + 1)), 1, "the comment is 4,001 characters");
    fails(task("comment", "aaaaaa", "bell\u0007"), 1, "the comment is not text: it holds the control character \\u0007");
    fails(task("move", "aaaaaa", "blocked", "--reason", "r".repeat(TaskLimits.COMMENT + 1)), 1, "the reason is 4,001");
    assertTrue(board.changes.stream().noneMatch(c -> c.startsWith("comment")), "no refused comment reached the board");
  }

  @Test
  void helpHasExamples() {
    Result r = run("task", "--help");
    assertEquals(0, r.code());
    for (String sub : List.of("add", "list", "show", "move", "assign", "comment", "approve", "requeue")) {
      assertTrue(r.out().contains("  " + sub + " "), sub + " in " + r.out());
      Result s = run("task", sub, "--help");
      assertEquals(0, s.code(), sub);
      assertTrue(s.out().contains("Examples:"), sub + ": " + s.out());
    }
    assertTrue(r.out().contains("colony task add \"Fix the login redirect\""), r.out());
    usage(run("task", "frobnicate"), "Unmatched argument at index 1: 'frobnicate'");
  }

  @Test
  void theDevConsoleAddsAndListsTasks() throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    DevConsole console = new DevConsole(null, "acme", new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8));
    console.tasks = board;
    console.antRunning = running::contains;
    put("bbbbbb", "Port the build", TaskState.IN_PROGRESS, null, "beta", List.of());
    console.run(new java.io.BufferedReader(new java.io.StringReader(
        "/task add Write the changelog\n/tasks\n/task\n/task add " + "x".repeat(TaskLimits.TITLE + 1) + "\n")));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(out.startsWith("k7m2qx added to To Do\n"), out);
    assertEquals("Write the changelog", board.get("k7m2qx").title());
    assertTrue(out.contains("To Do (1)") && out.contains("beta (ant gone)"), out);
    assertTrue(out.contains("colony: /task add TITLE adds a task for any ant"), out);
    assertTrue(out.contains("colony: the title is 201 characters"), out);
    assertEquals(1, board.tasks.values().stream().filter(c -> c.state() == TaskState.TODO).count());
  }

  @Test
  void whoIsTheUserOrTheCli() {
    assertEquals("@alice", TaskCommand.by("alice"));
    assertEquals("cli", TaskCommand.by(null));
    assertEquals("cli", TaskCommand.by("a b"));
    assertNull(Assignee.parse("-"));
  }
}
