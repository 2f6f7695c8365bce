package dev.colony.ant;

import static dev.colony.supervisor.OperatorMessages.trim;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.autonomy.Decide;
import dev.colony.autonomy.PendingConfirmation;
import dev.colony.chat.ChatActivities;
import dev.colony.chat.ChatPost;
import dev.colony.schedule.CronSchedule;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.supervisor.Backoff;
import dev.colony.supervisor.OperatorMessages;
import dev.colony.supervisor.Outcome;
import dev.colony.visibility.AntSearchAttributes;
import dev.colony.workspace.WorkspaceActivities;
import dev.colony.trigger.IssueEvent;
import dev.colony.spec.TriggerSpec;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;

/**
 * The supervisor of one ant. The loop: wait for a reason to run (a pending backoff, rate-limit
 * or sleep timer; the schedule; a human message), wait while paused, prepare the workspace, run
 * one session, classify its outcome and act on it. All waits are {@code Workflow.await} with a
 * condition, so signals act at once, and a paused ant holds no timer at all.
 */
public class AntWorkflowImpl implements AntWorkflow {
  private static final Logger log = Workflow.getLogger(AntWorkflowImpl.class);
  /** A single queued instruction is bounded so one paste cannot bloat the history. */
  public static final int MAX_MESSAGE_CHARS = 16_000;
  private static final String OPERATOR = "operator";
  /** The pause reason of an ant parked by an error threshold. */
  static final String PARKED_REASON = "errors";
  /**
   * Workflow code changes that alter the commands a workflow issues are gated by a version
   * marker so ants already running (and the histories committed under test resources) replay
   * exactly as they were recorded. See "Changing workflow code safely" in the README.
   */
  static final String PAUSE_NOTICE_CHANGE = "pause-effect-notice";
  /**
   * Version 1: the ant publishes its state to visibility (search attributes, memo, current
   * details) from a thread of its own, which adds upsert commands to the history.
   */
  static final String VISIBILITY_CHANGE = "visibility-search-attributes";
  /**
   * Version 1: no message can stop an ant. A session gets at most {@link #MAX_BATCH_CHARS} of
   * queued instructions (the rest wait for the next session, which starts at once); instructions
   * that {@link #MAX_DELIVERY_FAILURES} failed sessions in a row carried are dropped with a notice
   * instead of going back to the queue for ever; NULs are removed from messages.
   */
  static final String DELIVERY_CHANGE = "bounded-delivery";
  static final int MAX_BATCH_CHARS = 64_000;
  /**
   * Version 1: a cron ant resumed after a pause that spanned one or more ticks runs once at once
   * for the ticks it missed (not once per tick, and not only at the next tick).
   */
  static final String MISSED_TICKS_CHANGE = "missed-ticks-catch-up";
  /** Version 1: the ant publishes what wakes it ({@code AntWakesOn}) to visibility. */
  static final String WAKES_ON_CHANGE = "wakes-on-attribute";
  static final int MAX_DELIVERY_FAILURES = 3;
  /** How many handled issues an ant remembers (carried over continue-as-new). */
  static final int MAX_HANDLED_ISSUES = 5_000;
  /** How many matching issues may wait for a session; more are refused with a notice. */
  static final int MAX_PENDING_ISSUES = 1_000;

  private AntSpec spec;
  private AntSpec pendingSpec;
  private ActivityOptions sessionOptions;
  private ActivityOptions workspaceOptions;
  private final ActivityOptions chatOptions;

