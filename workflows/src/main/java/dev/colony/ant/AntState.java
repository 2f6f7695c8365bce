package dev.colony.ant;

import dev.colony.autonomy.ConfirmationBook;
import dev.colony.budget.BudgetBook;
import dev.colony.errorpolicy.Outcome;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.lifecycle.LifecycleMachine;
import dev.colony.lifecycle.Phase;
import dev.colony.lifecycle.SideEffect;
import dev.colony.mailbox.Mailbox;
import dev.colony.overseer.OverseerBook;
import dev.colony.spec.AntSpec;
import dev.colony.trigger.IssueEvent;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.TreeMap;

/**
 * Everything one ant knows, in one place: what it carries across continue-as-new
 * ({@link AntMemory}) and what only the current run holds. The loop and its collaborators read
 * and change it; nothing here talks to Temporal except the clock.
 */
final class AntState {
  static final String OPERATOR = "operator";
  /** The pause reason of an ant parked by an error threshold. */
  static final String PARKED_REASON = LifecycleMachine.PARKED_REASON;
  /** The pause reason of an ant parked because its own workflow code failed (supervision treats it as a failed ant). */
  static final String FATAL_REASON = LifecycleMachine.FATAL_REASON;
  /** The pause reason of an ant that reached a colony budget cap (as for the engine's own cap). */
  static final String BUDGET_REASON = Outcome.BUDGET.configName();
  /** The pause reason of an ant its overseer escalated to humans. */
  static final String ESCALATION_REASON = "escalation";
  /** The change that denies a session's open confirmations when it ends (see {@link #denyOpenConfirmations}). */
  static final String CONFIRMATIONS_END_WITH_SESSION = "confirmations-end-with-session";

  AntSpec spec;
  /** A new spec from {@code configure}, applied between sessions. */
  AntSpec pendingSpec;

  // Carried across continue-as-new (see AntMemory).
  int sessionCount;
  /** Why the ant is paused (or will pause after its session); null while it is not. */
  String pauseReason;
  final Mailbox mailbox;
  long postSequence;
  boolean announced;
  Long wakeAtMillis;
  WaitKind waitKind;
  boolean scheduledRunDue;
  String lastOutcome;
  String lastDetail;
  final long startedAtMillis;
  final TreeMap<String, Integer> sessionsByOutcome = new TreeMap<>();
  long turns;
  double costUsd;
  boolean costReported;
  long inputTokens;
  long outputTokens;
  int deliveryFailures;
  /**
   * How many queued instructions go to sessions one at a time: a batch failed sessions carried
   * too often is split, so only the instruction the agent cannot take is dropped, never the others.
   */
  int deliverAlone;
  /** Spend per budget window. */
  final BudgetBook budget;
  /** Set while paused by a colony budget cap: when the cap's window rolls over. */
  Long budgetResumeAtMillis;
  /** The agent conversation of the last session (what a supervisor's restart resumes). */
  String lastConversation;
  /** Issues ever taken by a session (bounded: the oldest are forgotten first). */
  final LinkedHashSet<String> handledIssues = new LinkedHashSet<>();
  /** Matching issues not yet taken, oldest first. */
  final List<IssueEvent> pendingIssues = new ArrayList<>();
  /** The overseer's window, ladder and whispers. */
  final OverseerBook overseer;
  /** The host holding the workspace; null until the ant claims one, "" for a worker without a host name. */
  String host;
  /** What the {@link Notifier} pushed for each need still open, by need id. */
  final TreeMap<String, NoticeState> notices = new TreeMap<>();

  // This run only.
  /** The lifecycle's state, with the error counters (consecutive; total, reset only by un-parking). */
  Phase phase;
  boolean stopRequested;
  /** A signal asks the current wait to end now (a pause, a resume, a message). */
  boolean wakeEarly;
  boolean sessionRunning;
  /** {@code abort} arrived during a session: interrupt it and drop its task. */
  boolean abortRequested;
  /** A supervisor's restart waiting to interrupt the running session. */
  dev.colony.supervision.Restart restartRequested;
  /** The conversation the next session resumes (set by a restart under recovery: resume). */
  String resumeNext;
  /** The instructions the running (or last) session was given, for the overseer's view of the task. */
  List<String> currentMessages = List.of();
  /** The issue the running session works on (given back if it fails). */
  IssueEvent takenIssue;
  /** When the current pause began (workflow time), to catch up cron ticks missed meanwhile. */
  Long pausedSinceMillis;
  /** Whether to continue as new onto a newer release (see {@link dev.colony.upgrade.Upgrade}). */
  final dev.colony.upgrade.Upgrade upgrade = new dev.colony.upgrade.Upgrade();
  /** Dangerous tool calls of the current session, by request key; cleared between sessions. */
  final ConfirmationBook confirmations = new ConfirmationBook();

  AntState(AntRun run) {
    spec = run.spec();
    AntMemory m = run.memory();
    if (m == null) {
      startedAtMillis = Workflow.currentTimeMillis();
      mailbox = new Mailbox(List.of(), List.of(), List.of());
      budget = new BudgetBook(null);
      phase = Phase.initial(0, 0, 0);
      overseer = new OverseerBook(null);
      return;
    }
    sessionCount = m.sessions();
    pauseReason = m.paused() ? (m.pauseReason() == null ? OPERATOR : m.pauseReason()) : null;
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
    overseer = new OverseerBook(m.overseer());
    host = m.host();
    pausedSinceMillis = m.pausedSinceMillis();
    m.notices().forEach(n -> notices.put(n.need(), n));
    deliverAlone = m.deliverAlone();
  }

