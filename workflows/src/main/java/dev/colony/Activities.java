package dev.colony;

import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * Every activity the workflows call, with its timeouts, retries and heartbeat, declared once and
 * with the reasoning. The helpers that build stubs start from these ({@code newBuilder(X)}) and add
 * only what depends on the call: a summary for the Web UI, a host's task queue.
 *
 * <p>Changing a value here changes what new workflow tasks schedule, not the commands' types or
 * order: committed histories still replay (HistoryReplayTest). Running activities keep the
 * options they were scheduled with.
 */
public final class Activities {
  private Activities() {}

  /**
   * An agent session ({@code RunSession}). Start-to-close is the ant's {@code session_timeout} plus
   * two minutes for the worker to stop the agent and report; the heartbeat timeout is the ant's
   * {@code heartbeat_timeout}, so a dead worker is noticed in seconds, not at the end of a session
   * of hours. Retries start fast (a lost worker: another one takes over and resumes the
   * conversation) and stop after ten, when the error policy takes over. A cancelled session is
   * waited for, so the agent has stopped before the next session starts.
   */
  public static ActivityOptions.Builder session(long sessionTimeoutSeconds, long heartbeatTimeoutSeconds) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(sessionTimeoutSeconds + 120))
        .setHeartbeatTimeout(Duration.ofSeconds(heartbeatTimeoutSeconds))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(1))
            .setMaximumInterval(Duration.ofSeconds(30))
            .setMaximumAttempts(10)
            .build())
        .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED);
  }

  /**
   * An ant's chat post ({@code Post}), a local activity. One short call: if its worker dies
   * mid-post, the ant's later posts wait behind it (they leave in order) until this timeout lets
   * another attempt run, so it is short. Ten attempts ride out a chat service's brief outage;
   * after them the post is given up (logged) and the next one goes.
   */
  public static final LocalActivityOptions ANT_CHAT_POST = LocalActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(10))
      .setRetryOptions(RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(30))
          .setMaximumAttempts(10)
          .build())
      .build();

  /**
   * The colony supervisor's chat post ({@code Post}) to the alerts channel: as short as an ant's
   * post, with the SDK's default first retry; ten attempts, then the alert is only in the log.
   */
  public static final ActivityOptions COLONY_CHAT_POST = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(10))
      .setRetryOptions(RetryOptions.newBuilder().setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(10).build())
      .build();

  /**
   * A notice to phones and the webhook ({@code Notify}): one HTTP call per target, 30 s each at
   * most. Five attempts over a few minutes: a notice that comes late is still useful, one that
   * never stops retrying would hold the ant's continue-as-new; reminders follow anyway.
   */
  public static final ActivityOptions NOTIFY = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(5))
          .setMaximumInterval(Duration.ofMinutes(1)).setMaximumAttempts(5).build())
      .build();

  /**
   * A colony event to the colony's webhook ({@code DeliverWebhook}): one signed POST. Twelve attempts,
   * backing off to ten minutes, ride out a receiver down for about an hour; the supervisor's
   * continue-as-new waits for deliveries in flight.
   */
  public static final ActivityOptions WEBHOOK = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
          .setMaximumInterval(Duration.ofMinutes(10)).setMaximumAttempts(12).build())
      .build();

  /**
   * A poll of GitHub's issues ({@code ListOpenIssues}): paged REST calls, two minutes at most.
   * Three attempts only: the next poll comes soon anyway, and retrying harder spends the
   * rate limit.
   */
  public static final ActivityOptions GITHUB = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofMinutes(2))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(5))
          .setMaximumInterval(Duration.ofMinutes(1)).setMaximumAttempts(3).build())
      .build();

  /**
   * A GitHub issue made a task, or its task moved to Done ({@code AddIssueTask},
   * {@code CloseIssueTask}): a start or an update of the task's workflow, answered within seconds
   * when a worker runs. Five attempts: past them the watcher tries again at its next poll, and
   * the task's id makes a repeat harmless.
   */
  public static final ActivityOptions ISSUE_TASK = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofMinutes(1))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
          .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(5).build())
      .build();

  /**
   * Claiming a host ({@code ClaimHost}) on the shared queue: whichever worker answers becomes the
   * ant's host. No attempt limit: an ant without a host cannot run, and a worker will poll again.
   */
  public static final ActivityOptions CLAIM_HOST = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(30))
          .build())
      .build();

  /**
   * Asking whether the ant's host still polls ({@code HostPolling}): three attempts, then the
   * answer counts as no and the ant moves to another host.
   */
  public static final ActivityOptions HOST_POLLING = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
      .build();

  /**
   * One overseer evaluation ({@code EvaluateTurns}): a single model call, which may think for a
   * while, so three minutes. Three attempts: a model that keeps failing is not worth more calls;
   * what a failed evaluation cost still counts.
   */
  public static final ActivityOptions OVERSEER_EVALUATION = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofMinutes(3))
      .setRetryOptions(RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofSeconds(2))
          .setMaximumInterval(Duration.ofSeconds(20))
          .setMaximumAttempts(3)
          .build())
      .build();

  /**
   * An ant's look at the board ({@code FindTasks}): one visibility query on the colony's queue
   * (any worker answers; no host is needed to read the board). Three attempts, then the ant goes
   * on without a task: it looks again before its next session, or within five minutes when it waits.
   */
  public static final ActivityOptions TASK_FIND = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(10)).setMaximumAttempts(3).build())
      .build();

  /**
   * An ant's look in one call ({@code TakeTask}: find, then claim), a local activity on the ant's
   * own worker (which serves the colony's queue, where the board's calls run): no server round
   * trip between finding and claiming. Three attempts with the look's one token (a claim it made
   * is answered again, not made twice), then the ant keeps the token for its next look.
   */
  public static final LocalActivityOptions TASK_TAKE = LocalActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(10)).setMaximumAttempts(3).build())
      .build();

  /**
   * An ant's claim on a task ({@code ClaimTask}): one update on the task's workflow. Retried with
   * the same token (the update is idempotent on it), so a worker killed mid-claim loses nothing;
   * ten attempts over about two minutes, then the ant keeps the token and repeats the claim when
   * the board shows the task as its own.
   */
  public static final ActivityOptions TASK_CLAIM = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(20)).setMaximumAttempts(10).build())
      .build();

  /**
   * An ant's report on its task ({@code ReportTask}): one update. Twelve attempts backing off to a
   * minute ride out a short outage; a report that never lands leaves the task In Progress, where
   * the task's own check of its ant (or a human) moves it on. A stop waits for its RELEASED report.
   */
  public static final ActivityOptions TASK_REPORT = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofMinutes(1)).setMaximumAttempts(12).build())
      .build();

  /**
   * A task telling the ants that may take it ({@code AnnounceTask}): one visibility list and a
   * signal per ant, 30 s at most. Five attempts: an announcement that never arrives only delays
   * the task until an ant's next idle search, so it is not worth holding the task's workflow.
   */
  public static final ActivityOptions TASK_ANNOUNCE = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(5).build())
      .build();

  /**
   * An In Progress task asking whether its ant still runs ({@code AntRunning}): one describe call.
   * Three attempts; a check that fails counts as "running" (the workflow decides so), because
   * re-queuing a task under a live ant is worse than noticing a gone one a check later.
   */
  public static final ActivityOptions TASK_ANT_RUNNING = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
      .build();

  /**
   * Telling an ant a human took its task away ({@code WithdrawTask}): one signal. Ten attempts
   * over a few minutes; an ant that never hears it still learns at its next report, which the
   * task refuses.
   */
  public static final ActivityOptions TASK_WITHDRAW = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(10).build())
      .build();

  /**
   * An ant's calls on the board ({@code FindTasks}, {@code ClaimTask}, {@code ReportTask}): a
   * visibility list or one update of the task's workflow, bounded at 30 s. Retried without an
   * attempt limit up to a minute apart: a claim is idempotent on its token and a report on the
   * claim, so a retry after a worker died never takes or reports twice, and a lost report would
   * leave the task In Progress.
   */
  public static final ActivityOptions TASK_BOARD_CALL = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofMinutes(1)).build())
      .build();

  // ---- the merge queue (dev.colony.merge) ----

  /**
   * Every git step and the tests heartbeat every few seconds while they run: a worker killed in the
   * middle of one is noticed after this long, and another worker runs the step again (a step's
   * start-to-close of minutes would otherwise hold the queue that long).
   */
  public static final Duration MERGE_HEARTBEAT = Duration.ofSeconds(20);

  /**
   * Reading (and for a URL repository pushing) an ant's branch on its host ({@code PublishBranch}),
   * scheduled on the ant's host queue. Schedule-to-start is bounded at two minutes: a host that
   * no longer polls must not hold the whole queue, so the item stays QUEUED with a reason and is
   * skipped for a few minutes while the others land. Five attempts of two minutes each: git on a
   * local worktree answers in seconds, a push to a remote may take longer.
   */
  public static final ActivityOptions MERGE_PUBLISH = ActivityOptions.newBuilder()
      .setScheduleToStartTimeout(Duration.ofMinutes(2))
      .setStartToCloseTimeout(Duration.ofMinutes(2))
      .setHeartbeatTimeout(MERGE_HEARTBEAT)
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(5).build())
      .build();

  /**
   * Moving an ant's branch onto the target after its work landed ({@code SyncBranch}), on its host
   * before its next session. Bounded like {@link #MERGE_PUBLISH}: a host that is gone has no
   * worktree to move anyway, and the ant's next session reads its branch as it is.
   */
  public static final ActivityOptions MERGE_SYNC = ActivityOptions.newBuilder()
      .setScheduleToStartTimeout(Duration.ofMinutes(2))
      .setStartToCloseTimeout(Duration.ofMinutes(2))
      .setHeartbeatTimeout(MERGE_HEARTBEAT)
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(3).build())
      .build();

  /**
   * The queue's git steps in its scratch ({@code PrepareScratch}, {@code Rebase}, {@code UpdateTarget}):
   * each rebuilds what it needs from commits, so a retry after a worker died is safe. Ten minutes
   * each (a first fetch of a large repository); twelve attempts backing off to a minute ride out a
   * worker restart or a remote's short outage; past them the item goes to a human with the error.
   */
  public static final ActivityOptions MERGE_GIT = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofMinutes(10))
      .setHeartbeatTimeout(MERGE_HEARTBEAT)
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofMinutes(1)).setMaximumAttempts(12).build())
      .build();

  /**
   * The test command ({@code RunTests}): start-to-close is the repository's test timeout plus two
   * minutes (the activity kills the process tree at the timeout itself and reports it red; the
   * margin covers preparing the scratch and the kill). It heartbeats every few seconds, so a dead
   * worker is noticed within a minute and another one runs the tests again. Three attempts: a
   * test run is costly, and a red run is a result, not a failure.
   */
  public static ActivityOptions mergeTests(long testTimeoutSeconds) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(Math.max(1, testTimeoutSeconds) + 120))
        .setHeartbeatTimeout(MERGE_HEARTBEAT)
        .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
            .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(3).build())
        .build();
  }

  /**
   * Opening (or finding) an item's pull request ({@code OpenPullRequest}): a push and a few REST
   * calls, two minutes. Five attempts: GitHub's brief outages pass; past them a human decides.
   */
  public static final ActivityOptions MERGE_PULL_REQUEST = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofMinutes(2))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(5))
          .setMaximumInterval(Duration.ofMinutes(1)).setMaximumAttempts(5).build())
      .build();

  /**
   * An ant's submission or claim to its repository's queue ({@code SubmitMerge}, {@code ClaimPaths}):
   * one update-with-start, answered within seconds when a worker runs. A refusal comes back as a
   * non-retryable failure; otherwise ten attempts up to half a minute apart ride out a restart.
   */
  public static final ActivityOptions MERGE_DESK = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(10).build())
      .build();

  /**
   * The queue's changes to tasks ({@code FinishTask}, {@code ReworkTask}): one or two updates of the
   * task's workflow through the board. Ten attempts over a few minutes; "already so" is success.
   * A task change that never lands leaves the task where it was, which a human sees on the board.
   */
  public static final ActivityOptions MERGE_TASK = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(30))
      .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
          .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(10).build())
      .build();

  /**
   * The queue asking the board for the states of the tasks its items wait on ({@code TaskStates}),
   * every 30 s while items await review: memo reads. Two attempts: the next look comes soon.
   */
  public static final ActivityOptions MERGE_TASK_STATES = ActivityOptions.newBuilder()
      .setStartToCloseTimeout(Duration.ofSeconds(20))
      .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(2).build())
      .build();
}