  // Carried across continue-as-new (see AntMemory).
  private int sessionCount;
  private int consecutiveErrors;
  private boolean paused;
  private String pauseReason;
  private final List<String> queue = new ArrayList<>();
  private long postSequence;
  private boolean announced;
  private Long wakeAtMillis;
  private Lifecycle waitKind;
  private boolean scheduledRunDue;
  private String lastOutcome;
  private String lastDetail;
  private final long startedAtMillis;
  private final TreeMap<String, Integer> sessionsByOutcome = new TreeMap<>();
  private long turns;
  private double costUsd;
  private boolean costReported;
  private long inputTokens;
  private long outputTokens;
  private int deliveryFailures;
  /** Failed sessions in all (for max_total_errors); reset only when a parked ant is resumed. */
  private int totalErrors;
  /** Issues ever taken by a session (bounded: the oldest are forgotten first). */
  private final LinkedHashSet<String> handledIssues = new LinkedHashSet<>();
  /** Matching issues not yet taken, oldest first. */
  private final List<IssueEvent> pendingIssues = new ArrayList<>();

  // Per run only.
  private Lifecycle lifecycle = Lifecycle.STARTING;
  private boolean stopRequested;
  private boolean wakeEarly;
  private boolean sessionRunning;
  private final List<ChatPost> outbox = new ArrayList<>();
  /** Dangerous tool calls of the current session, by request key; cleared between sessions. */
  private final Map<String, Confirmation> confirmations = new LinkedHashMap<>();
  private int confirmationSequence;
  /** What this run last wrote to visibility; null until the first write. */
  private AntVisibility published;
  private boolean publishing;
  private boolean boundedDelivery;
  private boolean catchUpTicks;
  private boolean publishWakesOn;
  /** When the current pause began (workflow time), to catch up cron ticks missed meanwhile. */
  private Long pausedSinceMillis;
  /** The issue the running session works on (given back if it fails). */
  private IssueEvent takenIssue;

  /** One confirmation: the request, when it is denied by default, and the decision once made. */
  private static final class Confirmation {
    final int id;
    final ConfirmationRequest request;
    final long deadlineMillis;
    ConfirmationDecision decision;

    Confirmation(int id, ConfirmationRequest request, long deadlineMillis) {
      this.id = id;
      this.request = request;
      this.deadlineMillis = deadlineMillis;
    }
  }

