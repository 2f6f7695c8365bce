package dev.colony.ant;

import static dev.colony.supervisor.OperatorMessages.trim;

import dev.colony.autonomy.ConfirmationBook;
import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.autonomy.Decide;
import dev.colony.budget.BudgetBook;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.lifecycle.LifecycleEvent.Exit;
import dev.colony.lifecycle.LifecycleMachine;
import dev.colony.lifecycle.Phase;
import dev.colony.lifecycle.SideEffect;
import dev.colony.mailbox.Mail;
import dev.colony.mailbox.Mailbox;
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
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
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
  static final String PARKED_REASON = LifecycleMachine.PARKED_REASON;
  /** The pause reason of an ant parked because its own workflow code failed (seed 003's "workflow fails"). */
  static final String FATAL_REASON = LifecycleMachine.FATAL_REASON;
  /** The pause reason of an ant that reached a colony budget cap (as for the engine's own cap). */
  static final String BUDGET_REASON = Outcome.BUDGET.configName();
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
  /**
   * Version 1: seed 001's guardrails. An urgent message interrupts the running session (the
   * session activity is cancelled and waited for, so the agent stops gracefully within
   * interrupt_grace before the next session starts); stop waits the same way; colony budget caps
   * pause the ant with a timer to the window's rollover.
   */
  static final String GUARDRAILS_CHANGE = "lifecycle-guardrails";
  /**
   * Version 1: the ant tells its colony's supervisor (ColonyWorkflow) when it is parked, and obeys
   * its {@code restart} orders (seed 003).
   */
  static final String SUPERVISION_CHANGE = "colony-supervision";
  /**
   * Version 1: seed 002's LLM supervisor. A thread of its own evaluates the agent's reported
   * turns with an activity, whispers to the agent and escalates (a pause with reason
   * {@code escalation}); sessions get pending whispers in their prompt.
   */
  static final String LLM_SUPERVISOR_CHANGE = "llm-supervisor";
  /**
   * Version 1: worker affinity. The ant claims a host (the worker that picks up {@code ClaimHost}
   * on the shared queue), then prepares its workspace and runs its sessions on that host's queue.
   * When nobody polls there for {@code move_after}, it moves to another host.
   */
  static final String HOST_AFFINITY_CHANGE = "host-affinity";
  /**
   * Version 1: one round trip per session. A new run records this single marker instead of the
   * eight above (it has every one of them). Chat posts are local activities
   * (a marker in the workflow task that sent them, no task of their own), and the session
   * activity prepares the workspace itself on the ant's host. A session cycle then writes about
   * a third of the events it did. Runs recorded before it replay as they were.
   */
  static final String LEAN_CHANGE = "lean-cycle";
  /** The pause reason of an ant its LLM supervisor escalated to humans. */
  static final String ESCALATION_REASON = "escalation";
  /** How long a turn report waits for the verdict of the evaluation it is due for. */
  static final long REPORT_WAIT_SECONDS = 60;
  static final int MAX_DELIVERY_FAILURES = 3;
  /** How long a sender's name may be. */
  static final int MAX_SENDER_CHARS = 64;
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
  private boolean paused;
  private String pauseReason;
  private final Mailbox mailbox;
  private long postSequence;
  private boolean announced;
  private Long wakeAtMillis;
  private WaitKind waitKind;
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
  /** Spend per budget window, durable. */
  private final BudgetBook budget;
  /** Set while paused by a colony budget cap: when the cap's window rolls over. */
  private Long budgetResumeAtMillis;
  /** The agent conversation of the last session (what a supervisor's restart resumes). */
  private String lastConversation;
  /** Issues ever taken by a session (bounded: the oldest are forgotten first). */
  private final LinkedHashSet<String> handledIssues = new LinkedHashSet<>();
  /** Matching issues not yet taken, oldest first. */
  private final List<IssueEvent> pendingIssues = new ArrayList<>();

  /** The LLM supervisor's window, ladder and whispers (seed 002). */
  private final dev.colony.oversight.OversightBook oversight;

  // Per run only.
  /** Seed 001's state, with the error counters (consecutive; total, reset only by un-parking). */
  private Phase phase;
  private boolean guardrails;
  private boolean supervised;
  private boolean llmSupervision;
  /** {@code abort} arrived during a session: interrupt it and drop its task. */
  private boolean abortRequested;
  /** The instructions the running (or last) session was given, for the supervisor's view of the task. */
  private List<String> currentMessages = List.of();
  /** A supervisor's restart waiting to interrupt the running session. */
  private dev.colony.supervision.Restart restartRequested;
  /** The conversation the next session resumes (set by a restart under recovery: resume). */
  private String resumeNext;
  private boolean stopRequested;
  private boolean wakeEarly;
  private boolean sessionRunning;
  private final List<ChatPost> outbox = new ArrayList<>();
  /** Dangerous tool calls of the current session, by request key; cleared between sessions. */
  private final ConfirmationBook confirmations = new ConfirmationBook();
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
  /** The host holding the workspace (host-affinity version); null until the first session claims one. */
  private String host;
  private boolean hostAffinity;
  /** See {@link #LEAN_CHANGE}. */
  private boolean lean;
  /**
   * Multiplies {@code move_after} for the next task on the host's queue: doubled each time a task
   * waited that long on a host that still polls (busy, not gone), so a backlog longer than
   * {@code move_after} is still worked through; back to 1 once a task starts.
   */
  private int hostPatience = 1;
  private static final int MAX_HOST_PATIENCE = 64;

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
      mailbox = new Mailbox(List.of(), List.of(), List.of());
      budget = new BudgetBook(null);
      phase = Phase.initial(0, 0, 0);
      oversight = new dev.colony.oversight.OversightBook(null);
      return;
    }
    sessionCount = m.sessions();
    paused = m.paused();
    pauseReason = m.pauseReason();
    mailbox = new Mailbox(m.queue(), m.urgentQueue(), m.mailIds());
    budget = new BudgetBook(m.spend());
    budgetResumeAtMillis = m.budgetResumeAtMillis();
    lastConversation = m.lastConversation();
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
    phase = restoredPhase(m);
    oversight = new dev.colony.oversight.OversightBook(m.oversight());
    host = m.host();
  }

  /** Where a run that continued as new picks up: its wait, its pause, or about to prepare. */
  private Phase restoredPhase(AntMemory m) {
    Phase p = Phase.initial(sessionCount, m.consecutiveErrors(), m.totalErrors());
    if (wakeAtMillis != null && waitKind != null) {
      return new Phase(waitKind.shownAs(), sessionCount, wakeAtMillis, waitKind.reason(), p.consecutiveErrors(),
          p.totalErrors());
    }
    if (paused) {
      return new Phase(parkedLike(pauseReason) ? Lifecycle.PARKED : Lifecycle.PAUSED, sessionCount,
          budgetResumeAtMillis, pauseReason, p.consecutiveErrors(), p.totalErrors());
    }
    return p;
  }

  /** Applies one lifecycle event and returns the side effect the workflow carries out. */
  private SideEffect fire(LifecycleEvent event) {
    var t = LifecycleMachine.next(phase, event, spec.supervision());
    phase = t.phase();
    return t.effect();
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
    ActivityOptions.Builder options = onHost(sessionOptions.toBuilder()
        .setSummary("session " + number + " · " + spec.engine().configName()));
    if (guardrails) {
      // An interrupted session is waited for: the agent stops before the next one starts.
      options.setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED);
    }
    return Workflow.newActivityStub(SessionActivities.class, options.build());
  }

  private WorkspaceActivities workspaces(int number) {
    return Workflow.newActivityStub(WorkspaceActivities.class, onHost(workspaceOptions.toBuilder()
        .setSummary("workspace for session " + number)).build());
  }

  /**
   * Sends an activity to the ant's host. Nobody picking it up within {@code move_after} means the
   * host is gone: the schedule-to-start timeout is never retried, so the ant hears of it and moves.
   */
  private ActivityOptions.Builder onHost(ActivityOptions.Builder options) {
    if (hostAffinity && hostBound()) {
      options.setTaskQueue(WorkspaceActivities.hostQueue(Workflow.getInfo().getTaskQueue(), host))
          .setScheduleToStartTimeout(Duration.ofSeconds(moveAfterSeconds() * hostPatience));
    }
    return options;
  }

  /** Bound to a host; a worker started without a host name answers "" to a claim: no affinity. */
  private boolean hostBound() {
    return host != null && !host.isEmpty();
  }

  private long moveAfterSeconds() {
    return spec.workspace() == null ? dev.colony.spec.WorkspaceSpec.DEFAULT_MOVE_AFTER_SECONDS
        : spec.workspace().moveAfter();
  }

  /**
   * Whichever worker picks this up on the shared queue becomes the ant's host (the matching
   * service hands tasks to the polling workers in turn, so ants spread over the hosts).
   */
  private String claimHost() {
    return Workflow.newActivityStub(WorkspaceActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(1))
            .setMaximumInterval(Duration.ofSeconds(30))
            .build())
        .setSummary("claim a host")
        .build()).claimHost();
  }

  /**
   * A task waited {@code move_after} on the host's queue. A host whose worker still polls is busy:
   * wait longer next time. One nobody polls is gone: move.
   */
  private void hostTimedOut() {
    boolean polled;
    try {
      polled = Workflow.newActivityStub(WorkspaceActivities.class, ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
          .setSummary("is host " + host + " polling?")
          .build()).hostPolling(WorkspaceActivities.hostQueue(Workflow.getInfo().getTaskQueue(), host));
    } catch (ActivityFailure f) {
      polled = false;
    }
    if (polled) {
      hostPatience = Math.min(hostPatience * 2, MAX_HOST_PATIENCE);
    } else {
      moveOffHost();
    }
  }

  /** Did the activity fail because its task waited {@code move_after} on the host's queue? */
  private static boolean hostGone(ActivityFailure f) {
    return f.getCause() instanceof io.temporal.failure.TimeoutFailure t
        && t.getTimeoutType() == io.temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  }

  /**
   * Leaves a host that is gone. The conversation to resume stays behind with it (the agent keeps
   * it on that host's disk); the next session claims a new host, whose worker recreates the
   * worktree from the remote branch.
   */
  private void moveOffHost() {
    String old = host;
    host = null;
    hostPatience = 1;
    lastConversation = null;
    resumeNext = null;
    fire(new LifecycleEvent.HostLost(old));
    say(OperatorMessages.hostLost(spec.name(), old, moveAfterSeconds()));
  }

  private ChatActivities chat(ChatPost post) {
    return Workflow.newActivityStub(ChatActivities.class, chatOptions.toBuilder()
        .setSummary("post · " + OperatorMessages.summary(post.text())).build());
  }

  /** A post as a local activity: it runs in the worker that sent it, within the workflow task. */
  private ChatActivities localChat(ChatPost post) {
    return Workflow.newLocalActivityStub(ChatActivities.class, LocalActivityOptions.newBuilder()
        .setStartToCloseTimeout(chatOptions.getStartToCloseTimeout())
        .setRetryOptions(chatOptions.getRetryOptions())
        .setSummary("post · " + OperatorMessages.summary(post.text()))
        .build());
  }

  @Override
  public void run(AntRun run) {
    // Version checks come first, before any other workflow thread exists: a getVersion call can
    // yield, and anywhere later it would let the outbox thread schedule its post first on replay.
    lean = Workflow.getVersion(LEAN_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
    if (lean) {
      publishing = boundedDelivery = catchUpTicks = publishWakesOn = true;
      guardrails = supervised = llmSupervision = hostAffinity = true;
    } else {
      publishing = Workflow.getVersion(VISIBILITY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
      boundedDelivery = Workflow.getVersion(DELIVERY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
      catchUpTicks = Workflow.getVersion(MISSED_TICKS_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
      publishWakesOn = Workflow.getVersion(WAKES_ON_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
      guardrails = Workflow.getVersion(GUARDRAILS_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
      supervised = Workflow.getVersion(SUPERVISION_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
      llmSupervision = Workflow.getVersion(LLM_SUPERVISOR_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
      hostAffinity = Workflow.getVersion(HOST_AFFINITY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1;
    }
    Async.procedure(this::deliverPosts);
    if (publishing) {
      Async.procedure(this::publishVisibility);
    }
    superviseIfConfigured();
    if (!announced) {
      announced = true;
      say(OperatorMessages.started(spec.name()));
    }
    if (hostAffinity && host == null) {
      // A new ant finds its home at once: the colony's ants spread over the hosts as they start,
      // and status shows each one's host before its first session.
      host = claimHost();
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
      try {
        if (readyToRun()) {
          runOneSession();
          sessionsThisRun++;
        }
      } catch (RuntimeException bug) {
        if (bug instanceof CanceledFailure) {
          throw bug; // the workflow itself is being cancelled
        }
        parkFatal(bug);
      }
    }
    fire(new LifecycleEvent.OperatorStop());
    wakeAtMillis = null;
    say(OperatorMessages.stopped(spec.name()));
    Workflow.await(() -> outbox.isEmpty() && Workflow.isEveryHandlerFinished()
        && (!publishing || visibility().equals(published))
        && reportsInFlight.stream().allMatch(Promise::isCompleted));
  }

  /**
   * Does at most one wait and says whether a session should start now. Returning false sends
   * the loop back to its top so stop, a new spec and continue-as-new are looked at between waits.
   */
  private boolean readyToRun() {
    if (wakeAtMillis != null) {
      long remaining = wakeAtMillis - Workflow.currentTimeMillis();
      // An issue wakes an ant waiting for its next cron tick, not one backing off or rate limited.
      boolean interrupted = remaining > 0
          && Workflow.await(Duration.ofMillis(remaining), () -> stopRequested || wakeEarly
              || (waitKind == WaitKind.WAITING && !pendingIssues.isEmpty()));
      if (!interrupted && waitKind == WaitKind.WAITING) {
        scheduledRunDue = true;
      }
      fire(waitKind.shownAs() == Lifecycle.COOLING_DOWN ? new LifecycleEvent.BackoffElapsed()
          : new LifecycleEvent.Woken());
      clearWait();
      return false;
    }
    if (paused) {
      if (pausedSinceMillis == null) {
        pausedSinceMillis = Workflow.currentTimeMillis();
      }
      if (budgetResumeAtMillis != null) {
        waitForBudget();
      } else {
        fire(new LifecycleEvent.Paused(pauseReason, null));
        Workflow.await(() -> !paused || stopRequested || pendingSpec != null);
      }
      if (!paused) {
        Long tick = spec.cron() == null ? null
            : CronSchedule.nextTick(spec.cron(), spec.timezone(), pausedSinceMillis);
        if (catchUpTicks && tick != null && tick <= Workflow.currentTimeMillis()) {
          scheduledRunDue = true; // one run for all the ticks missed while paused
        }
        pausedSinceMillis = null;
        fire(new LifecycleEvent.Resumed());
      }
      return false;
    }
    if (spec.eventDriven() && mailbox.isEmpty() && !scheduledRunDue && pendingIssues.isEmpty()) {
      Long tick = spec.cron() == null ? null
          : CronSchedule.nextTick(spec.cron(), spec.timezone(), Workflow.currentTimeMillis());
      if (tick != null) {
        scheduleWait(tick, WaitKind.WAITING);
      } else {
        // Triggers only: nothing to time; a message or a matching GitHub issue wakes the ant.
        fire(new LifecycleEvent.Waiting(spec.triggers().isEmpty() ? "a message" : "a message or a trigger", null));
        Workflow.await(() -> !mailbox.isEmpty() || !pendingIssues.isEmpty() || paused || stopRequested
            || pendingSpec != null);
        fire(new LifecycleEvent.Woken());
      }
      return false;
    }
    return !stopRequested;
  }

  /**
   * Paused by a colony budget cap: waits, with a timer, until the cap's window rolls over (or a
   * human resumes, or a new spec raises the cap), then resumes by itself if no cap is reached.
   */
  private void waitForBudget() {
    long now = Workflow.currentTimeMillis();
    BudgetBook.Cap cap = budget.reached(spec.supervision(), now);
    if (cap == null) {
      paused = false;
      pauseReason = null;
      budgetResumeAtMillis = null;
      say(OperatorMessages.budgetResumed(spec.name()));
      return;
    }
    budgetResumeAtMillis = cap.resetsAtMillis();
    fire(new LifecycleEvent.Paused(pauseReason, budgetResumeAtMillis));
    Workflow.await(Duration.ofMillis(Math.max(1, budgetResumeAtMillis - now)),
        () -> !paused || stopRequested || pendingSpec != null);
  }

  private void runOneSession() {
    scheduledRunDue = false;
    sessionRunning = true;
    String workspace;
    if (hostAffinity && host == null) {
      host = claimHost();
    }
    try {
      // Since the lean cycle the session activity prepares the workspace itself (null here).
      workspace = lean ? null : workspaces(sessionCount + 1).prepareWorkspace(spec);
    } catch (ActivityFailure f) {
      sessionRunning = false;
      if (hostAffinity && hostGone(f)) {
        hostTimedOut();
        return;
      }
      sessionCount++;
      act(SessionResult.of(Outcome.TRANSIENT, "workspace setup failed: " + rootMessage(f)), List.of());
      return;
    }
    hostPatience = 1;
    fire(new LifecycleEvent.WorktreeReady());
    List<String> delivered = boundedDelivery ? mailbox.takeBatch(MAX_BATCH_CHARS) : mailbox.takeAll();
    int number = sessionCount + 1;
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
    currentMessages = delivered;
    // Whispers the last session ended before taking go into this one's prompt.
    List<String> whispers = llmSupervision && spec.supervisor() != null
        ? oversight.takePending().stream().map(dev.colony.oversight.Whisper::rendered).toList() : List.of();
    SessionRequest request = new SessionRequest(spec, number, delivered, workspace, issue, resumeNext, whispers);
    resumeNext = null;
    // StorePrompt: the request is what the worker renders the prompt from.
    fire(new LifecycleEvent.PromptReady(delivered.size() + " message(s)" + (issue == null ? "" : ", " + issue.key())));
    List<Promise<SessionResult>> holder = new ArrayList<>(1);
    SessionActivities sessions = sessions(number);
    CancellationScope scope = Workflow.newCancellationScope(
        () -> holder.add(Async.function(sessions::runSession, request)));
    scope.run();
    Promise<SessionResult> session = holder.get(0);
    Workflow.await(() -> session.isCompleted() || stopRequested
        || (guardrails && (mailbox.hasUrgent() || restartRequested != null || abortRequested)));
    boolean aborted = abortRequested;
    if (!session.isCompleted()) {
      interrupt(scope, session, number);
    }
    abortRequested = false;
    SessionResult result = null;
    boolean unresponsive = false;
    boolean hostLost = false;
    boolean cancelled = !session.isCompleted();
    if (!cancelled) {
      try {
        result = session.get();
      } catch (ActivityFailure f) {
        if (f.getCause() instanceof CanceledFailure || stopRequested || phase.state() == Lifecycle.INTERRUPTING) {
          cancelled = true;
        } else if (hostAffinity && hostGone(f)) {
          hostLost = true; // its host died (or is swamped) before or during the session: run it again
        } else {
          // The activity gave up (its retries are spent): the worker kept dying or went silent.
          result = SessionResult.of(Outcome.TRANSIENT, "session failed: " + rootMessage(f));
          unresponsive = true;
        }
      } catch (CanceledFailure c) {
        cancelled = true;
      }
    }
    sessionRunning = false;
    if (hostLost) {
      mailbox.giveBack(delivered);
      giveIssueBack();
      hostTimedOut();
      return;
    }
    if (cancelled && (stopRequested || phase.state() != Lifecycle.INTERRUPTING)) {
      mailbox.giveBack(delivered);
      giveIssueBack();
      return;
    }
    sessionCount = number;
    confirmations.forgetSessionsUpTo(number);
    if (phase.state() == Lifecycle.INTERRUPTING) {
      interrupted(result, delivered, number, aborted);
      return;
    }
    boolean pauseWasPending = paused && OPERATOR.equals(pauseReason);
    act(result, delivered);
    if (unresponsive && !(paused && parkedLike(pauseReason))) {
      reportFailure(dev.colony.supervision.AntFailure.UNRESPONSIVE, "session " + number + " stopped answering: "
          + trim(result.detail()));
    }
    // Version 1: when a pause asked for during the session takes effect, say so, so the
    // operator who read "will pause after the current session" knows it happened.
    if (pauseWasPending && paused && OPERATOR.equals(pauseReason)
        && (lean || Workflow.getVersion(PAUSE_NOTICE_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1)) {
      say(OperatorMessages.pausing(spec.name(), false));
    }
  }

  /**
   * Stops the running session for {@code stop} or an urgent message. Runs recorded before the
   * guardrails version only request the cancellation; now the session's activity is told through
   * its heartbeat, asks the agent to stop, kills it after interrupt_grace, and is waited for. A
   * worker that cannot be reached is given up on once its heartbeat must have timed out.
   */
  private void interrupt(CancellationScope scope, Promise<SessionResult> session, int number) {
    fire(stopRequested ? new LifecycleEvent.OperatorStop() : new LifecycleEvent.UrgentMessage());
    if (!stopRequested && restartRequested == null && !abortRequested) {
      say(OperatorMessages.urgentQueued(spec.name(), number));
    }
    restartRequested = null;
    scope.cancel();
    if (!guardrails) {
      return;
    }
    long grace = spec.supervision().interruptGrace();
    long bound = grace + spec.heartbeatTimeoutSeconds() + 10;
    if (!Workflow.await(Duration.ofSeconds(bound), session::isCompleted)) {
      fire(new LifecycleEvent.GraceExceeded()); // ForceStopSession: the activity has killed its agent
      say(OperatorMessages.forceStopped(spec.name(), number, grace));
    }
  }

  /** After an urgent interrupt: the next session starts at once, the urgent message first. */
  private void interrupted(SessionResult result, List<String> delivered, int number, boolean aborted) {
    if (aborted) {
      // The task is dropped: its instructions and its issue do not come back.
      if (result != null) {
        record(result.outcome() == null ? Outcome.TRANSIENT : result.outcome(), result);
      } else {
        lastOutcome = "aborted";
        lastDetail = "interrupted by abort; its task was dropped";
        sessionsByOutcome.merge(lastOutcome, 1, Integer::sum);
      }
      takenIssue = null;
      lastConversation = null;
    } else if (result != null) {
      // It ended by itself before the interrupt reached it: its messages were delivered.
      record(result.outcome() == null ? Outcome.TRANSIENT : result.outcome(), result);
      takenIssue = null;
    } else {
      lastOutcome = "interrupted";
      lastDetail = "interrupted (an urgent message or a supervisor's restart)";
      sessionsByOutcome.merge(lastOutcome, 1, Integer::sum);
      mailbox.giveBack(delivered);
      giveIssueBack();
    }
    fire(LifecycleEvent.SessionExited.of(Exit.ERROR, Workflow.currentTimeMillis()));
    if (mailbox.hasUrgent()) {
      say(OperatorMessages.interrupted(spec.name(), number));
    }
    checkBudget();
  }

  private void giveIssueBack() {
    if (takenIssue != null) {
      pendingIssues.add(0, takenIssue);
      takenIssue = null;
    }
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
    mailbox.giveBack(delivered);
  }

  private static Exit exitOf(Outcome outcome) {
    return switch (outcome.action()) {
      case CONTINUE -> Exit.SUCCESS;
      case RESTART_NOW -> Exit.MAX_TURNS;
      case BACK_OFF -> Exit.ERROR;
      case WAIT_FOR_RESET -> Exit.RATE_LIMITED;
      case PAUSE -> Exit.BLOCKED;
    };
  }

  /** Applies the supervisor policy for one finished session: the lifecycle says where to go. */
  private void act(SessionResult r, List<String> delivered) {
    Outcome outcome = r.outcome() == null ? Outcome.TRANSIENT : r.outcome();
    record(outcome, r);
    String name = spec.name();
    long now = Workflow.currentTimeMillis();
    SideEffect effect = fire(new LifecycleEvent.SessionExited(exitOf(outcome), outcome.configName(), now,
        r.resetAtEpochMillis()));
    switch (phase.state()) {
      case SESSION_COMPLETE -> {
        deliveryFailures = 0;
        if (outcome.action() == Outcome.Action.CONTINUE) {
          say(OperatorMessages.succeeded(name, sessionCount, r.detail()));
          // Instructions still queued (sent during the session, or beyond one batch) run at once.
          boolean moreQueued = !mailbox.isEmpty() && boundedDelivery;
          // Since the LLM supervisor's version, a pause that came during the session (an operator's,
          // an escalation) takes effect now instead of after the poll interval's sleep.
          boolean pausedNow = llmSupervision && paused;
          if (!spec.eventDriven() && spec.pollIntervalSeconds() > 0 && !moreQueued && !pausedNow) {
            scheduleWait(now + spec.pollIntervalSeconds() * 1000, WaitKind.SLEEPING);
          }
        }
      }
      case PARKED -> {
        requeueAfterFailure(delivered, true);
        giveIssueBack();
        // Parked: no more sessions, no timer, until a human resumes (counters reset) or stops it.
        paused = true;
        pauseReason = PARKED_REASON;
        String why = ((SideEffect.LogFatal) effect).message();
        say(OperatorMessages.parked(name, why, r.detail()));
        reportFailure(dev.colony.supervision.AntFailure.PARKED, "parked after " + why + "; last error: " + trim(r.detail()));
      }
      case COOLING_DOWN -> {
        long waitMillis = phase.untilMillis() - now;
        if (outcome.action() == Outcome.Action.BACK_OFF) {
          requeueAfterFailure(delivered, true);
          giveIssueBack();
          say(outcome == Outcome.PERMANENT
              ? OperatorMessages.permanent(name, r.detail(), waitMillis / 1000)
              : OperatorMessages.crashed(name, r.detail(), waitMillis / 1000));
          setWait(phase.untilMillis(), WaitKind.BACKING_OFF);
        } else {
          requeueAfterFailure(delivered, false);
          giveIssueBack();
          say(OperatorMessages.rateLimited(name, (waitMillis + 999) / 1000));
          setWait(phase.untilMillis(), WaitKind.RATE_LIMITED);
        }
      }
      case PAUSED -> {
        requeueAfterFailure(delivered, false);
        giveIssueBack();
        paused = true;
        pauseReason = outcome.configName();
        say(OperatorMessages.paused(name, outcome));
      }
      default -> log.warn("{}: session {} ended while {}", name, sessionCount, phase.state());
    }
    checkBudget();
  }

  /**
   * Tells the colony's supervisor (a failure, or an event for its log), without waiting; an ant
   * started on its own has none.
   */
  private void reportFailure(String kind, String reason) {
    if (!supervised) {
      return;
    }
    var colony = Workflow.newExternalWorkflowStub(dev.colony.supervision.ColonyWorkflow.class,
        dev.colony.supervision.ColonyWorkflow.workflowId(spec.colony()));
    Promise<Void> told = Async.procedure(colony::antFailed, new dev.colony.supervision.AntFailure(spec.name(), reason, kind))
        .exceptionally(e -> {
          log.info("{}: no colony supervisor to tell ({})", spec.name(), e.getMessage());
          return null;
        });
    if (lean) {
      reportsInFlight.removeIf(Promise::isCompleted);
      reportsInFlight.add(told);
    }
  }

  /** Signals to the colony's supervisor not answered yet; a run ends only once they are. */
  private final List<Promise<Void>> reportsInFlight = new ArrayList<>();

  private void record(Outcome outcome, SessionResult r) {
    if (r.sessionId() != null) {
      lastConversation = r.sessionId();
    }
    lastOutcome = outcome.configName();
    lastDetail = trim(r.detail());
    sessionsByOutcome.merge(lastOutcome, 1, Integer::sum);
    turns += r.turns();
    if (r.costUsd() > 0) {
      costUsd += r.costUsd();
      costReported = true;
      if (guardrails) {
        budget.add(r.costUsd(), Workflow.currentTimeMillis(), spec.supervision().budgetZone());
      }
    }
    inputTokens += r.inputTokens();
    outputTokens += r.outputTokens();
  }

  /** After a session: a reached budget cap pauses the ant until the cap's window rolls over. */
  private void checkBudget() {
    if (!guardrails || !spec.supervision().hasBudget() || paused) {
      return;
    }
    BudgetBook.Cap cap = budget.reached(spec.supervision(), Workflow.currentTimeMillis());
    if (cap == null) {
      return;
    }
    clearWait();
    paused = true;
    pauseReason = BUDGET_REASON;
    budgetResumeAtMillis = cap.resetsAtMillis();
    fire(new LifecycleEvent.Paused(pauseReason, budgetResumeAtMillis));
    String resets = java.time.Instant.ofEpochMilli(cap.resetsAtMillis())
        .atZone(java.time.ZoneId.of(spec.supervision().budgetZone())).toLocalDateTime() + " " + spec.supervision().budgetZone();
    say(OperatorMessages.budgetCapped(spec.name(), cap.describe(), resets));
    reportFailure(dev.colony.supervision.AntFailure.BUDGET, cap.describe() + "; resumes at " + resets);
  }

  /** A timed wait the lifecycle already shows (cooling down). */
  private void setWait(long atMillis, WaitKind kind) {
    wakeAtMillis = atMillis;
    waitKind = kind;
    wakeEarly = false;
  }

  /** A timed wait for the next tick or the poll interval. */
  private void scheduleWait(long atMillis, WaitKind kind) {
    setWait(atMillis, kind);
    fire(new LifecycleEvent.Waiting(kind.reason(), atMillis));
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
    superviseIfConfigured();
  }

  /**
   * Starts the LLM supervisor's thread. Since the lean cycle only for an ant that has a
   * supervisor (now, or from a new spec): a parked thread costs memory in every cached ant.
   */
  private void superviseIfConfigured() {
    if (llmSupervision && !supervising && (!lean || spec.supervisor() != null)) {
      supervising = true;
      Async.procedure(this::superviseTurns);
    }
  }

  private boolean supervising;

  private void continueAsNew() {
    // Handlers may still be posting; wait so nothing they queued is lost with this run. An
    // evaluation in flight finishes first, so its verdict is not lost either.
    Workflow.await(() -> outbox.isEmpty() && Workflow.isEveryHandlerFinished()
        && (!llmSupervision || spec.supervisor() == null || !oversight.busy(spec.supervisor()))
        && reportsInFlight.stream().allMatch(Promise::isCompleted));
    applyPendingSpec();
    Workflow.continueAsNew(new AntRun(spec, memory()));
  }

  AntMemory memory() {
    return new AntMemory(sessionCount, phase.consecutiveErrors(), paused, pauseReason, mailbox.queue(), postSequence,
        announced, wakeAtMillis, waitKind, scheduledRunDue, lastOutcome, lastDetail,
        startedAtMillis, sessionsByOutcome, turns, costUsd, costReported, inputTokens, outputTokens,
        deliveryFailures, List.copyOf(handledIssues), pendingIssues, phase.totalErrors(), mailbox.urgentQueue(),
        mailbox.seenIds(), budget.spend(), budgetResumeAtMillis, lastConversation, oversight.memory(), host);
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
        if (lean) {
          localChat(post).post(post);
        } else {
          chat(post).post(post);
        }
      } catch (ActivityFailure f) {
        log.warn("giving up on chat post {} after retries: {}", post.idempotencyKey(), rootMessage(f));
      }
      outbox.remove(0);
    }
  }

  // ---- visibility: search attributes, memo and current details, for lists without a worker ----

  AntVisibility visibility() {
    int waiting = confirmations.waiting();
    return new AntVisibility(spec.colony(), spec.name(), phase.state(), paused, pauseReason, sessionCount,
        phase.consecutiveErrors(), mailbox.size(), nextWake(), waiting, lastOutcome, publishWakesOn ? bounded(wakesOn()) : null,
        hostAffinity && hostBound() ? host : null);
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
    answerEscalation(dev.colony.supervision.AntFailure.RESUMED, "an operator resumed it");
    budgetResumeAtMillis = null;
    if (paused) {
      paused = false;
      pauseReason = null;
      say(OperatorMessages.resuming(spec.name()));
    } else if (wakeAtMillis != null && waitKind != WaitKind.WAITING) {
      wakeEarly = true;
      say(OperatorMessages.resuming(spec.name()));
    } else {
      say(OperatorMessages.notPaused(spec.name()));
    }
  }

  /** Parked by an error threshold or by a fatal error: a supervisor's restart brings it back. */
  static boolean parkedLike(String reason) {
    return PARKED_REASON.equals(reason) || FATAL_REASON.equals(reason);
  }

  /**
   * The ant's own workflow code failed (a bug, an unexpected value from an activity). Instead of
   * failing the workflow task for ever (a stuck ant) or the workflow (a dead one), the ant parks
   * with reason {@code fatal}, says why, and tells its colony supervisor, which restarts it under
   * its group's strategy and breaker; {@code resume} brings it back by hand.
   */
  private void parkFatal(RuntimeException bug) {
    String why = trim(failureText(bug));
    log.error("{}: fatal error in the ant's workflow, parking it", spec.name(), bug);
    sessionRunning = false;
    abortRequested = false;
    restartRequested = null;
    clearWait();
    paused = true;
    pauseReason = FATAL_REASON;
    budgetResumeAtMillis = null;
    phase = new Phase(Lifecycle.PARKED, sessionCount, null, FATAL_REASON, phase.consecutiveErrors(),
        phase.totalErrors());
    say(OperatorMessages.fatal(spec.name(), why));
    reportFailure(dev.colony.supervision.AntFailure.PARKED, "fatal error: " + why);
  }

  /** A parked ant that a human brings back starts with its error counters at zero. */
  private void unpark() {
    if (paused && parkedLike(pauseReason)) {
      // The lifecycle resets the counters when it leaves Parked; a run continued as new meanwhile
      // starts from the phase, so reset them here too.
      phase = new Phase(phase.state(), phase.session(), phase.untilMillis(), phase.reason(), 0, 0);
    }
  }

  @Override
  public void stop() {
    stopRequested = true;
  }

  @Override
  public void message(Mail mail) {
    if (mail == null) {
      return;
    }
    String text = mail.text();
    if (text != null && boundedDelivery) {
      text = withoutControlCharacters(text);
    }
    if (text == null || text.isBlank() || mailbox.seenBefore(mail.id())) {
      return;
    }
    String from = mail.from() == null ? null : withoutControlCharacters(mail.from()).strip();
    if (from != null && !from.isEmpty()) {
      // Another ant wrote it: the agent is told who, so it can answer with `colony send`.
      text = "[message from ant " + (from.length() <= MAX_SENDER_CHARS ? from : from.substring(0, MAX_SENDER_CHARS))
          + "] " + text;
    }
    String bounded = text.length() <= MAX_MESSAGE_CHARS ? text
        : text.substring(0, MAX_MESSAGE_CHARS) + "\n[message truncated at " + MAX_MESSAGE_CHARS + " characters]";
    mailbox.add(bounded, mail.urgent());
    wakeEarly = true;
    unpark();
    if (paused && ESCALATION_REASON.equals(pauseReason)) {
      answerEscalation(dev.colony.supervision.AntFailure.RESUMED, "a human sent guidance"); // it answers the escalation
    }
    if (paused) {
      paused = false;
      pauseReason = null;
      budgetResumeAtMillis = null;
      say(OperatorMessages.resuming(spec.name()));
    } else if (!(mail.urgent() && sessionRunning && guardrails)) {
      // An urgent message during a session is announced when the interrupt begins.
      say(OperatorMessages.queued(spec.name(), mailbox.size(), sessionRunning));
    }
  }

  @Override
  public void restart(dev.colony.supervision.Restart order) {
    if (order == null) {
      return;
    }
    boolean clean = order.clean() || spec.recovery() == dev.colony.spec.RecoveryPolicy.CLEAN;
    resumeNext = clean ? null : lastConversation;
    unpark();
    if (paused && parkedLike(pauseReason)) {
      paused = false;
      pauseReason = null;
    }
    wakeEarly = true;
    if (sessionRunning) {
      restartRequested = order;
    }
    say(OperatorMessages.restarted(spec.name(), trim(order.reason()), clean));
  }

  @Override
  public void abort() {
    int dropped = mailbox.clear();
    resumeNext = null;
    lastConversation = null;
    boolean resuming = paused && ESCALATION_REASON.equals(pauseReason);
    if (oversight.escalated()) {
      reportFailure(dev.colony.supervision.AntFailure.ABORTED, "an operator dropped the current task"
          + (dropped > 0 ? " and " + dropped + " queued instruction(s)" : ""));
    }
    oversight.forgetTask();
    if (resuming) {
      paused = false;
      pauseReason = null;
    }
    if (sessionRunning && guardrails) {
      abortRequested = true;
    }
    wakeEarly = true;
    say(OperatorMessages.aborted(spec.name(), dropped, sessionRunning, resuming));
  }

  // ---- the LLM supervisor (seed 002) ----

  /** A human's answer ends an escalation: the ladder starts again and the colony's log says so. */
  private void answerEscalation(String kind, String how) {
    if (oversight.escalated()) {
      reportFailure(kind, how);
    }
    oversight.resetLadder();
  }

  private dev.colony.oversight.OversightActivities evaluator() {
    return Workflow.newActivityStub(dev.colony.oversight.OversightActivities.class, ActivityOptions.newBuilder()
        .setSummary("supervisor evaluation · " + spec.supervisor().model())
        .setStartToCloseTimeout(Duration.ofMinutes(3))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(2))
            .setMaximumInterval(Duration.ofSeconds(20))
            .setMaximumAttempts(3)
            .build())
        .build());
  }

  /**
   * Evaluates the window whenever enough turns arrived (or a silence was reported) and climbs
   * the ladder: a whisper waits for the agent's next turn; an escalation alerts humans and
   * pauses the ant. A failing evaluation is skipped and counted, never fatal.
   */
  private void superviseTurns() {
    while (true) {
      Workflow.await(() -> spec.supervisor() != null
          && (oversight.silenceDue() || oversight.evaluationDue(spec.supervisor())));
      dev.colony.oversight.SupervisorSpec s = spec.supervisor();
      dev.colony.oversight.Verdict verdict;
      if (oversight.silenceDue()) {
        verdict = oversight.takeSilence();
      } else {
        var request = oversight.beginEvaluation(spec.name(), spec.colonyDir(), s, task());
        try {
          verdict = evaluator().evaluate(request);
        } catch (ActivityFailure f) {
          oversight.skipped(trim(failureText(f)));
          log.info("{}: supervisor evaluation skipped: {}", spec.name(), rootMessage(f));
          continue;
        }
      }
      var step = oversight.conclude(verdict == null ? dev.colony.oversight.Verdict.ok() : verdict, s);
      if (step.action() == dev.colony.oversight.Ladder.Action.ESCALATE && !stopRequested) {
        escalate(verdict);
      }
    }
  }

  private void escalate(dev.colony.oversight.Verdict verdict) {
    String reason = verdict.reason() == null || verdict.reason().isBlank() ? "the pattern persisted after two whispers"
        : trim(verdict.reason());
    if (!paused) {
      paused = true;
      pauseReason = ESCALATION_REASON;
      wakeEarly = true;
    }
    say(OperatorMessages.escalated(spec.name(), verdict.pattern().name(), reason, sessionRunning));
    reportFailure(dev.colony.supervision.AntFailure.ESCALATED, verdict.pattern() + ": " + reason);
  }

  /** What the agent was asked to do, as the supervisor reads it (bounded). */
  private String task() {
    StringBuilder sb = new StringBuilder("Standing instructions:\n").append(clip(spec.instructions(), 4000));
    if (!currentMessages.isEmpty()) {
      sb.append("\n\nThis session's instructions:\n");
      for (String m : currentMessages) {
        sb.append("- ").append(clip(m, 1000)).append('\n');
        if (sb.length() > 8000) {
          break;
        }
      }
    }
    if (takenIssue != null) {
      sb.append("\n\nGitHub issue: ").append(takenIssue.key()).append(' ').append(clip(takenIssue.title(), 300));
    }
    return sb.toString();
  }

  private static String clip(String text, int max) {
    if (text == null) {
      return "";
    }
    return text.length() <= max ? text : text.substring(0, max) + "…";
  }

  @Override
  public dev.colony.oversight.TurnReply reportTurns(dev.colony.oversight.TurnReport report) {
    dev.colony.oversight.SupervisorSpec s = spec.supervisor();
    if (s == null) {
      return new dev.colony.oversight.TurnReply(List.of(), false);
    }
    oversight.accept(report, s);
    if (oversight.busy(s)) {
      Workflow.await(Duration.ofSeconds(REPORT_WAIT_SECONDS),
          () -> spec.supervisor() == null || !oversight.busy(spec.supervisor()));
    }
    return new dev.colony.oversight.TurnReply(oversight.pending(),
        spec.supervisor() != null && oversight.busy(spec.supervisor()));
  }

  @Override
  public void validateReportTurns(dev.colony.oversight.TurnReport report) {
    if (report == null) {
      throw new IllegalArgumentException("empty report");
    }
    if (!llmSupervision) {
      throw new IllegalArgumentException("this workflow run predates the LLM supervisor; its next run has it");
    }
    if (spec.supervisor() == null) {
      throw new IllegalArgumentException("ant " + spec.name() + " has no supervisor");
    }
    if (!sessionRunning || report.session() != sessionCount + 1) {
      throw new IllegalArgumentException("session " + report.session() + " is not running");
    }
    if (report.turns().size() > dev.colony.oversight.TurnReport.MAX_TURNS
        || report.delivered().size() > dev.colony.oversight.TurnReport.MAX_DELIVERED) {
      throw new IllegalArgumentException("report too large (at most " + dev.colony.oversight.TurnReport.MAX_TURNS
          + " turns)");
    }
    // Engines send bounded turns; anything bigger did not come from one and stays out of the history.
    for (dev.colony.oversight.Turn t : report.turns()) {
      if (t == null || longer(t.name(), dev.colony.oversight.Turn.MAX_NAME + 1)
          || longer(t.input(), dev.colony.oversight.Turn.MAX_INPUT + 1)
          || longer(t.result(), dev.colony.oversight.Turn.MAX_RESULT + 1) || longer(t.kind(), 8)) {
        throw new IllegalArgumentException("a turn is over its bounds (name 80, input 400, result 600 characters)");
      }
    }
    for (String id : report.delivered()) {
      if (id == null || id.length() > 32) {
        throw new IllegalArgumentException("a delivered whisper id is not one");
      }
    }
  }

  private static boolean longer(String s, int max) {
    return s != null && s.length() > max;
  }

  @Override
  public void sessionStarted(int session) {
    if (sessionRunning && session == sessionCount + 1) {
      fire(new LifecycleEvent.SessionStarted(session));
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
    int dropped = mailbox.clear();
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
    ConfirmationBook.Entry c = confirmations.find(request);
    if (c == null) {
      c = confirmations.open(request, Workflow.currentTimeMillis() + spec.confirmationTimeoutSeconds() * 1000);
      say(OperatorMessages.confirmationRequested(spec.name(), c.id(), request.tool(), request.summary(),
          request.reason(), spec.confirmationTimeoutSeconds()));
    }
    ConfirmationBook.Entry pending = c;
    if (pending.open()) {
      long remaining = pending.deadlineMillis() - Workflow.currentTimeMillis();
      if (remaining > 0) {
        Workflow.await(Duration.ofMillis(remaining), () -> !pending.open());
      }
      if (pending.open()) {
        pending.decide(new ConfirmationDecision(pending.id(), false, "timeout",
            "nobody answered within " + spec.confirmationTimeoutSeconds() + "s"));
        say(OperatorMessages.confirmationTimedOut(spec.name(), pending.id()));
      }
    }
    return pending.decision();
  }

  @Override
  public void decide(Decide d) {
    if (d == null) {
      return;
    }
    ConfirmationBook.Entry target = confirmations.target(d.id());
    if (target == null) {
      say(OperatorMessages.nothingToDecide(spec.name(), d.id()));
      return;
    }
    String by = d.by() == null || d.by().isBlank() ? "an operator" : d.by();
    target.decide(new ConfirmationDecision(target.id(), d.approve(), by, d.note()));
    say(OperatorMessages.decided(spec.name(), target.id(), d.approve(), by));
  }

  // ---- queries ----

  @Override
  public AntStatus status() {
    Long next = nextWake();
    String wake = next == null ? null : Instant.ofEpochMilli(next).toString();
    return new AntStatus(spec.colony(), spec.name(), phase.state(), paused, pauseReason, mailbox.size(),
        sessionCount, phase.consecutiveErrors(), wake, lastOutcome, lastDetail, spec.engine().configName(),
        confirmations.pending(), wakesOn(), pendingIssues.size(), phase.session(), phase.reason(), phase.totalErrors(),
        spec.supervision().hasBudget() || costReported
            ? budget.summary(spec.supervision(), Workflow.currentTimeMillis()) : null,
        spec.supervisor() == null ? null : oversight.summary(spec.supervisor()), hostBound() ? host : null);
  }

  /** The pending timer: a wait, or the rollover that ends a budget pause. */
  private Long nextWake() {
    return wakeAtMillis != null ? wakeAtMillis : paused ? budgetResumeAtMillis : null;
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
    var spend = budget.rolled(Workflow.currentTimeMillis(), spec.supervision().budgetZone());
    return new AntStats(spec.name(), startedAtMillis, uptime, sessionCount, sessionsByOutcome,
        turns, costUsd, costReported, inputTokens, outputTokens, spend.dayUsd(), spend.monthUsd(),
        spec.supervision().dailyBudgetUsd(), spec.supervision().monthlyBudgetUsd());
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

  /** What went wrong, in words: an application failure's own message, a timeout named as one. */
  private static String failureText(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof io.temporal.failure.ApplicationFailure a) {
        return a.getOriginalMessage();
      }
      if (c instanceof io.temporal.failure.TimeoutFailure to) {
        return "timed out (" + to.getTimeoutType().name().toLowerCase(java.util.Locale.ROOT).replace("timeout_type_", "")
            + ")";
      }
    }
    return rootMessage(t);
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
