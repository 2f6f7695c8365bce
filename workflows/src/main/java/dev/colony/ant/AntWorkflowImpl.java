package dev.colony.ant;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.autonomy.Decide;
import dev.colony.chat.OperatorMessages;
import dev.colony.compat.Compatibility.Change;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.mailbox.Mail;
import dev.colony.overseer.TurnReply;
import dev.colony.overseer.TurnReport;
import dev.colony.spec.AntSpec;
import dev.colony.supervision.AntFailure;
import dev.colony.supervision.Restart;
import dev.colony.trigger.IssueEvent;
import dev.colony.upgrade.Upgrade;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import org.slf4j.Logger;

/**
 * One ant's workflow, under its error policy. The loop: wait for a reason to run, run one session,
 * classify its outcome and act on it, and again, until stopped; every so many sessions the ant
 * continues as new with what it remembers. Each step is a collaborator named for what it does:
 * {@link Waits} (every wait between sessions, and where a rate limit waits), {@link SessionRunner},
 * {@link SessionOutcomes}, {@link HostAffinity}; beside the loop run the {@link Outbox} (chat
 * posts), the {@link VisibilityPublisher} and the {@link Overseer}; {@link AntHandlers} answers
 * the signals and updates; the state they share is {@link AntState}.
 */
public class AntWorkflowImpl implements AntWorkflow {
  private static final Logger log = Workflow.getLogger(AntWorkflowImpl.class);
  /** The pause reason of an ant parked by an error threshold. */
  public static final String PARKED_REASON = AntState.PARKED_REASON;

  private final AntState ant;
  private final Outbox outbox;
  private final VisibilityPublisher visibility;
  private final ColonyReports reports;
  private final Overseer overseer;
  private final Waits waits;
  private final HostAffinity hosts;
  private final SessionRunner sessions;
  private final AntHandlers handlers;
  private final Notifier notifier;
  private final TaskDesk desk;
  private final MergeDesk merge;
  private final SessionOutcomes outcomes;

  @WorkflowInit
  public AntWorkflowImpl(AntRun run) {
    ant = new AntState(run);
    outbox = new Outbox(ant);
    visibility = new VisibilityPublisher(ant);
    reports = new ColonyReports(ant);
    overseer = new Overseer(ant, outbox, reports);
    desk = new TaskDesk(ant, outbox);
    HostAffinity hosts = new HostAffinity(ant, outbox);
    merge = new MergeDesk(ant, outbox, hosts);
    waits = new Waits(ant, outbox, desk, merge);
    outcomes = new SessionOutcomes(ant, outbox, reports);
    sessions = new SessionRunner(ant, outbox, hosts, outcomes, reports, desk, merge);
    handlers = new AntHandlers(ant, outbox, reports, overseer);
    this.hosts = hosts;
    notifier = new Notifier(ant);
  }

  @Override
  public void run(AntRun run) {
    desk.start(); // before the publisher: it publishes AntTakes in runs that take tasks
    outbox.start();
    visibility.start();
    overseer.startIfConfigured();
    notifier.startIfConfigured();
    if (ant.chat.announceOnce()) {
      outbox.say(OperatorMessages.started(ant.spec().name()));
    }
    // A new ant finds its home at once: the colony's ants spread over the hosts as they start.
    hosts.ensureClaimed();
    if (run.memory() == null && run.carried() != null) {
      // Started again after a stop, with what the stopped run spent: a cap it reached still holds.
      outcomes.checkBudget();
    }
    int sessionsThisRun = 0;
    while (!ant.stopRequested()) {
      applyPendingSpec();
      // An ant waiting for tasks looks at the board every few minutes with no session: its run
      // continues as new on history length alone (only in runs that take tasks).
      if (ant.upgrade.due() || sessionsThisRun > 0 && (sessionsThisRun >= ant.spec().continueAsNewEvery()
          || Workflow.getInfo().isContinueAsNewSuggested())
          || desk.on() && sessionsThisRun == 0 && Workflow.getInfo().isContinueAsNewSuggested()) {
        continueAsNew();
        return;
      }
      try {
        if (waits.readyToRun()) {
          sessions.runOne();
          sessionsThisRun++;
        }
      } catch (CanceledFailure cancelled) {
        throw cancelled; // the workflow itself is being cancelled
      } catch (RuntimeException bug) {
        parkFatal(bug);
      }
    }
    desk.release(); // its task goes back to To Do, "ANT was stopped", before the run ends
    merge.release(); // a path claim goes back: no ant waits for one that stopped
    ant.fire(new LifecycleEvent.OperatorStop()); // the phase shows no wait any more
    // No session runs any more: a request left open (its session was stopped, or its host lost)
    // is denied now, or its handler would hold the stop until its confirmation_timeout.
    for (int id : ant.denyOpenConfirmations(Integer.MAX_VALUE)) {
      outbox.say(OperatorMessages.confirmationEnded(ant.spec().name(), id));
    }
    outbox.say(OperatorMessages.stopped(ant.spec().name()));
    Change.ONE_DRAIN_RULE.require();
    Workflow.await(this::nothingInFlight);
  }