  /** Where a run that continued as new picks up: its wait, its pause, or about to prepare. */
  private Phase restoredPhase(AntMemory m) {
    Phase p = Phase.initial(sessionCount, m.consecutiveErrors(), m.totalErrors());
    if (wakeAtMillis != null && waitKind != null) {
      return new Phase(waitKind.shownAs(), sessionCount, wakeAtMillis, waitKind.reason(), p.consecutiveErrors(),
          p.totalErrors());
    }
    if (paused()) {
      return new Phase(parkedLike(pauseReason) ? Lifecycle.PARKED : Lifecycle.PAUSED, sessionCount,
          budgetResumeAtMillis, pauseReason, p.consecutiveErrors(), p.totalErrors());
    }
    return p;
  }

  /**
   * The notice state of needs still open: a need that closed in the same workflow task as the
   * continue-as-new (its follower had no turn to forget it) is not carried, or a later need with
   * the same id (request numbers start again at 1 in each run) would never be pushed.
   */
  private List<NoticeState> openNotices() {
    List<String> open = Notifier.openIds(this);
    return notices.values().stream().filter(n -> open.contains(n.need())).toList();
  }

  AntMemory memory() {
    return new AntMemory(sessionCount, phase.consecutiveErrors(), paused(), pauseReason, mailbox.queue(), postSequence,
        announced, wakeAtMillis, waitKind, scheduledRunDue, lastOutcome, lastDetail,
        startedAtMillis, sessionsByOutcome, turns, costUsd, costReported, inputTokens, outputTokens,
        deliveryFailures, List.copyOf(handledIssues), pendingIssues, phase.totalErrors(), mailbox.urgentQueue(),
        mailbox.seenIds(), budget.spend(), budgetResumeAtMillis, lastConversation, overseer.memory(), host,
        pausedSinceMillis, openNotices(), deliverAlone);
  }

  /**
   * Sessions up to {@code session} ended: each of their confirmations still open is denied now,
   * "the session ended", so the {@code confirm} update waiting for it returns at once instead of
   * at its confirmation_timeout (stop and continue-as-new wait for every handler). Runs recorded
   * before the change (no marker) let them wait, as they did. Returns the requests it denied.
   */
  List<Integer> denyOpenConfirmations(int session) {
    if (confirmations.waiting() == 0
        || Workflow.getVersion(CONFIRMATIONS_END_WITH_SESSION, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION) {
      return List.of();
    }
    return confirmations.denyOpenUpTo(session);
  }

  /**
   * Money spent for the ant: a session's cost as its engine reported it, or an overseer's
   * model call. It counts in the ant's cost and in its budget windows alike.
   */
  void addCost(double usd) {
    if (usd > 0 && Double.isFinite(usd)) {
      costUsd += usd;
      costReported = true;
      budget.add(usd, Workflow.currentTimeMillis(), spec.errorPolicy().budgetZone());
    }
  }

  /** Applies one lifecycle event and returns the side effect the workflow carries out. */
  SideEffect fire(LifecycleEvent event) {
    var t = LifecycleMachine.next(phase, event, spec.errorPolicy());
    phase = t.phase();
    return t.effect();
  }

  /** Parked by an error threshold or by a fatal error: a supervisor's restart brings it back. */
  static boolean parkedLike(String reason) {
    return PARKED_REASON.equals(reason) || FATAL_REASON.equals(reason);
  }

  /**
   * Paused, or pausing after the running session: the pause is a request the lifecycle's phase
   * follows at the next point it can, so it is kept beside the phase, as its reason alone.
   */
  boolean paused() {
    return pauseReason != null;
  }

  boolean parked() {
    return parkedLike(pauseReason);
  }

  void pauseFor(String reason) {
    pauseReason = reason;
  }

  void unpause() {
    pauseReason = null;
  }

  /** A parked ant that a human brings back starts with its error counters at zero. */
  void unpark() {
    if (parked()) {
      // The lifecycle resets the counters when it leaves Parked; a run continued as new meanwhile
      // starts from the phase, so reset them here too.
      phase = new Phase(phase.state(), phase.session(), phase.untilMillis(), phase.reason(), 0, 0);
    }
  }

  /** A timed wait the lifecycle already shows (cooling down). */
  void setWait(long atMillis, WaitKind kind) {
    wakeAtMillis = atMillis;
    waitKind = kind;
    wakeEarly = false;
  }

  /** A timed wait for the next tick or the poll interval. */
  void scheduleWait(long atMillis, WaitKind kind) {
    setWait(atMillis, kind);
    fire(new LifecycleEvent.Waiting(kind.reason(), atMillis));
  }

  void clearWait() {
    wakeAtMillis = null;
    waitKind = null;
    wakeEarly = false;
  }

  /** The pending timer: a wait, or the rollover that ends a budget pause. */
  Long nextWake() {
    return wakeAtMillis != null ? wakeAtMillis : paused() ? budgetResumeAtMillis : null;
  }

  /** Bound to a host; a worker started without a host name answers "" to a claim: no affinity. */
  boolean hostBound() {
    return host != null && !host.isEmpty();
  }

  long moveAfterSeconds() {
    return spec.workspace() == null ? dev.colony.spec.WorkspaceSpec.DEFAULT_MOVE_AFTER_SECONDS
        : spec.workspace().moveAfter();
  }
}
