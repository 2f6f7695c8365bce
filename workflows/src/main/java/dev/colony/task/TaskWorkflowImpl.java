package dev.colony.task;

import dev.colony.Activities;
import dev.colony.compat.Compatibility.Change;
import dev.colony.upgrade.Upgrade;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * See {@link TaskWorkflow}. The handlers change the task ({@link TaskSheet}) under the rules of
 * {@link TaskRules} and publish it at once (memo and search attributes: the board reads them with
 * no worker); what reaches out to the world (telling ants, asking whether one still runs) is
 * queued for the main loop, so an update answers without waiting for another workflow.
 */
public final class TaskWorkflowImpl implements TaskWorkflow {
  private static final Logger log = Workflow.getLogger(TaskWorkflowImpl.class);
  /** History length at which a task continues as new, carrying its card (well below the SDK's suggestion). */
  static final int CONTINUE_AS_NEW_EVENTS = 2_000;

  /** Something the main loop does for a handler: tell the ants that may take the task, or its former ant. */
  /** What an update queued for the run loop: an announcement, or a withdrawal of the claim {@code token} from {@code ant}. */
  private record Effect(boolean announce, String ant, String token) {}

  private final TaskSheet sheet;
  private final TaskSettings settings;
  private final List<Effect> effects = new ArrayList<>();
  private final Upgrade upgrade = new Upgrade();
  /** Gone checks in a row at which the running ant did not hold the claim {@link #missedToken}. */
  private int misses;
  private String missedToken;

  /**
   * The card exists before the first update is validated: an ant's claim sent right after the
   * start reaches the workflow in its first task, before {@link #run} begins.
   */
  @WorkflowInit
  public TaskWorkflowImpl(TaskRun run) {
    settings = run.settings() == null ? TaskSettings.defaults() : run.settings();
    sheet = run.card() != null ? TaskSheet.of(run.card())
        : TaskSheet.fresh(run.colony(), run.task(), Workflow.currentTimeMillis());
  }

  @Override
  public void run(TaskRun run) {
    publish();
    if (sheet.state == TaskState.TODO) {
      announce();
    }
    while (true) {
      runEffects();
      if (sheet.state == TaskState.DONE || historyLong()) {
        break;
      }
      if (sheet.state == TaskState.IN_PROGRESS) {
        String token = sheet.claimToken;
        String ant = sheet.worker;
        boolean moved = dev.colony.ant.Timers.await(Duration.ofSeconds(Math.max(1, settings.goneCheckSeconds())),
            "gone check · is " + ant + " still running? (every " + words(settings.goneCheckSeconds()) + ")",
            () -> !effects.isEmpty() || sheet.state != TaskState.IN_PROGRESS || !Objects.equals(token, sheet.claimToken)
                || historyLong());
        if (!moved) {
          checkGone(ant, token);
        }
      } else {
        Workflow.await(() -> !effects.isEmpty() || sheet.state == TaskState.DONE
            || sheet.state == TaskState.IN_PROGRESS || historyLong());
      }
    }
    // Updates in flight answer first; what they queued still goes out, and so does what an update
    // arriving while those effects ran queued.
    Workflow.await(Workflow::isEveryHandlerFinished);
    do {
      runEffects();
      Workflow.await(Workflow::isEveryHandlerFinished);
    } while (!effects.isEmpty());
    if (sheet.state != TaskState.DONE) {
      // Long history (or a newer release is current): the next run carries the card, on the current version.
      Upgrade.continueAsNew(new TaskRun(sheet.colony, null, sheet.card(), settings));
    }
  }

  /** Time for a new run: the history is long, or a newer release is current ({@code colony upgrade}). */
  private boolean historyLong() {
    var info = Workflow.getInfo();
    return info.isContinueAsNewSuggested() || info.getHistoryLength() > CONTINUE_AS_NEW_EVENTS || upgrade.due();
  }

  @Override
  public void upgrade() {
    upgrade.request();
  }

  // ---- the ants' updates ----

