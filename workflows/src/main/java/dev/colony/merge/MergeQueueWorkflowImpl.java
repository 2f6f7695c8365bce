package dev.colony.merge;

import dev.colony.Activities;
import dev.colony.ant.AntMetrics;
import dev.colony.ant.Timers;
import dev.colony.compat.Compatibility.Change;
import dev.colony.spec.AntIds;
import dev.colony.task.TaskState;
import dev.colony.upgrade.Upgrade;
import dev.colony.visibility.AntSearchAttributes;
import dev.colony.workspace.WorkspaceActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * See {@link MergeQueueWorkflow}. The main loop lands one item at a time (publish, prepare, rebase,
 * test, compare-and-swap of the target), each step an activity named for the Web UI; the handlers
 * change the book ({@link MergeBook}) and publish the card at once. Every decision is the book's;
 * this class only sequences activities, news and timers. Continue-as-new happens between items only,
 * after every handler has answered, carrying the book.
 */
public final class MergeQueueWorkflowImpl implements MergeQueueWorkflow {
  private static final Logger log = Workflow.getLogger(MergeQueueWorkflowImpl.class);
  /** History length at which the queue continues as new between items. */
  static final int CONTINUE_AS_NEW_EVENTS = 2_000;
  /**
   * History length past which one run takes no more growth while an item lands: a test still
   * running is abandoned (the item goes back to the head of the line and is tested again after
   * continue-as-new), and claims are refused meanwhile (an ant waits and asks again a minute
   * later). Far below Temporal's 51,200-event limit, so claims, submissions and approvals during
   * a long test can never end the queue. Tests lower it; workers never change it.
   */
  static int historyBound = 10_000;
  /** How often items awaiting review ask the board whether their tasks were approved. */
  static final Duration REVIEW_CHECK = Duration.ofSeconds(30);
  /** How long an item whose host does not answer is skipped. */
  static final Duration HOST_GONE_HOLD = Duration.ofMinutes(5);
  /** Rebases in a row after the target moved under the update, before the item goes to the back of the line. */
  static final int MAX_MOVES = 5;

  private final MergeBook book;
  /** Landings, reworks, test runs and items to a human, counted (replay-aware) under the repository in force. */
  private final AntMetrics.MergeQueue metrics = AntMetrics.mergeQueue(this::repo);
  private final Upgrade upgrade = new Upgrade();
  private String targetHead;
  /** Bumped by the handlers that may put an item in line: the idle loop wakes on it. */
  private int changes;
  private long lastReviewCheck;
  /** Items whose rework's fix came (with review): their tasks go back to In Review, for its approval. */
  private final List<String> fixesCame = new ArrayList<>();

  @WorkflowInit
  public MergeQueueWorkflowImpl(MergeQueueState state) {
    book = MergeBook.of(state);
    MergeQueueState s = book.state();
    targetHead = s.landed().isEmpty() || s.landed().get(0).pullRequest() != null ? null : s.landed().get(0).to();
  }

  @Override
  public void run(MergeQueueState state) {
    colonyAttribute();
    publish();
    lastReviewCheck = Workflow.currentTimeMillis();
    while (!timeToMove() && !historyFull()) {
      fixesToReview();
      long now = Workflow.currentTimeMillis();
      MergeItem next = book.next(now);
      if (next != null) {
        land(next);
        publish();
        continue;
      }
      idle(now);
    }
    // Updates and signals in flight answer first (their news goes out); the book they changed is carried.
    Workflow.await(Workflow::isEveryHandlerFinished);
    fixesToReview();
    Upgrade.continueAsNew(book.state());
  }

