package dev.colony.chat.impl;

import dev.colony.board.FakeTaskBoard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.task.Assignee;
import dev.colony.task.Priority;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The task words in a chat and the task buttons, on an in-memory board. */
@Timeout(20)
class ChatTasksTest {
  private static final Speaker DANA = new Speaker("U1", "dana", Set.of("OPS"), Set.of(), false);
  private static final Speaker EVE = new Speaker("U2", "eve", Set.of(), Set.of(), false);
  private static final Speaker ADA = new Speaker("U3", "ada", Set.of(), Set.of(), true);

  private record Policy(Map<String, List<String>> ops) implements OperatorPolicy {
    @Override
    public List<String> operatorsOf(String ant) {
      return ops.getOrDefault(ant, List.of());
    }

    @Override
    public boolean replyToStrangers() {
      return true;
    }
  }

  private final FakeTaskBoard board = new FakeTaskBoard();
  private final ChannelCommands commands = new ChannelCommands(null, "c", new Policy(Map.of("alpha", List.of("OPS"),
      "beta", List.of("OPS"))), "/", "react", board);
  private final List<String> alpha = List.of("alpha");

  private String say(Speaker who, List<String> here, String line) {
    return commands.onText(here, who, line);
  }

  @Test
  void addReadsTitleBodyAndTokensAndAnAntsChannelMeansThatAnt() {
    String r = say(DANA, alpha, "/task add Fix the login page priority:high label:auth label:UI | It fails | on Safari");
    assertEquals("📋 Added task `t1` to To Do: Fix the login page (high, for alpha).", r);
    TaskCard c = board.get("t1");
    assertEquals("It fails | on Safari", c.body());
    assertEquals(Priority.HIGH, c.priority());
    assertEquals(List.of("auth", "ui"), c.labels());
    assertEquals(Assignee.ant("alpha"), c.assignee());
    assertEquals("add t1 by @dana: Fix the login page", board.changes.get(0));

    say(DANA, alpha, "/task add Write docs to:pool:docs state:backlog");
    assertEquals(Assignee.pool("docs"), board.get("t2").assignee());
    assertEquals(TaskState.BACKLOG, board.get("t2").state());
    say(DANA, alpha, "/task add Anyone to:-");
    assertNull(board.get("t3").assignee());
    say(DANA, List.of("alpha", "beta"), "/task add Shared channel");
    assertNull(board.get("t4").assignee(), "several ants here: nobody by default");
    say(DANA, alpha, "/task add Review it to:@alice");
    assertEquals(Assignee.human("alice"), board.get("t5").assignee());

    assertTrue(say(DANA, alpha, "/task add priority:high").startsWith("A task needs a title"));
    assertTrue(say(DANA, alpha, "/task add x priority:asap").startsWith("`priority:` takes high, normal or low"));
    assertTrue(say(DANA, alpha, "/task add x to:al\"pha").contains("is not a name for an ant"));
    assertTrue(say(DANA, alpha, "/task add " + "x".repeat(201)).startsWith("A title is at most 200"));
    assertTrue(say(DANA, alpha, "/task add x label:<b>").contains("is not a label"));
    assertEquals(5, board.list(dev.colony.board.TaskBoard.Filter.all(100)).size());
  }

  @Test
  void echoedTitlesMentionNobodyAndHostileTextIsCleaned() {
    String r = say(DANA, alpha, "/task add @everyone look <@123> at `this` @here\u0007 <!channel>");
    assertFalse(r.contains("@everyone") || r.contains("@here") || r.contains("<@") || r.contains("<!"), r);
    assertTrue(r.contains("@\u200beveryone"), r);
    assertFalse(board.get("t1").title().contains("\u0007"), "controls are dropped before the board");
    String list = say(DANA, alpha, "/tasks");
    assertFalse(list.contains("@everyone") || list.contains("<@"), list);
    // A speaker's odd name becomes a plain @handle.
    say(new Speaker("U9", "d<a>n a`@everyone", Set.of("OPS"), Set.of(), false), alpha, "/task add y");
    assertTrue(board.changes.getLast().endsWith("by @dan@everyone: y") || board.changes.getLast().endsWith("by @dana@everyone: y"),
        board.changes.getLast());
  }

