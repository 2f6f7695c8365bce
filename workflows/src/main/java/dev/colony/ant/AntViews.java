package dev.colony.ant;

import dev.colony.spec.AntSpec;
import dev.colony.spec.TriggerSpec;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** What an ant shows of itself: the status and stats queries, and its visibility record. */
final class AntViews {
  private AntViews() {}

  static AntStatus status(AntState s) {
    Long next = s.nextWake();
    String wake = next == null ? null : Instant.ofEpochMilli(next).toString();
    AntSpec spec = s.spec;
    return new AntStatus(spec.colony(), spec.name(), s.phase.state(), s.paused(), s.pauseReason, s.mailbox.size(),
        s.sessionCount, s.phase.consecutiveErrors(), wake, s.lastOutcome, s.lastDetail, spec.engine().configName(),
        s.confirmations.pending(), wakesOn(spec), s.pendingIssues.size(), s.phase.session(), s.phase.reason(),
        s.phase.totalErrors(),
        spec.errorPolicy().hasBudget() || s.costReported
            ? s.budget.summary(spec.errorPolicy(), Workflow.currentTimeMillis()) : null,
        spec.overseer() == null ? null : s.overseer.summary(spec.overseer()), s.hostBound() ? s.host : null);
  }

  static AntStats stats(AntState s) {
    long uptime = Math.max(0, (Workflow.currentTimeMillis() - s.startedAtMillis) / 1000);
    AntSpec spec = s.spec;
    var spend = s.budget.rolled(Workflow.currentTimeMillis(), spec.errorPolicy().budgetZone());
    return new AntStats(spec.name(), s.startedAtMillis, uptime, s.sessionCount, s.sessionsByOutcome,
        s.turns, s.costUsd, s.costReported, s.inputTokens, s.outputTokens, spend.dayUsd(), spend.monthUsd(),
        spec.errorPolicy().dailyBudgetUsd(), spec.errorPolicy().monthlyBudgetUsd(),
        s.overseer.costUsd());
  }

  static AntVisibility visibility(AntState s) {
    return new AntVisibility(s.spec.colony(), s.spec.name(), s.phase.state(), s.paused(), s.pauseReason, s.sessionCount,
        s.phase.consecutiveErrors(), s.mailbox.size(), s.nextWake(), s.confirmations.waiting(), s.lastOutcome,
        Texts.bounded(wakesOn(s.spec), 250), s.hostBound() ? s.host : null);
  }

  /** What wakes the ant besides a human, in words (for status and the channel). */
  static String wakesOn(AntSpec spec) {
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
}
