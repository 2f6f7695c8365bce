package dev.colony.ant;

import static dev.colony.chat.OperatorMessages.trim;

import dev.colony.autonomy.ConfirmationBook;
import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.autonomy.Decide;
import dev.colony.chat.OperatorMessages;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.mailbox.Mail;
import dev.colony.spec.AntSpec;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.TriggerSpec;
import dev.colony.supervision.AntFailure;
import dev.colony.supervision.Restart;
import dev.colony.text.SafeText;
import dev.colony.trigger.IssueEvent;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * What the ant does when a human or another program speaks to it: the signals and updates of
 * {@link AntWorkflow} (their names are public API, see docs/operations.md). Each changes the ant's state
 * and says so in its channel; the loop's waits see the change at once.
 */
final class AntHandlers {
  static final int MAX_MESSAGE_CHARS = AntWorkflow.MAX_MESSAGE_CHARS;
  /** How long a sender's name may be. */
  static final int MAX_SENDER_CHARS = 64;
  /** How many matching issues may wait for a session; more are refused with a notice. */
  static final int MAX_PENDING_ISSUES = 1_000;

  private final AntState ant;
  private final Outbox outbox;
  private final ColonyReports reports;
  private final Overseer overseer;

  AntHandlers(AntState ant, Outbox outbox, ColonyReports reports, Overseer overseer) {
    this.ant = ant;
    this.outbox = outbox;
    this.reports = reports;
    this.overseer = overseer;
  }

  void pause() {
    if (!ant.paused()) {
      ant.pauseFor(AntState.OPERATOR);
    }
    ant.wakes.request();
    outbox.say(OperatorMessages.pausing(ant.spec().name(), ant.session.running()));
  }

  void resume() {
    ant.unpark();
    overseer.answerEscalation(AntFailure.RESUMED, "an operator resumed it");
    if (ant.paused()) {
      ant.unpause(); // a budget pause too: the Resumed that follows ends the phase's budget window
      outbox.say(OperatorMessages.resuming(ant.spec().name()));
    } else if (ant.wakeAtMillis() != null && ant.waitKind() != WaitKind.WAITING) {
      ant.wakes.request();
      outbox.say(OperatorMessages.resuming(ant.spec().name()));
    } else {
      outbox.say(OperatorMessages.notPaused(ant.spec().name()));
    }
  }

  void stop() {
    ant.requestStop();
  }

  void message(Mail mail) {
    if (mail == null || mail.text() == null) {
      return;
    }
    // Every text is cleaned where it enters: half an emoji would fail every prompt file it is in.
    String text = Texts.clean(mail.text());
    if (text.isBlank() || ant.mailbox.seenBefore(mail.id())) {
      return;
    }
    String from = mail.from() == null ? null : Texts.clean(mail.from()).strip();
    if (from != null && !from.isEmpty()) {
      // Another ant wrote it: the agent is told who, so it can answer with `colony send`.
      text = "[message from ant " + SafeText.cut(from, MAX_SENDER_CHARS)
          + "] " + text;
    }
    String bounded = text.length() <= MAX_MESSAGE_CHARS ? text
        : SafeText.cut(text, MAX_MESSAGE_CHARS) + "\n[message truncated at " + MAX_MESSAGE_CHARS + " characters]";
    ant.mailbox.add(bounded, mail.urgent());
    ant.wakes.request();
    ant.unpark();
    if (ant.pause.is(AntState.ESCALATION_REASON)) {
      overseer.answerEscalation(AntFailure.RESUMED, "a human sent guidance"); // it answers the escalation
    }
    if (ant.paused()) {
      ant.unpause();
      outbox.say(OperatorMessages.resuming(ant.spec().name()));
    } else if (!(mail.urgent() && ant.session.running())) {
      // An urgent message during a session is announced when the interrupt begins.
      outbox.say(OperatorMessages.queued(ant.spec().name(), ant.mailbox.size(), ant.session.running()));
    }
  }

  void restart(Restart order) {
    if (order == null) {
      return;
    }
    boolean clean = order.clean() || ant.spec().recovery() == RecoveryPolicy.CLEAN;
    ant.conversation.resumeNextFrom(clean);
    ant.unpark();
    if (ant.parked()) {
      ant.unpause();
    }
    ant.wakes.request();
    if (ant.session.running()) {
      ant.session.requestRestart(order);
    }
    outbox.say(OperatorMessages.restarted(ant.spec().name(), trim(order.reason()), clean));
  }