  /** Nothing to land now: wait for a change, the next review check, or a held item's time. */
  private void idle(long now) {
    List<String> review = book.awaitingTasks();
    long holdEnd = book.nextHoldEnd();
    int seen = changes;
    if (review.isEmpty() && holdEnd == 0) {
      Workflow.await(() -> changes != seen || timeToMove());
      return;
    }
    long wait = Long.MAX_VALUE;
    String summary = null;
    if (!review.isEmpty()) {
      wait = Math.max(0, lastReviewCheck + REVIEW_CHECK.toMillis() - now);
      summary = "review check · " + MergeText.plural(review.size(), "task") + " awaiting approval";
    }
    if (holdEnd > 0 && holdEnd - now < wait) {
      wait = Math.max(0, holdEnd - now);
      summary = "held item · try its host again";
    }
    boolean woke = Timers.await(Duration.ofMillis(Math.max(1_000, wait)), summary,
        () -> changes != seen || timeToMove());
    if (!woke && !review.isEmpty()
        && Workflow.currentTimeMillis() - lastReviewCheck >= REVIEW_CHECK.toMillis()) {
      checkReviews(review);
    }
  }

  /** Asks the board whether the tasks of items awaiting review were approved (Done). */
  private void checkReviews(List<String> taskIds) {
    lastReviewCheck = Workflow.currentTimeMillis();
    Map<String, TaskState> states;
    try {
      states = desk(Activities.MERGE_TASK_STATES, "review check · " + String.join(", ", cut(taskIds, 5)))
          .taskStates(book.repo().colony(), taskIds);
    } catch (ActivityFailure f) {
      log.warn("merge {}: review check failed: {}", book.repo().name(), message(f));
      return;
    }
    boolean any = false;
    for (String id : taskIds) {
      if (states != null && states.get(id) == TaskState.DONE) {
        any |= book.taskDone(id, Workflow.currentTimeMillis()); // not a fix that came after its approval
      }
    }
    if (any) {
      publish();
    }
  }

  /** The tasks of items whose rework's fix came go back to In Review: a human approves the fix they see. */
  private void fixesToReview() {
    while (!fixesCame.isEmpty()) {
      String id = fixesCame.remove(0);
      MergeItem it = book.item(id);
      if (it == null || it.state() != ItemState.AWAITING_REVIEW) {
        continue; // approved, landed or closed meanwhile
      }
      String text = "the fix of " + id + " came (" + MergeText.shortSha(lastHead(it))
          + "): approve it to let it land" + (it.reason() == null ? "" : " · " + MergeText.line(it.reason(), 200));
      for (String task : it.taskIds()) {
        try {
          desk(Activities.MERGE_TASK, "task " + task + " in review · the fix of " + id)
              .taskInRework(book.repo().colony(), task, text, true);
        } catch (ActivityFailure f) {
          log.warn("merge {}: moving task {} back to review failed: {}", book.repo().name(), task, message(f));
        }
      }
    }
  }

  private static String lastHead(MergeItem it) {
    return it.parts().isEmpty() ? null : it.parts().get(it.parts().size() - 1).head();
  }

  private static List<String> cut(List<String> l, int n) {
    return l.size() <= n ? l : l.subList(0, n);
  }

  private boolean timeToMove() {
    var info = Workflow.getInfo();
    return info.isContinueAsNewSuggested() || info.getHistoryLength() > CONTINUE_AS_NEW_EVENTS || upgrade.due();
  }

  private MergeRepo repo() {
    return book.repo();
  }

  /** This run's history is at its bound: nothing more may grow it before continue-as-new. */
  private static boolean historyFull() {
    return Workflow.getInfo().getHistoryLength() > historyBound;
  }

  // ---- landing ----

  /**
   * Lands one item: its branch read, then attempts (prepare, rebase, test, swap) until one is not
   * {@link LandStep.Moved} or the target moved {@value #MAX_MOVES} times; the outcome is applied by
   * {@link #apply}.
   */
  private void land(MergeItem it) {
    long start = Workflow.currentTimeMillis();
    book.landing(it.id(), start);
    publish();
    LandStep step = read(it);
    if (step instanceof LandStep.Read read) {
      book.read(it.id(), read.branch(), Workflow.currentTimeMillis());
      step = attempts(it, read.branch());
    }
    apply(it, step, start);
  }

