package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.TaskPolicy;
import dev.colony.task.Assignee;
import dev.colony.task.Priority;
import dev.colony.task.TaskReport;
import dev.colony.task.TaskWork;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ant's side of the task board (TaskDesk): take, work, report, let go; on the time-skipping environment. */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class TaskDeskTest {
  private static final String QUEUE = "test";

  private TestWorkflowEnvironment env;
  private Fakes.ScriptedSessions sessions;
  private Fakes.RecordingChat chat;
  private Fakes.FakeTasks board;
  private NotifierTest.RecordingNotify notify;
  private WorkflowClient client;

  @BeforeEach
  void setUp() {
    sessions = new Fakes.ScriptedSessions();
    chat = new Fakes.RecordingChat();
    board = new Fakes.FakeTasks();
    notify = new NotifierTest.RecordingNotify();
    env = Fakes.environment(QUEUE, sessions, chat, new Fakes.FixedWorkspace(), board, notify);
    sessions.clock = env::currentTimeMillis;
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  /** A continuous ant that takes pool "docs", sleeping an hour after a success so tests control how far it runs. */
  private static AntSpec taker(String name, boolean waitWhenIdle, int maxTries) {
    return Fakes.withPoll(Fakes.spec(name), 3600).toBuilder()
        .tasks(new TaskPolicy(List.of("docs"), waitWhenIdle, maxTries, false, 0)).build();
  }

  private AntWorkflow start(AntSpec spec) {
    return Fakes.start(client, QUEUE, spec);
  }

  private dev.colony.visibility.AntCard card(String workflowId) {
    var info = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build())
        .getWorkflowExecutionInfo();
    return dev.colony.visibility.AntCard.fromMemo(info.getMemo().getFieldsMap(), client.getOptions().getDataConverter());
  }

  private static TaskWork work() {
    return new TaskWork("colony/t", "abc1234", "def5678", List.of(new TaskWork.Commit("def5678", "Fix the docs")), 2,
        10, 3, List.of("README.md", "docs/a.md"));
  }

  @Test
  void takesTheBestCandidateAndTheSessionCarriesItsBriefThenSubmitsTheWork() {
    long now = env.currentTimeMillis();
    board.candidates.add(Fakes.FakeTasks.todo("low1", Priority.LOW, now - 60_000));
    board.candidates.add(Fakes.FakeTasks.todo("high1", Priority.HIGH, now - 1_000));
    sessions.then(() -> SessionResult.of(Outcome.SUCCESS, "Fixed the docs").withWork(work()));
    AntWorkflow ant = start(taker("t1", false, 3));

    eventually(() -> board.reports.size() == 1, "the session's report");
    var find = board.finds.get(0);
    assertEquals(List.of(Assignee.takeAnt("t1"), Assignee.takePool("docs")), find.takerTags());
    assertEquals(TaskDesk.FIND_LIMIT, find.limit());
    assertEquals(1, board.claims.size());
    assertTrue(board.claims.get(0).matches("high1 ant/test/t1/[0-9a-f-]{36}#1"), "the best candidate first, token <workflow id>/<first run id>#1: " + board.claims);
    var brief = sessions.requests.get(0).task();
    assertEquals("high1", brief.id());
    assertEquals("try the short way", brief.comments().get(0).text());
    TaskReport r = board.reports.get(0);
    assertEquals(TaskReport.Kind.SUBMITTED, r.kind());
    assertEquals("Fixed the docs", r.text());
    assertTrue(r.token().matches("ant/test/t1/[0-9a-f-]{36}#1"), r.token());
    assertEquals(work(), r.work());
    assertEquals(1, r.session().session());
    assertEquals(false, r.done());
    eventually(() -> chat.texts().stream().anyMatch(t -> t.startsWith("📋 t1 took high1 · Title of high1")), "took it");
    eventually(() -> chat.posts.stream().anyMatch(p -> "high1".equals(p.taskId())
        && p.text().contains("high1 is In Review") && p.text().contains("1 commit, 2 files, +10/-3")), "In Review post");
    eventually(() -> ant.status().taskId() == null, "the ant let the task go");
  }

  @Test
  void aRefusedClaimGoesToTheNextCandidate() {
    long now = env.currentTimeMillis();
    board.candidates.add(Fakes.FakeTasks.todo("first", Priority.HIGH, now));
    board.candidates.add(Fakes.FakeTasks.todo("second", Priority.NORMAL, now));
    board.refuse.add("first");
    CountDownLatch release = new CountDownLatch(1);
    sessions.thenBlockUntil(release, "done");
    AntWorkflow ant = start(taker("t2", false, 3));

    eventually(() -> !sessions.requests.isEmpty(), "the session");
    assertEquals(2, board.claims.size());
    // One look, one token (TakeTask): each claim of it is on another task.
    assertTrue(board.claims.get(0).matches("first ant/test/t2/[0-9a-f-]{36}#1") && board.claims.get(1).matches("second ant/test/t2/[0-9a-f-]{36}#1"), board.claims.toString());
    assertEquals(1, board.takes.size(), "find and claim in one call");
    assertEquals("second", sessions.requests.get(0).task().id());
    eventually(() -> "second".equals(ant.status().taskId()), "status shows the task");
    eventually(() -> {
      var card = card("ant/test/t2");
      return card != null && "second".equals(card.taskId()) && "Title of second".equals(card.taskTitle());
    }, "the console's card shows the task");
    release.countDown();
  }

  @Test
  void aRetriedClaimUsesTheSameToken() {
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    board.failClaims.set(1);
    start(taker("t3", false, 3));

    eventually(() -> !sessions.requests.isEmpty(), "the session");
    assertEquals(2, board.claims.size());
    assertEquals(board.claims.get(0), board.claims.get(1), "the same token again");
    assertTrue(board.claims.get(0).matches("k7m2qx ant/test/t3/[0-9a-f-]{36}#1"), board.claims.toString());
    assertEquals("k7m2qx", sessions.requests.get(0).task().id());
  }

  @Test
  void failedSessionsReportFailedThenBlockedAtMaxTriesWithANotice() {
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    sessions.then(Outcome.TRANSIENT, "crash 1").then(Outcome.TRANSIENT, "crash 2");
    AntSpec spec = taker("t4", false, 2)
        .withNotify(new dev.colony.spec.NotifySpec(600, 1, "http://localhost:8233", null, List.of(), null, null));
    start(spec);

    eventually(() -> board.reports.size() == 1, "first report");
    assertEquals(TaskReport.Kind.FAILED, board.reports.get(0).kind());
    assertEquals("crash 1", board.reports.get(0).text());
    env.sleep(Duration.ofSeconds(15)); // the backoff
    eventually(() -> board.reports.size() == 2, "second report");
    TaskReport blocked = board.reports.get(1);
    assertEquals(TaskReport.Kind.BLOCKED, blocked.kind());
    assertEquals("failed 2 sessions: crash 2", blocked.text());
    eventually(() -> chat.posts.stream().anyMatch(p -> "k7m2qx".equals(p.taskId()) && p.text().contains("is Blocked")),
        "the Blocked post with its buttons");
    eventually(() -> notify.notices.stream().anyMatch(n -> n.kind().equals("task_blocked")
        && n.text().contains("k7m2qx is Blocked")), "the phone notice");
    env.sleep(Duration.ofSeconds(30)); // the next session runs without the task
    eventually(() -> sessions.requests.size() == 3, "the third session");
    assertNull(sessions.requests.get(2).task());
    assertEquals(1, notify.notices.stream().filter(n -> n.kind().equals("task_blocked")).count(), "one notice");
  }

  @Test
  void aBlockedNoticeHeldByQuietHoursIsSentWhenTheyEnd() {
    // Quiet for three hours from the first notice on: the Blocked notice is held, then sent once.
    long[] firstAt = {0};
    notify.held = at -> {
      if (firstAt[0] == 0) {
        firstAt[0] = at;
      }
      return at < firstAt[0] + Duration.ofHours(3).toMillis() ? firstAt[0] + Duration.ofHours(3).toMillis() : 0;
    };
    board.candidates.add(Fakes.FakeTasks.todo("q1", Priority.NORMAL, env.currentTimeMillis()));
    sessions.then(Outcome.TRANSIENT, "crash 1");
    AntSpec spec = Fakes.withPoll(Fakes.spec("t9"), 3600 * 24).toBuilder()
        .tasks(new TaskPolicy(List.of("docs"), false, 1, false, 0)).build()
        .withNotify(new dev.colony.spec.NotifySpec(600, 1, "http://localhost:8233", null, List.of(), null, null));
    start(spec);
    eventually(() -> notify.notices.stream().anyMatch(n -> n.kind().equals("task_blocked")), "the held notice");
    var first = notify.notices.stream().filter(n -> n.kind().equals("task_blocked")).findFirst().orElseThrow();
    env.sleep(Duration.ofMinutes(170));
    assertEquals(1, notify.notices.stream().filter(n -> n.kind().equals("task_blocked")).count(), "held until then");
    env.sleep(Duration.ofMinutes(15));
    eventually(() -> notify.notices.stream().filter(n -> n.kind().equals("task_blocked")).count() == 2,
        "the Blocked notice when quiet hours end");
    var late = notify.notices.stream().filter(n -> n.kind().equals("task_blocked")).toList().get(1);
    assertEquals(first.need(), late.need());
    assertEquals(first.atMillis(), late.previousAtMillis(), "the held notice, not a reminder");
    env.sleep(Duration.ofHours(6));
    assertEquals(2, notify.notices.stream().filter(n -> n.kind().equals("task_blocked")).count(), "no reminders");
  }

  @Test
  void aRefusedReportLetsTheTaskGo() {
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    board.replies.add(new dev.colony.task.TaskReply(false, null, "a human moved it"));
    sessions.then(Outcome.TRANSIENT, "crash");
    AntWorkflow ant = start(taker("t9", false, 3));

    eventually(() -> board.reports.size() == 1, "the FAILED report");
    assertEquals(TaskReport.Kind.FAILED, board.reports.get(0).kind());
    eventually(() -> ant.status().taskId() == null, "let go");
    env.sleep(Duration.ofSeconds(15)); // the backoff: the next session has no task
    eventually(() -> sessions.requests.size() == 2, "the next session");
    assertNull(sessions.requests.get(1).task());
  }

  @Test
  void aParkedAntsTaskIsBlocked() {
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    sessions.then(Outcome.TRANSIENT, "boom");
    start(Fakes.withErrorPolicy(taker("t5", false, 3), new ErrorPolicy(0, 0, 1, null)));

    eventually(() -> board.reports.size() == 1, "the report");
    assertEquals(TaskReport.Kind.BLOCKED, board.reports.get(0).kind());
    assertTrue(board.reports.get(0).text().contains("parked") && board.reports.get(0).text().contains("boom"),
        board.reports.get(0).text());
  }

  @Test
  void aRateLimitReportsNothingAndAStopReleasesTheTask() {
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    sessions.then(() -> SessionResult.rateLimited("429", env.currentTimeMillis() + 3_600_000));
    AntWorkflow ant = start(taker("t6", false, 3));

    eventually(() -> ant.status().state() == Lifecycle.COOLING_DOWN, "rate limited");
    assertTrue(board.reports.isEmpty(), "a rate limit reports nothing");
    ant.stop();
    WorkflowStub.fromTyped(ant).getResult(Void.class);
    assertEquals(List.of(TaskReport.Kind.RELEASED), board.kinds());
    assertEquals("t6 was stopped", board.reports.get(0).text());
  }

  @Test
  void whenIdleWaitWaitsForATaskAndTasksWaitingWakesIt() {
    AntWorkflow ant = start(taker("t7", true, 3));

    eventually(() -> board.finds.size() == 1 && ant.status().state() == Lifecycle.WAITING, "waiting");
    assertEquals("a task", ant.status().stateReason());
    assertTrue(sessions.requests.isEmpty(), "no session without a task");
    env.sleep(Duration.ofMinutes(6));
    eventually(() -> board.finds.size() == 2, "the safety-net recheck");
    assertTrue(sessions.requests.isEmpty());
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    ant.tasksWaiting();
    eventually(() -> sessions.requests.size() == 1, "the wake took the task");
    assertEquals("k7m2qx", sessions.requests.get(0).task().id());
    // Done with it (the session succeeded): it looks for the next at once, not after its poll interval.
    eventually(() -> board.reports.size() == 1 && board.finds.size() == 4, "looked again at once");
    eventually(() -> ant.status().state() == Lifecycle.WAITING && "a task".equals(ant.status().stateReason()),
        "waiting for a task again");
    assertEquals(1, sessions.requests.size());
  }

  @Test
  void taskWithdrawnDropsTheTaskAndTheSessionFinishes() {
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    CountDownLatch release = new CountDownLatch(1);
    sessions.thenBlockUntil(release, "finished anyway");
    AntWorkflow ant = start(taker("t8", false, 3));

    eventually(() -> !sessions.requests.isEmpty(), "the session");
    ant.taskWithdrawn("other");
    eventually(() -> "k7m2qx".equals(ant.status().taskId()), "another id changes nothing");
    ant.taskWithdrawn("k7m2qx");
    eventually(() -> ant.status().taskId() == null, "dropped");
    release.countDown();
    eventually(() -> ant.status().sessions() == 1, "the session finished");
    Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
        .until(() -> board.reports.isEmpty());
  }

  @Test
  void tasksWaitingEndsACronWaitButNotABackoff() {
    AntSpec cron = Fakes.withSchedule(taker("cron", false, 3), "0 0 * * *", List.of());
    AntWorkflow ticker = start(cron);
    eventually(() -> ticker.status().state() == Lifecycle.WAITING && board.finds.size() == 1, "waiting for its tick");
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    ticker.tasksWaiting();
    eventually(() -> sessions.requests.size() == 1, "the wake ended the cron wait");
    assertEquals("k7m2qx", sessions.requests.get(0).task().id());

    sessions.then(Outcome.TRANSIENT, "crash");
    AntWorkflow failing = start(taker("failing", false, 3));
    eventually(() -> failing.status().state() == Lifecycle.COOLING_DOWN, "backing off");
    board.candidates.add(Fakes.FakeTasks.todo("p3q4rs", Priority.NORMAL, env.currentTimeMillis()));
    failing.tasksWaiting();
    Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
        .until(() -> sessions.requests.size() == 2 && failing.status().state() == Lifecycle.COOLING_DOWN);
    env.sleep(Duration.ofSeconds(15));
    eventually(() -> sessions.requests.size() == 3, "after the backoff");
    assertEquals("p3q4rs", sessions.requests.get(2).task().id());
  }

  @Test
  void anAntWithoutTasksNeverLooksAtTheBoardUnlessWoken() {
    AntWorkflow ant = start(Fakes.withPoll(Fakes.spec("plain"), 60));
    env.sleep(Duration.ofMinutes(3));
    eventually(() -> sessions.requests.size() >= 3, "several sessions");
    assertTrue(board.finds.isEmpty(), "no FindTasks");
    board.candidates.add(Fakes.FakeTasks.todo("k7m2qx", Priority.NORMAL, env.currentTimeMillis()));
    int before = sessions.requests.size();
    ant.tasksWaiting(); // a task assigned to it by name: the wake ends its poll interval
    eventually(() -> sessions.requests.size() == before + 1, "a session at once");
    assertEquals(List.of(Assignee.takeAnt("plain")), board.finds.get(0).takerTags());
    assertEquals("k7m2qx", sessions.requests.get(before).task().id());
  }
}
