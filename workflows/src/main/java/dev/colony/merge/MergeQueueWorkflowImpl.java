package dev.colony.merge;

import dev.colony.Activities;
import dev.colony.ant.Timers;
import dev.colony.compat.Compatibility.Change;
import dev.colony.spec.AntIds;
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
    Map<String, String> states;
    try {
      states = desk(Activities.MERGE_TASK_STATES, "review check · " + String.join(", ", cut(taskIds, 5)))
          .taskStates(book.repo().colony(), taskIds);
    } catch (ActivityFailure f) {
      log.warn("merge {}: review check failed: {}", book.repo().name(), message(f));
      return;
    }
    boolean any = false;
    for (String id : taskIds) {
      String s = states == null ? null : states.get(id);
      if (s != null && s.equalsIgnoreCase("DONE")) {
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

  /** This run's history is at its bound: nothing more may grow it before continue-as-new. */
  private static boolean historyFull() {
    return Workflow.getInfo().getHistoryLength() > historyBound;
  }

  // ---- landing ----

  private void land(MergeItem it) {
    String id = it.id();
    MergeRepo r = book.repo();
    long start = Workflow.currentTimeMillis();
    book.landing(id, start);
    publish();

    BranchHead b;
    // With review, what lands is the head a human approved, not the branch as it is now.
    String approved = book.approvedHead(id);
    try {
      b = git(Activities.MERGE_PUBLISH, hostQueue(it.host()), "publish " + it.branch() + " of " + id
          + (it.host() == null || it.host().isEmpty() ? "" : " on " + it.host())
          + (approved == null ? "" : " · approved " + MergeText.shortSha(approved)))
          .publishBranch(r, it.ant(), it.branch(), book.landedUpTo(it.ant()), approved);
    } catch (ActivityFailure f) {
      if (scheduleToStart(f)) {
        long now = Workflow.currentTimeMillis();
        book.hold(id, "host " + it.host() + " is not answering; trying again in "
            + HOST_GONE_HOLD.toMinutes() + " min", now + HOST_GONE_HOLD.toMillis(), false, now);
        book.rejoinLater(it.ant());
        return;
      }
      toHuman(it, "reading " + it.branch() + " failed: " + message(f));
      return;
    }
    if (b == null || b.head() == null || b.commits() <= 0) {
      String why = b == null || b.head() == null ? "branch " + it.branch() + " does not exist" : "nothing to land";
      book.close(id, why, Workflow.currentTimeMillis());
      tell(it.ant(), new MergeNews(MergeNews.Kind.CLOSED, r.name(), id, id + " closed: " + why, null, List.of(),
          r.target()));
      pathsFree(book.freed()); // its work ended with nothing to land: its paths are free
      resubmitLater(it.ant());
      return;
    }
    book.read(id, b, Workflow.currentTimeMillis());
    for (int moved = 0; ; ) {
      r = book.repo(); // a configure signal applies from the next attempt
      String onto;
      RebaseResult rebased;
      TestRun run = null;
      try {
        step(id, "preparing");
        onto = git(Activities.MERGE_GIT, null, "prepare scratch of " + r.name() + " · fetch " + r.target())
            .prepareScratch(r);
        targetHead = onto;
        step(id, "rebasing");
        rebased = git(Activities.MERGE_GIT, null, "rebase " + id + " onto " + r.target() + " "
            + MergeText.shortSha(onto)).rebase(r, b, onto, squashMessage(it, b));
      } catch (ActivityFailure f) {
        toHuman(it, "preparing the landing failed: " + message(f));
        return;
      }
      if (rebased.conflicted()) {
        String text = MergeText.conflict(id, it.branch(), r.target(), rebased.conflicts(), rebased.detail());
        rework(it, "conflict in " + String.join(", ", cut(rebased.conflicts(), 5))
            + (rebased.conflicts().size() > 5 ? " …" : ""), text, rebased.conflicts());
        return;
      }
      if (onto.equals(rebased.head()) || rebased.commits() <= 0) {
        // Every commit was already on the target (git dropped them as applied): nothing lands.
        String why = "its commits are already on " + r.target();
        book.close(id, why, Workflow.currentTimeMillis());
        tell(it.ant(), new MergeNews(MergeNews.Kind.CLOSED, r.name(), id, id + " closed: " + why, null, List.of(),
            r.target()));
        pathsFree(book.freed());
        resubmitLater(it.ant());
        return;
      }
      if (!r.test().isEmpty()) {
        step(id, "testing");
        MergeActivities tests = git(Activities.mergeTests(r.testTimeoutSeconds()), null, "tests " + id + " · "
            + MergeText.plural(rebased.commits(), "commit"));
        List<Promise<TestRun>> running = new java.util.ArrayList<>(1);
        String head = rebased.head();
        MergeRepo testedRepo = r;
        CancellationScope scope = Workflow.newCancellationScope(
            () -> running.add(Async.function(tests::runTests, testedRepo, head)));
        scope.run();
        Workflow.await(() -> running.get(0).isCompleted() || historyFull());
        if (!running.get(0).isCompleted()) {
          // Updates and signals filled this run's history during the tests: the item goes back to
          // the head of the line and is tested again in the next run, which starts at once.
          scope.cancel();
          book.hold(id, "tested again after the queue continued as new (its history filled during the tests)", 0, false,
              Workflow.currentTimeMillis());
          book.rejoinLater(it.ant()); // a submission that came during the landing joins the item (not carried otherwise)
          publish();
          return;
        }
        try {
          run = running.get(0).get();
        } catch (ActivityFailure f) {
          toHuman(it, "the tests could not run: " + message(f));
          return;
        }
        if (!run.passed()) {
          String text = MergeText.redTests(id, it.branch(), r.target(), r.test(), run);
          rework(it, run.timedOut() ? "tests timed out after " + r.testTimeoutSeconds() + " s"
              : "tests failed (exit code " + run.exitCode() + ")", text, List.of());
          return;
        }
      }
      long testMillis = run == null ? 0 : run.millis();
      if (r.land() == LandMode.PULL_REQUEST) {
        step(id, "opening a pull request");
        String url;
        try {
          url = git(Activities.MERGE_PULL_REQUEST, null, "pull request " + id + " · " + it.branch())
              .openPullRequest(r, it.ant(), it.branch(), rebased.head(), prTitle(it, rebased), prBody(it, rebased));
        } catch (ActivityFailure f) {
          toHuman(it, "opening the pull request failed: " + message(f));
          return;
        }
        landed(it, b, rebased, onto, rebased.head(), testMillis, start, url);
        return;
      }
      step(id, "updating " + r.target());
      TargetUpdate u;
      try {
        u = git(Activities.MERGE_GIT, null, "update " + r.target() + " " + MergeText.shortSha(onto) + " → "
            + MergeText.shortSha(rebased.head())).updateTarget(r, onto, rebased.head());
      } catch (ActivityFailure f) {
        toHuman(it, "updating " + r.target() + " failed: " + message(f));
        return;
      }
      if (u.outcome() != TargetUpdate.Outcome.MOVED) {
        targetHead = rebased.head();
        landed(it, b, rebased, onto, rebased.head(), testMillis, start, null);
        return;
      }
      targetHead = u.head();
      moved++;
      if (moved >= MAX_MOVES) {
        long now = Workflow.currentTimeMillis();
        book.hold(id, r.target() + " moved " + moved + " times while " + id + " landed: back of the line", 0, true, now);
        book.rejoinLater(it.ant());
        return;
      }
      step(id, r.target() + " moved (" + moved + " of " + MAX_MOVES + "): rebasing again");
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