  /** Attempts until the target stays put under the update, or moved too often. */
  private LandStep attempts(MergeItem it, BranchHead b) {
    for (int moved = 1; ; moved++) {
      MergeRepo r = book.repo(); // a configure signal applies from the next attempt
      LandStep step = attempt(it, b, r);
      if (!(step instanceof LandStep.Moved m)) {
        return step;
      }
      targetHead = m.head();
      if (moved >= MAX_MOVES) {
        return new LandStep.Held(r.target() + " moved " + moved + " times while " + it.id() + " landed: back of the line",
            0, true);
      }
      step(it.id(), r.target() + " moved (" + moved + " of " + MAX_MOVES + "): rebasing again");
    }
  }

  /** One attempt: rebased onto the target's head, tested, then on the target (or a pull request). */
  private LandStep attempt(MergeItem it, BranchHead b, MergeRepo r) {
    LandStep step = rebase(it, b, r);
    if (step instanceof LandStep.Rebased rebased) {
      step = test(it, r, rebased);
    }
    if (step instanceof LandStep.Tested tested) {
      step = r.land() == LandMode.PULL_REQUEST ? pullRequest(it, b, r, tested) : updateTarget(it, b, r, tested);
    }
    return step;
  }

  /** PublishBranch on the ant's host: with review, the head a human approved. */
  private LandStep read(MergeItem it) {
    MergeRepo r = book.repo();
    String approved = book.approvedHead(it.id());
    BranchHead b;
    try {
      b = git(Activities.MERGE_PUBLISH, hostQueue(it.host()), "publish " + it.branch() + " of " + it.id()
          + (it.host() == null || it.host().isEmpty() ? "" : " on " + it.host())
          + (approved == null ? "" : " · approved " + MergeText.shortSha(approved)))
          .publishBranch(r, it.ant(), it.branch(), book.landedUpTo(it.ant()), approved);
    } catch (ActivityFailure f) {
      if (scheduleToStart(f)) {
        return new LandStep.Held("host " + it.host() + " is not answering; trying again in "
            + HOST_GONE_HOLD.toMinutes() + " min", Workflow.currentTimeMillis() + HOST_GONE_HOLD.toMillis(), false);
      }
      return new LandStep.NeedsHuman("reading " + it.branch() + " failed: " + message(f));
    }
    if (b == null || b.head() == null || b.commits() <= 0) {
      return new LandStep.Closed(b == null || b.head() == null ? "branch " + it.branch() + " does not exist"
          : "nothing to land", r.target());
    }
    return new LandStep.Read(b);
  }

  /** PrepareScratch and Rebase: a conflict is a rework; commits all on the target already, nothing to land. */
  private LandStep rebase(MergeItem it, BranchHead b, MergeRepo r) {
    String onto;
    RebaseResult rebased;
    try {
      step(it.id(), "preparing");
      onto = git(Activities.MERGE_GIT, null, "prepare scratch of " + r.name() + " · fetch " + r.target())
          .prepareScratch(r);
      targetHead = onto;
      step(it.id(), "rebasing");
      rebased = git(Activities.MERGE_GIT, null, "rebase " + it.id() + " onto " + r.target() + " "
          + MergeText.shortSha(onto)).rebase(r, b, onto, squashMessage(it, b));
    } catch (ActivityFailure f) {
      return new LandStep.NeedsHuman("preparing the landing failed: " + message(f));
    }
    if (rebased.conflicted()) {
      return new LandStep.Rework(AntMetrics.Rework.CONFLICT,
          "conflict in " + String.join(", ", cut(rebased.conflicts(), 5)) + (rebased.conflicts().size() > 5 ? " …" : ""),
          MergeText.conflict(it.id(), it.branch(), r.target(), rebased.conflicts(), rebased.detail()),
          rebased.conflicts());
    }
    if (onto.equals(rebased.head()) || rebased.commits() <= 0) {
      // Every commit was already on the target (git dropped them as applied): nothing lands.
      return new LandStep.Closed("its commits are already on " + r.target(), r.target());
    }
    return new LandStep.Rebased(onto, rebased);
  }

