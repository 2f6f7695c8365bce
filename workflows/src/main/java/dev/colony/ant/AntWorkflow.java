package dev.colony.ant;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.autonomy.Decide;
import dev.colony.spec.AntSpec;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One ant, supervised for its whole life. Handler names are public API: operators use them with
 * {@code temporal workflow signal --name pause} and the like, so they never change.
 */
@WorkflowInterface
public interface AntWorkflow {
  /** The longest work instruction one message may carry (characters): a longer one is cut, so one paste cannot bloat the history. */
  int MAX_MESSAGE_CHARS = 16_000;

  @WorkflowMethod(name = "AntWorkflow")
  void run(AntRun run);

  /** Pause after the current session; acknowledged at once. */
  @SignalMethod(name = "pause")
  void pause();

  /** Resume a paused ant; also cuts a running backoff, rate-limit or sleep wait short. */
  @SignalMethod(name = "resume")
  void resume();

  /** Stop for good: cancels a running session and completes the workflow. */
  @SignalMethod(name = "stop")
  void stop();

  /**
   * Queue a work instruction for the next session; a paused ant resumes to handle it. The input
   * is a plain string, or {@code {"text": ..., "urgent": true, "from": "ant", "id": "..."}}: an
   * urgent message interrupts the running session; {@code from} names a sending ant; a repeated
   * {@code id} is dropped.
   */
  @SignalMethod(name = "message")
  void message(dev.colony.mailbox.Mail mail);

  /**
   * The colony supervisor's restart: a running session is interrupted, a parked ant is
   * un-parked with its counters reset, and the next session starts at once; it resumes the agent's
   * last conversation unless the order or the ant's {@code recovery: clean} says otherwise.
   */
  @SignalMethod(name = "restart")
  void restart(dev.colony.supervision.Restart restart);

  /** Sent by the session activity once a worker launches the agent: Spawning becomes Running. */
  @SignalMethod(name = "sessionStarted")
  void sessionStarted(int session);

  /**
   * A GitHub issue for this ant (sent by the repository's watcher). An issue that matches the
   * ant's {@code github_issue} triggers and was never handled wakes one session; a repeat is
   * ignored for ever.
   */
  @SignalMethod(name = "githubIssue")
  void githubIssue(dev.colony.trigger.IssueEvent issue);

  /**
   * Answer to the overseer's escalation: the current task is discarded (a running session is
   * interrupted and its instructions dropped, queued instructions are dropped, the conversation
   * is not resumed) and an ant paused by its overseer's escalation goes on with its loop.
   */
  @SignalMethod(name = "abort")
  void abort();

  /**
   * The session activity reports the agent's turns, in batches: to the overseer, and for every
   * ant to the console (which reads them from the run's history). With an overseer the answer
   * holds whispers for the agent's next turn, and when an evaluation is due or running it waits
   * for its verdict (a bounded while); without one it is recorded, not evaluated, and answered at once.
   */
  @UpdateMethod(name = "reportTurns")
  dev.colony.overseer.TurnReply reportTurns(dev.colony.overseer.TurnReport report);

  /** Refuses reports for a session not running, or too large. */
  @UpdateValidatorMethod(updateName = "reportTurns")
  void validateReportTurns(dev.colony.overseer.TurnReport report);

  /** Discard all queued work instructions. */
  /**
   * Move to the worker deployment's current version at the next point where nothing is in flight
   * (sent to every ant by {@code colony upgrade}); no effect when the ant already runs on it or
   * the workers are not versioned.
   */
  @SignalMethod(name = "upgrade")
  void upgrade();

  @SignalMethod(name = "clear")
  void clear();

  /** Replace the spec (sent by {@code colony start} with signal-with-start); applies between sessions. */
  @SignalMethod(name = "configure")
  void configure(AntSpec spec);

  /**
   * Asks a human to approve a dangerous tool call (sent by the session activity); completes with
   * the decision, or a denial once {@code confirmation_timeout} passes.
   */
  @UpdateMethod(name = "confirm")
  ConfirmationDecision confirm(ConfirmationRequest request);

  /** A human's answer to a confirmation (✅/❌, {@code colony approve|deny}). */
  @SignalMethod(name = "decide")
  void decide(Decide decision);

  /**
   * A task this ant may take is waiting (sent by the task's workflow when it enters To Do): an
   * idle ant looks at the board now instead of at its next check.
   */
  @SignalMethod(name = "tasksWaiting")
  void tasksWaiting();

  /**
   * A human moved, re-queued or reassigned the task this ant holds: the ant lets it go (its
   * running session finishes; its report is then refused by the task). The input is the task's id,
   * optionally followed by a space and the withdrawn claim's token: a withdrawal that arrives
   * late, after the ant took the task again under a new claim, is then ignored.
   */
  @SignalMethod(name = "taskWithdrawn")
  void taskWithdrawn(String taskId);

  /**
   * News from the merge queue of the ant's repository: its work landed (the ant moves its branch
   * onto the target before its next session), needs rework (an urgent message to its agent), needs
   * a human, or the paths it waited for are free.
   */
  @SignalMethod(name = "mergeNews")
  void mergeNews(dev.colony.merge.MergeNews news);

  @QueryMethod(name = "status")
  AntStatus status();

  @QueryMethod(name = "stats")
  AntStats stats();

  /**
   * The task this ant works on, as its {@code TaskSlot} holds it (or a claim on it whose answer it
   * still waits for); {@code ""} when it holds none, {@code "?"} when this run takes no tasks. A
   * task's gone check asks it: an In Progress task its running ant no longer holds goes back to To Do.
   */
  @QueryMethod(name = "taskHeld")
  String taskHeld();
}
