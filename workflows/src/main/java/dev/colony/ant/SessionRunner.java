package dev.colony.ant;

import static dev.colony.chat.OperatorMessages.trim;

import dev.colony.chat.OperatorMessages;
import dev.colony.errorpolicy.Outcome;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.mailbox.Mailbox;
import dev.colony.overseer.Whisper;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.supervision.AntFailure;
import dev.colony.trigger.IssueEvent;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one session: takes the instructions, the issue and the whispers it gets, starts the
 * session activity on the ant's host (which prepares the workspace there), interrupts it when
 * stop, an urgent message, an abort or a supervisor's restart comes, and hands the result to
 * {@link SessionOutcomes}.
 */
final class SessionRunner {
  /** Replay-aware (Temporal's workflow logger): each line once, prefixed with the run and the session. */
  private static final org.slf4j.Logger log = Workflow.getLogger(SessionRunner.class);
  /** The instructions one session gets at most; the rest wait for the next, which starts at once. */
  static final int MAX_BATCH_CHARS = 64_000;
  /** How many handled issues an ant remembers (carried over continue-as-new). */
  static final int MAX_HANDLED_ISSUES = 5_000;

  private final AntState ant;
  private final Outbox outbox;
  private final HostAffinity hosts;
  private final SessionOutcomes outcomes;
  private final ColonyReports reports;
  private final TaskDesk desk;
  private final MergeDesk merge;

  SessionRunner(AntState ant, Outbox outbox, HostAffinity hosts, SessionOutcomes outcomes, ColonyReports reports,
      TaskDesk desk, MergeDesk merge) {
    this.desk = desk;
    this.merge = merge;
    this.ant = ant;
    this.outbox = outbox;
    this.hosts = hosts;
    this.outcomes = outcomes;
    this.reports = reports;
  }

  void runOne() {
    ant.runStarted();
    ant.sessionBegins();
    hosts.ensureClaimed();
    merge.syncBranch(); // work that landed: the branch moves onto the target before the agent sees it
    ant.fire(new LifecycleEvent.WorktreeReady());
    Mailbox mailbox = ant.mailbox;
    int number = ant.sessionCount() + 1;
    // A rework the merge queue sent back is a session of its own: only its text, no task's brief,
    // no mail, no issue (they wait for the next session); see MergeDesk.afterRework.
    // Urgent mail goes first: a rework session would be cut by it at once (and given back, for ever).
    MergeSlot.Rework rework = mailbox.hasUrgent() ? null : ant.merge.takeRework();
    SessionRequest request;
    List<String> delivered;
    if (rework != null) {
      delivered = List.of();
      ant.session.delivered(delivered);
      request = new SessionRequest(ant.spec(), number, List.of(MergeDesk.reworkMessage(rework)), null, null, null,
          List.of(), null, rework.itemId());
      ant.fire(new LifecycleEvent.PromptReady("rework of " + rework.itemId()));
    } else {
      delivered = ant.delivery.alone() ? mailbox.takeBatch(MAX_BATCH_CHARS, 1) : mailbox.takeBatch(MAX_BATCH_CHARS);
      IssueEvent issue = ant.issues.take(); // one per session, oldest first; it goes back if the session fails
      ant.session.delivered(delivered);
      // Whispers the last session ended before taking go into this one's prompt.
      List<String> whispers = ant.spec().overseer() == null ? List.of()
          : ant.overseer.takePending().stream().map(Whisper::rendered).toList();
      // The session activity prepares the workspace on the host itself (workspace: null).
      request = new SessionRequest(ant.spec(), number, delivered, null, issue, ant.conversation.takeResume(),
          whispers, desk.brief());
      ant.fire(new LifecycleEvent.PromptReady(delivered.size() + " message(s)" + (issue == null ? "" : ", " + issue.key())
          + (request.task() == null ? "" : ", task " + request.task().id())));
    }
    List<Promise<SessionResult>> holder = new ArrayList<>(1);
    SessionActivities sessions = sessions(number);
    ant.metrics.sessionStarted();
    log.debug("{}{}: session {} starting on {}", dev.colony.session.SessionLog.prefix(Workflow.getInfo().getRunId(), number),
        ant.spec().name(), number, ant.spec().engine().configName());
    CancellationScope scope = Workflow.newCancellationScope(
        () -> holder.add(Async.function(sessions::runSession, request)));
    scope.run();
    Promise<SessionResult> session = holder.get(0);
    Workflow.await(() -> session.isCompleted() || ant.stopRequested() || mailbox.hasUrgent()
        || ant.session.restartRequested() != null || ant.session.abortRequested());
    boolean aborted = ant.session.abortRequested();
    if (!session.isCompleted()) {
      interrupt(scope, session, number);
    }
    ant.session.abortHandled();
    if (!session.isCompleted()) {
      log.info("{}{}: session {} interrupted and not waited for", dev.colony.session.SessionLog.prefix(
          Workflow.getInfo().getRunId(), number), ant.spec().name(), number);
    }
    finish(session, delivered, number, aborted, rework);
  }

