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
    AntSpec spec = s.spec();
    return new AntStatus(spec.colony(), spec.name(), s.phase().state(), s.paused(), s.pause.reason(), s.mailbox.size(),
        s.sessionCount(), s.phase().consecutiveErrors(), wake, s.stats.lastOutcome(), s.stats.lastDetail(), spec.engine().configName(),
        s.confirmations.pending(), wakesOn(spec), s.issues.pendingCount(), s.phase().session(), s.phase().reason(),
        s.phase().totalErrors(),
        spec.errorPolicy().hasBudget() || s.stats.costReported()
            ? s.budget.summary(spec.errorPolicy(), Workflow.currentTimeMillis()) : null,
        spec.overseer() == null ? null : s.overseer.summary(spec.overseer()), s.hostBound() ? s.host() : null);
  }

  static AntStats stats(AntState s) {
    long uptime = Math.max(0, (Workflow.currentTimeMillis() - s.stats.startedAtMillis()) / 1000);
    AntSpec spec = s.spec();
    var spend = s.budget.rolled(Workflow.currentTimeMillis(), spec.errorPolicy().budgetZone());
    return new AntStats(spec.name(), s.stats.startedAtMillis(), uptime, s.sessionCount(), s.stats.sessionsByOutcome(),
        s.stats.turns(), s.stats.costUsd(), s.stats.costReported(), s.stats.inputTokens(), s.stats.outputTokens(), spend.dayUsd(), spend.monthUsd(),
        spec.errorPolicy().dailyBudgetUsd(), spec.errorPolicy().monthlyBudgetUsd(),
        s.overseer.costUsd());
  }

  static AntVisibility visibility(AntState s) {
    return new AntVisibility(s.spec().colony(), s.spec().name(), s.phase().state(), s.paused(), s.pause.reason(), s.sessionCount(),
        s.phase().consecutiveErrors(), s.mailbox.size(), s.nextWake(), s.confirmations.waiting(), s.stats.lastOutcome(),
        Texts.bounded(wakesOn(s.spec()), 250), s.hostBound() ? s.host() : null);
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
