package dev.colony.ant;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.merge.BranchHead;
import dev.colony.merge.ItemState;
import dev.colony.merge.LandMode;
import dev.colony.merge.Landed;
import dev.colony.merge.MergeActivities;
import dev.colony.merge.MergeDeskActivities;
import dev.colony.merge.MergeNews;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.RebaseResult;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.merge.TargetUpdate;
import dev.colony.merge.TestRun;
import dev.colony.merge.Undeclared;
import dev.colony.spec.AntSpec;
import dev.colony.spec.NotifySpec;
import dev.colony.spec.WorkspaceSpec;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ant's side of its repository's merge queue (MergeDesk), on the time-skipping environment
 * with a recording queue: it submits after a session that went well, waits for the ant whose
 * current work holds its paths, moves its branch after a landing, and runs a rework as a session of
 * its own (never cutting the running session, never reporting a task).
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class MergeDeskTest {
  private static final String QUEUE = "test";

  private TestWorkflowEnvironment env;
  private Fakes.ScriptedSessions sessions;
  private Fakes.RecordingChat chat;
  private RecordingQueue queue;
  private RecordingGit git;
  private NotifierTest.RecordingNotify notify;
  private Fakes.FakeTasks board;
  private WorkflowClient client;

  /** The queue as an ant calls it: records submissions and claims; refuses claims while {@link #holder} is set. */
  static final class RecordingQueue implements MergeDeskActivities {
    final List<Submission> submissions = new CopyOnWriteArrayList<>();
    final List<PathClaim> claims = new CopyOnWriteArrayList<>();
    final List<String> releases = new CopyOnWriteArrayList<>();
    volatile String holder;
    /** While set, a claim fails as when the queue cannot be reached. */
    volatile boolean unreachable;

    @Override
    public SubmitReply submit(MergeRepo repo, Submission s) {
      submissions.add(s);
      return new SubmitReply(s.ant() + "-" + submissions.size(), ItemState.QUEUED, 1, "queued");
    }

    @Override
    public PathReply claimPaths(MergeRepo repo, PathClaim claim) {
      claims.add(claim);
      if (unreachable) {
        throw io.temporal.failure.ApplicationFailure.newNonRetryableFailure("queue unreachable", "Unreachable");
      }
      String h = holder;
      return h == null ? PathReply.grant() : new PathReply(false, h, List.of("src/**"));
    }

    @Override
    public void releasePaths(MergeRepo repo, String ant) {
      releases.add(ant);
    }

    @Override
    public void finishTask(String colony, String taskId, String comment) {}

    @Override
    public void reworkTask(String colony, String taskId, String ant, String comment) {}

    @Override
    public void taskInRework(String colony, String taskId, String comment, boolean review) {}

    @Override
    public Map<String, dev.colony.task.TaskState> taskStates(String colony, List<String> taskIds) {
      return Map.of();
    }
  }

  /** Only SyncBranch is the ant's: recorded. */
  static final class RecordingGit implements MergeActivities {
    final List<String> syncs = new CopyOnWriteArrayList<>();
    final List<String> reads = new CopyOnWriteArrayList<>();
    /** The files the ant's branch changed against the target, as PublishBranch reads them. */
    volatile List<String> changed = List.of();

    @Override
    public String syncBranch(AntSpec spec, String landedFrom, String landedTo) {
      syncs.add(spec.name() + " " + landedFrom + " " + landedTo);
      return "reset onto " + landedTo;
    }

    @Override
    public BranchHead publishBranch(MergeRepo repo, String ant, String branch, String since, String approved) {
      reads.add(ant + " " + branch + " " + since + " " + approved);
      return new BranchHead("h1", "b0", 1, changed, "refs/heads/" + branch);
    }

    @Override
    public String prepareScratch(MergeRepo repo) {
      throw new UnsupportedOperationException();
    }

    @Override
    public RebaseResult rebase(MergeRepo repo, BranchHead branch, String onto, String message) {
      throw new UnsupportedOperationException();
    }

    @Override
    public TestRun runTests(MergeRepo repo, String head) {
      throw new UnsupportedOperationException();
    }

    @Override
    public TargetUpdate updateTarget(MergeRepo repo, String expected, String head) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String openPullRequest(MergeRepo repo, String ant, String branch, String head, String title, String body) {
      throw new UnsupportedOperationException();
    }
  }

  @BeforeEach
  void setUp() {
    sessions = new Fakes.ScriptedSessions();
    chat = new Fakes.RecordingChat();
    queue = new RecordingQueue();
    git = new RecordingGit();
    notify = new NotifierTest.RecordingNotify();
    board = new Fakes.FakeTasks();
    env = Fakes.environment(QUEUE, sessions, chat, new Fakes.FixedWorkspace(), queue, git, notify, board);
    sessions.clock = env::currentTimeMillis;
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private static MergeRepo repo(boolean review) {
    return new MergeRepo("test", "app", "/tmp/repo", "main", LandMode.REBASE, List.of("./test.sh"), 60, false, review,
        3, 3600, "/tmp", "/tmp/scratch", null, null);
  }

  private static AntSpec ant(String name, boolean review, List<String> touches) {
    return ant(name, touches, repo(review));
  }

  private static AntSpec ant(String name, List<String> touches, MergeRepo repo) {
    return Fakes.withPoll(Fakes.spec(name), 3600).toBuilder()
        .workspace(new WorkspaceSpec("/tmp/ws", "/tmp/repo", null, null, touches))
        .merge(repo)
        .build();
  }

  private static MergeRepo repo(Undeclared undeclared) {
    MergeRepo r = repo(false);
    return new MergeRepo(r.colony(), r.name(), r.repo(), r.target(), r.land(), r.test(), r.testTimeoutSeconds(),
        r.push(), r.review(), r.maxTries(), r.agingSeconds(), r.colonyDir(), r.scratchDir(), r.githubRepo(),
        r.githubTokenVar(), undeclared);
  }

  /**
   * undeclared: changed (the default): an ant that declares no paths claims nothing before its
   * session, and its submission carries the files its branch changed, read on its host first.
   */
  @Test
  void anAntThatDeclaresNoPathsSubmitsTheFilesItsBranchChanged() {
    git.changed = List.of("src/api/users.java", "docs/guide.md");
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("alpha", false, List.of()));
    eventually(() -> queue.submissions.size() == 1, "the submission");
    assertEquals(List.of("src/api/users.java", "docs/guide.md"), queue.submissions.get(0).changed(),
        "its work holds what it changed");
    assertEquals(List.of("alpha colony/alpha null null"), git.reads, "read against the target, on its host");
    assertTrue(queue.claims.isEmpty(), "it cannot say what it will change: no claim before the session");
    ant.stop();
  }

  /** An ant that declares paths: its claim is held with its work; its submission carries no files. */
  @Test
  void anAntThatDeclaresPathsSubmitsNoChangedFiles() {
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("beta", false, List.of("src/**")));
    eventually(() -> queue.submissions.size() == 1, "the submission");
    assertEquals(null, queue.submissions.get(0).changed());
    assertTrue(git.reads.isEmpty(), git.reads.toString());
    ant.stop();
  }

  /**
   * undeclared: everything: an ant that declares no paths claims ** before each session, so it never
   * works alongside another ant's unlanded work, and waits (saying for whom) while any is held.
   */
  @Test
  void withUndeclaredEverythingAnAntThatDeclaresNoPathsClaimsEverythingFirst() {
    queue.holder = "beta";
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("gamma", List.of(), repo(Undeclared.EVERYTHING)));
    eventually(() -> queue.claims.size() == 1, "the claim");
    assertEquals(List.of("**"), queue.claims.get(0).globs());
    assertEquals(Boolean.TRUE, queue.claims.get(0).undeclared(), "the queue learns it declares no paths");
    eventually(() -> "paths held by beta: src/**".equals(ant.status().stateReason()), "status says for whom");
    assertTrue(sessions.requests.isEmpty(), "no session while beta's work is unlanded");
    queue.holder = null;
    ant.mergeNews(new MergeNews(MergeNews.Kind.PATHS_FREE, "app", null, null, null, List.of(), "main"));
    eventually(() -> queue.submissions.size() == 1, "the session ran and its work was submitted");
    assertEquals(null, queue.submissions.get(0).changed(), "its claim of ** is held with its work");
    assertTrue(git.reads.isEmpty(), git.reads.toString());
    ant.stop();
    eventually(() -> queue.releases.contains("gamma"), "a stop gives the claim back");
  }

  @Test
  void aSessionThatWentWellSubmitsTheAntsBranch() {
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("alpha", false, List.of()));

    eventually(() -> queue.submissions.size() == 1, "the submission");
    Submission s = queue.submissions.get(0);
    assertEquals("alpha", s.ant());
    assertEquals("colony/alpha", s.branch());
    assertEquals("ant", s.by());
    assertEquals(Submission.NORMAL, s.priority());
    assertEquals(null, s.taskId());
    assertTrue(queue.claims.isEmpty(), "no globs: no claim");
    ant.stop();
  }

  @Test
  void withReviewWorkWithoutATaskIsNotSubmitted() {
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("beta", true, List.of()));
    eventually(() -> sessions.requests.size() == 1, "the session");
    env.sleep(java.time.Duration.ofMinutes(1));
    assertTrue(queue.submissions.isEmpty(), queue.submissions.toString());
    ant.stop();
  }

  @Test
  void anAntWhosePathsAreHeldWaitsAndSaysForWhomThenRunsWhenTheyAreFree() {
    queue.holder = "beta";
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("gamma", false, List.of("src/**")));

    eventually(() -> queue.claims.size() == 1, "the claim");
    assertEquals(List.of("src/**"), queue.claims.get(0).globs());
    eventually(() -> chat.texts().contains("⏳ gamma waits for beta (src/**)"), "the wait is told");
    eventually(() -> "paths held by beta: src/**".equals(ant.status().stateReason()), "status says for whom");
    assertTrue(sessions.requests.isEmpty(), "no session while beta holds the paths");

    queue.holder = null;
    ant.mergeNews(new MergeNews(MergeNews.Kind.PATHS_FREE, "app", null, null, null, List.of(), "main"));
    eventually(() -> sessions.requests.size() == 1, "the session, once the paths are free");
    assertEquals(2, queue.claims.size());
    eventually(() -> chat.texts().contains("🟢 gamma: its paths are free, starting"), "told");
    ant.stop();
    eventually(() -> queue.releases.contains("gamma"), "a stop gives the claim back");
  }

  /** A claim the queue cannot answer is no claim: the ant waits and asks again, it does not work unchecked. */
  @Test
  void aClaimTheQueueCannotAnswerIsAWaitNotAPass() {
    queue.unreachable = true;
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("delta", false, List.of("src/**")));
    eventually(() -> queue.claims.size() == 1, "the claim");
    eventually(() -> chat.texts().contains("⏳ delta waits: its merge queue did not answer its path claim"), "told once");
    env.sleep(java.time.Duration.ofSeconds(30));
    assertTrue(sessions.requests.isEmpty(), "no session on unchecked paths");
    queue.unreachable = false;
    env.sleep(MergeDesk.CLAIM_RETRY);
    eventually(() -> sessions.requests.size() == 1, "the session, once the claim is granted");
    assertEquals(2, queue.claims.size());
    ant.stop();
  }

  @Test
  void aLandingMovesTheBranchBeforeTheNextSessionAndAReworkReachesTheAgentFirst() {
    CountDownLatch first = new CountDownLatch(1);
    sessions.thenBlockUntil(first, "first");
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("delta", false, List.of()));
    eventually(() -> sessions.requests.size() == 1, "the first session");

    Landed landed = new Landed("delta-1", "delta", null, "aaaa111", "bbbb222", "cccc333", 3, 42_000, 800,
        env.currentTimeMillis(), List.of("a.txt"), null);
    ant.mergeNews(new MergeNews(MergeNews.Kind.LANDED, "app", "delta-1", "🔀 delta: 3 commits on main, tests 42 s",
        landed, List.of(), "main"));
    ant.mergeNews(new MergeNews(MergeNews.Kind.REWORK, "app", "delta-2",
        "Your work on app conflicts with main in: a.txt\nRebase colony/delta onto main and resolve a.txt.", null,
        List.of("a.txt"), "main"));
    first.countDown(); // the agent stops (the fake ignores the interrupt)
    eventually(() -> sessions.requests.size() == 2, "the next session starts with the rework");
    assertEquals(List.of("delta aaaa111 bbbb222"), git.syncs, "the branch moved before the session");
    assertTrue(sessions.requests.get(1).messages().get(0).startsWith("[merge queue] Your work on app conflicts"),
        sessions.requests.get(1).messages().toString());
    assertTrue(chat.texts().contains("🔀 delta: 3 commits on main, tests 42 s"), chat.texts().toString());
    assertTrue(chat.texts().contains("🔁 delta: needs rework: conflict in a.txt"), chat.texts().toString());
    // A second rework that reads like the first (the fix failed the same way) is news again.
    ant.mergeNews(new MergeNews(MergeNews.Kind.REWORK, "app", "delta-2",
        "Your work on app conflicts with main in: a.txt\nRebase colony/delta onto main and resolve a.txt.", null,
        List.of("a.txt"), "main"));
    eventually(() -> sessions.requests.size() == 3, "the second rework's session");
    assertTrue(sessions.requests.get(2).messages().get(0).startsWith("[merge queue] Your work on app conflicts"),
        sessions.requests.get(2).messages().toString());
    assertEquals(1, git.syncs.size(), "the branch moved once");
    ant.stop();
  }

  @Test
  void workThatNeedsAHumanSendsOneNotice() {
    NotifySpec n = new NotifySpec(1800, 2, "http://ui", null, List.of(), null, null);
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("eps", false, List.of()).toBuilder().notices(n).build());
    eventually(() -> sessions.requests.size() >= 1, "a session");
    ant.mergeNews(new MergeNews(MergeNews.Kind.NEEDS_HUMAN, "app", "eps-1",
        "eps-1 failed 3 times (tests red): a human decides", null, List.of(), "main"));
    eventually(() -> notify.notices.stream().anyMatch(x -> x.kind().equals("merge")
        && x.text().contains("eps-1 failed 3 times")), "the notice");
    env.sleep(java.time.Duration.ofHours(2));
    assertEquals(1, notify.notices.stream().filter(x -> x.kind().equals("merge")).count(), "no reminders");
    ant.stop();
  }

  private AntSpec taker(String name, boolean review) {
    return ant(name, review, List.of()).toBuilder()
        .tasks(new dev.colony.spec.TaskPolicy(List.of("docs"), false, 3, false, 0)).build();
  }

  private static dev.colony.task.TaskWork work(String base, String head) {
    return new dev.colony.task.TaskWork("colony/t", base, head, List.of(new dev.colony.task.TaskWork.Commit(head,
        "Fix the docs")), 1, 1, 0, List.of("README.md"));
  }

  @Test
  void aTasksWorkIsSubmittedWithTheHeadItsSessionEndedAt() {
    board.candidates.add(Fakes.FakeTasks.todo("t1", dev.colony.task.Priority.NORMAL, env.currentTimeMillis()));
    sessions.then(() -> dev.colony.session.SessionResult.of(dev.colony.errorpolicy.Outcome.SUCCESS, "done")
        .withWork(work("abc1234", "def5678")));
    AntWorkflow ant = Fakes.start(client, QUEUE, taker("zeta", true));
    eventually(() -> queue.submissions.size() == 1, "the submission");
    Submission s = queue.submissions.get(0);
    assertEquals("t1", s.taskId());
    assertEquals("def5678", s.head(), "the head a review approves");
    assertEquals("abc1234", s.base());
    ant.stop();
  }

  @Test
  void aRefusedReportSubmitsNothingForTheTask() {
    board.candidates.add(Fakes.FakeTasks.todo("t2", dev.colony.task.Priority.NORMAL, env.currentTimeMillis()));
    // A human requeued the task during the session: the board refuses the ant's report.
    board.replies.add(new dev.colony.task.TaskReply(false, dev.colony.task.TaskState.TODO, "the task was requeued"));
    sessions.then(() -> dev.colony.session.SessionResult.of(dev.colony.errorpolicy.Outcome.SUCCESS, "done")
        .withWork(work("abc1234", "def5678")));
    AntWorkflow ant = Fakes.start(client, QUEUE, taker("eta", false));
    eventually(() -> board.reports.size() == 1, "the report");
    eventually(() -> ant.status().taskId() == null, "the ant let the task go");
    env.sleep(java.time.Duration.ofMinutes(1));
    assertTrue(queue.submissions.stream().noneMatch(x -> "t2".equals(x.taskId())),
        "the work of a task the ant no longer holds is not submitted for it: " + queue.submissions);
    ant.stop();
  }

  private static final String REWORK_TEXT =
      "Your work on app conflicts with main in: a.txt\nRebase colony/iota onto main and resolve a.txt.";

  /**
   * A rework is its own work item: news for the ant's earlier item does not cut the session on
   * another task; that task's session reports that task; then the rework runs as a session of its
   * own (its text, no task's brief), reports no task, and the ant resubmits.
   */
  @Test
  void aReworkDoesNotInterruptAnotherTasksSessionAndRunsAsASessionOfItsOwn() {
    board.candidates.add(Fakes.FakeTasks.todo("t2", dev.colony.task.Priority.NORMAL, env.currentTimeMillis()));
    CountDownLatch release = new CountDownLatch(1);
    sessions.thenBlockUntil(release, "t2 done");
    AntWorkflow ant = Fakes.start(client, QUEUE, taker("iota", false));
    eventually(() -> sessions.requests.size() == 1, "t2's session");
    assertEquals("t2", sessions.requests.get(0).task().id());

    ant.mergeNews(new MergeNews(MergeNews.Kind.REWORK, "app", "iota-1", REWORK_TEXT, null, List.of("a.txt"), "main"));
    eventually(() -> chat.texts().contains("🔁 iota: needs rework: conflict in a.txt"), "the rework is posted");
    release.countDown();

    eventually(() -> board.reports.size() == 1, "t2's report");
    dev.colony.task.TaskReport t2 = board.reports.get(0);
    assertEquals(dev.colony.task.TaskReport.Kind.SUBMITTED, t2.kind());
    assertEquals("t2 done", t2.text());
    assertEquals(1, t2.session().session(), "t2 is reported by its own session, which went on");
    eventually(() -> sessions.requests.size() == 2, "the rework's session");
    var rework = sessions.requests.get(1);
    assertEquals(null, rework.task(), "the rework's session gets no task's brief");
    assertEquals(List.of("[merge queue] " + REWORK_TEXT), rework.messages());
    eventually(() -> queue.submissions.size() == 2, "the ant resubmits after the rework");
    assertEquals("t2", queue.submissions.get(0).taskId());
    assertEquals(null, queue.submissions.get(1).taskId(), "the rework's work is the item's, not a task's");
    env.sleep(java.time.Duration.ofMinutes(1));
    assertEquals(1, board.reports.size(), "the rework's session reports no task: " + board.reports);
    assertTrue(chat.texts().stream().noneMatch(t -> t.contains("got an urgent message")), chat.texts().toString());
    ant.stop();
  }

  /**
   * The rework's session comes before the held task's next session, which carries the task again;
   * the task is reported only by its own sessions.
   */
  @Test
  void aHeldTaskWaitsForTheReworkAndGoesOnAfterIt() {
    board.candidates.add(Fakes.FakeTasks.todo("t3", dev.colony.task.Priority.NORMAL, env.currentTimeMillis()));
    CountDownLatch release = new CountDownLatch(1);
    // t3's first session fails (the task is kept, with a backoff); the rework arrives meanwhile.
    sessions.then(() -> {
      try {
        release.await(2, java.util.concurrent.TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return dev.colony.session.SessionResult.of(dev.colony.errorpolicy.Outcome.TRANSIENT, "tests flaked");
    });
    AntWorkflow ant = Fakes.start(client, QUEUE, taker("lamb", false));
    eventually(() -> sessions.requests.size() == 1, "t3's session");
    ant.mergeNews(new MergeNews(MergeNews.Kind.REWORK, "app", "lamb-1", REWORK_TEXT, null, List.of("a.txt"), "main"));
    release.countDown();
    eventually(() -> board.reports.size() == 1, "t3's failed session reported");
    env.sleep(java.time.Duration.ofMinutes(1)); // the backoff
    eventually(() -> sessions.requests.size() == 2, "the rework's session");
    eventually(() -> queue.submissions.size() == 1, "the rework resubmitted");
    env.sleep(java.time.Duration.ofHours(1)); // the poll interval
    eventually(() -> sessions.requests.size() == 3, "t3's next session");
    assertEquals(null, sessions.requests.get(1).task(), "the rework first, without t3's brief");
    assertEquals("t3", sessions.requests.get(2).task().id(), "t3 goes on after the rework");
    eventually(() -> board.reports.size() == 2, "t3's two sessions reported");
    assertEquals(List.of(1, 3), board.reports.stream().map(r -> r.session().session()).toList(),
        "only t3's own sessions report it");
    assertEquals(List.of(dev.colony.task.TaskReport.Kind.FAILED, dev.colony.task.TaskReport.Kind.SUBMITTED),
        board.kinds());
    ant.stop();
  }

  /** An idle ant (no task, waiting for one) runs the rework at once, and resubmits it even under review. */
  @Test
  void anIdleAntRunsTheReworkAtOnceAndResubmitsAtItsHead() {
    AntSpec spec = ant("kappa", true, List.of()).toBuilder()
        .tasks(new dev.colony.spec.TaskPolicy(List.of("docs"), true, 3, false, 0)).build();
    AntWorkflow ant = Fakes.start(client, QUEUE, spec);
    eventually(() -> "a task".equals(ant.status().stateReason()), "waiting for a task");
    assertTrue(sessions.requests.isEmpty());
    sessions.then(() -> dev.colony.session.SessionResult.of(dev.colony.errorpolicy.Outcome.SUCCESS, "rebased")
        .withWork(work("abc1234", "fedcba9")));

    ant.mergeNews(new MergeNews(MergeNews.Kind.REWORK, "app", "kappa-1", REWORK_TEXT, null, List.of("a.txt"), "main"));
    eventually(() -> sessions.requests.size() == 1, "the rework's session, at once");
    assertEquals(null, sessions.requests.get(0).task());
    assertEquals(List.of("[merge queue] " + REWORK_TEXT), sessions.requests.get(0).messages());
    eventually(() -> queue.submissions.size() == 1, "the rework goes back to the queue");
    Submission s = queue.submissions.get(0);
    assertEquals(null, s.taskId());
    assertEquals("fedcba9", s.head(), "with review, the head the rework's session ended at");
    assertTrue(board.reports.isEmpty(), board.reports.toString());
    ant.stop();
  }

  /**
   * Urgent mail goes before a pending rework: the rework's session would be cut by it at once and
   * given back, for ever (the ant looped, cancelling a session a few milliseconds each).
   */
  @Test
  void urgentMailGoesBeforeAPendingReworkAndBothAreServedOnce() {
    AntWorkflow ant = Fakes.start(client, QUEUE, ant("lambda", false, List.of()));
    eventually(() -> sessions.requests.size() == 1, "the first session");
    ant.pause(); // the rework waits while the ant is paused; urgent mail then resumes it
    eventually(() -> ant.status().paused(), "paused");
    ant.mergeNews(new MergeNews(MergeNews.Kind.REWORK, "app", "lambda-1", REWORK_TEXT, null, List.of("a.txt"), "main"));
    ant.message(dev.colony.mailbox.Mail.urgent("stop everything and fix the build"));
    eventually(() -> sessions.requests.size() == 3, "the urgent mail's session, then the rework's");
    assertEquals(List.of("stop everything and fix the build"), sessions.requests.get(1).messages());
    assertEquals(List.of("[merge queue] " + REWORK_TEXT), sessions.requests.get(2).messages());
    env.sleep(java.time.Duration.ofMinutes(2));
    assertEquals(3, sessions.requests.size(), "nothing runs again (no session given back and retaken)");
    ant.stop();
  }

  @Test
  void aTasksTouchesLineIsRead() {
    assertEquals(List.of("src/api/**", "docs/*.md"),
        MergeDesk.taskTouches("Fix the API.\n\nTouches: `src/api/**`, docs/*.md\n"));
    assertEquals(List.of("a/**"), MergeDesk.taskTouches("- touches: a/** /etc/passwd ../x"));
    assertEquals(List.of(), MergeDesk.taskTouches(null));
  }
}
