package dev.colony.ant;

import static dev.colony.supervisor.OperatorMessages.trim;

import dev.colony.oversight.Ladder;
import dev.colony.oversight.OversightActivities;
import dev.colony.oversight.SupervisorSpec;
import dev.colony.oversight.Turn;
import dev.colony.oversight.TurnReply;
import dev.colony.oversight.TurnReport;
import dev.colony.oversight.Verdict;
import dev.colony.supervision.AntFailure;
import dev.colony.supervisor.OperatorMessages;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;

/**
 * Seed 002's LLM supervisor, for an ant that has one: a thread of its own evaluates the agent's
 * reported turns with an activity and climbs the ladder (whisper, then escalate: alert humans and
 * pause the ant); the session's reports arrive through the {@code reportTurns} update.
 */
final class LlmSupervision {
  private static final Logger log = Workflow.getLogger(LlmSupervision.class);
  /** How long a turn report waits for the verdict of the evaluation it is due for. */
  static final long REPORT_WAIT_SECONDS = 60;
  private final AntState ant;
  private final Outbox outbox;
  private final ColonyReports reports;
  private boolean started;

  LlmSupervision(AntState ant, Outbox outbox, ColonyReports reports) {
    this.ant = ant;
    this.outbox = outbox;
    this.reports = reports;
  }

  /** Starts the thread once the ant has a supervisor (now, or from a new spec); a parked thread costs memory. */
  void startIfConfigured() {
    if (!started && ant.spec().supervisor() != null) {
      started = true;
      Async.procedure(this::superviseTurns);
    }
  }

  /** An evaluation is in flight: its verdict must not be lost with the run. */
  boolean busy() {
    return ant.spec().supervisor() != null && ant.oversight.busy(ant.spec().supervisor());
  }

  /** A human's answer ends an escalation: the ladder starts again and the colony's log says so. */
  void answerEscalation(String kind, String how) {
    if (ant.oversight.escalated()) {
      reports.report(kind, how);
    }
    ant.oversight.resetLadder();
  }

  TurnReply reportTurns(TurnReport report) {
    SupervisorSpec s = ant.spec().supervisor();
    if (s == null) {
      return new TurnReply(List.of(), false);
    }
    ant.oversight.accept(report, s);
    if (ant.oversight.busy(s)) {
      Timers.await(Duration.ofSeconds(REPORT_WAIT_SECONDS), "turn report of session " + report.session()
          + " waits for the supervisor's verdict", () -> !busy());
    }
    return new TurnReply(ant.oversight.pending(), busy());
  }

  void validateReportTurns(TurnReport report) {
    if (report == null) {
      throw new IllegalArgumentException("empty report");
    }
    if (ant.spec().supervisor() == null) {
      throw new IllegalArgumentException("ant " + ant.spec().name() + " has no supervisor");
    }
    if (!ant.session.running() || report.session() != ant.sessionCount() + 1) {
      throw new IllegalArgumentException("session " + report.session() + " is not running");
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
  /** The change that counts the supervisor's model calls in the ant's spend. */
  static final String SUPERVISOR_COST = "supervisor-cost";

  /**
   * Whether this run counts the supervisor's cost: it feeds the budget cap, whose pause issues
   * commands, so a run recorded before the change (a worker with the new activity, the old
   * workflow code) must replay without it.
   */
  private static boolean countsCost() {
    return Workflow.getVersion(SUPERVISOR_COST, Workflow.DEFAULT_VERSION, 1) != Workflow.DEFAULT_VERSION;
  }

  private void superviseTurns() {
    while (true) {
      Workflow.await(() -> ant.spec().supervisor() != null
          && (ant.oversight.silenceDue() || ant.oversight.evaluationDue(ant.spec().supervisor())));
      SupervisorSpec s = ant.spec().supervisor();
      Verdict verdict;
      if (ant.oversight.silenceDue()) {
        verdict = ant.oversight.takeSilence();
      } else {
        var request = ant.oversight.beginEvaluation(ant.spec().name(), ant.spec().colonyDir(), s, task());
        try {
          verdict = evaluator(s).evaluate(request);
          if (countsCost()) {
            ant.addCost(verdict == null ? 0 : verdict.costUsd());
          }
        } catch (ActivityFailure f) {
          double cost = costOf(f);
          if (countsCost()) {
            ant.addCost(cost);
          }
          ant.oversight.skipped(trim(Texts.failureText(f)), cost);
          log.info("{}: supervisor evaluation skipped: {}", ant.spec().name(), Texts.rootMessage(f));
          continue;
        }
      }
      var step = ant.oversight.conclude(verdict == null ? Verdict.ok() : verdict, s);
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

  private static OversightActivities evaluator(SupervisorSpec s) {
    return Workflow.newActivityStub(OversightActivities.class, ActivityOptions.newBuilder()
        .setSummary("supervisor evaluation · " + s.model())
        .setStartToCloseTimeout(Duration.ofMinutes(3))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(2))
            .setMaximumInterval(Duration.ofSeconds(20))
            .setMaximumAttempts(3)
            .build())
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

  /** What the agent was asked to do, as the supervisor reads it (bounded). */
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
