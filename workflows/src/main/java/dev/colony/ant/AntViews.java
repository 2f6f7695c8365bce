package dev.colony.ant;

import dev.colony.spec.AntSpec;
import dev.colony.spec.TriggerSpec;
import dev.colony.visibility.AntCard;
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
        spec.overseer() == null ? null : s.overseer.summary(spec.overseer()), s.hostBound() ? s.host() : null,
        s.task.held() ? s.task.brief().id() : null, s.task.held() ? line(s.task.brief().title()) : null,
        sandboxWords(spec.sandbox()));
  }

  /** The ant's walls in words, for every surface: on, on with the network open, or off. */
  static String sandboxWords(dev.colony.spec.SandboxSpec s) {
    if (s == null) {
      return "on";
    }
    return s.off() ? "off" : s.networkOpen() ? "on, network open" : "on";
  }

  static AntStats stats(AntState s) {
    long uptime = Math.max(0, (Workflow.currentTimeMillis() - s.stats.startedAtMillis()) / 1000);
    AntSpec spec = s.spec();
    var spend = s.budget.rolled(Workflow.currentTimeMillis(), dev.colony.budget.BudgetDays.of(spec.errorPolicy()));
    return new AntStats(spec.name(), s.stats.startedAtMillis(), uptime, s.sessionCount(), s.stats.sessionsByOutcome(),
        s.stats.turns(), s.stats.costUsd(), s.stats.costReported(), s.stats.inputTokens(), s.stats.outputTokens(), spend.dayUsd(), spend.monthUsd(),
        spec.errorPolicy().dailyBudgetUsd(), spec.errorPolicy().monthlyBudgetUsd(),
        s.overseer.costUsd());
  }

  static AntVisibility visibility(AntState s) {
    return new AntVisibility(s.spec().colony(), s.spec().name(), s.phase().state(), s.paused(), s.pause.reason(), s.sessionCount(),
        s.phase().consecutiveErrors(), s.mailbox.size(), s.nextWake(), s.confirmations.waiting(), s.stats.lastOutcome(),
        Texts.bounded(wakesOn(s.spec()), 250), s.hostBound() ? s.host() : null,
        s.task.active() ? TaskDesk.takerTags(s.spec()) : null);
  }

  /**
   * The console's card ({@link AntCard}) for revision {@code revision}. Nothing in it reads the
   * clock: it changes only when the ant does, so an idle ant writes nothing. Since-times come from
   * the {@link CardState}, which the publisher updates before it builds the card it writes.
   */
  static AntCard card(AntState s, long revision) {
    AntSpec spec = s.spec();
    String state = s.phase().state().configName();
    Long since = s.card.stateSince(state);
    String need = needsHuman(s);
    boolean running = s.session.running();
    AntCard.SessionRecord last = s.card.last();
    Long started = running ? s.session.startedMillis()
        : s.session.startedMillis() != null ? s.session.startedMillis() : last == null ? null : last.startMillis();
    String zone = spec.errorPolicy().budgetZone();
    String day = s.ledger.lastDay();
    var spend = s.budget.spend();
    double today = s.ledger.on(day).usd();
    double month = s.ledger.monthUsd(day);
    if (day != null && day.equals(spend.day())) {
      today = Math.max(today, spend.dayUsd()); // spend from before the ledger was kept
    }
    if (day != null && day.substring(0, 7).equals(spend.month())) {
      month = Math.max(month, spend.monthUsd());
    }
    return new AntCard(AntCard.VERSION, revision, state, since == null ? 0 : since, doing(s), need,
        needSince(s, need), need == null ? null : line(needDetail(s, need)), running ? s.sessionCount() + 1
            : s.sessionCount(), running, started, s.ledger.on(day).sessions(), today, month,
        spec.errorPolicy().dailyBudgetUsd(), spec.errorPolicy().monthlyBudgetUsd(), zone, s.card.lastError(),
        s.card.lastErrorMillis(), s.ledger.days(), s.card.recent(), confirmations(s), queue(s),
        s.overseer.costUsd(), day, s.task.held() ? s.task.brief().id() : null,
        s.task.held() ? line(s.task.brief().title()) : null, sandboxWords(spec.sandbox()));
  }

  /** What the ant does now, in one line, in the words of status and the Web UI's timers. */
  static String doing(AntState s) {
    var phase = s.phase();
    AntSpec spec = s.spec();
    int next = s.sessionCount() + 1;
    String words = switch (phase.state()) {
      case INITIALIZING -> "starting up";
      case BUILDING_PROMPT -> "preparing session " + next;
      case SPAWNING -> "session " + next + " starting";
      case RUNNING -> "session " + next + " running";
      case INTERRUPTING -> "session " + next + " stopping";
      case SESSION_COMPLETE -> "session " + s.sessionCount() + " done";
      case COOLING_DOWN, WAITING -> waiting(s);
      case PAUSED -> pausedWords(s);
      case PARKED -> AntState.FATAL_REASON.equals(s.pause.reason()) ? "parked: fatal error"
          : "parked: error threshold reached";
      case STOPPED -> "stopped";
    };
    if (phase.state().sessionLive() && s.paused()) {
      words += "; pausing after it (" + s.pause.reason() + ")";
    }
    return line(words);
  }

  private static String waiting(AntState s) {
    WaitKind kind = s.waitKind();
    Long wake = s.wakeAtMillis();
    AntSpec spec = s.spec();
    if (kind == null || wake == null) {
      return "waiting for " + (s.phase().reason() == null ? "a message" : s.phase().reason());
    }
    String at = Timers.at(wake, spec.timezone(), wake);
    return switch (kind) {
      case BACKING_OFF -> {
        Integer max = spec.errorPolicy().maxConsecutiveErrors();
        yield "backoff " + s.phase().consecutiveErrors() + (max == null ? "" : " of " + max) + " until " + at;
      }
      case RATE_LIMITED -> "rate limit until " + at;
      case SLEEPING -> "next session at " + at;
      case WAITING -> "waiting for the next tick (cron " + spec.cron() + ") at " + at;
    };
  }

  private static String pausedWords(AntState s) {
    String reason = s.pause.reason();
    if (reason == null || AntState.OPERATOR.equals(reason)) {
      return "paused by an operator";
    }
    if (AntState.BUDGET_REASON.equals(reason)) {
      Long until = s.budgetResumeAtMillis();
      return "paused: budget cap" + (until == null ? "" : " until "
          + Timers.at(until, s.spec().errorPolicy().budgetZone(), until));
    }
    if (AntState.ESCALATION_REASON.equals(reason)) {
      return "paused: escalated by the overseer";
    }
    return "paused: " + reason + " error";
  }

  /** Why a human is needed, one word; null when none (see {@link AntCard#needsHuman()}). */
  static String needsHuman(AntState s) {
    if (s.confirmations.waiting() > 0) {
      return "confirmation";
    }
    String reason = s.pause.reason();
    if (reason != null) {
      if (AntState.parkedLike(reason)) {
        return "parked";
      }
      if (AntState.ESCALATION_REASON.equals(reason)) {
        return "escalated";
      }
      if (AntVisibility.isBlockingReason(reason)) {
        return reason; // billing, auth, budget
      }
    }
    return s.spec().overseer() != null && s.overseer.escalated() ? "escalated" : null;
  }

  private static Long needSince(AntState s, String need) {
    if (need == null) {
      return null;
    }
    if ("confirmation".equals(need)) {
      for (var c : s.confirmations.pending()) {
        if (c.requestedAtMillis() != null) {
          return c.requestedAtMillis();
        }
      }
    } else if (s.pause.sinceMillis() != null && s.paused()) {
      return s.pause.sinceMillis();
    }
    return s.card.needSince(need);
  }

  private static String needDetail(AntState s, String need) {
    return switch (need) {
      case "confirmation" -> {
        var c = s.confirmations.pending().get(0);
        yield "#" + c.id() + " " + c.tool() + (c.summary() == null ? "" : ": " + c.summary())
            + (c.reason() == null ? "" : " (" + c.reason() + ")");
      }
      case "budget" -> {
        Long until = s.budgetResumeAtMillis();
        yield "budget cap reached" + (until == null ? "" : "; resumes at "
            + Timers.at(until, s.spec().errorPolicy().budgetZone(), until));
      }
      case "escalated" -> (s.overseer.lastFlag() == null ? "" : s.overseer.lastFlag() + ": ")
          + (s.overseer.lastReason() == null ? "the overseer escalated" : s.overseer.lastReason());
      case "parked" -> AntState.FATAL_REASON.equals(s.pause.reason()) ? "fatal error: " + nullToEmpty(s.stats.lastDetail())
          : s.card.lastError() != null ? s.card.lastError() : nullToEmpty(s.stats.lastDetail());
      default -> nullToEmpty(s.stats.lastDetail()); // billing, auth: the session's own words
    };
  }

  private static List<dev.colony.autonomy.PendingConfirmation> confirmations(AntState s) {
    List<dev.colony.autonomy.PendingConfirmation> out = new ArrayList<>();
    for (var c : s.confirmations.pending()) {
      if (out.size() >= AntCard.CONFIRMATIONS_SHOWN) {
        break;
      }
      out.add(new dev.colony.autonomy.PendingConfirmation(c.id(), c.session(), Texts.clip(c.tool(), 80),
          c.summary() == null ? null : line(c.summary()), c.reason() == null ? null : line(c.reason()), c.deadline(),
          c.requestedAtMillis()));
    }
    return out;
  }

  /** The queue, first to be taken first (urgent ones lead), bounded in count and length. */
  private static List<AntCard.QueuedMail> queue(AntState s) {
    List<AntCard.QueuedMail> out = new ArrayList<>();
    for (String m : s.mailbox.urgentQueue()) {
      if (out.size() < AntCard.QUEUE_SHOWN) {
        out.add(mail(m, true));
      }
    }
    for (String m : s.mailbox.queue()) {
      if (out.size() < AntCard.QUEUE_SHOWN) {
        out.add(mail(m, false));
      }
    }
    return out;
  }

  private static final String FROM_ANT = "[message from ant ";

  private static AntCard.QueuedMail mail(String text, boolean urgent) {
    String from = null;
    String body = text;
    if (text.startsWith(FROM_ANT) && text.indexOf("] ") > FROM_ANT.length()) {
      from = text.substring(FROM_ANT.length(), text.indexOf("] "));
      body = text.substring(text.indexOf("] ") + 2);
    }
    String head = body.length() > 2 * AntCard.QUEUE_TEXT_CHARS
        ? dev.colony.text.SafeText.cut(body, 2 * AntCard.QUEUE_TEXT_CHARS) : body;
    return new AntCard.QueuedMail(Texts.bounded(head.replaceAll("\\s+", " ").strip(), AntCard.QUEUE_TEXT_CHARS),
        urgent, from == null ? null : Texts.clip(from, 80));
  }

  /** One bounded, printable line. */
  static String line(String text) {
    if (text == null) {
      return null;
    }
    String head = text.length() > 2 * AntCard.LINE_CHARS ? dev.colony.text.SafeText.cut(text, 2 * AntCard.LINE_CHARS)
        : text;
    return Texts.bounded(Texts.clean(head).replaceAll("\\s+", " ").strip(), AntCard.LINE_CHARS);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
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
    dev.colony.spec.TaskPolicy tasks = spec.tasks();
    if (tasks != null && (tasks.waitWhenIdle() || !tasks.takes().isEmpty())) {
      // Only ants with a tasks: block say so (the value of ants recorded before is unchanged).
      List<String> from = new ArrayList<>(List.of("its own"));
      for (String p : tasks.takes()) {
        from.add(p.equals("*") ? "any unassigned" : "pool " + p);
      }
      String said = "tasks (" + String.join(", ", from) + ")";
      if (parts.isEmpty() && !tasks.waitWhenIdle()) {
        parts.add(spec.eventDriven() ? "human messages" : "continuous");
      }
      parts.add(said);
    }
    if (parts.isEmpty()) {
      return spec.eventDriven() ? "human messages only" : "continuous";
    }
    return String.join("; ", parts);
  }
}
