package dev.colony.ant;

import static dev.colony.chat.OperatorMessages.trim;

import dev.colony.budget.BudgetBook;
import dev.colony.chat.OperatorMessages;
import dev.colony.compat.Compatibility.Change;
import dev.colony.errorpolicy.Outcome;
import dev.colony.lifecycle.LifecycleEvent.Exit;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.lifecycle.SideEffect;
import dev.colony.session.SessionResult;
import dev.colony.supervision.AntFailure;
import io.temporal.workflow.Workflow;
import java.util.List;
import org.slf4j.Logger;

/**
 * The error policy's "classify and act": a finished session's outcome goes through the lifecycle, which
 * says where the ant goes next (the next session, a backoff, a rate-limit wait, a pause, parked);
 * the counters, the budget and the queue follow.
 */
final class SessionOutcomes {
  private static final Logger log = Workflow.getLogger(SessionOutcomes.class);
  /** Instructions that this many failed sessions in a row carried are dropped with a notice. */
  static final int MAX_DELIVERY_FAILURES = 3;
  private final AntState ant;
  private final Outbox outbox;
  private final ColonyReports reports;

  SessionOutcomes(AntState ant, Outbox outbox, ColonyReports reports) {
    this.ant = ant;
    this.outbox = outbox;
    this.reports = reports;
  }

  /** Applies the error policy to one finished session: the lifecycle says where to go. */
  void act(SessionResult r, List<String> delivered) {
    Outcome outcome = r.outcome() == null ? Outcome.TRANSIENT : r.outcome();
    record(outcome, r);
    String name = ant.spec().name();
    long now = Workflow.currentTimeMillis();
    SideEffect effect = ant.fire(new LifecycleEvent.SessionExited(exitOf(outcome), outcome.configName(), now,
        r.resetAtEpochMillis()));
    switch (ant.phase().state()) {
      case SESSION_COMPLETE -> {
        ant.delivery.resetFailures();
        if (!delivered.isEmpty()) {
          ant.delivery.oneSettled(); // this one was fine
        }
        if (outcome.action() == Outcome.Action.CONTINUE) {
          outbox.say(OperatorMessages.succeeded(name, ant.sessionCount(), r.detail()));
          // Instructions still queued (sent during the session, or beyond one batch) run at once,
          // and a pause that came during the session (an operator's, an escalation) takes effect now.
          if (!ant.spec().eventDriven() && ant.spec().pollIntervalSeconds() > 0 && ant.mailbox.isEmpty() && !ant.paused()) {
            ant.scheduleWait(now + ant.spec().pollIntervalSeconds() * 1000, WaitKind.SLEEPING);
          }
        }
      }
      case PARKED -> {
        requeueAfterFailure(delivered, true);
        giveIssueBack();
        // Parked: no more sessions, no timer, until a human resumes (counters reset) or stops it.
        ant.pauseFor(AntState.PARKED_REASON);
        ant.metrics.parked(AntMetrics.Park.ERRORS);
        String why = ((SideEffect.LogFatal) effect).message();
        outbox.say(OperatorMessages.parked(name, why, r.detail()));
        reports.report(AntFailure.PARKED, "parked after " + why + "; last error: " + trim(r.detail()));
      }
      case COOLING_DOWN -> {
        long waitMillis = ant.phase().untilMillis() - now;
        requeueAfterFailure(delivered, outcome.action() == Outcome.Action.BACK_OFF);
        giveIssueBack();
        ant.metrics.waited(outcome.action() == Outcome.Action.BACK_OFF ? AntMetrics.Wait.BACKOFF
            : AntMetrics.Wait.RATE_LIMIT, waitMillis);
        if (outcome.action() == Outcome.Action.BACK_OFF) {
          outbox.say(outcome == Outcome.PERMANENT
              ? OperatorMessages.permanent(name, r.detail(), waitMillis / 1000)
              : OperatorMessages.crashed(name, r.detail(), waitMillis / 1000));
          ant.waitScheduled(); // the phase shows the backoff
        } else {
          outbox.say(OperatorMessages.rateLimited(name, (waitMillis + 999) / 1000));
          ant.waitScheduled(); // the phase shows the rate limit
        }
      }
      case PAUSED -> {
        requeueAfterFailure(delivered, false);
        giveIssueBack();
        ant.pauseFor(outcome.configName());
        outbox.say(OperatorMessages.paused(name, outcome, r.detail()));
      }
      default -> log.warn("{}{}: session {} ended while {}",
          dev.colony.session.SessionLog.prefix(Workflow.getInfo().getRunId(), ant.sessionCount()), name,
          ant.sessionCount(), ant.phase().state());
    }
    checkBudget();
  }

  /**
   * Whether a session's reported spend ({@code usd}, from its turn reports) is charged: runs
   * recorded before it was (no marker) charged only what a result said. Asked only when there is
   * a spend to charge, so runs without one record no marker.
   */
  boolean chargesReportedSpend(double usd) {
    return usd > 0 && Double.isFinite(usd)
        && Change.CHARGE_REPORTED_SPEND.applies();
  }


  /**
   * A session that ended with no result (stopped, or its host lost: it runs again) spent {@code usd}
   * by its turn reports: it counts in the budget and the ledger; a cap it reached pauses the ant
   * before the session runs again.
   */
  void chargeUnfinished(double usd, boolean stopping) {
    ant.addCost(usd);
    if (!stopping) {
      checkBudget();
    }
  }

  private static String spentWords(double usd) {
    return String.format(java.util.Locale.ROOT, "$%.2f spent by the engine's reports while it ran", usd);
  }