  /**
   * The one rule for ending a run, by stop or by continue-as-new: nothing it started is still
   * under way. Chat posts sent, every signal and update handler finished (a confirmation's too),
   * visibility written, the colony supervisor told, no LLM evaluation and no notice in flight
   * (their results would be lost with the run).
   */
  private boolean nothingInFlight() {
    return outbox.isEmpty() && Workflow.isEveryHandlerFinished() && visibility.upToDate() && !overseer.busy()
        && reports.allAnswered() && notifier.idle();
  }

  private void applyPendingSpec() {
    if (!ant.applyPendingSpec()) {
      return;
    }
    outbox.say(OperatorMessages.reconfigured(ant.spec().name()));
    overseer.startIfConfigured();
    notifier.startIfConfigured();
  }

  private void continueAsNew() {
    // Handlers may still be posting; wait so nothing they queued is lost with this run. An
    // evaluation in flight finishes first, so its verdict is not lost either.
    Change.ONE_DRAIN_RULE.require();
    Workflow.await(this::nothingInFlight);
    applyPendingSpec();
    Upgrade.continueAsNew(new AntRun(ant.spec(), ant.memory()));
  }

  /**
   * The ant's own workflow code failed (a bug, an unexpected value from an activity). Instead of
   * failing the workflow task for ever (a stuck ant) or the workflow (a dead one), the ant parks
   * with reason {@code fatal}, says why, and tells its colony supervisor, which restarts it under
   * its group's strategy and breaker; {@code resume} brings it back by hand.
   */
  private void parkFatal(RuntimeException bug) {
    String why = OperatorMessages.trim(Texts.failureText(bug));
    log.error("{}: fatal error in the ant's workflow, parking it", ant.spec().name(), bug);
    ant.parkFatal();
    ant.metrics.parked(AntMetrics.Park.FATAL);
    outbox.say(OperatorMessages.fatal(ant.spec().name(), why));
    desk.parked(ant.spec().name() + " stopped on an error in its own workflow code: " + why);
    reports.report(AntFailure.PARKED, "fatal error: " + why);
  }

  AntMemory memory() {
    return ant.memory();
  }

  AntVisibility visibility() {
    return AntViews.visibility(ant);
  }

  // ---- signals, updates and queries: public API, answered by AntHandlers and AntViews ----

  @Override
  public void pause() {
    handlers.pause();
  }

  @Override
  public void resume() {
    handlers.resume();
  }

  @Override
  public void stop() {
    handlers.stop();
  }

  @Override
  public void message(Mail mail) {
    handlers.message(mail);
  }

  @Override
  public void restart(Restart order) {
    handlers.restart(order);
  }

  @Override
  public void sessionStarted(int session) {
    handlers.sessionStarted(session);
  }

  @Override
  public void githubIssue(IssueEvent issue) {
    handlers.githubIssue(issue);
  }

  @Override
  public void abort() {
    handlers.abort();
  }

  @Override
  public TurnReply reportTurns(TurnReport report) {
    return overseer.reportTurns(report);
  }

  @Override
  public void validateReportTurns(TurnReport report) {
    overseer.validateReportTurns(report);
  }

  @Override
  public void upgrade() {
    ant.upgrade.request(); // the waits end, and the loop continues as new onto the current version
  }

  @Override
  public void clear() {
    handlers.clear();
  }

  @Override
  public void configure(AntSpec newSpec) {
    handlers.configure(newSpec);
  }

  @Override
  public ConfirmationDecision confirm(ConfirmationRequest request) {
    return handlers.confirm(request);
  }

  @Override
  public void decide(Decide decision) {
    handlers.decide(decision);
  }

  @Override
  public void tasksWaiting() {
    desk.tasksWaiting();
  }

  @Override
  public void taskWithdrawn(String taskId) {
    desk.withdrawn(taskId);
  }

  @Override
  public void mergeNews(dev.colony.merge.MergeNews news) {
    merge.news(news);
  }

  @Override
  public AntStatus status() {
    return AntViews.status(ant);
  }

  @Override
  public String taskHeld() {
    return ant.task.heldId();
  }

  @Override
  public AntStats stats() {
    return AntViews.stats(ant);
  }
}