  @Override
  public ClaimResult claim(Claim claim) {
    String why = TaskRules.claim(sheet, claim);
    if (why != null) {
      return ClaimResult.refused(why);
    }
    if (sheet.state == TaskState.IN_PROGRESS) {
      if (!claim.token().strip().equals(sheet.claimToken)) {
        // Its own ant under a new claim: the ant's run started afresh (terminated and started again,
        // or its report never landed) and found the task as its own. The new claim holds it now.
        sheet.claimToken = claim.token().strip();
        publish();
      }
      return ClaimResult.took(sheet.brief()); // the same claim again: its first answer
    }
    long now = Workflow.currentTimeMillis();
    String ant = claim.ant().strip();
    if (!ant.equals(sheet.worker)) {
      sheet.work = null; // another ant's branch: its work starts from its own base
    }
    sheet.moveTo(TaskState.IN_PROGRESS, ant, null, now);
    sheet.worker = ant;
    sheet.claimToken = claim.token().strip();
    sheet.attempts = 0;
    publish();
    return ClaimResult.took(sheet.brief());
  }

  @Override
  public void validateClaim(Claim claim) {
    refuseIf(TaskRules.claim(sheet, claim));
  }

  @Override
  public TaskReply report(TaskReport r) {
    String why = TaskRules.report(sheet, r);
    if (why != null) {
      return new TaskReply(false, sheet.state, why);
    }
    long now = Workflow.currentTimeMillis();
    String ant = sheet.worker;
    String text = TaskText.bounded(r.text(), TaskText.NOTE);
    if (r.session() != null) {
      TaskSessionLink s = r.session();
      sheet.session(new TaskSessionLink(ant, s.session(), TaskText.bounded(s.outcome(), 64),
          TaskText.bounded(s.summary(), TaskText.NOTE), s.costUsd(), s.atMillis()));
    }
    if (r.work() != null) {
      sheet.work = TaskText.work(r.work());
    }
    switch (r.kind()) {
      case SUBMITTED -> {
        if (text != null) {
          sheet.comment(ant, text, now);
        }
        // The ant's policy carries colony.yaml's ants_may_finish (the surfaces start tasks with the defaults).
        sheet.moveTo(r.done() ? TaskState.DONE : TaskState.IN_REVIEW, ant, null, now);
      }
      case FAILED -> {
        sheet.attempts++;
        sheet.event(now, ant, "session failed (attempt " + sheet.attempts + ")" + (text == null ? "" : ": "
            + TaskText.bounded(text, 200)));
      }
      case BLOCKED -> sheet.moveTo(TaskState.BLOCKED, ant, text == null ? ant + " needs a human" : text, now);
      case RELEASED -> {
        sheet.moveTo(TaskState.TODO, ant, text == null ? ant + " let it go" : text, now);
        announce();
      }
    }
    publish();
    return new TaskReply(true, sheet.state, null);
  }

  @Override
  public void validateReport(TaskReport report) {
    refuseIf(TaskRules.report(sheet, report));
  }

  // ---- the humans' updates ----

  @Override
  public TaskCard approve(TaskChange change) {
    refuseIf(TaskRules.approve(sheet, change));
    long now = Workflow.currentTimeMillis();
    String by = TaskText.by(change == null ? null : change.by());
    if (change != null && TaskText.clean(change.text()) != null) {
      sheet.comment(by, TaskText.clean(change.text()), now);
    }
    sheet.moveTo(TaskState.DONE, by, "approved", now);
    publish();
    return sheet.card();
  }

  @Override
  public void validateApprove(TaskChange change) {
    refuseIf(TaskRules.approve(sheet, change));
  }

  @Override
  public TaskCard requeue(TaskChange change) {
    refuseIf(TaskRules.requeue(sheet, change));
    long now = Workflow.currentTimeMillis();
    String by = TaskText.by(change.by());
    withdrawFromWorker();
    sheet.comment(by, TaskText.clean(change.text()), now);
    if (change.assignee() != null) {
      sheet.assignee = Assignee.parse(change.assignee());
    }
    sheet.moveTo(TaskState.TODO, by, "re-queued by " + by, now);
    announce();
    publish();
    return sheet.card();
  }