  /**
   * After an urgent interrupt: the next session starts at once, the urgent message first.
   * {@code spent} is what the session reported spending when it ended without a result (0: none).
   */
  void interrupted(SessionResult result, List<String> delivered, int number, boolean aborted, double spent) {
    if (result == null && spent > 0) {
      ant.addCost(spent);
    }
    if (aborted) {
      // The task is dropped: its instructions and its issue do not come back.
      if (result != null) {
        record(result.outcome() == null ? Outcome.TRANSIENT : result.outcome(), result);
      } else {
        recordWithoutResult(AntMetrics.Unfinished.ABORTED, "interrupted by abort; its task was dropped", spent);
      }
      ant.issues.done();
      ant.conversation.forgetLast();
    } else if (result != null) {
      // It ended by itself before the interrupt reached it: its messages were delivered.
      record(result.outcome() == null ? Outcome.TRANSIENT : result.outcome(), result);
      ant.issues.done();
    } else {
      recordWithoutResult(AntMetrics.Unfinished.INTERRUPTED, "interrupted (an urgent message or a supervisor's restart)",
          spent);
      ant.mailbox.giveBack(delivered);
      giveIssueBack();
    }
    ant.fire(LifecycleEvent.SessionExited.of(Exit.ERROR, Workflow.currentTimeMillis()));
    if (ant.mailbox.hasUrgent()) {
      outbox.say(OperatorMessages.interrupted(ant.spec().name(), number));
    }
    checkBudget();
  }

  void giveIssueBack() {
    ant.issues.giveBack();
  }

  /**
   * A failed session hands its instructions back to the queue, unless failed sessions carried
   * them MAX_DELIVERY_FAILURES times in a row: then they are dropped with a notice, so a message
   * the agent cannot take never keeps the ant backing off for ever. Only a lone instruction is
   * dropped: a batch of several goes back to be given one per session, so the one the agent cannot
   * take is found and dropped alone, and the healthy ones run.
   */
  private void requeueAfterFailure(List<String> delivered, boolean counts) {
    if (delivered.isEmpty()) {
      return;
    }
    if (counts && ant.delivery.failedOnce() >= MAX_DELIVERY_FAILURES && delivered.size() > 1) {
      Change.FAILING_BATCH_ONE_AT_A_TIME.require();
      ant.delivery.oneAtATime(delivered.size());
      ant.mailbox.giveBack(delivered);
      return;
    }
    if (counts && ant.delivery.failures() >= MAX_DELIVERY_FAILURES) {
      ant.delivery.oneSettled(); // the one the agent cannot take
      outbox.say(OperatorMessages.undeliverable(ant.spec().name(), delivered.size(), ant.delivery.failures(),
          delivered.get(0)));
      ant.delivery.resetFailures();
      return;
    }
    ant.mailbox.giveBack(delivered);
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

  private void recordWithoutResult(AntMetrics.Unfinished why, String detail, double spent) {
    String outcome = why.label();
    ant.metrics.sessionEnded(why, ant.sessionMillis());
    String said = spent > 0 ? detail + "; " + spentWords(spent) : detail;
    ant.stats.recordOutcome(outcome, said);
    remember(outcome, said, 0, 0, 0, spent, false);
  }

  /** The session that just ended joins the card's last sessions (with the run that ran it, for a Web UI link). */
  private void remember(String outcome, String detail, int turns, long in, long out, double cost, boolean failed) {
    long now = Workflow.currentTimeMillis();
    Long started = ant.session.startedMillis();
    ant.card.sessionEnded(new dev.colony.visibility.AntCard.SessionRecord(ant.sessionCount(),
        started == null ? now : started, now, outcome,
        detail == null ? "" : AntViews.line(detail),
        turns, in, out, cost > 0 && Double.isFinite(cost) ? cost : 0, Workflow.getInfo().getRunId()), failed);
  }

  private void record(Outcome outcome, SessionResult r) {
    if (r.sessionId() != null) {
      ant.conversation.remember(r.sessionId());
    }
    ant.stats.recordOutcome(outcome.configName(), trim(r.detail()));
    ant.stats.addUsage(r.turns(), r.inputTokens(), r.outputTokens());
    ant.metrics.sessionEnded(outcome, ant.sessionMillis());
    ant.metrics.usage(r.turns(), r.inputTokens(), r.outputTokens());
    ant.addCost(r.costUsd());
    Outcome.Action action = outcome.action();
    remember(outcome.configName(), r.detail(), r.turns(), r.inputTokens(), r.outputTokens(), r.costUsd(),
        action != Outcome.Action.CONTINUE && action != Outcome.Action.RESTART_NOW);
  }

  /**
   * After a session (and at the start of a run that carries a stopped run's spend): a reached
   * budget cap pauses the ant until the cap's window rolls over.
   */
  void checkBudget() {
    if (!ant.spec().errorPolicy().hasBudget() || ant.paused()) {
      return;
    }
    BudgetBook.Cap cap = ant.budget.reached(ant.spec().errorPolicy(), Workflow.currentTimeMillis());
    if (cap == null) {
      return;
    }
    ant.pauseForBudget(cap.resetsAtMillis());
    ant.metrics.budgetPaused(cap.window());
    String zone = ant.spec().errorPolicy().budgetZone();
    String resets = java.time.Instant.ofEpochMilli(cap.resetsAtMillis()).atZone(java.time.ZoneId.of(zone))
        .toLocalDateTime() + " " + zone;
    outbox.say(OperatorMessages.budgetCapped(ant.spec().name(), cap.describe(), resets));
    reports.report(AntFailure.BUDGET, cap.describe() + "; resumes at " + resets);
  }
}