  /**
   * RunTests, in a cancellation scope: abandoned when this run's history fills meanwhile (the item
   * is tested again after continue-as-new). Red or timed out is a rework.
   */
  private LandStep test(MergeItem it, MergeRepo r, LandStep.Rebased rb) {
    if (r.test().isEmpty()) {
      return new LandStep.Tested(rb.onto(), rb.rebased(), 0);
    }
    step(it.id(), "testing");
    MergeActivities tests = git(Activities.mergeTests(r.testTimeoutSeconds()), null, "tests " + it.id() + " · "
        + MergeText.plural(rb.rebased().commits(), "commit"));
    List<Promise<TestRun>> running = new java.util.ArrayList<>(1);
    String head = rb.rebased().head();
    CancellationScope scope = Workflow.newCancellationScope(() -> running.add(Async.function(tests::runTests, r, head)));
    scope.run();
    Workflow.await(() -> running.get(0).isCompleted() || historyFull());
    if (!running.get(0).isCompleted()) {
      scope.cancel();
      return new LandStep.Abandoned();
    }
    TestRun run;
    try {
      run = running.get(0).get();
    } catch (ActivityFailure f) {
      metrics.tested(AntMetrics.TestResult.COULD_NOT_RUN);
      return new LandStep.NeedsHuman("the tests could not run: " + message(f));
    }
    metrics.tested(run.passed() ? AntMetrics.TestResult.PASSED
        : run.timedOut() ? AntMetrics.TestResult.TIMED_OUT : AntMetrics.TestResult.FAILED);
    if (!run.passed()) {
      return new LandStep.Rework(run.timedOut() ? AntMetrics.Rework.TESTS_TIMED_OUT : AntMetrics.Rework.TESTS_FAILED,
          run.timedOut() ? "tests timed out after " + r.testTimeoutSeconds() + " s"
          : "tests failed (exit code " + run.exitCode() + ")",
          MergeText.redTests(it.id(), it.branch(), r.target(), r.test(), run), List.of());
    }
    return new LandStep.Tested(rb.onto(), rb.rebased(), run.millis());
  }

  /** OpenPullRequest: the tested head lands as a pull request. */
  private LandStep pullRequest(MergeItem it, BranchHead b, MergeRepo r, LandStep.Tested t) {
    step(it.id(), "opening a pull request");
    try {
      return new LandStep.Landed(b, t, git(Activities.MERGE_PULL_REQUEST, null, "pull request " + it.id() + " · "
          + it.branch()).openPullRequest(r, it.ant(), it.branch(), t.rebased().head(), prTitle(it, t.rebased()),
              prBody(it, t.rebased())));
    } catch (ActivityFailure f) {
      return new LandStep.NeedsHuman("opening the pull request failed: " + message(f));
    }
  }

  /** UpdateTarget: the compare-and-swap from the head tested on to the tested head. */
  private LandStep updateTarget(MergeItem it, BranchHead b, MergeRepo r, LandStep.Tested t) {
    step(it.id(), "updating " + r.target());
    TargetUpdate u;
    try {
      u = git(Activities.MERGE_GIT, null, "update " + r.target() + " " + MergeText.shortSha(t.onto()) + " → "
          + MergeText.shortSha(t.rebased().head())).updateTarget(r, t.onto(), t.rebased().head());
    } catch (ActivityFailure f) {
      return new LandStep.NeedsHuman("updating " + r.target() + " failed: " + message(f));
    }
    return u.outcome() == TargetUpdate.Outcome.MOVED ? new LandStep.Moved(u.head()) : new LandStep.Landed(b, t, null);
  }

