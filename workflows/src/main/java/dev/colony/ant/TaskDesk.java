package dev.colony.ant;

import dev.colony.compat.Compatibility.Change;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.TaskPolicy;
import dev.colony.task.Assignee;
import dev.colony.task.Claim;
import dev.colony.task.ClaimResult;
import dev.colony.task.FindTasks;
import dev.colony.task.TaskActivities;
import dev.colony.task.TaskBrief;
import dev.colony.task.TaskCandidate;
import dev.colony.task.TaskLimits;
import dev.colony.task.TaskOrder;
import dev.colony.task.TaskReply;
import dev.colony.task.TaskReport;
import dev.colony.task.TaskSessionLink;
import dev.colony.task.TaskState;
import dev.colony.task.TaskWork;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.List;
import org.slf4j.Logger;

/**
 * The ant's side of the task board: before a session it looks for a task and claims one, the
 * session works on it, and after the session it reports how it went. One task at a time; the
 * task it holds is in {@link TaskSlot} (carried across continue-as-new). Every call goes to the
 * colony's queue as an activity ({@link TaskActivities}), never to the ant's host: reading the
 * board and updating a task need no workspace.
 *
 * <p>Who looks: an ant that takes pools ({@code tasks.takes}) or waits for tasks
 * ({@code when_idle: wait}) before each session (and, waiting, every {@link #RECHECK}), and any ant
 * a {@code tasksWaiting} signal woke (a task was assigned to it by name). An ant that nobody wakes
 * and that takes no pool never calls the board. Everything here runs only in runs of code that has the change {@code Change.TASKS}.
 */
final class TaskDesk {
  private static final Logger log = Workflow.getLogger(TaskDesk.class);
  /** The unanswered-claim key of a look (no task's id: a look's token covers every claim it makes). */
  private static final String LOOK = "(look)";
  /** The task whose SUBMITTED report the last session's end had accepted, or null (not carried: read at once). */
  private String submittedTaskId;
  /** Candidates one look asks for: the best few are plenty when claims are refused. */
  static final int FIND_LIMIT = 20;
  /** An ant that waits for a task looks at the board this often, in case a wake was lost. */
  static final java.time.Duration RECHECK = java.time.Duration.ofMinutes(5);

  private final AntState ant;
  private final Outbox outbox;
  private boolean on;

  TaskDesk(AntState ant, Outbox outbox) {
    this.ant = ant;
    this.outbox = outbox;
  }

  /** At the run's start: this run takes tasks (the change "tasks"; runs begun before it are not this build's to replay). */
  void start() {
    Change.TASKS.require();
    on = true;
    ant.task.activate();
  }

  boolean on() {
    return on;
  }

  /**
   * Whether the ant looks at the board before every session: it takes pools or waits for tasks.
   * An ant with only the colony's rules (or an empty {@code tasks:}) takes only tasks assigned to it
   * by name, which wake it ({@code tasksWaiting}): it looks then, and costs nothing otherwise.
   */
  boolean looksRegularly() {
    TaskPolicy p = ant.spec().tasks();
    return p != null && (!p.takes().isEmpty() || p.waitWhenIdle());
  }

  /** {@code when_idle: wait}: with no task, no message and no issue the ant runs no session. */
  boolean waitsWhenIdle() {
    return on && ant.spec().tasks() != null && ant.spec().tasks().waitWhenIdle();
  }

  static List<String> takerTags(AntSpec spec) {
    TaskPolicy p = spec.tasks();
    return Assignee.takerTags(spec.name(), p == null ? List.of() : p.takes());
  }

  // ---- signals ----

  void tasksWaiting() {
    ant.task.wake();
  }

  void withdrawn(String withdrawn) {
    if (withdrawn == null) {
      return;
    }
    String[] parts = withdrawn.strip().split(" ", 2);
    String taskId = parts[0];
    String token = parts.length > 1 ? parts[1].strip() : null;
    TaskBrief b = ant.task.brief();
    // A withdrawal of an older claim (it arrived after the ant took the task again) is not this one's.
    if (b != null && b.id().equals(taskId) && (token == null || token.equals(b.token()))) {
      ant.task.letGo(); // the running session finishes; nothing is reported for it
      log.info("{}: task {} was withdrawn", ant.spec().name(), taskId);
    }
  }

  // ---- before a session ----

