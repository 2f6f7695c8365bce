package dev.colony.merge;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.merge.MergeFakes.FakeAnt;
import dev.colony.merge.MergeFakes.FakeAntImpl;
import dev.colony.merge.MergeFakes.FakeDesk;
import dev.colony.merge.MergeFakes.FakeGit;
import dev.colony.spec.AntIds;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.api.enums.v1.EventType;
import dev.colony.task.TaskState;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The merge queue on Temporal's time-skipping test environment, with an in-memory repository and recording ants. */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class MergeQueueWorkflowTest {
  static final String QUEUE = "merge-test";
  static final String COLONY = "test";

  private TestWorkflowEnvironment env;
  private WorkflowClient client;
  private FakeGit git;
  private FakeDesk desk;

  @BeforeEach
  void setUp() {
    MergeFakes.NEWS.clear();
    git = new FakeGit();
    desk = new FakeDesk();
    env = TestWorkflowEnvironment.newInstance();
    AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker w = env.newWorker(QUEUE);
    // A host that does not poll is noticed after 5 s here, not the production 2 min: the test
    // server does not skip time while an activity task waits for a poller.
    w.registerWorkflowImplementationTypes(io.temporal.worker.WorkflowImplementationOptions.newBuilder()
        .setActivityOptions(java.util.Map.of("PublishBranch", io.temporal.activity.ActivityOptions.newBuilder()
            .setScheduleToStartTimeout(Duration.ofSeconds(5)).build()))
        .build(), MergeQueueWorkflowImpl.class, FakeAntImpl.class);
    w.registerActivitiesImplementations(git, desk);
    Worker host = env.newWorker(dev.colony.workspace.WorkspaceActivities.hostQueue(QUEUE, "h1"));
    host.registerActivitiesImplementations(git);
    client = env.getWorkflowClient();
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  static MergeRepo repo(boolean review, int maxTries, LandMode land) {
    return new MergeRepo(COLONY, "app", "/r", "main", land, List.of("./test.sh"), 600, false, review, maxTries, 3600,
        "/c", "/c/.colony/merge/app", null, null);
  }

  private MergeQueueWorkflow start(MergeRepo repo) {
    MergeQueueWorkflow q = client.newWorkflowStub(MergeQueueWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(repo.workflowId()).setTaskQueue(QUEUE).build());
    WorkflowClient.start(q::run, MergeQueueState.start(repo));
    return q;
  }

  private void ants(String... names) {
    for (String a : names) {
      FakeAnt ant = client.newWorkflowStub(FakeAnt.class, WorkflowOptions.newBuilder()
          .setWorkflowId(AntIds.workflowId(COLONY, a)).setTaskQueue(QUEUE).build());
      WorkflowClient.start(ant::run);
    }
  }

  private static List<MergeNews> news(String ant) {
    return MergeFakes.NEWS.getOrDefault(AntIds.workflowId(COLONY, ant), List.of());
  }

  private static boolean told(String ant, MergeNews.Kind kind) {
    return news(ant).stream().anyMatch(n -> n.kind() == kind);
  }

  private static MergeNews last(String ant, MergeNews.Kind kind) {
    List<MergeNews> l = news(ant).stream().filter(n -> n.kind() == kind).toList();
    return l.isEmpty() ? null : l.get(l.size() - 1);
  }

  private static Submission sub(String ant, int priority) {
    return new Submission(ant, "", "colony/" + ant, null, priority, "ant", false);
  }

  private MergeCard memo(MergeRepo repo) {
    return client.newUntypedWorkflowStub(repo.workflowId()).describe().getMemo(MergeCard.MEMO, MergeCard.class,
        MergeCard.class);
  }

  /** The queue's history so far replays on today's code (no non-determinism in what it recorded). */
  private void replays(MergeRepo repo) {
    var history = client.fetchHistory(repo.workflowId());
    try {
      dev.colony.testing.Replay.history(history, MergeQueueWorkflowImpl.class);
    } catch (Exception e) {
      throw new AssertionError("the history of " + repo.workflowId() + " does not replay", e);
    }
  }

  /** The queue's items as its card says, or why it could not be read: for a failure's message. */
  private static String cardItems(MergeQueueWorkflow q) {
    try {
      return String.valueOf(q.card().items());
    } catch (RuntimeException e) {
      return "(the card could not be read: " + e + ")";
    }
  }

  private static String refusal(Runnable update) {
    WorkflowUpdateException e = assertThrows(WorkflowUpdateException.class, update::run);
    return e.getCause().getMessage();
  }

  @Test
  void independentItemsLandOneAtATimeByPriorityThenFirstComeFirstServed() {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha", "beta", "gamma", "delta");
    git.commit("alpha", "a.txt");
    git.commit("beta", "b.txt");
    git.commit("gamma", "g.txt");
    git.commit("delta", "d.txt");
    git.gate = new Semaphore(0);
    MergeQueueWorkflow q = start(repo);
    assertEquals("alpha-1", q.submit(sub("alpha", 3)).itemId());
    eventually(() -> git.calls.contains("publish alpha"), "alpha is landing");
    q.submit(sub("beta", 2));
    q.submit(sub("gamma", 0));
    SubmitReply d = q.submit(sub("delta", 2));
    assertEquals(3, d.position(), "gamma (urgent) and beta (older) before it");
    git.gate.release(100);
    eventually(() -> git.landedOriginals().size() == 4, "all four landed");
    List<String> order = git.landedOriginals().stream().map(s -> s.substring(0, s.indexOf("-c"))).toList();
    assertEquals(List.of("alpha", "gamma", "beta", "delta"), order);
    eventually(() -> told("delta", MergeNews.Kind.LANDED), "delta told");
    MergeNews landed = last("alpha", MergeNews.Kind.LANDED);
    assertEquals("🔀 alpha: 1 commit on main (" + MergeText.shortSha(landed.landed().to()) + "), tests 42 s",
        landed.text());
    eventually(() -> memo(repo).landedCount() == 4, "the memo counts four landings");
    MergeCard card = memo(repo);
    assertTrue(card.items().isEmpty());
    assertEquals("delta", card.landed().get(0).ant(), "newest first");
    assertEquals(git.head(), card.targetHead());
    var d2 = client.newUntypedWorkflowStub(repo.workflowId()).describe();
    assertEquals(COLONY, d2.getTypedSearchAttributes().get(AntSearchAttributes.COLONY));
    replays(repo);
  }

  /**
   * Claims during a long test grow one run's history: past its bound the queue refuses claims
   * (the ants wait and ask again), abandons the test, and continues as new, where the item is tested
   * again and lands. The run that filled stays within its bound.
   */
  @Test
  void aHistoryThatFillsDuringATestMovesTheQueueToANewRunAndTheItemIsTestedAgain() {
    int bound = MergeQueueWorkflowImpl.historyBound;
    MergeQueueWorkflowImpl.historyBound = 200;
    try {
      MergeRepo repo = repo(false, 3, LandMode.REBASE);
      ants("alpha", "beta");
      git.commit("alpha", "a.txt");
      git.testGate = new Semaphore(0);
      MergeQueueWorkflow q = start(repo);
      q.submit(sub("alpha", 2));
      eventually(() -> git.calls.stream().anyMatch(c -> c.startsWith("test ")), "alpha is testing");
      // alpha's next task is submitted while its item lands: it must not be lost with the abandoned landing
      q.submit(new Submission("alpha", "", "colony/alpha", "t2", 2, "ant", false));
      String first = client.newUntypedWorkflowStub(repo.workflowId()).describe().getExecution().getRunId();
      int refused = 0;
      for (int i = 0; i < 200 && refused == 0; i++) {
        try {
          q.claimPaths(new PathClaim("beta", List.of("docs/" + i + "/**"), null, "ant/test/beta"));
        } catch (WorkflowUpdateException busy) {
          assertTrue(busy.getCause().getMessage().contains("is busy"), busy.getCause().getMessage());
          refused++;
        }
      }
      assertEquals(1, refused, "past the bound a claim is refused, not written");
      eventually(() -> !first.equals(client.newUntypedWorkflowStub(repo.workflowId()).describe().getExecution()
          .getRunId()), "the queue continued as new");
      eventually(() -> git.testsCancelled.get() == 1, "the test in flight was abandoned");
      git.testGate.release(100);
      eventually(() -> git.landedOriginals().size() == 1, "alpha landed in the next run");
      eventually(() -> desk.finished.stream().anyMatch(f -> f.startsWith("t2 ")),
          "the task submitted during the abandoned landing landed with it");
      assertEquals(2, git.calls.stream().filter(c -> c.startsWith("test ")).count(), "tested again");
      int events = client.fetchHistory(repo.workflowId(), first).getEvents().size();
      assertTrue(events <= MergeQueueWorkflowImpl.historyBound + 40, "the first run stopped at its bound: " + events);
      assertTrue(q.claimPaths(new PathClaim("beta", List.of("docs/x/**"), null, "ant/test/beta")).granted(),
          "the new run takes claims again");
      replays(repo);
    } finally {
      MergeQueueWorkflowImpl.historyBound = bound;
    }
  }

  @Test
  void agingLetsALowItemPassAFreshUrgentOne() {
    MergeRepo repo = new MergeRepo(COLONY, "app", "/r", "main", LandMode.REBASE, List.of(), 600, false, false, 3, 1,
        "/c", "/c/s", null, null);
    ants("first", "low", "urgent");
    git.commit("first", "f.txt");
    git.commit("low", "l.txt");
    git.commit("urgent", "u.txt");
    git.gate = new Semaphore(0);
    MergeQueueWorkflow q = start(repo);
    q.submit(sub("first", 2));
    eventually(() -> git.calls.contains("publish first"), "first is landing");
    q.submit(sub("low", 3));
    env.sleep(Duration.ofSeconds(5)); // five aging steps of one second: low rises above urgent (weight 3)
    q.submit(sub("urgent", 0));
    git.gate.release(100);
    eventually(() -> git.landedOriginals().size() == 3, "all landed");
    assertTrue(git.landedOriginals().get(1).startsWith("low-"), "low was not starved: " + git.landedOriginals());
  }

  @Test
  void aConflictSendsReworkWithTheFilesAndTheFixedResubmissionLands() {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha", "beta");
    git.commit("alpha", "shared.txt");
    git.commit("beta", "shared.txt", "b.txt");
    git.gate = new Semaphore(0);
    MergeQueueWorkflow q = start(repo);
    q.submit(sub("alpha", 2));
    eventually(() -> git.calls.contains("publish alpha"), "alpha is landing");
    q.submit(new Submission("beta", "", "colony/beta", "t7", 2, "ant", false));
    git.gate.release(100);
    eventually(() -> told("beta", MergeNews.Kind.REWORK), "beta told to rework");
    MergeNews rework = last("beta", MergeNews.Kind.REWORK);
    assertEquals(List.of("shared.txt"), rework.files());
    assertTrue(rework.text().contains("resolve the conflicts in shared.txt"), rework.text());
    assertEquals("beta-1", rework.itemId());
    eventually(() -> desk.reworked.size() == 1, "the task went back to To Do");
    assertTrue(desk.reworked.get(0).startsWith("t7 beta Merge queue:"));
    assertEquals(ItemState.REWORK, q.card().items().get(0).state());
    assertEquals(1, git.landedOriginals().size());

    git.rebaseBranch("beta"); // the agent resolved it
    SubmitReply again = q.submit(new Submission("beta", "", "colony/beta", "t7", 2, "ant", false));
    assertEquals("beta-1", again.itemId());
    eventually(() -> told("beta", MergeNews.Kind.LANDED), "beta landed");
    assertEquals(2, git.landedOriginals().size());
    eventually(() -> desk.finished.size() == 1, "its task is Done");
    assertTrue(desk.finished.get(0).startsWith("t7 Landed on main"));
    assertEquals(List.of("alpha", "beta"), memo(repo).landed().stream().map(Landed::ant).sorted().toList());
    replays(repo);
  }

  /**
   * An ant that runs a rework as a session of its own (its submissions say fix): its work sent back
   * leaves the task where it is (no requeue to To Do, so no extra session for it); with review the
   * approved task goes back to In Review for the approval the rework withdrew; the fix lands and the
   * task is Done.
   */
  @Test
  void aReworkOfAnAntWithReworkSessionsLeavesItsTaskWhereItIsAndTheFixLandsIt() {
    for (boolean review : List.of(false, true)) {
      MergeFakes.NEWS.clear();
      desk.reworked.clear();
      desk.inRework.clear();
      desk.finished.clear();
      MergeRepo repo = new MergeRepo(COLONY, review ? "rv" : "app", "/r", "main", LandMode.REBASE,
          List.of("./test.sh"), 600, false, review, 3, 3600, "/c", "/c/.colony/merge/x", null, null);
      String a = review ? "gamma" : "alpha";
      String b = review ? "delta" : "beta";
      ants(a, b);
      git.commit(a, "shared-" + review + ".txt");
      git.commit(b, "shared-" + review + ".txt");
      git.gate = new Semaphore(0);
      MergeQueueWorkflow q = start(repo);
      q.submit(new Submission(a, "", "colony/" + a, null, 2, "cli", true));
      eventually(() -> git.calls.contains("publish " + a), a + " is landing");
      q.submit(new Submission(b, "", "colony/" + b, "t9", 2, "ant", false, null, null, false));
      if (review) {
        desk.states.put("t9", TaskState.DONE);
        WorkflowStub.fromTyped(q).signal("taskApproved", "t9");
      }
      git.gate.release(100);
      eventually(() -> told(b, MergeNews.Kind.REWORK), b + " told to rework");
      eventually(() -> desk.inRework.size() == 1, "the task heard of the rework");
      assertTrue(desk.inRework.get(0).startsWith("t9 false Merge queue:"), desk.inRework.get(0));
      assertEquals(List.of(), desk.reworked, "the task is not requeued to To Do");
      assertEquals(review ? TaskState.DONE : null, desk.states.get("t9"), "there is no fix to approve yet: it stays");
      if (review) { // a human approves during the rework: there is no fix yet, so it approves none
        WorkflowStub.fromTyped(q).signal("taskApproved", "t9");
      }

      git.rebaseBranch(b); // the rework's session resolved it and resubmits: no task, fix
      q.submit(new Submission(b, "", "colony/" + b, null, 2, "ant", false, null, null, true));
      if (review) {
        eventually(dev.colony.testing.Eventually.DEFAULT, () -> desk.inRework.size() == 2,
            () -> "the fix came: its task goes back to In Review; the desk heard " + desk.inRework + ", the items: "
                + cardItems(q));
        assertTrue(desk.inRework.get(1).startsWith("t9 true the fix of " + b + "-1 came"), desk.inRework.get(1));
        assertEquals(TaskState.IN_REVIEW, desk.states.get("t9"), "with review the approval is withdrawn when the fix comes");
        // the board still says Done when the queue looks (the move failed, or raced the check): no approval
        desk.states.put("t9", TaskState.DONE);
        int checks = desk.stateChecks.get();
        env.sleep(Duration.ofSeconds(31));
        eventually(() -> desk.stateChecks.get() > checks, "the board was asked again");
        assertFalse(told(b, MergeNews.Kind.LANDED), "the fix waits for an approval given after it came");
        assertEquals(ItemState.AWAITING_REVIEW, q.card().items().get(0).state());
        WorkflowStub.fromTyped(q).signal("taskApproved", "t9");
      }
      eventually(() -> told(b, MergeNews.Kind.LANDED), b + " landed");
      eventually(() -> desk.finished.size() == 1, "its task is Done");
      assertTrue(desk.finished.stream().anyMatch(f -> f.startsWith("t9 Landed on main")), desk.finished.toString());
      assertEquals(List.of(), desk.reworked);
      replays(repo);
    }
  }

  @Test
  void aRedTestIsReworkAndMaxTriesGoesToAHuman() {
    MergeRepo repo = repo(false, 2, LandMode.REBASE);
    ants("alpha");
    git.commit("alpha", "red_test.py");
    MergeQueueWorkflow q = start(repo);
    q.submit(sub("alpha", 2));
    eventually(() -> told("alpha", MergeNews.Kind.REWORK), "rework after the red test");
    MergeNews r = last("alpha", MergeNews.Kind.REWORK);
    assertTrue(r.text().contains("FAILED test_login"), r.text());
    assertTrue(r.text().contains("exit code 1"));
    q.submit(sub("alpha", 2));
    eventually(() -> told("alpha", MergeNews.Kind.NEEDS_HUMAN), "a human decides after two tries");
    MergeItem item = q.card().items().get(0);
    assertEquals(ItemState.NEEDS_HUMAN, item.state());
    assertEquals(2, item.tries());
    assertTrue(git.landedOriginals().isEmpty());

    // a human fixes it and retries
    git.branches.get("alpha").own.clear();
    git.commit("alpha", "fixed.py");
    SubmitReply retried = q.decide(new MergeDecision("alpha-1", "retry", "@bob"));
    assertEquals("alpha-1", retried.itemId());
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "landed after the retry");
    replays(repo);
  }

  @Test
  void aTargetThatMovesIsRebasedAgainAndAWriteRetriedAfterAKillLandsOnce() {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha");
    git.commit("alpha", "a.txt");
    git.commit("alpha", "a2.txt");
    git.humanPushes.set(2);
    git.dieAfterWrite = true;
    MergeQueueWorkflow q = start(repo);
    q.submit(sub("alpha", 2));
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "landed");
    assertEquals(3, git.calls.stream().filter(c -> c.equals("rebase alpha")).count(), "rebased after each move");
    assertEquals(2, git.landedOriginals().size(), "both commits, once: " + git.landedOriginals());
    assertEquals(2, git.main.stream().filter(c -> c.ant().equals("human")).count() - 1, "two human pushes");
    Landed l = last("alpha", MergeNews.Kind.LANDED).landed();
    assertEquals(2, l.commits());
    assertEquals(git.head(), l.to());
    assertEquals(1, news("alpha").stream().filter(n -> n.kind() == MergeNews.Kind.LANDED).count());
    replays(repo);
  }

  @Test
  void reviewWaitsForTheTaskOrAHuman() {
    MergeRepo repo = repo(true, 3, LandMode.REBASE);
    ants("alpha", "beta", "gamma");
    git.commit("alpha", "a.txt");
    git.commit("beta", "b.txt");
    git.commit("gamma", "g.txt");
    MergeQueueWorkflow q = start(repo);
    SubmitReply a = q.submit(new Submission("alpha", "", "colony/alpha", "t1", 2, "ant", false));
    assertEquals(ItemState.AWAITING_REVIEW, a.state());
    q.submit(new Submission("beta", "", "colony/beta", "t2", 2, "ant", false));
    q.submit(new Submission("gamma", "", "colony/gamma", null, 2, "cli", false));
    env.sleep(Duration.ofSeconds(31));
    eventually(() -> desk.stateChecks.get() >= 1, "the board was asked");
    assertTrue(git.landedOriginals().isEmpty(), "nothing lands unreviewed");

    desk.states.put("t1", TaskState.DONE); // approved on the board, no signal
    env.sleep(Duration.ofSeconds(31));
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "alpha landed after its task was approved");

    WorkflowStub.fromTyped(q).signal("taskApproved", "t2");
    eventually(() -> told("beta", MergeNews.Kind.LANDED), "beta landed after the signal");

    assertTrue(refusal(() -> q.decide(new MergeDecision("gamma-9", "approve", "@x"))).contains("no open item"));
    q.decide(new MergeDecision("gamma", "approve", "@alice"));
    eventually(() -> told("gamma", MergeNews.Kind.LANDED), "gamma landed after colony merge approve");
    replays(repo);
  }

  @Test
  void anApprovalLandsExactlyTheHeadItCoversAndLaterCommitsWaitForTheirOwn() {
    MergeRepo repo = repo(true, 3, LandMode.REBASE);
    ants("alpha");
    String c1 = git.commit("alpha", "a.txt");
    git.gate = new Semaphore(0);
    MergeQueueWorkflow q = start(repo);
    SubmitReply a = q.submit(new Submission("alpha", "", "colony/alpha", "t1", 2, "ant", false, c1, null));
    assertEquals(ItemState.AWAITING_REVIEW, a.state());
    SubmitReply approved = q.decide(new MergeDecision("alpha-1", "approve", "@alice"));
    assertTrue(approved.text().contains("up to " + MergeText.shortSha(c1)), approved.text());
    MergeItem card = q.card().items().get(0);
    assertEquals(c1, card.approvedHead(), "the card says which head the approval covers");
    eventually(() -> git.calls.stream().anyMatch(c -> c.startsWith("publish alpha")), "alpha-1 is landing");
    // Meanwhile the ant commits its next task's work, and submits it.
    String c2 = git.commit("alpha", "b.txt");
    SubmitReply later = q.submit(new Submission("alpha", "", "colony/alpha", "t2", 2, "ant", false, c2, null));
    assertEquals("alpha-1", later.itemId());
    git.gate.release(100);
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "the approved work landed");
    assertEquals(List.of(c1), git.landedOriginals(), "only the approved head landed, not what came after it");
    MergeNews landed = last("alpha", MergeNews.Kind.LANDED);
    assertEquals(c1, landed.landed().from());
    assertTrue(landed.landed().approved());
    assertTrue(landed.text().contains("the approved") && landed.text().contains(MergeText.shortSha(c1)),
        landed.text());
    eventually(() -> desk.finished.size() == 1, "t1 is Done");
    assertTrue(desk.finished.get(0).startsWith("t1 "), desk.finished.toString());
    eventually(() -> q.card().items().size() == 1, "the later work is an item of its own");
    MergeItem next = q.card().items().get(0);
    assertEquals("alpha-2", next.id());
    assertEquals(ItemState.AWAITING_REVIEW, next.state(), "the later commits wait for their own approval");
    assertEquals(List.of("t2"), next.taskIds());
    assertEquals(null, next.approvedHead());
    env.sleep(Duration.ofMinutes(2));
    assertEquals(List.of(c1), git.landedOriginals(), "nothing more lands unreviewed");

    WorkflowStub.fromTyped(q).signal("taskApproved", "t2");
    eventually(() -> git.landedOriginals().size() == 2, "t2's work landed once approved");
    assertEquals(List.of(c1, c2), git.landedOriginals());
    eventually(() -> desk.finished.size() == 2, "t2 is Done");
    replays(repo);
  }

  @Test
  void aSubmissionJoiningAnApprovedItemDoesNotShareItsApproval() {
    MergeRepo repo = repo(true, 3, LandMode.REBASE);
    ants("alpha", "beta");
    git.commit("beta", "beta.txt");
    String c1 = git.commit("alpha", "a.txt");
    git.gate = new Semaphore(0);
    MergeQueueWorkflow q = start(repo);
    q.submit(new Submission("beta", "", "colony/beta", null, 0, "cli", true));
    eventually(() -> git.calls.contains("publish beta"), "beta lands first (alpha waits in line)");
    q.submit(new Submission("alpha", "", "colony/alpha", "t1", 2, "ant", false, c1, null));
    WorkflowStub.fromTyped(q).signal("taskApproved", "t1");
    eventually(() -> q.card().items().stream().anyMatch(i -> i.id().equals("alpha-1")
        && i.state() == ItemState.QUEUED), "alpha-1 approved");
    String c2 = git.commit("alpha", "b.txt");
    SubmitReply joined = q.submit(new Submission("alpha", "", "colony/alpha", "t2", 2, "ant", false, c2, null));
    assertEquals("alpha-1", joined.itemId());
    assertTrue(joined.text().contains("approval covers up to " + MergeText.shortSha(c1)), joined.text());
    MergeItem item = q.card().items().stream().filter(i -> i.id().equals("alpha-1")).findFirst().orElseThrow();
    assertEquals(List.of("t1", "t2"), item.taskIds(), "the item carries both tasks");
    assertEquals(c1, item.approvedHead());
    git.gate.release(100);
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "alpha's approved part landed");
    assertTrue(git.landedOriginals().contains(c1));
    assertFalse(git.landedOriginals().contains(c2), "t2's commit was never approved");
    eventually(() -> q.card().items().stream().anyMatch(i -> i.id().equals("alpha-2")
        && i.state() == ItemState.AWAITING_REVIEW && i.taskIds().equals(List.of("t2"))), "t2 waits for review");
    eventually(() -> desk.finished.stream().anyMatch(f -> f.startsWith("t1 ")), "t1 Done");
    assertTrue(desk.finished.stream().noneMatch(f -> f.startsWith("t2 ")), desk.finished.toString());
    replays(repo);
  }

  @Test
  void anItemCarriesEveryTaskThatJoinedItAndEachIsDoneWhenItLands() {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha", "beta");
    git.commit("beta", "beta.txt");
    git.commit("alpha", "a.txt");
    git.gate = new Semaphore(0);
    MergeQueueWorkflow q = start(repo);
    q.submit(sub("beta", 0));
    eventually(() -> git.calls.contains("publish beta"), "beta is landing");
    q.submit(new Submission("alpha", "", "colony/alpha", "t1", 2, "ant", false));
    git.commit("alpha", "b.txt");
    SubmitReply joined = q.submit(new Submission("alpha", "", "colony/alpha", "t2", 2, "ant", false));
    assertEquals("alpha-1", joined.itemId());
    assertEquals(List.of("t1", "t2"), q.card().items().stream().filter(i -> i.id().equals("alpha-1")).findFirst()
        .orElseThrow().taskIds());
    git.gate.release(100);
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "alpha landed");
    eventually(() -> desk.finished.size() == 2, "both tasks are Done");
    assertEquals(List.of("t1", "t2"), desk.finished.stream().map(f -> f.split(" ")[0]).sorted().toList());
    assertEquals(List.of("t1", "t2"), last("alpha", MergeNews.Kind.LANDED).landed().taskIds());
    replays(repo);
  }

  @Test
  void nothingToLandClosesTheItem() {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha", "ghost");
    git.commit("alpha", "a.txt");
    MergeQueueWorkflow q = start(repo);
    q.submit(sub("alpha", 2));
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "landed");
    q.submit(sub("alpha", 2)); // the same work again: nothing beyond what landed
    eventually(() -> told("alpha", MergeNews.Kind.CLOSED), "closed");
    assertTrue(last("alpha", MergeNews.Kind.CLOSED).text().contains("nothing to land"));
    q.submit(sub("ghost", 2));
    eventually(() -> told("ghost", MergeNews.Kind.CLOSED), "no branch");
    assertTrue(last("ghost", MergeNews.Kind.CLOSED).text().contains("does not exist"));
    assertEquals(1, git.landedOriginals().size());
  }

  @Test
  void claimsAreGrantedOrRefusedAndFreedWhenTheHoldersWorkLands() {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha", "beta", "gamma");
    MergeQueueWorkflow q = start(repo);
    assertTrue(q.claimPaths(new PathClaim("alpha", List.of("src/api/**"), null, null)).granted());
    PathReply no = q.claimPaths(new PathClaim("beta", List.of("src/api/users.java", "docs/*"), null,
        AntIds.workflowId(COLONY, "beta")));
    assertFalse(no.granted());
    assertEquals("alpha", no.holder());
    assertEquals(List.of("src/api/**"), no.overlap());
    assertTrue(q.claimPaths(new PathClaim("gamma", List.of("web/**"), null, null)).granted());
    assertEquals("alpha: src/api/**", memo(repo).waiting().get("beta"));

    git.commit("alpha", "src/api/users.java");
    q.submit(sub("alpha", 2));
    eventually(() -> told("beta", MergeNews.Kind.PATHS_FREE), "beta woken when alpha's work landed");
    assertTrue(told("alpha", MergeNews.Kind.LANDED));
    assertFalse(q.card().claims().containsKey("alpha"), "released on landing");
    assertTrue(q.claimPaths(new PathClaim("beta", List.of("src/api/users.java"), null, null)).granted());

    PathReply gammaHeld = q.claimPaths(new PathClaim("alpha", List.of("web/index.html"), null, null));
    assertEquals("gamma", gammaHeld.holder());
    WorkflowStub.fromTyped(q).signal("releasePaths", "gamma");
    eventually(() -> told("alpha", MergeNews.Kind.PATHS_FREE), "alpha woken by gamma's release");
    replays(repo);
  }

  /**
   * An ant that declares no paths: its submitted work holds the files its branch changed from its
   * submission on (not only from its turn), so a declared ant whose paths overlap waits for it, named
   * as the holder, until that work lands; the card lists the ants that declare no paths.
   */
  @Test
  void anUndeclaredAntsSubmittedWorkHoldsTheFilesItChangedUntilItLands() throws Exception {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha", "beta", "gamma");
    MergeQueueWorkflow q = start(repo);
    git.gate = new java.util.concurrent.Semaphore(0); // gamma's item is landing: alpha's is not read yet
    git.commit("gamma", "web/index.html");
    q.submit(sub("gamma", 2));
    eventually(() -> git.calls.contains("publish gamma"), "gamma's item is being read");
    git.commit("alpha", "src/api/users.java");
    q.submit(new Submission("alpha", "", "colony/alpha", null, 2, "ant", false, null, null, null,
        List.of("src/api/users.java")));

    PathReply r = q.claimPaths(new PathClaim("beta", List.of("src/api/**"), null, AntIds.workflowId(COLONY, "beta")));
    assertFalse(r.granted(), "alpha's submitted, unlanded work holds src/api/users.java");
    assertEquals("alpha", r.holder());
    assertEquals(List.of("src/api/users.java"), r.overlap());
    assertEquals("alpha: src/api/users.java", q.card().waiting().get("beta"), "the card names the holder");
    assertEquals(List.of("alpha"), q.card().undeclared(), "the card lists who declares no paths");
    eventually(() -> List.of("alpha").equals(memo(repo).undeclared()), "and so does the memo (colony merge status)");
    assertTrue(q.claimPaths(new PathClaim("delta", List.of("docs/**"), null, null)).granted(), "other paths are free");

    git.gate.release(100);
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "alpha's work lands");
    eventually(() -> told("beta", MergeNews.Kind.PATHS_FREE), "beta woken when alpha's work landed");
    assertTrue(q.claimPaths(new PathClaim("beta", List.of("src/api/**"), null, null)).granted());
    replays(repo);
  }

  @Test
  void cancelClosesAnItemAndTellsItsAnt() {
    MergeRepo repo = repo(true, 3, LandMode.REBASE);
    ants("alpha");
    git.commit("alpha", "a.txt");
    MergeQueueWorkflow q = start(repo);
    q.submit(sub("alpha", 2));
    SubmitReply c = q.decide(new MergeDecision("alpha-1", "cancel", "@bob"));
    assertEquals(ItemState.CLOSED, c.state());
    eventually(() -> told("alpha", MergeNews.Kind.CLOSED), "told");
    assertTrue(last("alpha", MergeNews.Kind.CLOSED).text().contains("cancelled by @bob"));
    assertEquals("alpha-2", q.submit(sub("alpha", 2)).itemId(), "a new item after a cancelled one");
  }

  @Test
  void badInputIsRefusedByTheValidatorsLeavingNoEvent() {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    MergeQueueWorkflow q = start(repo);
    q.card(); // started
    assertTrue(refusal(() -> q.submit(sub("alpha", 9))).contains("priority 9 is out of range"));
    assertTrue(refusal(() -> q.submit(new Submission("no such ant!", "", "b", null, 2, "x", false)))
        .contains("is not valid"));
    assertTrue(refusal(() -> q.submit(new Submission("alpha", "", "-x", null, 2, "x", false))).contains("branch"));
    assertTrue(refusal(() -> q.decide(new MergeDecision("alpha-1", "explode", "x"))).contains("none of approve"));
    assertTrue(refusal(() -> q.claimPaths(new PathClaim("alpha", List.of("../../etc/**"), null, null)))
        .contains("leaves the repository"));
    var history = client.fetchHistory(repo.workflowId()).getHistory().getEventsList();
    assertFalse(history.stream().anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
        "a refused update leaves no event");
  }

  @Test
  void aPullRequestRepositoryOpensOneInsteadOfUpdatingTheTarget() {
    MergeRepo repo = repo(false, 3, LandMode.PULL_REQUEST);
    ants("alpha");
    git.commit("alpha", "a.txt");
    MergeQueueWorkflow q = start(repo);
    q.submit(sub("alpha", 2));
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "landed as a pull request");
    assertEquals("https://github.com/o/r/pull/7", last("alpha", MergeNews.Kind.LANDED).landed().pullRequest());
    assertTrue(git.landedOriginals().isEmpty(), "the target is not touched");
  }

  @Test
  void anItemOnAHostReadsItsBranchThereAndAGoneHostHoldsItWithAReason() {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha", "beta");
    git.commit("alpha", "a.txt");
    git.commit("beta", "b.txt");
    MergeQueueWorkflow q = start(repo);
    q.submit(new Submission("beta", "gone", "colony/beta", null, 0, "ant", false));
    q.submit(new Submission("alpha", "h1", "colony/alpha", null, 2, "ant", false));
    // beta's host never answers: schedule-to-start runs out, beta waits with a reason, alpha lands
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "alpha landed through its host's queue");
    MergeItem beta = q.card().items().get(0);
    assertEquals(ItemState.QUEUED, beta.state());
    assertTrue(beta.reason().contains("host gone is not answering"), beta.reason());
    replays(repo);
  }

  @Test
  void continueAsNewKeepsTheBook() {
    MergeRepo repo = repo(true, 3, LandMode.REBASE);
    ants("alpha", "beta");
    git.commit("alpha", "a.txt");
    git.commit("beta", "b.txt");
    MergeQueueWorkflow q = start(repo);
    q.submit(new Submission("alpha", "", "colony/alpha", null, 2, "cli", true));
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "landed");
    q.submit(new Submission("beta", "", "colony/beta", "t9", 1, "ant", false));
    q.claimPaths(new PathClaim("beta", List.of("b/**"), null, null));
    String firstRun = client.newUntypedWorkflowStub(repo.workflowId()).describe().getExecution().getRunId();
    WorkflowStub.fromTyped(q).signal("upgrade");
    eventually(() -> !client.newUntypedWorkflowStub(repo.workflowId()).describe().getExecution().getRunId()
        .equals(firstRun), "a new run");
    MergeQueueWorkflow next = client.newWorkflowStub(MergeQueueWorkflow.class, repo.workflowId());
    MergeCard card = next.card();
    assertEquals(1, card.landedCount());
    assertEquals(List.of("beta-1"), card.items().stream().map(MergeItem::id).toList());
    assertEquals(ItemState.AWAITING_REVIEW, card.items().get(0).state());
    assertEquals(List.of("b/**"), card.claims().get("beta"));
    assertNotNull(memo(repo));
    git.commit("alpha", "a3.txt");
    assertEquals("alpha-2", next.submit(new Submission("alpha", "", "colony/alpha", null, 2, "cli", true)).itemId());
    eventually(() -> news("alpha").stream().filter(n -> n.kind() == MergeNews.Kind.LANDED).count() == 2,
        "its next work lands after only what is new");
    assertEquals(2, git.landedOriginals().size());
    replays(repo);
  }

  /**
   * Records a queue's history for HistoryReplayTest (src/test/resources/histories/1.4-merge/queue.json):
   * two ants, a claim refused then freed, a landing, a conflict and its rework landing, a human's
   * cancel. Opt-in: -Dcolony.recordHistories=true.
   */
  @Test
  @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "colony.recordHistories", matches = "true")
  void recordQueueHistory() throws Exception {
    MergeRepo repo = repo(false, 3, LandMode.REBASE);
    ants("alpha", "beta", "gamma");
    git.commit("alpha", "shared.txt");
    git.commit("beta", "shared.txt", "b.txt");
    MergeQueueWorkflow q = start(repo);
    assertTrue(q.claimPaths(new PathClaim("alpha", List.of("src/**"), null, AntIds.workflowId(COLONY, "alpha"))).granted());
    assertFalse(q.claimPaths(new PathClaim("gamma", List.of("src/api/**"), null, AntIds.workflowId(COLONY, "gamma")))
        .granted());
    q.submit(sub("alpha", 2));
    eventually(() -> told("alpha", MergeNews.Kind.LANDED), "alpha landed");
    eventually(() -> told("gamma", MergeNews.Kind.PATHS_FREE), "gamma told its paths are free");
    q.submit(sub("beta", 1));
    eventually(() -> told("beta", MergeNews.Kind.REWORK), "beta told to rework");
    git.rebaseBranch("beta");
    q.submit(sub("beta", 1));
    eventually(() -> told("beta", MergeNews.Kind.LANDED), "beta landed");
    git.commit("gamma", "g.txt");
    git.gate = new Semaphore(0);
    q.submit(sub("gamma", 2));
    q.submit(sub("alpha", 3));
    eventually(() -> git.calls.contains("publish gamma"), "gamma is landing");
    q.decide(new MergeDecision("alpha", "cancel", "@alice"));
    git.gate.release(100);
    eventually(() -> told("gamma", MergeNews.Kind.LANDED), "gamma landed");
    q.releasePaths("gamma");
    java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/histories/1.4-merge");
    java.nio.file.Files.createDirectories(dir);
    java.nio.file.Files.writeString(dir.resolve("queue.json"), client.fetchHistory(repo.workflowId()).toJson(true));
  }
}
