package dev.colony.task;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.task.TaskFakes.RecordingTasks;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A task's life on Temporal's time-skipping test environment: each update, each refusal, the timers. */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class TaskWorkflowTest {
  private TestWorkflowEnvironment env;
  private RecordingTasks tasks;
  private WorkflowClient client;

  @BeforeEach
  void setUp() {
    tasks = new RecordingTasks();
    env = TaskFakes.environment(tasks);
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private TaskWorkflow start(NewTask t) {
    return TaskFakes.start(client, t, TaskSettings.defaults());
  }

  private static TaskChange by(String text) {
    return new TaskChange("@alice", null, null, text);
  }

  /** The sentence a refused update answers with. */
  private static String refusal(Runnable update) {
    WorkflowUpdateException e = assertThrows(WorkflowUpdateException.class, update::run);
    assertTrue(e.getCause() instanceof ApplicationFailure, "refused with " + e.getCause());
    return ((ApplicationFailure) e.getCause()).getOriginalMessage();
  }

  private List<String> tagsOf(String id) {
    var d = client.newUntypedWorkflowStub(TaskIds.workflowId(TaskFakes.COLONY, id)).describe();
    return d.getTypedSearchAttributes().get(TaskSearchAttributes.TAGS);
  }

  private String stateAttributeOf(String id) {
    var d = client.newUntypedWorkflowStub(TaskIds.workflowId(TaskFakes.COLONY, id)).describe();
    return d.getTypedSearchAttributes().get(TaskSearchAttributes.STATE);
  }

  private TaskCard memoOf(String id) {
    var d = client.newUntypedWorkflowStub(TaskIds.workflowId(TaskFakes.COLONY, id)).describe();
    return d.getMemo(TaskCard.MEMO_KEY, TaskCard.class, TaskCard.class);
  }

  @Test
  void aTaskGoesFromToDoThroughWorkReviewAndRequeueToDoneAndItsWorkflowCompletes() {
    TaskWorkflow t = start(TaskFakes.task("life01", "Fix the docs", List.of("docs"), null));
    eventually(() -> tasks.announced.size() == 1, "announced on entering To Do");
    assertEquals(List.of("take:any", "take:pool:docs"), tasks.announced.get(0));
    assertEquals("todo", stateAttributeOf("life01"));

    ClaimResult taken = t.claim(TaskFakes.claim("alpha", "ant/test/alpha#1", List.of("docs")));
    assertTrue(taken.taken());
    assertEquals("Fix the docs", taken.brief().title());
    assertEquals("ant/test/alpha#1", taken.brief().token());
    assertEquals("in_progress", stateAttributeOf("life01"));
    assertTrue(tagsOf("life01").contains("worker:alpha"), "the worker's tag while In Progress: " + tagsOf("life01"));

    var link = new TaskSessionLink("alpha", 3, "transient", "the build broke", 0.1, env.currentTimeMillis());
    TaskReply failed = t.report(new TaskReport(TaskReport.Kind.FAILED, "alpha", "ant/test/alpha#1", "crash", link, null, false));
    assertTrue(failed.accepted());
    assertEquals(TaskState.IN_PROGRESS, failed.state());
    assertEquals(1, t.task().attempts());
    assertEquals(3, t.task().sessions().get(0).session());

    var work = new TaskWork("colony/alpha", "abc", "def", List.of(new TaskWork.Commit("def", "docs: fix")), 1, 3, 1,
        List.of("README.md"));
    TaskReply submitted = t.report(new TaskReport(TaskReport.Kind.SUBMITTED, "alpha", "ant/test/alpha#1",
        "fixed the docs", null, work, false));
    assertEquals(TaskState.IN_REVIEW, submitted.state(), "ants may not finish: In Review, not Done");
    assertEquals("def", memoOf("life01").work().head());
    assertFalse(tagsOf("life01").contains("worker:alpha"), "no worker tag once out of In Progress");

    TaskCard requeued = t.requeue(by("also fix the links"));
    assertEquals(TaskState.TODO, requeued.state());
    assertEquals("also fix the links", requeued.comments().get(requeued.comments().size() - 1).text());
    eventually(() -> tasks.announced.size() == 2, "announced again on re-queue");

    ClaimResult again = t.claim(TaskFakes.claim("alpha", "ant/test/alpha#2", List.of("docs")));
    assertEquals("abc", again.brief().baseCommit(), "the same ant goes on from the task's base");
    assertTrue(again.brief().comments().stream().anyMatch(c -> c.text().equals("also fix the links")),
        "the re-queue's comment reaches the next prompt");
    t.report(new TaskReport(TaskReport.Kind.SUBMITTED, "alpha", "ant/test/alpha#2", "links fixed", null, null, false));
    TaskCard done = t.approve(by("thanks"));
    assertEquals(TaskState.DONE, done.state());
    WorkflowStub.fromTyped(t).getResult(Void.class); // Done completes the workflow
    assertEquals("done", stateAttributeOf("life01"));
    assertEquals(TaskState.DONE, memoOf("life01").state());
  }

  @Test
  void blockedAndReleasedReportsMoveTheTaskAndNameWhy() {
    TaskWorkflow t = start(TaskFakes.task("block1", "Deploy", List.of(), Assignee.ant("alpha")));
    t.claim(TaskFakes.claim("alpha", "tok1", List.of()));
    TaskReply blocked = t.report(new TaskReport(TaskReport.Kind.BLOCKED, "alpha", "tok1", "needs the prod password",
        null, null, false));
    assertEquals(TaskState.BLOCKED, blocked.state());
    assertEquals("needs the prod password", t.task().reason());

    t.move(new TaskChange("cli", TaskState.TODO, null, null));
    t.claim(TaskFakes.claim("alpha", "tok2", List.of()));
    TaskReply released = t.report(new TaskReport(TaskReport.Kind.RELEASED, "alpha", "tok2", "alpha was stopped",
        null, null, false));
    assertEquals(TaskState.TODO, released.state());
    assertEquals("alpha was stopped", t.task().reason());
    assertNull(t.task().claimToken());
  }

  @Test
  void everyChangeThatDoesNotFitIsRefusedWithASentenceAndLeavesNoHistory() {
    TaskWorkflow t = start(TaskFakes.task("refuse", "Refusals", List.of("docs"), null));
    eventually(() -> !tasks.announced.isEmpty(), "started");
    long eventsBefore = client.fetchHistory(TaskIds.workflowId(TaskFakes.COLONY, "refuse")).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED).count();

    assertEquals("task refuse is To Do, not In Review: only a task in review can be approved",
        refusal(() -> t.approve(by(null))));
    assertEquals("task refuse is already To Do", refusal(() -> t.requeue(by("again"))));
    assertEquals("a move to Blocked needs a reason",
        refusal(() -> t.move(new TaskChange("cli", TaskState.BLOCKED, null, " "))));
    assertEquals("task refuse is already To Do", refusal(() -> t.move(new TaskChange("cli", TaskState.TODO, null, null))));
    assertEquals("only an ant takes a task In Progress: move it to To Do and assign it to the ant",
        refusal(() -> t.move(new TaskChange("cli", TaskState.IN_PROGRESS, null, null))));
    assertEquals("a move names the column to move to (backlog, todo, in_review, done or blocked)",
        refusal(() -> t.move(new TaskChange("cli", null, null, null))));
    assertEquals("'bad name' is not a name for an ant (letters, digits, '.', '_' and '-', up to 64)",
        refusal(() -> t.assign(new TaskChange("cli", null, "bad name", null))));
    assertEquals("task refuse is already assigned to nobody", refusal(() -> t.assign(new TaskChange("cli", null, "-", null))));
    assertEquals("a comment needs a text", refusal(() -> t.comment(by("  "))));
    assertEquals("a comment has 4001 characters, at most 4000 are allowed",
        refusal(() -> t.comment(by("x".repeat(4001)))));
    assertEquals("task refuse is not for beta (it is for ants that take docs or *)",
        refusal(() -> t.claim(TaskFakes.claim("beta", "b#1", List.of("backend")))));
    assertEquals("a claim names its ant and its token", refusal(() -> t.claim(new Claim("beta", null, List.of()))));
    assertEquals("task refuse is no longer held by this claim (it is To Do)",
        refusal(() -> t.report(new TaskReport(TaskReport.Kind.SUBMITTED, "beta", "b#1", "done", null, null, false))));

    t.claim(TaskFakes.claim("alpha", "a#1", List.of("docs")));
    assertEquals("task refuse is In Progress (taken by alpha), not To Do",
        refusal(() -> t.claim(TaskFakes.claim("beta", "b#2", List.of("*")))));
    assertEquals("a re-queue needs a comment saying what to do differently", refusal(() -> t.requeue(by(""))));
    assertEquals("task refuse is no longer held by this claim (it is In Progress)",
        refusal(() -> t.report(new TaskReport(TaskReport.Kind.SUBMITTED, "alpha", "a#0", "old", null, null, false))));
    t.move(new TaskChange("cli", TaskState.BACKLOG, null, null));
    assertEquals("task refuse is in the Backlog, not yet worked on: move it to To Do instead",
        refusal(() -> t.requeue(by("go"))));

    long accepted = client.fetchHistory(TaskIds.workflowId(TaskFakes.COLONY, "refuse")).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED).count();
    assertEquals(eventsBefore + 2, accepted, "only the claim and the move are in the history");
  }

  @Test
  void twoAntsClaimingAtOnceOneWinsAndTheOtherIsToldWhy() throws Exception {
    TaskWorkflow t = start(TaskFakes.task("race01", "Contested", List.of(), null));
    eventually(() -> !tasks.announced.isEmpty(), "started");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<String>> results = new ArrayList<>();
    for (String ant : List.of("alpha", "beta")) {
      TaskWorkflow stub = client.newWorkflowStub(TaskWorkflow.class, TaskIds.workflowId(TaskFakes.COLONY, "race01"));
      Callable<String> claim = () -> {
        go.await();
        try {
          return stub.claim(TaskFakes.claim(ant, ant + "#1", List.of("*"))).taken() ? "won " + ant : "lost";
        } catch (WorkflowUpdateException e) {
          return "refused: " + ((ApplicationFailure) e.getCause()).getOriginalMessage();
        }
      };
      results.add(pool.submit(claim));
    }
    go.countDown();
    List<String> outcomes = new ArrayList<>();
    for (Future<String> f : results) {
      outcomes.add(f.get());
    }
    pool.shutdown();
    assertEquals(1, outcomes.stream().filter(o -> o.startsWith("won")).count(), outcomes.toString());
    String winner = outcomes.stream().filter(o -> o.startsWith("won")).findFirst().orElseThrow().substring(4);
    assertTrue(outcomes.contains("refused: task race01 is In Progress (taken by " + winner + "), not To Do"),
        outcomes.toString());
    assertEquals(winner, t.task().worker());
  }

  @Test
  void aClaimRepeatedWithItsTokenAnswersTheSameBrief() {
    TaskWorkflow t = start(TaskFakes.task("again1", "Retry me", List.of(), Assignee.ant("alpha")));
    ClaimResult first = t.claim(TaskFakes.claim("alpha", "ant/test/alpha#7", List.of()));
    ClaimResult retried = t.claim(TaskFakes.claim("alpha", "ant/test/alpha#7", List.of()));
    assertTrue(retried.taken());
    assertEquals(first.brief(), retried.brief());
    assertEquals(1, t.task().log().stream().filter(e -> e.what().startsWith("moved to In Progress")).count(),
        "taken once");
  }

  @Test
  void itsOwnAntRestartedWithoutItsMemoryTakesItBackAndNoOtherAntCan() {
    TaskWorkflow t = start(TaskFakes.task("again2", "Mine still", List.of("docs"), null));
    t.claim(TaskFakes.claim("alpha", "ant/test/alpha#1", List.of("docs")));
    // alpha's run was terminated and started afresh: its new claim has a new token.
    ClaimResult again = t.claim(TaskFakes.claim("alpha", "ant/test/alpha#1-fresh", List.of("docs")));
    assertTrue(again.taken(), String.valueOf(again.why()));
    assertEquals("ant/test/alpha#1-fresh", again.brief().token());
    assertEquals("alpha", t.task().worker());
    // The old claim's report is refused now; the new one's is accepted.
    String old = refusal(() -> t.report(new TaskReport(TaskReport.Kind.FAILED, "alpha", "ant/test/alpha#1", "old", null,
        null, false)));
    assertTrue(old.contains("no longer held by this claim"), old);
    assertTrue(t.report(new TaskReport(TaskReport.Kind.FAILED, "alpha", "ant/test/alpha#1-fresh", "new", null, null,
        false)).accepted());
    String refused = refusal(() -> t.claim(TaskFakes.claim("beta", "ant/test/beta#1", List.of("docs"))));
    assertTrue(refused.contains("taken by alpha"), refused);
  }

  @Test
  void anInProgressTaskWhoseAntIsGoneGoesBackToToDo() {
    TaskWorkflow t = TaskFakes.start(client, TaskFakes.task("gone01", "Orphan", List.of(), null),
        new TaskSettings(false, 600));
    t.claim(TaskFakes.claim("alpha", "a#1", List.of("*")));
    env.sleep(Duration.ofMinutes(11));
    eventually(() -> tasks.askedRunning.size() == 1, "the first gone check, while alpha runs");
    assertEquals(TaskState.IN_PROGRESS, t.task().state());
    tasks.antsRun.set(false);
    int announcedBefore = tasks.announced.size();
    env.sleep(Duration.ofMinutes(10));
    eventually(() -> t.task().state() == TaskState.TODO, "re-queued after the second check");
    assertEquals("alpha is gone", t.task().reason());
    eventually(() -> tasks.announced.size() == announcedBefore + 1, "announced again");
    assertEquals("todo", stateAttributeOf("gone01"));
  }

  @Test
  void anInProgressTaskWhoseRunningAntNoLongerHoldsItGoesBackToToDoAndItsAntIsToldAgain() {
    // Assigned to alpha by name; alpha's report was lost and it let the task go, but it still runs.
    TaskWorkflow t = TaskFakes.start(client, TaskFakes.task("lost01", "Lost report", List.of(),
        Assignee.parse("alpha")), new TaskSettings(false, 600));
    t.claim(TaskFakes.claim("alpha", "a#1", List.of()));
    env.sleep(Duration.ofMinutes(11));
    eventually(() -> tasks.askedRunning.size() == 1, "the first check, while alpha holds it");
    assertEquals(TaskState.IN_PROGRESS, t.task().state());
    tasks.antsHold.set(false);
    int announcedBefore = tasks.announced.size();
    env.sleep(Duration.ofMinutes(10));
    eventually(() -> tasks.askedRunning.size() == 2, "the second check: one miss");
    assertEquals(TaskState.IN_PROGRESS, t.task().state(), "one miss may be a claim not yet read");
    env.sleep(Duration.ofMinutes(10));
    eventually(() -> t.task().state() == TaskState.TODO, "back to To Do within two checks of the loss");
    assertTrue(t.task().reason().startsWith("alpha no longer works on it"), t.task().reason());
    eventually(() -> tasks.announced.size() == announcedBefore + 1, "announced again");
    assertEquals(List.of(Assignee.takeAnt("alpha")), tasks.announced.get(tasks.announced.size() - 1),
        "its ant (by name) is told to look again");
  }

  @Test
  void aHumanTakingAnInProgressTaskAwayTellsItsAnt() {
    TaskWorkflow t = start(TaskFakes.task("take01", "Mine now", List.of(), Assignee.ant("alpha")));
    t.claim(TaskFakes.claim("alpha", "a#1", List.of()));
    t.comment(by("a comment does not take it away"));
    TaskCard moved = t.assign(new TaskChange("@alice", null, "beta", null));
    assertEquals(TaskState.TODO, moved.state());
    assertEquals("reassigned to beta", moved.reason());
    eventually(() -> tasks.withdrawn.equals(List.of("alpha take01 a#1")), "alpha was told, with its claim");
    eventually(() -> !tasks.announced.isEmpty()
        && tasks.announced.get(tasks.announced.size() - 1).equals(List.of("take:ant:beta")),
        "announced to beta: " + tasks.announced);
    t.claim(TaskFakes.claim("beta", "b#1", List.of()));
    t.move(new TaskChange("cli", TaskState.BLOCKED, null, "waiting for the vendor"));
    eventually(() -> tasks.withdrawn.equals(List.of("alpha take01 a#1", "beta take01 b#1")), "beta was told");
  }

  @Test
  void aHumansTaskIsAnnouncedToNoAntAndNoAntMayClaimIt() {
    TaskWorkflow t = start(TaskFakes.task("human1", "For Alice", List.of("docs"), Assignee.human("alice")));
    assertEquals("task human1 is not for alpha (it is assigned to the human @alice)",
        refusal(() -> t.claim(TaskFakes.claim("alpha", "a#1", List.of("*", "docs")))));
    t.comment(by("sync"));
    assertTrue(tasks.announced.isEmpty());
  }

  @Test
  void aLongHistoryContinuesAsNewAndTheCardGoesOn() {
    TaskWorkflow t = start(TaskFakes.task("long01", "Chatty", List.of("docs"), null));
    String firstRun = client.newUntypedWorkflowStub(TaskIds.workflowId(TaskFakes.COLONY, "long01")).describe()
        .getExecution().getRunId();
    t.claim(TaskFakes.claim("alpha", "a#1", List.of("docs")));
    for (int i = 0; i < 320; i++) {
      t.comment(by("comment " + i));
    }
    eventually(() -> !client.newUntypedWorkflowStub(TaskIds.workflowId(TaskFakes.COLONY, "long01")).describe()
        .getExecution().getRunId().equals(firstRun), "continued as new");
    TaskCard card = t.task();
    assertEquals("Chatty", card.title());
    assertEquals(TaskState.IN_PROGRESS, card.state());
    assertEquals("a#1", card.claimToken());
    assertEquals(TaskLimits.COMMENTS, card.comments().size());
    assertEquals("comment 319", card.comments().get(card.comments().size() - 1).text());
    TaskReply r = t.report(new TaskReport(TaskReport.Kind.SUBMITTED, "alpha", "a#1", "done", null, null, false));
    assertTrue(r.accepted(), "the claim holds across the new run");
    assertNotEquals(firstRun, client.newUntypedWorkflowStub(TaskIds.workflowId(TaskFakes.COLONY, "long01")).describe()
        .getExecution().getRunId());
  }

  @Test
  void colonyUpgradeMovesATaskToANewRunWithItsCard() {
    TaskWorkflow t = start(TaskFakes.task("upgr01", "Pinned", List.of(), Assignee.pool("docs")));
    t.claim(TaskFakes.claim("alpha", "a#1", List.of("docs")));
    var stub = client.newUntypedWorkflowStub(TaskIds.workflowId(TaskFakes.COLONY, "upgr01"));
    String firstRun = stub.describe().getExecution().getRunId();
    t.upgrade();
    eventually(() -> !stub.describe().getExecution().getRunId().equals(firstRun), "continued as new");
    assertEquals("a#1", t.task().claimToken());
    assertEquals(Assignee.pool("docs"), t.task().assignee());
    assertEquals(TaskState.IN_PROGRESS, t.task().state());
  }

  @Test
  void antsMayFinishWhenTheColonySaysSo() {
    // The ant's policy carries colony.yaml's ants_may_finish: its report says done, whatever the
    // settings the task was started with (a surface starts tasks with the defaults).
    TaskWorkflow t = TaskFakes.start(client, TaskFakes.task("fin001", "Small", List.of(), null), TaskSettings.defaults());
    t.claim(TaskFakes.claim("alpha", "a#1", List.of("*")));
    TaskReply r = t.report(new TaskReport(TaskReport.Kind.SUBMITTED, "alpha", "a#1", "done", null, null, true));
    assertEquals(TaskState.DONE, r.state());
    WorkflowStub.fromTyped(t).getResult(Void.class);
  }

  @Test
  void textIsCleanedAndBoundedOnEntry() {
    TaskWorkflow t = start(new NewTask("clean1", "Title\u001b[2J " + "t".repeat(300), "b\u0000ody", Priority.HIGH,
        List.of("Docs", "bad label!", "docs"), null, TaskState.BACKLOG, "javascript:alert(1)", "cli"));
    TaskCard c = t.task();
    assertEquals(TaskLimits.TITLE, c.title().length());
    assertFalse(c.title().contains("\u001b"));
    assertEquals("body", c.body());
    assertEquals(List.of("docs"), c.labels());
    assertNull(c.issueUrl());
    assertEquals(TaskState.BACKLOG, c.state());
    assertTrue(tasks.announced.isEmpty(), "ants ignore the Backlog");

    t.move(new TaskChange("cli", TaskState.TODO, null, null));
    t.claim(TaskFakes.claim("alpha", "a#1", List.of("docs")));
    var work = new TaskWork("colony/alpha", "abc", "def", List.of(new TaskWork.Commit("def", "\u001b]0;x" + "s".repeat(400))),
        1, 1, 0, List.of("a\u0007.md"));
    t.report(new TaskReport(TaskReport.Kind.FAILED, "alpha", "a#1", "r".repeat(5000), null, work, false));
    TaskWork kept = t.task().work();
    assertEquals(200, kept.commits().get(0).subject().length());
    assertFalse(kept.commits().get(0).subject().contains("\u001b"));
    assertEquals(List.of("a.md"), kept.files());
    assertTrue(t.task().log().get(t.task().log().size() - 1).what().length() < 300, "the failure's text is cut");
  }
}