  /**
   * With no task: finds the tasks this ant may take and claims them in order until one is taken.
   * Only an ant with {@code tasks:} or a pending wake looks (no added cost for the others).
   */
  void look() {
    if (!on || ant.task.held() || ant.stopRequested() || !looksRegularly() && !ant.task.wakePending()) {
      return;
    }
    ant.task.looked();
    AntSpec spec = ant.spec();
    TaskPolicy policy = spec.tasks();
    long aging = policy == null || policy.agingSeconds() <= 0 ? TaskOrder.DEFAULT_AGING_SECONDS : policy.agingSeconds();
    List<String> tags = takerTags(spec);
    if (Change.TAKE_TASK.applies()) {
      take(new FindTasks(spec.colony(), spec.name(), tags, aging, FIND_LIMIT), tags);
      return;
    }
    List<TaskCandidate> found;
    try {
      found = tasks(dev.colony.Activities.TASK_FIND, "find tasks · " + spec.name())
          .find(new FindTasks(spec.colony(), spec.name(), tags, aging, FIND_LIMIT));
    } catch (ActivityFailure f) {
      log.warn("{}: could not look at the board: {}", spec.name(), Texts.rootMessage(f));
      return;
    }
    if (found == null) {
      return;
    }
    for (TaskCandidate c : TaskOrder.sort(found, Workflow.currentTimeMillis(), aging)) {
      if (claim(c, tags)) {
        return;
      }
    }
  }

  /** Find and claim in one local activity, with one token for the look. */
  private void take(FindTasks find, List<String> tags) {
    AntSpec spec = ant.spec();
    String token = ant.task.tokenFor(LOOK, Workflow.getInfo().getWorkflowId());
    ClaimResult r;
    try {
      r = Workflow.newLocalActivityStub(TaskActivities.class, LocalActivityOptions.newBuilder(
          dev.colony.Activities.TASK_TAKE).setSummary("take a task · " + spec.name()).build())
          .take(find, new Claim(spec.name(), token, tags));
    } catch (ActivityFailure f) {
      // No answer: a claim may have been applied. The token is kept for the next look.
      ant.task.unanswered(LOOK, token);
      log.warn("{}: could not take a task: {}", spec.name(), Texts.rootMessage(f));
      return;
    }
    ant.task.answered();
    if (r == null || !r.taken() || r.brief() == null) {
      return;
    }
    ant.task.hold(r.brief());
    outbox.say(took(spec.name(), r.brief()));
  }

  private boolean claim(TaskCandidate c, List<String> tags) {
    AntSpec spec = ant.spec();
    String token = ant.task.tokenFor(c.id(), Workflow.getInfo().getWorkflowId());
    ClaimResult r;
    try {
      r = tasks(dev.colony.Activities.TASK_CLAIM, "claim " + c.id())
          .claim(spec.colony(), c.id(), new Claim(spec.name(), token, tags));
    } catch (ActivityFailure f) {
      // No answer: the claim may have been applied. The token is kept for when the task shows up as ours.
      ant.task.unanswered(c.id(), token);
      log.warn("{}: claim on {} got no answer: {}", spec.name(), c.id(), Texts.rootMessage(f));
      return false;
    }
    if (r == null || !r.taken() || r.brief() == null) {
      return false;
    }
    ant.task.hold(r.brief());
    outbox.say(took(spec.name(), r.brief()));
    return true;
  }

  /** The brief the next session works on; null when the ant holds no task. */
  TaskBrief brief() {
    return ant.task.brief();
  }

  // ---- after a session ----

  /**
   * Reports a finished session (one the error policy classified; interrupted, cancelled and
   * lost-host sessions report nothing): success is SUBMITTED and the task goes; a failed session
   * is FAILED, or BLOCKED once {@code max_tries} failed; a parked ant's task is BLOCKED; a rate
   * limit or a pause keeps the task for the next session.
   */
  /**
   * Whether the last session's SUBMITTED report on {@code taskId} was accepted: only then is its
   * work the task's to submit to the merge queue (a refused report means the task moved on without
   * this ant, e.g. a human requeued it). Set by {@link #afterSession}, read right after it.
   */
  boolean submitted(String taskId) {
    return taskId != null && taskId.equals(submittedTaskId);
  }

  void afterSession(SessionResult r, int number) {
    submittedTaskId = null;
    TaskBrief b = ant.task.brief();
    if (!on || b == null || r == null) {
      return;
    }
    if (b.baseCommit() == null && r.work() != null && r.work().base() != null) {
      b = b.withBase(r.work().base());
      ant.task.update(b);
    }
    Outcome outcome = r.outcome() == null ? Outcome.TRANSIENT : r.outcome();
    TaskSessionLink link = new TaskSessionLink(ant.spec().name(), number, outcome.configName(),
        Texts.bounded(AntViews.line(r.detail() == null ? "" : r.detail()), TaskLimits.COMMENT),
        Double.isFinite(r.costUsd()) ? r.costUsd() : 0, Workflow.currentTimeMillis());
    String detail = r.detail() == null ? outcome.configName() : r.detail();
    if (ant.phase().state() == Lifecycle.PARKED) {
      block(b, ant.spec().name() + " parked after repeated errors: " + AntViews.line(detail), link, r.work());
      return;
    }
    switch (outcome.action()) {
      case CONTINUE, RESTART_NOW -> submit(b, detail, link, r.work());
      case BACK_OFF -> failed(b, detail, link, r.work());
      default -> { } // a rate limit or a pause: the task waits for the next session
    }
  }

