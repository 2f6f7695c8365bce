package dev.colony.ant;

import static dev.colony.chat.OperatorMessages.trim;

import dev.colony.chat.OperatorMessages;
import dev.colony.compat.Compatibility.Change;
import dev.colony.overseer.Ladder;
import dev.colony.overseer.OverseerActivities;
import dev.colony.overseer.OverseerSpec;
import dev.colony.overseer.Turn;
import dev.colony.overseer.TurnReply;
import dev.colony.overseer.TurnReport;
import dev.colony.overseer.Verdict;
import dev.colony.supervision.AntFailure;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;

/**
 * The overseer, for an ant that has one: a thread of its own evaluates the agent's
 * reported turns with an activity and climbs the ladder (whisper, then escalate: alert humans and
 * pause the ant); the session's reports arrive through the {@code reportTurns} update.
 */
final class Overseer {
  private static final Logger log = Workflow.getLogger(Overseer.class);
  /** How long a turn report waits for the verdict of the evaluation it is due for. */
  static final long REPORT_WAIT_SECONDS = 60;
  private final AntState ant;
  private final Outbox outbox;
  private final ColonyReports reports;
  private boolean started;

  Overseer(AntState ant, Outbox outbox, ColonyReports reports) {
    this.ant = ant;
    this.outbox = outbox;
    this.reports = reports;
  }

  /** Starts the thread once the ant has an overseer (now, or from a new spec); a parked thread costs memory. */
  void startIfConfigured() {
    if (!started && ant.spec().overseer() != null) {
      started = true;
      Async.procedure(this::superviseTurns);
    }
  }

  /** An evaluation is in flight: its verdict must not be lost with the run. */
  boolean busy() {
    return ant.spec().overseer() != null && ant.overseer.busy(ant.spec().overseer());
  }

  /** A human's answer ends an escalation: the ladder starts again and the colony's log says so. */
  void answerEscalation(String kind, String how) {
    if (ant.overseer.escalated()) {
      reports.report(kind, how);
    }
    ant.overseer.resetLadder();
  }

  /**
   * A batch of the running session's turns. Without an overseer it is only recorded (the update's
   * input in the history is what the console shows live) and answered at once, never evaluated.
   */
  TurnReply reportTurns(TurnReport report) {
    ant.session.spent(report.attempt(), report.spentUsd()); // charged if the session ends without its cost
    OverseerSpec s = ant.spec().overseer();
    if (s == null) {
      if (report.turns().isEmpty() && Workflow.getInfo().getHistoryLength() > LIVE_TURNS_HISTORY_LIMIT) {
        lastSpendOnlyMillis = Workflow.currentTimeMillis();
      }
      return new TurnReply(List.of(), false);
    }
    ant.overseer.accept(report, s);
    if (ant.overseer.busy(s)) {
      Timers.await(Duration.ofSeconds(REPORT_WAIT_SECONDS), "turn report of session " + report.session()
          + " waits for the overseer's verdict", () -> !busy());
    }
    return new TurnReply(ant.overseer.pending(), busy());
  }

  /** Above this many events in the run, an ant without an overseer reports no more live turns. */
  static final long LIVE_TURNS_HISTORY_LIMIT = 20_000;
  /** Past that limit a report of spend alone is taken at most this often (the next one carries the sum). */
  static final long SPEND_ONLY_EVERY_MILLIS = 60_000;
  /** When the last report of spend alone was taken past the limit (this run only). */
  private long lastSpendOnlyMillis = Long.MIN_VALUE / 2;

  void validateReportTurns(TurnReport report) {
    if (report == null) {
      throw new IllegalArgumentException("empty report");
    }
    if (!ant.session.running() || report.session() != ant.sessionCount() + 1) {
      throw new IllegalArgumentException("session " + report.session() + " is not running");
    }
    // Without an overseer turns only feed the console's live view: a long session stops reporting
    // before they fill the run's history (a refused update leaves no event).
    if (!Double.isFinite(report.spentUsd()) || report.spentUsd() < 0 || report.spentUsd() > TurnReport.MAX_SPENT_USD) {
      throw new IllegalArgumentException("spentUsd is not an amount an engine reports");
    }
    // A report of spend alone (no turns) is small: past the limit it is taken once a minute, so a
    // session longer than the default two hours can never fill the run's history with them.
    if (ant.spec().overseer() == null && Workflow.getInfo().getHistoryLength() > LIVE_TURNS_HISTORY_LIMIT) {
      if (!report.turns().isEmpty()) {
        throw new IllegalArgumentException("this run's history is long: live turns resume after the next continue-as-new");
      }
      if (Workflow.currentTimeMillis() - lastSpendOnlyMillis < SPEND_ONLY_EVERY_MILLIS) {
        throw new IllegalArgumentException("this run's history is long: spend is taken once a minute");
      }
    }
    if (report.turns().size() > TurnReport.MAX_TURNS || report.delivered().size() > TurnReport.MAX_DELIVERED) {
      throw new IllegalArgumentException("report too large (at most " + TurnReport.MAX_TURNS + " turns)");
    }
    // Engines send bounded turns; anything bigger did not come from one and stays out of the history.
    for (Turn t : report.turns()) {
      if (t == null || Texts.longer(t.name(), Turn.MAX_NAME + 1) || Texts.longer(t.input(), Turn.MAX_INPUT + 1)
          || Texts.longer(t.result(), Turn.MAX_RESULT + 1) || Texts.longer(t.kind(), 8)) {
        throw new IllegalArgumentException("a turn is over its bounds (name 80, input 400, result 600 characters)");
      }
    }
    for (String id : report.delivered()) {
      if (id == null || id.length() > 32) {
        throw new IllegalArgumentException("a delivered whisper id is not one");
      }
    }
  }