  private void finish(Promise<SessionResult> session, List<String> delivered, int number, boolean aborted,
      MergeSlot.Rework rework) {
    SessionResult result = null;
    boolean unresponsive = false;
    boolean hostLost = false;
    boolean cancelled = !session.isCompleted();
    if (!cancelled) {
      try {
        result = session.get();
      } catch (ActivityFailure f) {
        if (f.getCause() instanceof CanceledFailure || ant.stopRequested() || ant.phase().state() == Lifecycle.INTERRUPTING) {
          cancelled = true;
        } else if (HostAffinity.gone(f)) {
          hostLost = true; // its host died (or is swamped) before or during the session: run it again
        } else {
          // The activity gave up (its retries are spent): the worker kept dying or went silent.
          result = SessionResult.of(Outcome.TRANSIENT, "session failed: " + Texts.rootMessage(f));
          unresponsive = true;
        }
      } catch (CanceledFailure c) {
        cancelled = true;
      }
    }
    // What the session's attempts reported spending while they ran: charged when no result says
    // the cost (stopped, interrupted, its worker or host lost), or when it says less (an attempt
    // before a worker died spent too).
    double spent = ant.session.spentSoFar();
    if (result != null && spent > result.costUsd() && outcomes.chargesReportedSpend(spent)) {
      result = result.withCost(spent);
      spent = 0;
    }
    ant.session.ended();
    if (hostLost || (cancelled && (ant.stopRequested() || ant.phase().state() != Lifecycle.INTERRUPTING))) {
      ant.mailbox.giveBack(delivered);
      outcomes.giveIssueBack();
      ant.merge.giveBack(rework);
      if (result == null && outcomes.chargesReportedSpend(spent)) {
        outcomes.chargeUnfinished(spent, ant.stopRequested());
      }
      if (hostLost) {
        hosts.timedOut();
      }
      ant.metrics.sessionEnded(hostLost ? AntMetrics.Unfinished.HOST_LOST : AntMetrics.Unfinished.STOPPED,
          ant.sessionMillis());
      return;
    }
    hosts.reached();
    ant.sessionEnded(number);
    for (int id : ant.denyOpenConfirmations(number)) {
      outbox.say(OperatorMessages.confirmationEnded(ant.spec().name(), id));
    }
    ant.confirmations.forgetSessionsUpTo(number);
    if (ant.phase().state() == Lifecycle.INTERRUPTING) {
      if (!aborted) {
        ant.merge.giveBack(rework); // an abort drops it, as it drops a session's mail
      }
      outcomes.interrupted(result, delivered, number, aborted,
          result == null && outcomes.chargesReportedSpend(spent) ? spent : 0);
      return;
    }
    boolean pauseWasPending = ant.pause.is(AntState.OPERATOR);
    outcomes.act(result, delivered);
    if (rework != null) {
      // The session did the rework, not the held task's work: the task is not reported (it stays
      // In Progress and goes on in the next session), unless the ant parked on this session.
      if (ant.phase().state() == Lifecycle.PARKED) {
        desk.parked(ant.spec().name() + " parked after repeated errors: " + AntViews.line(trim(result.detail())));
      }
      merge.afterRework(result, rework);
    } else {
      dev.colony.task.TaskBrief task = ant.task.brief();
      desk.afterSession(result, number);
      merge.afterSession(result, task, task != null && !ant.task.held(), task != null && desk.submitted(task.id()));
    }
    if (unresponsive && !ant.parked()) {
      reports.report(AntFailure.UNRESPONSIVE, "session " + number + " stopped answering: " + trim(result.detail()));
    }
    // When a pause asked for during the session takes effect, say so: the operator who read
    // "will pause after the current session" knows it happened.
    if (pauseWasPending && ant.pause.is(AntState.OPERATOR)) {
      outbox.say(OperatorMessages.pausing(ant.spec().name(), false));
    }
  }

  /**
   * Stops the running session for stop, an urgent message, an abort or a restart: the session's
   * activity is told through its heartbeat, asks the agent to stop, kills it after
   * interrupt_grace, and is waited for. A worker that cannot be reached is given up on once its
   * heartbeat must have timed out.
   */
  private void interrupt(CancellationScope scope, Promise<SessionResult> session, int number) {
    ant.fire(ant.stopRequested() ? new LifecycleEvent.OperatorStop() : new LifecycleEvent.UrgentMessage());
    if (!ant.stopRequested() && ant.session.restartRequested() == null && !ant.session.abortRequested()) {
      outbox.say(OperatorMessages.urgentQueued(ant.spec().name(), number));
    }
    ant.session.restartHandled();
    scope.cancel();
    // An agent waiting for a human's answer cannot end its turn: its requests are denied now (the
    // session is ending), so it stops at once instead of at the end of interrupt_grace.
    for (int id : ant.denyOpenConfirmations(number)) {
      outbox.say(OperatorMessages.confirmationEnded(ant.spec().name(), id));
    }
    long grace = ant.spec().errorPolicy().interruptGrace();
    long bound = grace + ant.spec().heartbeatTimeoutSeconds() + 10;
    if (!Timers.await(Duration.ofSeconds(bound), "session " + number + " stopping (grace " + grace + "s)",
        session::isCompleted)) {
      ant.fire(new LifecycleEvent.GraceExceeded()); // ForceStopSession: the activity has killed its agent
      ant.metrics.forceStopped();
      outbox.say(OperatorMessages.forceStopped(ant.spec().name(), number, grace));
    }
  }

  /**
   * The session activity on the ant's host. Outcomes are values: retries here are only for
   * infrastructure faults (a worker crash, a lost heartbeat). The session bound itself is enforced
   * inside the activity; the start-to-close timeout is a backstop a little beyond it. An
   * interrupted session is waited for, so the agent stops before the next one starts.
   */
  private SessionActivities sessions(int number) {
    ActivityOptions.Builder options = dev.colony.Activities
        .session(ant.spec().sessionTimeoutSeconds(), ant.spec().heartbeatTimeoutSeconds())
        .setSummary("session " + number + " · " + ant.spec().engine().configName());
    return Workflow.newActivityStub(SessionActivities.class, hosts.onHost(options).build());
  }
}