  private void submit(TaskBrief b, String detail, TaskSessionLink link, TaskWork work) {
    boolean done = ant.spec().tasks() != null && ant.spec().tasks().antsMayFinish();
    TaskReply reply = report(b, TaskReport.Kind.SUBMITTED, detail, link, work, done);
    letGo();
    if (reply != null && reply.accepted()) {
      submittedTaskId = b.id();
      TaskState state = reply.state() == null ? TaskState.IN_REVIEW : reply.state();
      outbox.say(handedOver(ant.spec().name(), b, state, work), b.id());
    }
  }

  private void failed(TaskBrief b, String detail, TaskSessionLink link, TaskWork work) {
    int attempts = b.attempts() + 1;
    int max = maxTries();
    if (attempts >= max) {
      block(b.withAttempts(attempts), "failed " + attempts + " sessions: " + AntViews.line(detail), link, work);
      return;
    }
    ant.task.update(b.withAttempts(attempts));
    TaskReply reply = report(b, TaskReport.Kind.FAILED, detail, link, work, false);
    if (reply != null && !reply.accepted()) {
      ant.task.letGo(); // the task moved on without this ant
    }
  }

  /**
   * The ant is done with its task. One that waits for tasks looks for the next at once: the wake
   * ends the poll interval its success began, so a queue of tasks does not wait on it.
   */
  private void letGo() {
    ant.task.letGo();
    if (waitsWhenIdle()) {
      ant.task.wake();
    }
  }

  /** The ant parked (an error threshold, or its own workflow failed): its task needs a human. */
  void parked(String why) {
    TaskBrief b = ant.task.brief();
    if (on && b != null) {
      block(b, why, null, null);
    }
  }

  private void block(TaskBrief b, String reason, TaskSessionLink link, TaskWork work) {
    TaskReply reply = report(b, TaskReport.Kind.BLOCKED, reason, link, work, false);
    letGo();
    if (reply != null && reply.accepted()) {
      String text = blocked(ant.spec().name(), b, reason);
      outbox.say(text, b.id());
      String claim = b.token() == null ? "0" : b.token().substring(b.token().lastIndexOf('#') + 1);
      if (ant.spec().notices() != null) {
        ant.task.blocked("task-" + b.id() + "-" + claim, text); // the Notifier tells phones once
      }
    }
  }

  /** The ant stops: its task goes back to To Do with a note (before the run ends). */
  void release() {
    TaskBrief b = ant.task.brief();
    if (!on || b == null) {
      return;
    }
    report(b, TaskReport.Kind.RELEASED, ant.spec().name() + " was stopped", null, null, false);
    ant.task.letGo();
  }

  private int maxTries() {
    TaskPolicy p = ant.spec().tasks();
    return p == null || p.maxTries() <= 0 ? TaskPolicy.DEFAULT_MAX_TRIES : p.maxTries();
  }

  private TaskReply report(TaskBrief b, TaskReport.Kind kind, String text, TaskSessionLink link, TaskWork work,
      boolean done) {
    AntSpec spec = ant.spec();
    try {
      return tasks(dev.colony.Activities.TASK_REPORT, "report " + kind.name().toLowerCase(java.util.Locale.ROOT) + " · "
          + b.id()).report(spec.colony(), b.id(), new TaskReport(kind, spec.name(), b.token(),
              Texts.bounded(Texts.clean(text), TaskLimits.COMMENT), link, work, done));
    } catch (ActivityFailure f) {
      log.warn("{}: report {} on task {} not delivered: {}", spec.name(), kind, b.id(), Texts.rootMessage(f));
      return null;
    }
  }

  private static TaskActivities tasks(ActivityOptions options, String summary) {
    // On the colony's queue (the workflow's own), not the host's: any worker answers.
    return Workflow.newActivityStub(TaskActivities.class,
        ActivityOptions.newBuilder(options).setSummary(summary).build());
  }

  // ---- what the chat is told ----

  static String took(String ant, TaskBrief b) {
    return "📋 " + ant + " took " + b.id() + " · " + AntViews.line(b.title());
  }

  static String handedOver(String ant, TaskBrief b, TaskState state, TaskWork work) {
    return "📋 " + ant + ": " + b.id() + " is " + state.label() + " · " + AntViews.line(b.title()) + workLine(work);
  }

  static String blocked(String ant, TaskBrief b, String reason) {
    return "⛔ " + ant + ": " + b.id() + " is Blocked · " + AntViews.line(b.title()) + " · " + AntViews.line(reason);
  }

  /** " · 3 commits, 5 files, +120/-7 on colony/alpha", or "" without work. */
  static String workLine(TaskWork w) {
    if (w == null) {
      return "";
    }
    int commits = w.commits().size();
    return " · " + commits + (commits == 1 ? " commit, " : " commits, ") + w.filesChanged()
        + (w.filesChanged() == 1 ? " file, +" : " files, +") + w.linesAdded() + "/-" + w.linesRemoved()
        + (w.branch() == null ? "" : " on " + w.branch());
  }
}