  /** The item's outcome: the book, the card, the ant's news, its tasks, freed paths. */
  private void apply(MergeItem it, LandStep outcome, long start) {
    String id = it.id();
    switch (outcome) {
      case LandStep.Landed l -> {
        if (l.url() == null) {
          targetHead = l.tested().rebased().head();
        }
        landed(it, l.branch(), l.tested().rebased(), l.tested().onto(), l.tested().rebased().head(),
            l.tested().testMillis(), start, l.url());
      }
      case LandStep.Rework w -> {
        metrics.reworked(w.why());
        rework(it, w.reason(), w.text(), w.files());
      }
      case LandStep.NeedsHuman h -> toHuman(it, h.reason());
      case LandStep.Closed c -> {
        book.close(id, c.why(), Workflow.currentTimeMillis());
        tell(it.ant(), new MergeNews(MergeNews.Kind.CLOSED, book.repo().name(), id, id + " closed: " + c.why(), null,
            List.of(), c.target()));
        pathsFree(book.freed()); // its work ended with nothing to land: its paths are free
        resubmitLater(it.ant());
      }
      case LandStep.Held h -> {
        book.hold(id, h.reason(), h.until(), h.back(), Workflow.currentTimeMillis());
        book.rejoinLater(it.ant());
      }
      case LandStep.Abandoned a -> {
        // Updates and signals filled this run's history during the tests: the item goes back to
        // the head of the line and is tested again in the next run, which starts at once.
        book.hold(id, "tested again after the queue continued as new (its history filled during the tests)", 0, false,
            Workflow.currentTimeMillis());
        book.rejoinLater(it.ant()); // a submission that came during the landing joins the item (not carried otherwise)
        publish();
      }
      case LandStep.Read r -> throw new IllegalStateException("a landing ended after reading " + r.branch());
      case LandStep.Rebased r -> throw new IllegalStateException("a landing ended after its rebase");
      case LandStep.Tested t -> throw new IllegalStateException("a landing ended after its tests");
      case LandStep.Moved m -> throw new IllegalStateException("a landing ended with the target moved");
    }
  }

  private void step(String id, String step) {
    book.step(id, step, Workflow.currentTimeMillis());
    publish();
  }

  private void landed(MergeItem it, BranchHead b, RebaseResult rebased, String before, String to, long testMillis,
      long start, String url) {
    MergeRepo r = book.repo();
    long now = Workflow.currentTimeMillis();
    List<String> tasks = book.landingTasks(it.id());
    boolean reviewed = r.review() && book.approvedHead(it.id()) != null;
    Landed l = new Landed(it.id(), it.ant(), tasks.isEmpty() ? it.taskId() : tasks.get(0), b.head(), to, before,
        rebased.commits(), testMillis, Math.max(0, now - start - testMillis), now, b.paths(), url, tasks, b.base(),
        reviewed);
    book.landed(it.id(), l, now);
    metrics.landed(now - start);
    List<PathClaim> freed = book.freed(); // the landed work's paths (a claim made since for newer work stays)
    publish();
    tell(it.ant(), new MergeNews(MergeNews.Kind.LANDED, r.name(), it.id(), MergeText.landed(l, r.target()), l,
        List.of(), r.target()));
    String comment = url != null ? "Pull request opened by the merge queue: " + url
        : "Landed on " + r.target() + " as " + MergeText.shortSha(to) + " ("
            + MergeText.plural(rebased.commits(), "commit") + (reviewed ? ", the approved "
                + MergeText.range(b.base(), b.head()) : "") + ") by the merge queue (" + it.id() + ").";
    // Every task whose work landed moves to Done (an item holds each task that joined it).
    for (String task : tasksToTell(it, tasks)) {
      try {
        desk(Activities.MERGE_TASK, "finish task " + task + " · " + it.id() + " landed")
            .finishTask(r.colony(), task, comment);
      } catch (ActivityFailure f) {
        log.warn("merge {}: finishing task {} failed: {}", r.name(), task, message(f));
      }
    }
    pathsFree(freed);
    resubmitLater(it.ant());
  }