  @Test
  void tasksListsByColumnBoundedAndShowTellsOneTask() {
    for (int i = 0; i < 12; i++) {
      board.put("a" + i, "todo " + i, TaskState.TODO, "alpha");
    }
    board.put("r1", "review me", TaskState.IN_REVIEW, "alpha");
    board.put("d1", "done one", TaskState.DONE, null);
    String list = say(EVE, List.of("gamma"), "/tasks");
    assertTrue(list.contains("**To Do** (12)"), list);
    assertTrue(list.contains("… and 4 more: `/tasks todo`"), list);
    assertTrue(list.contains("**In Review** (1)\n`r1` review me · for alpha"), list);
    assertFalse(list.contains("done one"), list);
    assertTrue(list.indexOf("To Do") < list.indexOf("In Review"), "columns in board order");
    assertTrue(say(EVE, List.of("gamma"), "/tasks done").contains("`d1` done one"));
    assertTrue(say(EVE, List.of("gamma"), "/tasks nonsense").startsWith("`nonsense` is not a column"));
    assertTrue(say(EVE, List.of("gamma"), "/task show r1").startsWith("📋 `r1` **review me**\nIn Review · normal · for alpha"));
    assertEquals("There is no task `zz9`.", say(EVE, List.of("gamma"), "/task show zz9"));
    // However full the board, a reply fits one Discord message.
    for (TaskState s : TaskState.values()) {
      for (int i = 0; i < 10; i++) {
        board.put(s.word() + i, "x".repeat(200), s, "pool:" + "p".repeat(60));
      }
    }
    String full = say(EVE, List.of("gamma"), "/tasks");
    assertTrue(full.length() <= 1900 && full.endsWith("(cut: `tasks STATE` lists one column)"), full.length() + ": " + full);
    assertTrue(say(EVE, List.of("gamma"), "/task show").contains("needs a task id"));
  }

  @Test
  void changesGoToTheBoardAndRefusalsAreOneSentence() {
    board.put("r1", "review me", TaskState.IN_REVIEW, "alpha");
    board.put("r2", "again", TaskState.IN_REVIEW, "alpha");
    assertEquals("✅ `r1` approved by @dana: Done.", say(DANA, alpha, "/task approve r1"));
    // the board's own sentence: a Done task's run is over
    assertEquals("⚠️ Task r1 is Done: move it to To Do to reopen it.", say(DANA, alpha, "/task approve r1"));
    assertTrue(say(DANA, alpha, "/task requeue r2").startsWith("A re-queue needs a comment"));
    assertTrue(say(DANA, alpha, "/task requeue r2 tests still fail").startsWith("🔁 `r2` re-queued by @dana: To Do"));
    assertEquals("requeue r2 by @dana: tests still fail", board.changes.getLast());
    assertTrue(say(DANA, alpha, "/task move r2 blocked").startsWith("A move to Blocked needs a reason"));
    assertEquals("➡️ `r2` moved to Blocked by @dana.", say(DANA, alpha, "/task move r2 blocked no API key"));
    assertEquals("No API key".toLowerCase(), board.get("r2").reason().toLowerCase());
    assertEquals("👤 `r2` is now for pool:docs.", say(DANA, alpha, "/task assign r2 pool:docs"));
    assertTrue(say(DANA, alpha, "/task assign r2 bad\"name").contains("is not a name for an ant"));
    assertEquals("💬 comment added to `r2`.", say(DANA, alpha, "/task comment r2 use the new client"));
    assertEquals("⚠️ There is no task nope in colony hello.", say(DANA, alpha, "/task comment nope hi"));
    assertTrue(say(DANA, alpha, "/task frob r2").startsWith("Unknown task word `frob`"));
    assertTrue(say(DANA, alpha, "/task").contains("/task add TITLE"));
    assertTrue(commands.help().contains("`/task approve ID`") && commands.help().contains("`/tasks [STATE]`"), commands.help());
  }

  @Test
  void onlyOperatorsChangeTasksAndWithoutOperatorsOnlyAdministratorsDecide() {
    board.put("r1", "review me", TaskState.IN_REVIEW, "alpha");
    assertEquals("⛔ Only the colony's operators can command these ants.", say(EVE, alpha, "/task add sneaky"));
    assertEquals("⛔ Only the colony's operators can command these ants.", say(EVE, alpha, "/task approve r1"));
    assertEquals(0, board.changes.size());
    // gamma has no operators: anyone adds, only an Administrator approves gamma's work.
    List<String> gamma = List.of("gamma");
    board.put("g0", "gamma's work", TaskState.IN_REVIEW, "gamma");
    assertTrue(say(EVE, gamma, "/task add open door").startsWith("📋 Added"));
    assertEquals("⛔ eve: only the colony's operators can approve or re-queue tasks (no operators are configured: "
        + "Administrators only).", say(EVE, gamma, "/task approve g0"));
    assertTrue(say(EVE, gamma, "/task move g0 done").startsWith("⛔ eve"));
    assertTrue(say(ADA, gamma, "/task approve g0").startsWith("✅ `g0` approved by @ada"));
    // alpha's task stays alpha's operators' to decide, even from gamma's channel
    assertTrue(say(ADA, gamma, "/task approve r1").startsWith("⛔"), "an Administrator is not alpha's operator");
  }

