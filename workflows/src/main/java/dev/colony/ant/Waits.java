package dev.colony.ant;

import dev.colony.budget.BudgetBook;
import dev.colony.chat.OperatorMessages;
import dev.colony.compat.Compatibility.Change;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.schedule.CronSchedule;
import dev.colony.spec.AntSpec;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * The waits between sessions ("wait for a reason to run"): a timed wait (backoff,
 * rate limit, poll interval, cron tick), a pause, a budget cap's window, or an event-driven ant's
 * wait for a message or a trigger. Every wait ends at once on the signals that concern it.
 */
final class Waits {
  private final AntState ant;
  private final Outbox outbox;
  private final TaskDesk desk;
  private final MergeDesk merge;

  Waits(AntState ant, Outbox outbox, TaskDesk desk, MergeDesk merge) {
    this.ant = ant;
    this.outbox = outbox;
    this.desk = desk;
    this.merge = merge;
  }

  /**
   * Does at most one wait and says whether a session should start now. Returning false sends
   * the loop back to its top so stop, a new spec and continue-as-new are looked at between waits.
   * Every wait also ends when a newer version is current ({@link dev.colony.upgrade.Upgrade}): the wait is kept in
   * the ant's memory, and the new run goes on with it.
   */
  boolean readyToRun() {
    if (ant.paused() && ant.wakeAtMillis() != null) {
      Change.PAUSE_WINS_OVER_WAITS.require();
      // A pause wins over any wait: one asked for during a session that then failed (or hit a
      // rate limit) must not hide behind the backoff, nor end with it. Resume starts at once, as
      // it does from a backoff; missed cron ticks are caught up as after any pause.
      pause();
      return false;
    }
    if (ant.wakeAtMillis() != null) {
      timedWait();
      return false;
    }
    if (ant.paused()) {
      pause();
      return false;
    }
    if (ant.merge.reworkPending() && !ant.mailbox.hasUrgent()) { // urgent mail first (SessionRunner.runOne)
      // A rework the merge queue sent back runs first, as a session of its own: no task is looked
      // for (a task held waits for the session after it), and no claim (its paths are held by the
      // work being reworked).
      return !ant.stopRequested();
    }
    desk.look(); // with no task: one from the board, if the ant takes tasks or was woken for one
    if (desk.waitsWhenIdle() && !ant.task.held() && ant.mailbox.isEmpty() && !ant.issues.hasPending()) {
      waitForTask();
      return false;
    }
    AntSpec spec = ant.spec();
    if (spec.eventDriven() && !ant.task.held() && ant.mailbox.isEmpty() && !ant.scheduledRunDue() && !ant.issues.hasPending()) {
      Long tick = spec.cron() == null ? null
          : CronSchedule.nextTick(spec.cron(), spec.timezone(), Workflow.currentTimeMillis());
      if (tick != null) {
        ant.scheduleWait(tick, WaitKind.WAITING);
      } else {
        // Triggers only: nothing to time; a message or a matching GitHub issue wakes the ant.
        ant.fire(new LifecycleEvent.Waiting(spec.triggers().isEmpty() ? "a message" : "a message or a trigger", null));
        Workflow.await(() -> !ant.mailbox.isEmpty() || ant.issues.hasPending() || ant.paused()
            || ant.stopRequested() || ant.specPending() || ant.upgrade.due() || ant.task.wakePending()
            || ant.merge.reworkPending());
        ant.fire(new LifecycleEvent.Woken());
      }
      return false;
    }
    // Conflict-aware scheduling: the paths this work touches must not be another ant's current work.
    return !ant.stopRequested() && merge.claimPaths();
  }

  /**
   * {@code when_idle: wait} with no task, no message and no issue: no session. The ant waits for a
   * {@code tasksWaiting} wake, a message, an issue, a pause or a stop; every {@link TaskDesk#RECHECK}
   * it looks at the board anyway, in case a wake was lost.
   */
  private void waitForTask() {
    ant.fire(new LifecycleEvent.Waiting("a task", null));
    Timers.await(TaskDesk.RECHECK, "waiting for a task · look again in " + Timers.words(TaskDesk.RECHECK),
        () -> ant.task.wakePending() || !ant.mailbox.isEmpty() || ant.issues.hasPending() || ant.paused()
            || ant.stopRequested() || ant.specPending() || ant.upgrade.due() || ant.merge.reworkPending());
    ant.fire(new LifecycleEvent.Woken());
  }