  /**
   * Evaluates the window whenever enough turns arrived (or a silence was reported) and climbs
   * the ladder: a whisper waits for the agent's next turn; an escalation alerts humans and
   * pauses the ant. A failing evaluation is skipped and counted, never fatal.
   */

  private void superviseTurns() {
    while (true) {
      Workflow.await(() -> ant.spec().overseer() != null
          && (ant.overseer.silenceDue() || ant.overseer.evaluationDue(ant.spec().overseer())));
      OverseerSpec s = ant.spec().overseer();
      Verdict verdict;
      if (ant.overseer.silenceDue()) {
        verdict = ant.overseer.takeSilence();
      } else {
        var request = ant.overseer.beginEvaluation(ant.spec().name(), ant.spec().colonyDir(), s, task());
        try {
          verdict = evaluator(s).evaluate(request);
          Change.OVERSEER_COST.require(); // the overseer's cost feeds the budget cap
          ant.addCost(verdict == null ? 0 : verdict.costUsd());
        } catch (ActivityFailure f) {
          double cost = costOf(f);
          Change.OVERSEER_COST.require();
          ant.addCost(cost);
          ant.overseer.skipped(trim(Texts.failureText(f)), cost);
          log.info("{}: overseer evaluation skipped: {}", ant.spec().name(), Texts.rootMessage(f));
          continue;
        }
      }
      var step = ant.overseer.conclude(verdict == null ? Verdict.ok() : verdict, s);
      if (step.action() == Ladder.Action.ESCALATE && !ant.stopRequested()) {
        escalate(verdict);
      }
    }
  }

  /**
   * What a failed evaluation's model call cost all the same: a model that answered without a
   * verdict was paid for; the activity puts the cost in its failure's details
   * ({@link Verdict#costUsd}'s meaning). 0 when there was no answer.
   */
  private static double costOf(ActivityFailure f) {
    if (f.getCause() instanceof ApplicationFailure a && a.getDetails() != null) {
      try {
        Double usd = a.getDetails().get(Double.class);
        return usd == null ? 0 : usd;
      } catch (RuntimeException notACost) {
        return 0;
      }
    }
    return 0;
  }

  private static OverseerActivities evaluator(OverseerSpec s) {
    return Workflow.newActivityStub(OverseerActivities.class,
        ActivityOptions.newBuilder(dev.colony.Activities.OVERSEER_EVALUATION)
            .setSummary("overseer evaluation · " + s.model())
            .build());
  }

  private void escalate(Verdict verdict) {
    String reason = verdict.reason() == null || verdict.reason().isBlank() ? "the pattern persisted after two whispers"
        : trim(verdict.reason());
    if (!ant.paused()) {
      ant.pauseFor(AntState.ESCALATION_REASON);
      ant.wakes.request();
    }
    outbox.say(OperatorMessages.escalated(ant.spec().name(), verdict.pattern().name(), reason, ant.session.running()));
    reports.report(AntFailure.ESCALATED, verdict.pattern() + ": " + reason);
  }

  /** What the agent was asked to do, as the overseer reads it (bounded). */
  private String task() {
    StringBuilder sb = new StringBuilder("Standing instructions:\n").append(Texts.clip(ant.spec().instructions(), 4000));
    if (!ant.session.messages().isEmpty()) {
      sb.append("\n\nThis session's instructions:\n");
      for (String m : ant.session.messages()) {
        sb.append("- ").append(Texts.clip(m, 1000)).append('\n');
        if (sb.length() > 8000) {
          break;
        }
      }
    }
    if (ant.issues.taken() != null) {
      sb.append("\n\nGitHub issue: ").append(ant.issues.taken().key()).append(' ')
          .append(Texts.clip(ant.issues.taken().title(), 300));
    }
    return sb.toString();
  }
}