  /** A submission that came while the item landed opens the ant's next item now. */
  private void resubmitLater(String ant) {
    Submission s = book.takeLater(ant);
    if (s != null && book.submitProblem(s) == null) {
      book.submit(s, Workflow.currentTimeMillis());
      publish();
    }
  }

  private void rework(MergeItem it, String reason, String text, List<String> files) {
    MergeRepo r = book.repo();
    ItemState s = book.rework(it.id(), reason, Workflow.currentTimeMillis());
    book.rejoinLater(it.ant()); // work submitted meanwhile is held (its task too); the ant's fix is reviewed again
    publish();
    MergeItem now = book.item(it.id());
    if (s == ItemState.NEEDS_HUMAN) {
      metrics.toHuman(); // too many tries
      String human = it.id() + " needs a human after " + now.tries() + (now.tries() == 1 ? " try" : " tries")
          + ": " + reason + "\n\n" + text;
      tell(it.ant(), new MergeNews(MergeNews.Kind.NEEDS_HUMAN, r.name(), it.id(),
          MergeText.block(human, MergeText.MAX_MESSAGE, false), null, cut(files, 50), r.target()));
      return;
    }
    tell(it.ant(), new MergeNews(MergeNews.Kind.REWORK, r.name(), it.id(), text, null, cut(files, 50), r.target()));
    if (book.reworksInSessions(it.ant())
        && Change.MERGE_REWORK_IN_PLACE.applies()) {
      // The ant's rework session fixes the item: its tasks are not requeued (no extra session),
      // they wait where they are and are Done when it lands. With review an approved one goes back
      // to In Review when the fix comes (before: now, when there was nothing to approve yet).
      boolean inReviewNow = r.review()
          && !Change.MERGE_FIX_IN_REVIEW.applies();
      for (String task : now.taskIds()) {
        try {
          desk(Activities.MERGE_TASK, "task " + task + " in rework · " + it.id() + " " + reason)
              .taskInRework(r.colony(), task, text, inReviewNow);
        } catch (ActivityFailure f) {
          log.warn("merge {}: noting the rework on task {} failed: {}", r.name(), task, message(f));
        }
      }
      return;
    }
    for (String task : tasksToTell(it, now.taskIds())) {
      try {
        desk(Activities.MERGE_TASK, "rework task " + task + " · " + it.id() + " " + reason)
            .reworkTask(r.colony(), task, it.ant(), text);
      } catch (ActivityFailure f) {
        log.warn("merge {}: rework of task {} failed: {}", r.name(), task, message(f));
      }
    }
  }

  private void toHuman(MergeItem it, String reason) {
    MergeRepo r = book.repo();
    book.needsHuman(it.id(), reason, Workflow.currentTimeMillis());
    metrics.toHuman();
    book.rejoinLater(it.ant());
    publish();
    tell(it.ant(), new MergeNews(MergeNews.Kind.NEEDS_HUMAN, r.name(), it.id(),
        it.id() + " needs a human: " + MergeText.line(reason, MergeText.MAX_LINE), null, List.of(), r.target()));
  }

  /**
   * The tasks told of a landing or a rework: every task of the item. Runs from before items held
   * several tasks told only the item's first task; an item of one task is told the same either way.
   */
  private static List<String> tasksToTell(MergeItem it, List<String> tasks) {
    List<String> first = it.taskId() == null ? List.of() : List.of(it.taskId());
    if (tasks.equals(first)) {
      return first;
    }
    return !Change.MERGE_ITEM_TASKS.applies() ? first : tasks;
  }

  private static String squashMessage(MergeItem it, BranchHead b) {
    return (it.taskId() == null ? "" : "task " + it.taskId() + ": ") + "work of " + it.ant() + " (" + it.id() + ", "
        + MergeText.plural(b.commits(), "commit") + ")";
  }