  /** Until the wait's time, or a signal that ends it early. */
  private void timedWait() {
    long wakeAt = ant.wakeAtMillis();
    long remaining = wakeAt - Workflow.currentTimeMillis();
    WaitKind kind = ant.waitKind();
    // An issue wakes an ant waiting for its next cron tick, not one backing off or rate limited.
    boolean interrupted = remaining > 0
        && Timers.await(Duration.ofMillis(remaining), summary(kind, wakeAt, remaining), () -> ant.stopRequested()
            || ant.wakes.sinceWaitScheduled() || (kind == WaitKind.WAITING && ant.issues.hasPending())
            || ant.upgrade.due() || (kind.shownAs() == Lifecycle.WAITING && ant.task.wakePending())
            || (kind.shownAs() == Lifecycle.WAITING && ant.merge.reworkPending()));
    if (interrupted && !ant.stopRequested() && !ant.wakes.sinceWaitScheduled() && ant.upgrade.due()
        && !(kind == WaitKind.WAITING && ant.issues.hasPending()) && !ant.task.wakePending()
        && !(kind.shownAs() == Lifecycle.WAITING && ant.merge.reworkPending())) {
      return; // only the upgrade: the next run waits until the same time
    }
    if (!interrupted && kind == WaitKind.WAITING) {
      ant.runDue();
    }
    // The phase leaves the wait (to prepare the next session): there is no other copy of it.
    ant.fire(kind.shownAs() == Lifecycle.COOLING_DOWN ? new LifecycleEvent.BackoffElapsed()
        : new LifecycleEvent.Woken());
  }

  /** What the timer of a wait says in the Web UI. */
  private String summary(WaitKind kind, long wakeAtMillis, long remainingMillis) {
    return switch (kind) {
      case SLEEPING -> "next session in " + Timers.words(Duration.ofMillis(remainingMillis));
      case BACKING_OFF -> {
        Integer max = ant.spec().errorPolicy().maxConsecutiveErrors();
        yield "backoff " + ant.phase().consecutiveErrors() + (max == null ? "" : " of " + max) + " · "
            + Timers.words(Duration.ofMillis(remainingMillis));
      }
      case RATE_LIMITED -> "rate limit until " + Timers.at(wakeAtMillis, ant.spec().timezone());
      case WAITING -> "cron " + ant.spec().cron() + " · " + Timers.at(wakeAtMillis, ant.spec().timezone());
    };
  }

  /** Paused: until a human resumes (or a budget cap's window rolls over). */
  private void pause() {
    ant.pause.began(Workflow.currentTimeMillis());
    if (ant.budgetResumeAtMillis() != null) {
      budgetCap();
    } else {
      ant.fire(new LifecycleEvent.Paused(ant.pause.reason(), null));
      Workflow.await(() -> !ant.paused() || ant.stopRequested() || ant.specPending() || ant.upgrade.due());
    }
    if (!ant.paused()) {
      AntSpec spec = ant.spec();
      Long tick = spec.cron() == null ? null : CronSchedule.nextTick(spec.cron(), spec.timezone(), ant.pause.sinceMillis());
      if (tick != null && tick <= Workflow.currentTimeMillis()) {
        ant.runDue(); // one run for all the ticks missed while paused
      }
      ant.pause.ended();
      ant.fire(new LifecycleEvent.Resumed());
    }
  }

  /**
   * Paused by a colony budget cap: waits, with a timer, until the cap's window rolls over (or a
   * human resumes, or a new spec raises the cap), then resumes by itself if no cap is reached.
   */
  private void budgetCap() {
    long now = Workflow.currentTimeMillis();
    BudgetBook.Cap cap = ant.budget.reached(ant.spec().errorPolicy(), now);
    if (cap == null) {
      ant.unpause(); // the Resumed that follows ends the phase's budget window
      outbox.say(OperatorMessages.budgetResumed(ant.spec().name()));
      return;
    }
    long resumeAt = cap.resetsAtMillis();
    ant.fire(new LifecycleEvent.Paused(ant.pause.reason(), resumeAt));
    Timers.await(Duration.ofMillis(Math.max(1, resumeAt - now)),
        "budget cap until " + Timers.at(resumeAt, ant.spec().errorPolicy().budgetZone()),
        () -> !ant.paused() || ant.stopRequested() || ant.specPending() || ant.upgrade.due());
  }
}