  void abort() {
    int dropped = ant.mailbox.clear();
    ant.conversation.forget();
    boolean resuming = ant.pause.is(AntState.ESCALATION_REASON);
    if (ant.overseer.escalated()) {
      reports.report(AntFailure.ABORTED, "an operator dropped the current task"
          + (dropped > 0 ? " and " + dropped + " queued instruction(s)" : ""));
    }
    ant.overseer.forgetTask();
    if (resuming) {
      ant.unpause();
    }
    if (ant.session.running()) {
      ant.session.requestAbort();
    }
    ant.wakes.request();
    outbox.say(OperatorMessages.aborted(ant.spec().name(), dropped, ant.session.running(), resuming));
  }

  void sessionStarted(int session) {
    if (ant.session.running() && session == ant.sessionCount() + 1) {
      ant.fire(new LifecycleEvent.SessionStarted(session));
    }
  }

  void githubIssue(IssueEvent issue) {
    if (issue == null || issue.repo() == null) {
      return;
    }
    String key = issue.key();
    AntSpec spec = ant.spec();
    boolean watched = spec.githubRepos().stream().anyMatch(r -> r.equalsIgnoreCase(issue.repo()))
        && spec.triggers().stream().anyMatch(t -> t.type() == TriggerSpec.Type.GITHUB_ISSUE && issue.hasAll(t.labels()));
    if (!watched || ant.issues.known(key)) {
      return;
    }
    if (ant.issues.pendingCount() >= MAX_PENDING_ISSUES) {
      outbox.say(OperatorMessages.tooManyIssues(spec.name(), issue.repo(), issue.number(), MAX_PENDING_ISSUES));
      return;
    }
    ant.issues.offer(issue);
  }

  void clear() {
    int dropped = ant.mailbox.clear();
    outbox.say(OperatorMessages.cleared(ant.spec().name(), dropped));
  }

  void configure(AntSpec newSpec) {
    ant.offerSpec(newSpec);
  }

  /** A dangerous tool call waits here for a human's decision, or its timeout (a refusal). */
  ConfirmationDecision confirm(ConfirmationRequest asked) {
    ConfirmationRequest request = new ConfirmationRequest(asked.session(), Texts.clean(asked.key()),
        Texts.clean(asked.tool()), Texts.clean(asked.summary()), Texts.clean(asked.reason()));
    long timeout = ant.spec().confirmationTimeoutSeconds();
    ConfirmationBook.Entry c = ant.confirmations.find(request);
    if (c == null) {
      long now = Workflow.currentTimeMillis();
      c = ant.confirmations.open(request, now + timeout * 1000, now);
      ant.metrics.confirmationRequested();
      outbox.say(OperatorMessages.confirmationRequested(ant.spec().name(), c.id(), request.tool(), request.summary(),
          request.reason(), timeout));
    }
    ConfirmationBook.Entry pending = c;
    if (pending.open()) {
      long remaining = pending.deadlineMillis() - Workflow.currentTimeMillis();
      if (remaining > 0) {
        Timers.await(Duration.ofMillis(remaining), "confirmation " + pending.id() + " (" + Texts.clip(request.tool(), 40)
            + ") until " + Timers.at(pending.deadlineMillis(), ant.spec().timezone()), () -> !pending.open());
      }
      if (pending.open()) {
        pending.decide(new ConfirmationDecision(pending.id(), false, "timeout",
            "nobody answered within " + timeout + "s"));
        ant.metrics.confirmationDecided(AntMetrics.Decision.TIMED_OUT, pending.openedMillis());
        outbox.say(OperatorMessages.confirmationTimedOut(ant.spec().name(), pending.id()));
      }
    }
    return pending.decision();
  }

  void decide(Decide d) {
    if (d == null) {
      return;
    }
    ConfirmationBook.Entry target = ant.confirmations.target(d.id());
    if (target == null) {
      outbox.say(OperatorMessages.nothingToDecide(ant.spec().name(), d.id()));
      return;
    }
    String by = d.by() == null || d.by().isBlank() ? "an operator" : Texts.clean(d.by());
    target.decide(new ConfirmationDecision(target.id(), d.approve(), by, Texts.clean(d.note())));
    ant.metrics.confirmationDecided(d.approve() ? AntMetrics.Decision.APPROVED : AntMetrics.Decision.DENIED,
        target.openedMillis());
    outbox.say(OperatorMessages.decided(ant.spec().name(), target.id(), d.approve(), by));
  }
}