  @Override
  public void validateRequeue(TaskChange change) {
    refuseIf(TaskRules.requeue(sheet, change));
  }

  @Override
  public TaskCard move(TaskChange change) {
    refuseIf(TaskRules.move(sheet, change));
    long now = Workflow.currentTimeMillis();
    String by = TaskText.by(change.by());
    withdrawFromWorker();
    sheet.moveTo(change.to(), by, TaskText.clean(change.text()), now);
    if (change.to() == TaskState.TODO) {
      announce();
    }
    publish();
    return sheet.card();
  }

  @Override
  public void validateMove(TaskChange change) {
    refuseIf(TaskRules.move(sheet, change));
  }

  @Override
  public TaskCard assign(TaskChange change) {
    refuseIf(TaskRules.assign(sheet, change));
    long now = Workflow.currentTimeMillis();
    String by = TaskText.by(change.by());
    Assignee to = Assignee.parse(change.assignee());
    sheet.assignee = to;
    String whom = to == null ? "nobody" : to.text();
    sheet.event(now, by, "assigned to " + whom);
    boolean stillItsAnt = to != null && to.kind() == Assignee.Kind.ANT && to.name().equals(sheet.worker);
    if (sheet.state == TaskState.IN_PROGRESS && !stillItsAnt) {
      withdrawFromWorker();
      sheet.moveTo(TaskState.TODO, by, "reassigned to " + whom, now);
      announce();
    } else if (sheet.state == TaskState.TODO) {
      announce(); // other ants may take it now
    }
    publish();
    return sheet.card();
  }

  @Override
  public void validateAssign(TaskChange change) {
    refuseIf(TaskRules.assign(sheet, change));
  }

  @Override
  public TaskCard comment(TaskChange change) {
    refuseIf(TaskRules.comment(sheet, change));
    sheet.comment(TaskText.by(change.by()), TaskText.clean(change.text()), Workflow.currentTimeMillis());
    publish();
    return sheet.card();
  }

  @Override
  public void validateComment(TaskChange change) {
    refuseIf(TaskRules.comment(sheet, change));
  }

  @Override
  public TaskCard task() {
    return sheet.card();
  }

  // ---- helpers ----

  /**
   * A refusal: in a validator it rejects the update (no history); in a handler (a change that no
   * longer fits after the one applied before it) it fails the update only, not the workflow task,
   * because it is an ApplicationFailure. Its message is what the person reads.
   */
  private static void refuseIf(String why) {
    if (why != null) {
      throw ApplicationFailure.newNonRetryableFailure(why, REFUSED);
    }
  }

  /** The failure type of a refused change. */
  public static final String REFUSED = "TaskChangeRefused";

  private void announce() {
    effects.add(new Effect(true, null, null));
  }

  /** A human takes an In Progress task away: its ant is told (it stops working on it). */
  private void withdrawFromWorker() {
    if (sheet.state == TaskState.IN_PROGRESS && sheet.worker != null) {
      effects.add(new Effect(false, sheet.worker, sheet.claimToken));
    }
  }

  private void runEffects() {
    while (!effects.isEmpty()) {
      Effect e = effects.remove(0);
      try {
        if (e.announce()) {
          List<String> tags = sheet.takeTags();
          if (sheet.state == TaskState.TODO && !tags.isEmpty()) { // it may have been taken since; a human's task is no ant's
            activities(Activities.TASK_ANNOUNCE, "announce · to ants taking " + takesWords(tags))
                .announce(sheet.colony, tags);
          }
        } else {
          activities(Activities.TASK_WITHDRAW, "withdraw · from " + e.ant()).withdraw(sheet.colony, e.ant(),
              e.token() == null ? sheet.id : sheet.id + " " + e.token());
        }
      } catch (ActivityFailure f) {
        log.warn("task {}: {} failed: {}", sheet.id, e.announce() ? "announcing" : "withdrawing from " + e.ant(),
            f.getCause() == null ? f.getMessage() : f.getCause().getMessage());
      }
    }
  }