  @WorkflowInit
  public AntWorkflowImpl(AntRun run) {
    this.spec = run.spec();
    // A post is one short call. If its worker dies mid-post, the ant's later posts wait behind it
    // (they leave in order) until this timeout lets another worker retry it: keep it short.
    this.chatOptions = ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(1))
            .setMaximumInterval(Duration.ofSeconds(30))
            .setMaximumAttempts(10)
            .build())
        .build();
    buildSessionStubs();
    AntMemory m = run.memory();
    if (m == null) {
      startedAtMillis = Workflow.currentTimeMillis();
      return;
    }
    sessionCount = m.sessions();
    consecutiveErrors = m.consecutiveErrors();
    paused = m.paused();
    pauseReason = m.pauseReason();
    queue.addAll(m.queue());
    postSequence = m.postSequence();
    announced = m.announced();
    wakeAtMillis = m.wakeAtMillis();
    waitKind = m.waitKind();
    scheduledRunDue = m.scheduledRunDue();
    lastOutcome = m.lastOutcome();
    lastDetail = m.lastDetail();
    startedAtMillis = m.startedAtMillis();
    sessionsByOutcome.putAll(m.sessionsByOutcome());
    turns = m.turns();
    costUsd = m.costUsd();
    costReported = m.costReported();
    inputTokens = m.inputTokens();
    outputTokens = m.outputTokens();
    deliveryFailures = m.deliveryFailures();
    handledIssues.addAll(m.handledIssues());
    pendingIssues.addAll(m.pendingIssues());
    totalErrors = m.totalErrors();
  }

  private void buildSessionStubs() {
    // Outcomes are values: retries here are only for infrastructure faults (a worker crash,
    // a lost heartbeat). The session bound itself is enforced inside the activity; the
    // start-to-close timeout is a backstop a little beyond it.
    this.sessionOptions = ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(spec.sessionTimeoutSeconds() + 120))
        .setHeartbeatTimeout(Duration.ofSeconds(spec.heartbeatTimeoutSeconds()))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(1))
            .setMaximumInterval(Duration.ofSeconds(30))
            .setMaximumAttempts(10)
            .build())
        .build();
    this.workspaceOptions = ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(15))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(2))
            .setMaximumInterval(Duration.ofSeconds(30))
            .setMaximumAttempts(5)
            .build())
        .build();
  }

  // Stubs are made per call so each activity carries a summary the Web UI shows in the history.

  private SessionActivities sessions(int number) {
    return Workflow.newActivityStub(SessionActivities.class, sessionOptions.toBuilder()
        .setSummary("session " + number + " · " + spec.engine().configName()).build());
  }

  private WorkspaceActivities workspaces(int number) {
    return Workflow.newActivityStub(WorkspaceActivities.class, workspaceOptions.toBuilder()
        .setSummary("workspace for session " + number).build());
  }

  private ChatActivities chat(ChatPost post) {
    return Workflow.newActivityStub(ChatActivities.class, chatOptions.toBuilder()
        .setSummary("post · " + OperatorMessages.summary(post.text())).build());
  }

  @Override
  public void run(AntRun run) {
    // Version checks come first, before any other workflow thread exists: a getVersion call can
    // yield, and anywhere later it would let the outbox thread schedule its post first on replay.
    publishing = Workflow.getVersion(VISIBILITY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
    boundedDelivery = Workflow.getVersion(DELIVERY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
    catchUpTicks = Workflow.getVersion(MISSED_TICKS_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
    publishWakesOn = Workflow.getVersion(WAKES_ON_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
    Async.procedure(this::deliverPosts);
    if (publishing) {
      Async.procedure(this::publishVisibility);
    }
    if (!announced) {
      announced = true;
      say(OperatorMessages.started(spec.name()));
    }
    int sessionsThisRun = 0;
    while (!stopRequested) {
      applyPendingSpec();
      if (sessionsThisRun > 0
          && (sessionsThisRun >= spec.continueAsNewEvery()
              || Workflow.getInfo().isContinueAsNewSuggested())) {
        continueAsNew();
        return;
      }
      if (readyToRun()) {
        runOneSession();
        sessionsThisRun++;
      }
    }
    lifecycle = Lifecycle.STOPPED;
    wakeAtMillis = null;
    say(OperatorMessages.stopped(spec.name()));
    Workflow.await(() -> outbox.isEmpty() && Workflow.isEveryHandlerFinished()
        && (!publishing || visibility().equals(published)));
  }

  /**
   * Does at most one wait and says whether a session should start now. Returning false sends
   * the loop back to its top so stop, a new spec and continue-as-new are looked at between waits.
   */
  private boolean readyToRun() {
    if (wakeAtMillis != null) {
      lifecycle = waitKind;
      long remaining = wakeAtMillis - Workflow.currentTimeMillis();
      // An issue wakes an ant waiting for its next cron tick, not one backing off or rate limited.
      boolean interrupted = remaining > 0
          && Workflow.await(Duration.ofMillis(remaining), () -> stopRequested || wakeEarly
              || (waitKind == Lifecycle.WAITING && !pendingIssues.isEmpty()));
      if (!interrupted && waitKind == Lifecycle.WAITING) {
        scheduledRunDue = true;
      }
      clearWait();
      return false;
    }
    if (paused) {
      lifecycle = PARKED_REASON.equals(pauseReason) ? Lifecycle.PARKED : Lifecycle.PAUSED;
      if (pausedSinceMillis == null) {
        pausedSinceMillis = Workflow.currentTimeMillis();
      }
      Workflow.await(() -> !paused || stopRequested || pendingSpec != null);
      if (!paused) {
        Long tick = spec.cron() == null ? null
            : CronSchedule.nextTick(spec.cron(), spec.timezone(), pausedSinceMillis);
        if (catchUpTicks && tick != null && tick <= Workflow.currentTimeMillis()) {
          scheduledRunDue = true; // one run for all the ticks missed while paused
        }
        pausedSinceMillis = null;
      }
      return false;
    }
    if (spec.eventDriven() && queue.isEmpty() && !scheduledRunDue && pendingIssues.isEmpty()) {
      lifecycle = Lifecycle.WAITING;
      Long tick = spec.cron() == null ? null
          : CronSchedule.nextTick(spec.cron(), spec.timezone(), Workflow.currentTimeMillis());
      if (tick != null) {
        scheduleWait(tick, Lifecycle.WAITING);
      } else {
        // Triggers only: nothing to time; a message or a matching GitHub issue wakes the ant.
        Workflow.await(() -> !queue.isEmpty() || !pendingIssues.isEmpty() || paused || stopRequested
            || pendingSpec != null);
      }
      return false;
    }
    return !stopRequested;
  }

  private void runOneSession() {
    scheduledRunDue = false;
    sessionRunning = true;
    lifecycle = Lifecycle.PREPARING;
    String workspace;
    try {
      workspace = workspaces(sessionCount + 1).prepareWorkspace(spec);
    } catch (ActivityFailure f) {
      sessionRunning = false;
      sessionCount++;
      act(SessionResult.of(Outcome.TRANSIENT, "workspace setup failed: " + rootMessage(f)), List.of());
      return;
    }
    List<String> delivered;
    if (boundedDelivery) {
      delivered = takeBatch();
    } else {
      delivered = new ArrayList<>(queue);
      queue.clear();
    }
    int number = sessionCount + 1;
    lifecycle = Lifecycle.RUNNING;
    // One issue per session, oldest first; it counts as handled from now on (a repeat signal is
    // ignored), and goes back to the front if the session fails.
    IssueEvent issue = pendingIssues.isEmpty() ? null : pendingIssues.remove(0);
    if (issue != null) {
      handledIssues.add(issue.key());
      while (handledIssues.size() > MAX_HANDLED_ISSUES) {
        handledIssues.remove(handledIssues.iterator().next());
      }
    }
    takenIssue = issue;
    SessionRequest request = issue == null ? new SessionRequest(spec, number, delivered, workspace)
        : new SessionRequest(spec, number, delivered, workspace, issue);
    List<Promise<SessionResult>> holder = new ArrayList<>(1);
    SessionActivities sessions = sessions(number);
    CancellationScope scope = Workflow.newCancellationScope(
        () -> holder.add(Async.function(sessions::runSession, request)));
    scope.run();
    Promise<SessionResult> session = holder.get(0);
    Workflow.await(() -> session.isCompleted() || stopRequested);
    if (!session.isCompleted()) {
      scope.cancel();
    }
    SessionResult result;
    try {
      result = session.get();
    } catch (ActivityFailure f) {
      sessionRunning = false;
      if (f.getCause() instanceof CanceledFailure || stopRequested) {
        queue.addAll(0, delivered);
        giveIssueBack();
        return;
      }
      result = SessionResult.of(Outcome.TRANSIENT, "session failed: " + rootMessage(f));
    } catch (CanceledFailure c) {
      sessionRunning = false;
      queue.addAll(0, delivered);
      giveIssueBack();
      return;
    }
    sessionRunning = false;
    sessionCount = number;
    confirmations.values().removeIf(c -> c.request.session() <= number);
    boolean pauseWasPending = paused && OPERATOR.equals(pauseReason);
    act(result, delivered);
    // Version 1: when a pause asked for during the session takes effect, say so, so the
    // operator who read "will pause after the current session" knows it happened.
    if (pauseWasPending && paused && OPERATOR.equals(pauseReason)
        && Workflow.getVersion(PAUSE_NOTICE_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
      say(OperatorMessages.pausing(spec.name(), false));
    }
  }

  private void giveIssueBack() {
    if (takenIssue != null) {
      pendingIssues.add(0, takenIssue);
      takenIssue = null;
    }
  }

  /** The queued instructions for one session: in order, at most MAX_BATCH_CHARS (at least one). */
  private List<String> takeBatch() {
    List<String> batch = new ArrayList<>();
    int chars = 0;
    while (!queue.isEmpty() && (batch.isEmpty() || chars + queue.get(0).length() <= MAX_BATCH_CHARS)) {
      chars += queue.get(0).length();
      batch.add(queue.remove(0));
    }
    return batch;
  }

  /**
   * A failed session hands its instructions back to the queue, unless failed sessions carried
   * them MAX_DELIVERY_FAILURES times in a row: then they are dropped with a notice, so a message
   * the agent cannot take never keeps the ant backing off for ever.
   */
  private void requeueAfterFailure(List<String> delivered, boolean counts) {
    if (delivered.isEmpty()) {
      return;
    }
    if (counts && boundedDelivery && ++deliveryFailures >= MAX_DELIVERY_FAILURES) {
      say(OperatorMessages.undeliverable(spec.name(), delivered.size(), deliveryFailures, delivered.get(0)));
      deliveryFailures = 0;
      return;
    }
    queue.addAll(0, delivered);
  }

  /** Applies the supervisor policy for one finished session. */
  private void act(SessionResult r, List<String> delivered) {
    Outcome outcome = r.outcome() == null ? Outcome.TRANSIENT : r.outcome();
    record(outcome, r);
    String name = spec.name();
    long now = Workflow.currentTimeMillis();
    switch (outcome.action()) {
      case CONTINUE -> {
        consecutiveErrors = 0;
        deliveryFailures = 0;
        say(OperatorMessages.succeeded(name, sessionCount, r.detail()));
        // Instructions still queued (sent during the session, or beyond one batch) run at once.
        boolean moreQueued = !queue.isEmpty() && boundedDelivery;
        if (!spec.eventDriven() && spec.pollIntervalSeconds() > 0 && !moreQueued) {
          scheduleWait(now + spec.pollIntervalSeconds() * 1000, Lifecycle.SLEEPING);
        }
      }
      case RESTART_NOW -> {
        consecutiveErrors = 0;
        deliveryFailures = 0;
      }
      case BACK_OFF -> {
        requeueAfterFailure(delivered, true);
        giveIssueBack();
        consecutiveErrors++;
        totalErrors++;
        String reached = spec.supervision().thresholdReached(consecutiveErrors, totalErrors);
        if (reached != null) {
          // Parked: no more sessions, no timer, until a human resumes (counters reset) or stops it.
          paused = true;
          pauseReason = PARKED_REASON;
          say(OperatorMessages.parked(name, reached, r.detail()));
          return;
        }
        Duration delay = Backoff.delay(consecutiveErrors, spec.supervision());
        say(outcome == Outcome.PERMANENT
            ? OperatorMessages.permanent(name, r.detail(), delay.toSeconds())
            : OperatorMessages.crashed(name, r.detail(), delay.toSeconds()));
        scheduleWait(now + delay.toMillis(), Lifecycle.BACKING_OFF);
      }
      case WAIT_FOR_RESET -> {
        requeueAfterFailure(delivered, false);
        giveIssueBack();
        long waitMillis;
        if (r.resetAtEpochMillis() != null) {
          waitMillis = Math.max(0, r.resetAtEpochMillis() - now);
        } else {
          consecutiveErrors++;
          waitMillis = Backoff.delay(consecutiveErrors, spec.supervision()).toMillis();
        }
        say(OperatorMessages.rateLimited(name, (waitMillis + 999) / 1000));
        scheduleWait(now + waitMillis, Lifecycle.RATE_LIMITED);
      }
      case PAUSE -> {
        requeueAfterFailure(delivered, false);
        giveIssueBack();
        paused = true;
        pauseReason = outcome.configName();
        say(OperatorMessages.paused(name, outcome));
      }
    }
  }

  private void record(Outcome outcome, SessionResult r) {
    lastOutcome = outcome.configName();
    lastDetail = trim(r.detail());
    sessionsByOutcome.merge(lastOutcome, 1, Integer::sum);
    turns += r.turns();
    if (r.costUsd() > 0) {
      costUsd += r.costUsd();
      costReported = true;
    }
    inputTokens += r.inputTokens();
    outputTokens += r.outputTokens();
  }

  private void scheduleWait(long atMillis, Lifecycle kind) {
    wakeAtMillis = atMillis;
    waitKind = kind;
    wakeEarly = false;
  }

  private void clearWait() {
    wakeAtMillis = null;
    waitKind = null;
    wakeEarly = false;
  }

  private void applyPendingSpec() {
    if (pendingSpec == null) {
      return;
    }
    spec = pendingSpec;
    pendingSpec = null;
    buildSessionStubs();
    say(OperatorMessages.reconfigured(spec.name()));
  }

  private void continueAsNew() {
    // Handlers may still be posting; wait so nothing they queued is lost with this run.
    Workflow.await(() -> outbox.isEmpty() && Workflow.isEveryHandlerFinished());
    applyPendingSpec();
    Workflow.continueAsNew(new AntRun(spec, memory()));
  }

  AntMemory memory() {
    return new AntMemory(sessionCount, consecutiveErrors, paused, pauseReason, queue, postSequence,
        announced, wakeAtMillis, waitKind, scheduledRunDue, lastOutcome, lastDetail,
        startedAtMillis, sessionsByOutcome, turns, costUsd, costReported, inputTokens, outputTokens,
        deliveryFailures, List.copyOf(handledIssues), pendingIssues, totalErrors);
  }

  // ---- chat: posts leave in order, one at a time, from a single workflow thread ----

  private void say(String text) {
    postSequence++;
    String key = Workflow.getInfo().getWorkflowId() + "/" + Workflow.getInfo().getRunId() + "/" + postSequence;
    outbox.add(new ChatPost(spec.colony(), spec.name(), spec.discordChannel(), text, key));
  }

  private void deliverPosts() {
    while (true) {
      Workflow.await(() -> !outbox.isEmpty());
      ChatPost post = outbox.get(0);
      try {
        chat(post).post(post);
      } catch (ActivityFailure f) {
        log.warn("giving up on chat post {} after retries: {}", post.idempotencyKey(), rootMessage(f));
      }
      outbox.remove(0);
    }
  }

  // ---- visibility: search attributes, memo and current details, for lists without a worker ----

  AntVisibility visibility() {
    int waiting = 0;
    for (Confirmation c : confirmations.values()) {
      if (c.decision == null) {
        waiting++;
      }
    }
    return new AntVisibility(spec.colony(), spec.name(), lifecycle, paused, pauseReason, sessionCount,
        consecutiveErrors, queue.size(), wakeAtMillis, waiting, lastOutcome, publishWakesOn ? bounded(wakesOn()) : null);
  }

  /** Writes the ant's state to visibility whenever it changes, only the attributes that did. */
  private void publishVisibility() {
    // The memo this run started with (set by `colony start`, or carried over).
    List<String> memoShown = Arrays.asList(
        (String) Workflow.getMemo(AntSearchAttributes.MEMO_DESCRIPTION, String.class),
        (String) Workflow.getMemo(AntSearchAttributes.MEMO_ENGINE, String.class));
    while (true) {
      Workflow.await(() -> !visibility().equals(published) || !memoShown.equals(memoValues()));
      AntVisibility now = visibility();
      if (!now.equals(published)) {
        Workflow.upsertTypedSearchAttributes(now.changesSince(published).toArray(new SearchAttributeUpdate<?>[0]));
        Workflow.setCurrentDetails(now.statusLine());
        published = now;
      }
      List<String> memo = memoValues();
      if (!memoShown.equals(memo)) {
        Workflow.upsertMemo(memo(spec));
        memoShown.set(0, memo.get(0));
        memoShown.set(1, memo.get(1));
      }
    }
  }

  private List<String> memoValues() {
    return Arrays.asList(spec.description(), spec.engine().configName());
  }

  /** The memo an ant carries: what the Web UI and {@code colony status} show beside its state. */
  public static Map<String, Object> memo(AntSpec spec) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(AntSearchAttributes.MEMO_DESCRIPTION, spec.description());
    m.put(AntSearchAttributes.MEMO_ENGINE, spec.engine().configName());
    return m;
  }

  // ---- signals ----

  @Override
  public void pause() {
    if (!paused) {
      paused = true;
      pauseReason = OPERATOR;
    }
    wakeEarly = true;
    say(OperatorMessages.pausing(spec.name(), sessionRunning));
  }

  @Override
  public void resume() {
    unpark();
    if (paused) {
      paused = false;
      pauseReason = null;
      say(OperatorMessages.resuming(spec.name()));
    } else if (wakeAtMillis != null && waitKind != Lifecycle.WAITING) {
      wakeEarly = true;
      say(OperatorMessages.resuming(spec.name()));
    } else {
      say(OperatorMessages.notPaused(spec.name()));
    }
  }

  /** A parked ant that a human brings back starts with its error counters at zero. */
  private void unpark() {
    if (paused && PARKED_REASON.equals(pauseReason)) {
      consecutiveErrors = 0;
      totalErrors = 0;
    }
  }

  @Override
  public void stop() {
    stopRequested = true;
  }

  @Override
  public void message(String text) {
    if (text != null && boundedDelivery) {
      text = withoutControlCharacters(text);
    }
    if (text == null || text.isBlank()) {
      return;
    }
    String bounded = text.length() <= MAX_MESSAGE_CHARS ? text
        : text.substring(0, MAX_MESSAGE_CHARS) + "\n[message truncated at " + MAX_MESSAGE_CHARS + " characters]";
    queue.add(bounded);
    wakeEarly = true;
    unpark();
    if (paused) {
      paused = false;
      pauseReason = null;
      say(OperatorMessages.resuming(spec.name()));
    } else {
      say(OperatorMessages.queued(spec.name(), queue.size(), sessionRunning));
    }
  }

  @Override
  public void githubIssue(IssueEvent issue) {
    if (issue == null || issue.repo() == null) {
      return;
    }
    String key = issue.key();
    boolean watched = spec.githubRepos().stream().anyMatch(r -> r.equalsIgnoreCase(issue.repo()))
        && spec.triggers().stream().anyMatch(t -> t.type() == TriggerSpec.Type.GITHUB_ISSUE && issue.hasAll(t.labels()));
    if (!watched || handledIssues.contains(key) || pendingIssues.stream().anyMatch(p -> p.key().equals(key))) {
      return;
    }
    if (pendingIssues.size() >= MAX_PENDING_ISSUES) {
      say(OperatorMessages.tooManyIssues(spec.name(), issue.repo(), issue.number(), MAX_PENDING_ISSUES));
      return;
    }
    pendingIssues.add(issue);
  }

  @Override
  public void clear() {
    int dropped = queue.size();
    queue.clear();
    say(OperatorMessages.cleared(spec.name(), dropped));
  }

  @Override
  public void configure(AntSpec newSpec) {
    if (newSpec != null && !newSpec.equals(pendingSpec == null ? spec : pendingSpec)) {
      pendingSpec = newSpec;
    }
  }

  // ---- confirmations ----

  @Override
  public ConfirmationDecision confirm(ConfirmationRequest request) {
    Confirmation c = confirmations.get(request.key());
    if (c == null) {
      c = new Confirmation(++confirmationSequence, request,
          Workflow.currentTimeMillis() + spec.confirmationTimeoutSeconds() * 1000);
      confirmations.put(request.key(), c);
      say(OperatorMessages.confirmationRequested(spec.name(), c.id, request.tool(), request.summary(),
          request.reason(), spec.confirmationTimeoutSeconds()));
    }
    Confirmation pending = c;
    if (pending.decision == null) {
      long remaining = pending.deadlineMillis - Workflow.currentTimeMillis();
      if (remaining > 0) {
        Workflow.await(Duration.ofMillis(remaining), () -> pending.decision != null);
      }
      if (pending.decision == null) {
        pending.decision = new ConfirmationDecision(pending.id, false, "timeout",
            "nobody answered within " + spec.confirmationTimeoutSeconds() + "s");
        say(OperatorMessages.confirmationTimedOut(spec.name(), pending.id));
      }
    }
    return pending.decision;
  }

  @Override
  public void decide(Decide d) {
    if (d == null) {
      return;
    }
    Confirmation target = null;
    for (Confirmation c : confirmations.values()) {
      if (c.decision == null && (d.id() == null || d.id() == c.id)) {
        target = c;
        break;
      }
    }
    if (target == null) {
      say(OperatorMessages.nothingToDecide(spec.name(), d.id()));
      return;
    }
    String by = d.by() == null || d.by().isBlank() ? "an operator" : d.by();
    target.decision = new ConfirmationDecision(target.id, d.approve(), by, d.note());
    say(OperatorMessages.decided(spec.name(), target.id, d.approve(), by));
  }

  private List<PendingConfirmation> pendingConfirmations() {
    List<PendingConfirmation> out = new ArrayList<>();
    for (Confirmation c : confirmations.values()) {
      if (c.decision == null) {
        out.add(new PendingConfirmation(c.id, c.request.session(), c.request.tool(), c.request.summary(),
            c.request.reason(), Instant.ofEpochMilli(c.deadlineMillis).toString()));
      }
    }
    return out;
  }

  // ---- queries ----

  @Override
  public AntStatus status() {
    String wake = wakeAtMillis == null ? null : Instant.ofEpochMilli(wakeAtMillis).toString();
    return new AntStatus(spec.colony(), spec.name(), lifecycle, paused, pauseReason, queue.size(),
        sessionCount, consecutiveErrors, wake, lastOutcome, lastDetail, spec.engine().configName(),
        pendingConfirmations(), wakesOn(), pendingIssues.size());
  }

  /** A keyword attribute stays short whatever the config lists. */
  private static String bounded(String text) {
    return text.length() <= 250 ? text : text.substring(0, 249) + "…";
  }

  /** What wakes the ant besides a human, in words (for status and the channel). */
  private String wakesOn() {
    List<String> parts = new ArrayList<>();
    if (spec.cron() != null) {
      parts.add("cron '" + spec.cron() + "' (" + spec.timezone() + ")");
    }
    for (TriggerSpec t : spec.triggers()) {
      if (t.type() == TriggerSpec.Type.GITHUB_ISSUE) {
        parts.add("GitHub issues in " + String.join(", ", spec.githubRepos())
            + (t.labels().isEmpty() ? "" : " labelled " + String.join(" + ", t.labels())));
      }
    }
    if (parts.isEmpty()) {
      return spec.eventDriven() ? "human messages only" : "continuous";
    }
    return String.join("; ", parts);
  }

  @Override
  public AntStats stats() {
    long uptime = Math.max(0, (Workflow.currentTimeMillis() - startedAtMillis) / 1000);
    return new AntStats(spec.name(), startedAtMillis, uptime, sessionCount, sessionsByOutcome,
        turns, costUsd, costReported, inputTokens, outputTokens);
  }

  /** Keeps text, line breaks and tabs; drops NULs and the other C0/C1 controls (terminal escapes). */
  static String withoutControlCharacters(String text) {
    StringBuilder sb = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isISOControl(c) || c == '\n' || c == '\t') {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    String m = c.getMessage();
    return m == null ? c.getClass().getSimpleName() : m;
  }
}