  private static String prTitle(MergeItem it, RebaseResult rb) {
    String first = rb.subjects().isEmpty() ? null : rb.subjects().get(0);
    return MergeText.line((it.taskId() == null ? "" : "[" + it.taskId() + "] ") + it.ant() + ": "
        + (first == null ? "work of " + it.id() : first), 200);
  }

  private static String prBody(MergeItem it, RebaseResult rb) {
    StringBuilder sb = new StringBuilder("Opened by Colony's merge queue for ant " + it.ant() + " (" + it.id()
        + "): tests passed on the rebased branch.\n");
    rb.subjects().forEach(s -> sb.append("\n- ").append(MergeText.line(s, 200)));
    return MergeText.block(sb.toString(), MergeText.MAX_MESSAGE, false);
  }

  // ---- handlers ----

  @Override
  public void configure(MergeRepo repo) {
    if (repo != null && Objects.equals(repo.name(), book.repo().name())
        && Objects.equals(repo.colony(), book.repo().colony())) {
      book.configure(repo);
      changes++;
      publish();
    }
  }

  @Override
  public SubmitReply submit(Submission submission) {
    refuseIf(book.submitProblem(submission));
    boolean fix = book.repo().review() && book.fixOfRework(submission);
    SubmitReply reply = book.submit(submission, Workflow.currentTimeMillis());
    if (fix && book.reworksInSessions(submission.ant())
        && Change.MERGE_FIX_IN_REVIEW.applies()) {
      fixesCame.add(reply.itemId()); // (the main loop moves its tasks: this update answers at once)
    }
    changes++;
    publish();
    return reply;
  }

  @Override
  public void validateSubmit(Submission submission) {
    invalidIf(book.submitProblem(submission));
  }

  @Override
  public SubmitReply decide(MergeDecision decision) {
    refuseIf(book.decideProblem(decision));
    MergeItem i = book.decide(decision, Workflow.currentTimeMillis());
    changes++;
    publish();
    if (i.state() == ItemState.CLOSED) {
      tell(i.ant(), new MergeNews(MergeNews.Kind.CLOSED, book.repo().name(), i.id(), i.id() + " " + i.reason(), null,
          List.of(), book.repo().target()));
      pathsFree(book.freed()); // cancelled: the dropped work holds no paths any more
    }
    int pos = i.state() == ItemState.QUEUED ? book.line(Workflow.currentTimeMillis()).stream()
        .map(MergeItem::id).toList().indexOf(i.id()) + 1 : 0;
    return new SubmitReply(i.id(), i.state(), pos, i.id() + " " + i.reason() + ": " + MergeBook.words(i.state()));
  }

  @Override
  public void validateDecide(MergeDecision decision) {
    invalidIf(book.decideProblem(decision));
  }

  @Override
  public void taskApproved(String taskId) {
    if (taskId != null && book.taskApproved(taskId, Workflow.currentTimeMillis())) {
      changes++;
      publish();
    }
  }

  @Override
  public PathReply claimPaths(PathClaim claim) {
    refuseIf(book.claimProblem(claim));
    PathReply reply = book.claim(claim); // claims never make an item ready: the idle loop sleeps on
    publish();
    return reply;
  }

  @Override
  public void validateClaimPaths(PathClaim claim) {
    invalidIf(book.claimProblem(claim));
    // Refused, a claim is a wait for the ant (it asks again a minute later): nothing is lost.
    invalidIf(historyFull() ? "the queue of " + book.repo().name() + " is busy (its history is full until the"
        + " landing in progress ends); ask again in a minute" : null);
  }

  @Override
  public void releasePaths(String ant) {
    if (!MergeBook.name(ant)) {
      return;
    }
    List<PathClaim> freed = book.release(ant);
    publish();
    pathsFree(freed);
  }