  @Test
  void buttonsApproveOnceRequeueWithACommentAndRefuseStrangers() {
    board.put("r1", "review me", TaskState.IN_REVIEW, "alpha");
    board.put("b1", "blocked", TaskState.BLOCKED, "alpha");
    ChatTasks.Answer refused = commands.pressTask(alpha, "r1", true, null, EVE);
    assertEquals(ChatTasks.Outcome.FAILED, refused.outcome());
    assertTrue(refused.text().startsWith("⛔ eve: only the colony's operators"), refused.text());
    assertEquals(TaskState.IN_REVIEW, board.get("r1").state());

    ChatTasks.Answer ok = commands.pressTask(alpha, "r1", true, null, DANA);
    assertEquals(ChatTasks.Outcome.DONE, ok.outcome());
    assertEquals("✅ approved by @dana (Done)", ok.line());
    ChatTasks.Answer twice = commands.pressTask(alpha, "r1", true, null, DANA);
    assertEquals(ChatTasks.Outcome.ALREADY, twice.outcome());
    assertEquals("ℹ️ `r1` is already Done; this changes nothing.", twice.text());
    assertEquals(1, board.changes.stream().filter(c -> c.startsWith("approve")).count());

    assertEquals(ChatTasks.Outcome.FAILED, commands.pressTask(alpha, "b1", false, " ", DANA).outcome());
    assertNull(commands.taskNotWaiting("b1"));
    ChatTasks.Answer rq = commands.pressTask(alpha, "b1", false, "try the @everyone fix", DANA);
    assertEquals("🔁 re-queued by @dana: try the @\u200beveryone fix", rq.line());
    assertEquals(ChatTasks.Outcome.ALREADY, commands.pressTask(alpha, "b1", false, "again", DANA).outcome());
    assertTrue(commands.taskNotWaiting("b1").contains("already To Do"));
    assertEquals(ChatTasks.Outcome.FAILED, commands.pressTask(alpha, "../etc", true, null, DANA).outcome());
    assertEquals(ChatTasks.Outcome.FAILED, commands.pressTask(alpha, "gone", true, null, DANA).outcome());
  }

  @Test
  void anOperatorOfOneAntCannotDecideOnAnotherAntsTaskAndControlCharactersHideNoDecision() {
    ChannelCommands mixed = new ChannelCommands(null, "c", new Policy(Map.of("alpha", List.of("OPS"),
        "gamma", List.of("GAMMA-OPS"))), "/", "react", board);
    board.put("g1", "Gamma's work", TaskState.IN_REVIEW, "gamma");
    // dana operates alpha, not gamma: from alpha's channel she cannot approve gamma's task, by word or button
    String r = mixed.onText(alpha, DANA, "/task approve g1");
    assertTrue(r.startsWith("⛔"), r);
    assertEquals(TaskState.IN_REVIEW, board.get("g1").state());
    assertEquals(ChatTasks.Outcome.FAILED, mixed.pressTask(alpha, "g1", true, null, DANA).outcome());
    assertEquals(TaskState.IN_REVIEW, board.get("g1").state());

    // In the channel of an ant with no operators anyone may talk, but only Administrators decide:
    // a control character inside "done" does not hide a move to Done from that check.
    List<String> free = List.of("free");
    board.put("f1", "Free work", TaskState.IN_REVIEW, "free");
    String moved = mixed.onText(free, EVE, "/task move f1 do\u0085ne");
    assertTrue(moved.startsWith("⛔"), moved);
    assertEquals(TaskState.IN_REVIEW, board.get("f1").state());
    assertFalse(mixed.onText(free, ADA, "/task move f1 do\u0085ne").startsWith("⛔"), "an Administrator may");
    assertEquals(TaskState.DONE, board.get("f1").state());
  }
}