  /**
   * The gone check: an In Progress task whose ant no longer runs goes back to To Do; so does one
   * whose running ant no longer holds it (its report was lost) at two checks in a row (one miss
   * may be a claim whose answer the ant has not read yet). Runs recorded before ask only "running?".
   */
  private void checkGone(String ant, String token) {
    if (Change.TASK_HOLDER.applies()) {
      checkHolder(ant, token);
      return;
    }
    boolean running;
    try {
      running = activities(Activities.TASK_ANT_RUNNING, "is " + ant + " still running?").antRunning(sheet.colony, ant);
    } catch (ActivityFailure f) {
      running = true; // cannot tell: look again at the next check rather than take a live ant's task
    }
    if (!running && sheet.state == TaskState.IN_PROGRESS && Objects.equals(token, sheet.claimToken)) {
      sheet.moveTo(TaskState.TODO, "colony", ant + " is gone", Workflow.currentTimeMillis());
      announce();
      publish();
    }
  }

  private void checkHolder(String ant, String token) {
    String holds;
    try {
      holds = activities(Activities.TASK_ANT_RUNNING, "does " + ant + " still hold " + sheet.id + "?")
          .antHolds(sheet.colony, ant, sheet.id);
    } catch (ActivityFailure f) {
      holds = "holds"; // cannot tell: look again at the next check rather than take a live ant's task
    }
    if (sheet.state != TaskState.IN_PROGRESS || !Objects.equals(token, sheet.claimToken)) {
      return;
    }
    if (!Objects.equals(token, missedToken)) {
      missedToken = token;
      misses = 0;
    }
    String why = null;
    if ("gone".equals(holds)) {
      why = ant + " is gone";
    } else if ("free".equals(holds) && ++misses >= 2) {
      why = ant + " no longer works on it (its report was lost)";
    } else if (!"free".equals(holds)) {
      misses = 0;
    }
    if (why != null) {
      misses = 0;
      sheet.moveTo(TaskState.TODO, "colony", why, Workflow.currentTimeMillis());
      announce();
      publish();
    }
  }

  private static TaskActivities activities(ActivityOptions options, String summary) {
    return Workflow.newActivityStub(TaskActivities.class, ActivityOptions.newBuilder(options).setSummary(summary).build());
  }

  /** The card in the memo and the search attributes the board filters by, after every change. */
  private void publish() {
    Workflow.upsertTypedSearchAttributes(
        SearchAttributeUpdate.valueSet(TaskSearchAttributes.COLONY, sheet.colony),
        SearchAttributeUpdate.valueSet(TaskSearchAttributes.STATE, sheet.state.word()),
        SearchAttributeUpdate.valueSet(TaskSearchAttributes.PRIORITY, sheet.priority.word()),
        SearchAttributeUpdate.valueSet(TaskSearchAttributes.TAGS, sheet.tags()),
        SearchAttributeUpdate.valueSet(TaskSearchAttributes.UPDATED_AT,
            OffsetDateTime.ofInstant(Instant.ofEpochMilli(sheet.updatedAtMillis), ZoneOffset.UTC)));
    Workflow.upsertMemo(java.util.Collections.singletonMap(TaskCard.MEMO_KEY, sheet.card()));
    Workflow.setCurrentDetails("**" + sheet.state.label() + "** · " + TaskText.bounded(sheet.title, 120));
  }

  private static String takesWords(List<String> tags) {
    List<String> words = new ArrayList<>();
    for (String t : tags) {
      words.add(t.equals(Assignee.TAKE_ANY) ? "*" : t.substring(t.indexOf(':', 5) + 1));
    }
    return words.isEmpty() ? "nothing" : String.join(", ", words);
  }

  private static String words(long seconds) {
    return seconds % 3600 == 0 ? seconds / 3600 + "h" : seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
  }
}