  @Override
  public void upgrade() {
    upgrade.request();
  }

  @Override
  public MergeCard card() {
    return book.card(targetHead, Workflow.currentTimeMillis());
  }

  // ---- helpers ----

  private void pathsFree(List<PathClaim> freed) {
    MergeRepo r = book.repo();
    for (PathClaim c : freed) {
      String to = c.antWorkflowId() != null ? c.antWorkflowId() : AntIds.workflowId(r.colony(), c.ant());
      signal(to, new MergeNews(MergeNews.Kind.PATHS_FREE, r.name(), null, "paths free: "
          + MergeText.line(String.join(", ", c.globs()), 200), null, List.of(), r.target()));
    }
  }

  /** News to an ant's workflow; a missing ant (stopped, never started) is fine. */
  private void tell(String ant, MergeNews news) {
    signal(AntIds.workflowId(book.repo().colony(), ant), news);
  }

  private void signal(String workflowId, MergeNews news) {
    try {
      Workflow.newUntypedExternalWorkflowStub(workflowId).signal("mergeNews", news);
    } catch (RuntimeException e) {
      log.info("merge {}: {} not told ({}): {}", book.repo().name(), workflowId, news.kind(), e.getMessage());
    }
  }

  /** A refusal in a handler (the book changed since validation): fails the update only. */
  private static void refuseIf(String why) {
    if (why != null) {
      throw ApplicationFailure.newNonRetryableFailure(why, REFUSED);
    }
  }

  /** A refusal in a validator: the update is rejected and leaves no event. */
  private static void invalidIf(String why) {
    if (why != null) {
      throw new IllegalArgumentException(why);
    }
  }

  private static boolean scheduleToStart(ActivityFailure f) {
    return f.getCause() instanceof TimeoutFailure t && t.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  }

  private static String message(ActivityFailure f) {
    Throwable c = f.getCause() == null ? f : f.getCause();
    String m = c instanceof ApplicationFailure a ? a.getOriginalMessage() : c.getMessage();
    return MergeText.line(m == null ? c.getClass().getSimpleName() : m, 200);
  }

  private static String hostQueue(String host) {
    return host == null || host.isEmpty() ? null
        : WorkspaceActivities.hostQueue(Workflow.getInfo().getTaskQueue(), host);
  }

  private static MergeActivities git(ActivityOptions options, String taskQueue, String summary) {
    ActivityOptions.Builder b = ActivityOptions.newBuilder(options).setSummary(MergeText.line(summary, 200));
    if (taskQueue != null) {
      b.setTaskQueue(taskQueue);
    }
    return Workflow.newActivityStub(MergeActivities.class, b.build());
  }

  private static MergeDeskActivities desk(ActivityOptions options, String summary) {
    return Workflow.newActivityStub(MergeDeskActivities.class,
        ActivityOptions.newBuilder(options).setSummary(MergeText.line(summary, 200)).build());
  }

  private void colonyAttribute() {
    String colony = book.repo().colony();
    if (colony != null && !colony.equals(Workflow.getTypedSearchAttributes().get(AntSearchAttributes.COLONY))) {
      Workflow.upsertTypedSearchAttributes(SearchAttributeUpdate.valueSet(AntSearchAttributes.COLONY, colony));
    }
  }

  /** The card in the memo (no worker needed to read it), and the Web UI's current details. */
  private void publish() {
    MergeCard c = card();
    Workflow.upsertMemo(java.util.Collections.singletonMap(MergeCard.MEMO, c));
    MergeItem first = c.items().isEmpty() ? null : c.items().get(0);
    Workflow.setCurrentDetails("**" + c.repo() + "** → " + c.target() + " · "
        + (first == null ? "idle" : first.id() + " " + (first.state() == ItemState.LANDING ? first.step()
            : MergeBook.words(first.state())))
        + " · " + MergeText.plural(c.items().size(), "open item") + " · " + c.landedCount() + " landed");
  }
}
