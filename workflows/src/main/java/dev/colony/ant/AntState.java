package dev.colony.ant;

import dev.colony.autonomy.ConfirmationBook;
import dev.colony.budget.BudgetBook;
import dev.colony.budget.CostLedger;
import dev.colony.compat.Compatibility.Change;
import dev.colony.errorpolicy.Outcome;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.lifecycle.LifecycleMachine;
import dev.colony.lifecycle.Phase;
import dev.colony.lifecycle.SideEffect;
import dev.colony.mailbox.Mailbox;
import dev.colony.overseer.OverseerBook;
import dev.colony.spec.AntSpec;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.TreeMap;

/**
 * Everything one ant knows, in one place: what it carries across continue-as-new
 * ({@link AntMemory}) and what only the current run holds. The loop and its collaborators read
 * it and change it through methods, never by assigning its fields.
 *
 * <p>One fact, one place. The lifecycle {@link Phase} is where the ant is: a pause the loop has
 * reached ({@code PAUSED}/{@code PARKED}, with a budget cap's window as its end) and a timed wait
 * (cooling down or waiting, with its end and its kind as the reason); {@link #waitKind()},
 * {@link #wakeAtMillis()} and {@link #budgetResumeAtMillis()} read it from there. A pause asked
 * for during a session waits in {@link PauseRequest} until the loop reaches it. The rest lives in
 * small owned parts: {@link SessionStats}, {@link ChatSequence}, {@link IssueIntake},
 * {@link Delivery}, {@link Conversation}, {@link CurrentSession}, {@link WakeRequests}, and the
 * books ({@link Mailbox}, {@link BudgetBook}, {@link OverseerBook}, {@link ConfirmationBook}).
 * Nothing here talks to Temporal except the clock, one version marker and the {@link AntMetrics} the
 * collaborators count facts with.
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

  /** The spec in force, and a new one from {@code configure}, applied between sessions. */
  private AntSpec spec;
  private AntSpec pendingSpec;
  /** Sessions finished (carried across continue-as-new). */
  private int sessionCount;
  /**
   * Where the ant is in its lifecycle , with the error counters: the one place a pause
   * the loop has reached, a budget cap's window and a timed wait (its end and its kind) are kept.
   */
  private Phase phase;
  /** A pause asked for, perhaps during a session, that the phase follows at the next point it can. */
  final PauseRequest pause;
  final Mailbox mailbox;
  final ChatSequence chat;
  /** A cron tick came (or was missed while paused): one scheduled run is due. */
  private boolean scheduledRunDue;
  final SessionStats stats;
  final Delivery delivery;
  /** Spend per budget window. */
  final BudgetBook budget;
  /** Spend and sessions per day, the last 35 days (the console's cost table). */
  final CostLedger ledger;
  /** What the console's card keeps beside the rest: state since, last sessions, last error. */
  final CardState card;
  final Conversation conversation;
  final IssueIntake issues;
  /** The overseer's window, ladder and whispers. */
  final OverseerBook overseer;
  /** The host holding the workspace; null until the ant claims one, "" for a worker without a host name. */
  private String host;
  /** The task from the board the ant holds, its claim sequence and a pending wake. */
  final TaskSlot task;
  /** The ant's side of its repository's merge queue (carried across continue-as-new). */
  final MergeSlot merge;
  /** What the {@link Notifier} pushed for each need still open, by need id. */
  final TreeMap<String, NoticeState> notices = new TreeMap<>();

  // This run only.
  private boolean stopRequested;
  final WakeRequests wakes = new WakeRequests();
  final CurrentSession session = new CurrentSession();
  /** Whether to continue as new onto a newer release (see {@link dev.colony.upgrade.Upgrade}). */
  final dev.colony.upgrade.Upgrade upgrade = new dev.colony.upgrade.Upgrade();
  /** Dangerous tool calls of the current session, by request key; cleared between sessions. */
  final ConfirmationBook confirmations = new ConfirmationBook();
  /** The counters and timers of this ant (replay-aware: a replay counts nothing). */
  final AntMetrics metrics = new AntMetrics(this::spec);

  AntState(AntRun run) {
    spec = run.spec();
    AntMemory m = run.memory();
    if (m == null) {
      mailbox = new Mailbox(List.of(), List.of(), List.of());
      // A start after a stop carries what the stopped run spent: its caps and its costs go on.
      budget = new BudgetBook(run.carried() == null ? null : run.carried().spend());
      ledger = new CostLedger(run.carried() == null ? null : run.carried().ledger());
      card = new CardState();
      phase = Phase.initial(0, 0, 0);
      overseer = new OverseerBook(null);
      pause = new PauseRequest(null, null);
      chat = new ChatSequence(0, false);
      stats = new SessionStats(Workflow.currentTimeMillis());
      delivery = new Delivery(0, 0);
      conversation = new Conversation((String) null);
      issues = new IssueIntake(List.of(), List.of(), SessionRunner.MAX_HANDLED_ISSUES);
      task = new TaskSlot(null);
      merge = new MergeSlot(null);
      return;
    }
    AntState.Loop loop = m.loop();
    sessionCount = loop.sessions();
    pause = new PauseRequest(m.pause());
    mailbox = new Mailbox(m.mailbox());
    budget = new BudgetBook(m.spend());
    ledger = new CostLedger(m.ledger());
    card = new CardState(m.card());
    conversation = new Conversation(m.conversation());
    chat = new ChatSequence(m.chat());
    scheduledRunDue = loop.scheduledRunDue();
    stats = new SessionStats(m.stats());
    delivery = new Delivery(m.delivery());
    issues = new IssueIntake(m.issues(), SessionRunner.MAX_HANDLED_ISSUES);
    phase = restoredPhase(loop);
    overseer = new OverseerBook(m.overseer());
    host = loop.host();
    task = new TaskSlot(m.taskSlot());
    merge = new MergeSlot(m.merge());
    m.notices().forEach(n -> notices.put(n.need(), n));
  }

  /** Where a run that continued as new picks up: its wait, its pause, or about to prepare. */
  private Phase restoredPhase(Loop m) {
    Phase p = Phase.initial(sessionCount, m.consecutiveErrors(), m.totalErrors());
    if (m.wakeAtMillis() != null && m.waitKind() != null) {
      return new Phase(m.waitKind().shownAs(), sessionCount, m.wakeAtMillis(), m.waitKind().reason(),
          p.consecutiveErrors(), p.totalErrors());
    }
    if (paused()) {
      return new Phase(parkedLike(pause.reason()) ? Lifecycle.PARKED : Lifecycle.PAUSED, sessionCount,
          m.budgetResumeAtMillis(), pause.reason(), p.consecutiveErrors(), p.totalErrors());
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

  /**
   * What the loop itself carries across continue-as-new (the JSON names of the ant's memory): its
   * counters, the wait it was in (a backoff, a rate limit, a budget pause's end), a scheduled run
   * that came due, the host that holds the workspace.
   */
  record Loop(int sessions, int consecutiveErrors, int totalErrors, Long wakeAtMillis, WaitKind waitKind,
      Long budgetResumeAtMillis, boolean scheduledRunDue, String host) {}

  AntMemory memory() {
    return new AntMemory(
        new Loop(sessionCount, phase.consecutiveErrors(), phase.totalErrors(), wakeAtMillis(), waitKind(),
            budgetResumeAtMillis(), scheduledRunDue, host),
        pause.memory(), mailbox.memory(), chat.memory(), stats.memory(), delivery.memory(), issues.memory(),
        conversation.memory(), card.memory(), task.memory(), budget.spend(), ledger.days(), overseer.memory(),
        openNotices(), merge.memory());
  }

  /**
   * Sessions up to {@code session} ended: each of their confirmations still open is denied now,
   * "the session ended", so the {@code confirm} update waiting for it returns at once instead of
   * at its confirmation_timeout (stop and continue-as-new wait for every handler). Runs recorded
   * before the change are not this build's to replay (see the compatibility ledger). Returns the
   * requests it denied.
   */
  List<Integer> denyOpenConfirmations(int session) {
    if (confirmations.waiting() == 0) {
      return List.of();
    }
    Change.CONFIRMATIONS_END_WITH_SESSION.require();
    List<Integer> denied = confirmations.denyOpenUpTo(session);
    for (int id : denied) {
      ConfirmationBook.Entry e = confirmations.entry(id);
      metrics.confirmationDecided(AntMetrics.Decision.SESSION_ENDED, e == null ? null : e.openedMillis());
    }
    return denied;
  }

  /**
   * Money spent for the ant: a session's cost as its engine reported it, or an overseer's
   * model call. It counts in the ant's cost and in its budget windows alike.
   */
  void addCost(double usd) {
    if (stats.addCost(usd)) {
      metrics.charged(usd);
      dev.colony.budget.BudgetDays days = dev.colony.budget.BudgetDays.of(spec.errorPolicy());
      budget.add(usd, Workflow.currentTimeMillis(), days);
      ledger.addCost(usd, Workflow.currentTimeMillis(), days);
    }
  }

  /** A session begins now: it counts in today's sessions of the ledger, and its start is kept. */
  void sessionBegins() {
    long now = Workflow.currentTimeMillis();
    session.begin(now);
    ledger.addSession(now, dev.colony.budget.BudgetDays.of(spec.errorPolicy()));
  }

  /** How long the running (or just ended) session has run, in workflow time; 0 before the first. */
  long sessionMillis() {
    Long started = session.startedMillis();
    return started == null ? 0 : Math.max(0, Workflow.currentTimeMillis() - started);
  }

  AntSpec spec() {
    return spec;
  }

  /** A new spec from {@code configure}: kept for the next point between sessions, unless it changes nothing. */
  void offerSpec(AntSpec newSpec) {
    if (newSpec != null && !newSpec.equals(pendingSpec == null ? spec : pendingSpec)) {
      pendingSpec = newSpec;
    }
  }

  boolean specPending() {
    return pendingSpec != null;
  }

  /** Puts a new spec from {@code configure} in force; says whether there was one. */
  boolean applyPendingSpec() {
    if (pendingSpec == null) {
      return false;
    }
    spec = pendingSpec;
    pendingSpec = null;
    return true;
  }

  int sessionCount() {
    return sessionCount;
  }

  /** Session {@code number} ended (it counts from now on). */
  void sessionEnded(int number) {
    sessionCount = number;
  }

  Phase phase() {
    return phase;
  }

  void requestStop() {
    stopRequested = true;
  }

  boolean stopRequested() {
    return stopRequested;
  }

  /** A cron tick came, or one was missed while paused: one run is due. */
  void runDue() {
    scheduledRunDue = true;
  }

  boolean scheduledRunDue() {
    return scheduledRunDue;
  }

  /** A session starts: the due run is being done. */
  void runStarted() {
    scheduledRunDue = false;
  }

  String host() {
    return host;
  }

  void bindHost(String claimed) {
    host = claimed;
  }

  void forgetHost() {
    host = null;
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
   * Paused, or pausing after the running session: the request the lifecycle's phase follows at
   * the next point it can (see {@link PauseRequest}).
   */
  boolean paused() {
    return pause.requested();
  }

  boolean parked() {
    return parkedLike(pause.reason());
  }

  void pauseFor(String reason) {
    pause.request(reason);
  }

  void unpause() {
    pause.lift();
  }

  /** A parked ant that a human brings back starts with its error counters at zero. */
  void unpark() {
    if (parked()) {
      // The lifecycle resets the counters when it leaves Parked; a run continued as new meanwhile
      // starts from the phase, so reset them here too.
      phase = new Phase(phase.state(), phase.session(), phase.untilMillis(), phase.reason(), 0, 0);
    }
  }

  /**
   * The ant's own workflow code failed: no session is pending any more, and the ant shows
   * Parked with reason {@code fatal} at once (no event of the lifecycle leads there).
   */
  void parkFatal() {
    session.reset();
    pauseFor(FATAL_REASON);
    phase = new Phase(Lifecycle.PARKED, sessionCount, null, FATAL_REASON, phase.consecutiveErrors(),
        phase.totalErrors());
  }

  /**
   * The phase has just become a timed wait (cooling down after a failed session): only wake
   * requests from now on end it.
   */
  void waitScheduled() {
    wakes.waitScheduled();
  }

  /**
   * A colony budget cap was reached after a session: the ant pauses until the cap's window rolls
   * over, and the phase leaves any wait to show the pause with the window's end.
   */
  void pauseForBudget(long resumeAtMillis) {
    pauseFor(BUDGET_REASON);
    fire(new LifecycleEvent.Paused(BUDGET_REASON, resumeAtMillis));
    if (phase.state() != Lifecycle.PAUSED) {
      // The lifecycle only pauses from an idle state; the phase is where the window is kept.
      phase = new Phase(Lifecycle.PAUSED, phase.session(), resumeAtMillis, BUDGET_REASON, phase.consecutiveErrors(),
          phase.totalErrors());
    }
  }

  /** A timed wait for the next tick or the poll interval. */
  void scheduleWait(long atMillis, WaitKind kind) {
    fire(new LifecycleEvent.Waiting(kind.reason(), atMillis));
    if (waitKind() != kind || !Long.valueOf(atMillis).equals(phase.untilMillis())) {
      // The lifecycle did not move into the wait (it only does from an idle state): the phase
      // is where the wait is kept, so it shows the wait now.
      phase = new Phase(kind.shownAs(), phase.session(), atMillis, kind.reason(), phase.consecutiveErrors(),
          phase.totalErrors());
    }
    wakes.waitScheduled();
  }

  /** The timed wait the phase shows (cooling down, or waiting with a time); null when there is none. */
  WaitKind waitKind() {
    if (phase.untilMillis() == null) {
      return null;
    }
    for (WaitKind k : WaitKind.values()) {
      if (k.shownAs() == phase.state() && k.reason().equals(phase.reason())) {
        return k;
      }
    }
    return null;
  }

  /** When the timed wait ends; null when there is none. */
  Long wakeAtMillis() {
    return waitKind() == null ? null : phase.untilMillis();
  }

  /** While paused by a colony budget cap: when the cap's window rolls over (the paused phase's end). */
  Long budgetResumeAtMillis() {
    return pause.is(BUDGET_REASON) && phase.state() == Lifecycle.PAUSED ? phase.untilMillis() : null;
  }

  /** The pending timer: a wait, or the rollover that ends a budget pause. */
  Long nextWake() {
    Long wake = wakeAtMillis();
    return wake != null ? wake : budgetResumeAtMillis();
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
