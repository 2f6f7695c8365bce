package dev.colony.ant;

import dev.colony.compat.Compatibility.Change;
import dev.colony.errorpolicy.Outcome;
import dev.colony.lifecycle.LifecycleEvent;
import dev.colony.mailbox.Mail;
import dev.colony.merge.MergeActivities;
import dev.colony.merge.MergeDeskActivities;
import dev.colony.merge.MergeNews;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.merge.Undeclared;
import dev.colony.session.SessionResult;
import dev.colony.task.TaskBrief;
import dev.colony.task.TaskWork;
import dev.colony.text.SafeText;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;

/**
 * The ant's side of its repository's merge queue ({@code AntSpec.merge}): it submits its work
 * after a session that went well, claims the paths it will touch before a session (and waits while
 * another ant's work holds them), moves its branch onto the target once its work landed, and acts
 * on the queue's news (a post; a rework session of its own for a rework; a notice when a human
 * must decide). An ant without a merge queue never gets here; everything here runs only in runs
 * of code that has the change {@code Change.MERGE}.
 */
final class MergeDesk {
  private static final Logger log = Workflow.getLogger(MergeDesk.class);
  /** An ant waiting for paths claims again this often, in case a PATHS_FREE was lost. */
  static final Duration RECLAIM = Duration.ofMinutes(5);
  /** The longest rework message that goes to the agent. */
  static final int MAX_REWORK_CHARS = 8_000;
  /** A task's body line that declares the paths its work touches: {@code touches: src/api/**, docs/*.md}. */
  static final String TOUCHES = "touches:";
  /** How long an ant waits before asking again when the queue could not answer its claim. */
  static final Duration CLAIM_RETRY = Duration.ofMinutes(1);
  /** Globs one claim carries at most. */
  static final int MAX_GLOBS = 20;
  /** The prefix of the rework's text in the agent's prompt. */
  static final String REWORK_PREFIX = "[merge queue] ";
  /** What an ant that declares no paths claims with {@code undeclared: everything}. */
  static final String EVERYTHING = dev.colony.merge.MergeBook.EVERYTHING;

  private final AntState ant;
  private final Outbox outbox;
  private final HostAffinity hosts;
  private Boolean on;
  private Boolean reworkItem;

  MergeDesk(AntState ant, Outbox outbox, HostAffinity hosts) {
    this.ant = ant;
    this.outbox = outbox;
    this.hosts = hosts;
  }

  /** Whether the ant has a merge queue and this run's code knows it (decided once per run, at first use). */
  boolean on() {
    if (ant.spec().merge() == null) {
      return false;
    }
    if (on == null) {
      Change.MERGE.require();
      on = true;
    }
    return on;
  }

  /** Whether this run keeps a rework as a work item of its own (decided once per run, at the first rework). */
  private boolean reworkItem() {
    if (reworkItem == null) {
      reworkItem = Change.MERGE_REWORK_ITEM.applies();
    }
    return reworkItem;
  }

  /** Whether this run makes an ant that declares no paths visible to the queue (asked only for such an ant). */
  private static boolean undeclaredVisible() {
    return Change.MERGE_UNDECLARED.applies();
  }

  private static boolean claimsHeld() {
    return Change.MERGE_CLAIMS_HELD.applies();
  }

  // ---- the queue's news (a signal) ----

  void news(MergeNews n) {
    if (n == null || n.kind() == null) {
      return;
    }
    String name = ant.spec().name();
    String text = n.text() == null ? "" : Texts.clean(n.text());
    switch (n.kind()) {
      case LANDED -> {
        ant.merge.reworkEnded(n.itemId());
        if (!claimsHeld()) {
          ant.merge.released(); // runs before the change: the queue freed the ant's paths when its work landed
        } // since: a claim made after the submission (the ant's next work) stays; the stop releases it
        if (n.landed() != null && n.landed().from() != null && n.landed().to() != null
            && n.landed().pullRequest() == null) {
          ant.merge.landed(n.landed().from(), n.landed().to());
        }
        outbox.say(text.isBlank() ? "🔀 " + name + ": work landed" : AntViews.line(text));
      }
      case REWORK -> {
        // Each rework is news of its own (a second red run can read like the first): no dedup here;
        // the queue sends each once (a signal from a workflow is not repeated).
        if (!text.isBlank()) {
          String bounded = text.length() <= MAX_REWORK_CHARS ? text
              : SafeText.cut(text, MAX_REWORK_CHARS) + "\n[cut at " + MAX_REWORK_CHARS + " characters]";
          if (reworkItem() && on()) { // on(): a run whose code submits nothing keeps the mail
            // Its own work item: the running session (maybe another task's) goes on; the rework is
            // the ant's next session (SessionRunner.runOne), and a wait for the next one ends.
            ant.merge.rework(n.itemId(), bounded);
          } else {
            ant.mailbox.add(REWORK_PREFIX + bounded, true); // runs before the change: urgent mail
          }
          ant.wakes.request();
        }
        outbox.say("🔁 " + name + ": " + AntViews.line(n.files().isEmpty() ? firstLine(text, "needs rework")
            : "needs rework: conflict in " + String.join(", ", n.files().size() > 5 ? n.files().subList(0, 5)
                : n.files()) + (n.files().size() > 5 ? " …" : "")));
      }
      case NEEDS_HUMAN -> {
        ant.merge.reworkEnded(n.itemId()); // a human decides now
        if (ant.spec().notices() != null) {
          ant.merge.need("merge-" + n.repo() + "-" + n.itemId(), AntViews.line(firstLine(text, "needs a human")));
        }
        outbox.say("🙋 " + name + ": " + AntViews.line(firstLine(text, "merge needs a human")));
      }
      case PATHS_FREE -> ant.merge.pathsFree();
      case CLOSED -> {
        ant.merge.reworkEnded(n.itemId());
        ant.merge.noticeSent("merge-" + n.repo() + "-" + n.itemId());
        if (!claimsHeld()) {
          ant.merge.released(); // runs before the change: nothing to land, or cancelled: the queue freed its paths
        }
      }
      default -> { }
    }
  }

  private static String firstLine(String text, String otherwise) {
    String first = text.strip().split("\n", 2)[0];
    return first.isBlank() ? otherwise : first;
  }

  // ---- before a session ----

  /**
   * Conflict-aware scheduling: with paths to declare (the ant's {@code workspace.touches}, its
   * task's {@code touches:} line), the ant claims them before it works. Refused, it waits (and says
   * for whom) until the queue says they are free, or {@link #RECLAIM}. Returns whether the ant may
   * run now; false sends the loop back to its top.
   */
  boolean claimPaths() {
    if (!on() || ant.stopRequested()) {
      return true;
    }
    List<String> globs = globs();
    Boolean undeclared = Boolean.FALSE; // (an older ant said null: the queue judges its claims as before)
    if (globs.isEmpty()) {
      if (ant.spec().merge().undeclared() != Undeclared.EVERYTHING || !undeclaredVisible()) {
        return true; // undeclared: changed: its work holds what it changed once it submits
      }
      globs = List.of(EVERYTHING); // it cannot say what it will change: everything
      undeclared = Boolean.TRUE;
    }
    TaskBrief task = ant.task.brief();
    PathClaim claim = new PathClaim(ant.spec().name(), globs, task == null ? null : task.id(),
        ant.spec().workflowId(), undeclared);
    PathReply reply;
    try {
      reply = desk("claim paths · " + String.join(", ", globs)).claimPaths(ant.spec().merge(), claim);
    } catch (ActivityFailure f) {
      log.warn("{}: could not claim paths: {}", ant.spec().name(), Texts.rootMessage(f));
      if (!claimsHeld()) {
        return true; // runs before the change worked without a claim
      }
      // A claim nobody checked is no claim: the ant waits and asks again, as if refused.
      String whom = "its merge queue (not answering)";
      if (!whom.equals(ant.merge.waitingFor())) {
        outbox.say("⏳ " + ant.spec().name() + " waits: its merge queue did not answer its path claim");
      }
      ant.merge.waiting(whom);
      ant.fire(new LifecycleEvent.Waiting("paths unchecked: " + whom, null));
      Timers.await(CLAIM_RETRY, "claim paths again · the merge queue did not answer",
          () -> ant.stopRequested() || ant.paused() || ant.specPending() || ant.upgrade.due() || ant.mailbox.hasUrgent()
              || ant.merge.reworkPending());
      ant.fire(new LifecycleEvent.Woken());
      return false;
    }
    if (reply.granted()) {
      boolean waited = ant.merge.waitingFor() != null;
      ant.merge.granted();
      if (waited) {
        outbox.say("🟢 " + ant.spec().name() + ": its paths are free, starting");
      }
      return true;
    }
    String whom = reply.holder() + ": " + String.join(", ", reply.overlap());
    boolean first = !whom.equals(ant.merge.waitingFor());
    ant.merge.waiting(whom);
    if (first) {
      outbox.say("⏳ " + ant.spec().name() + " waits for " + reply.holder() + " (" + String.join(", ", reply.overlap())
          + ")");
    }
    ant.fire(new LifecycleEvent.Waiting("paths held by " + whom, null));
    Timers.await(RECLAIM, "waiting for " + reply.holder() + " · " + String.join(", ", reply.overlap()),
        () -> ant.merge.pathsFreed() || ant.stopRequested() || ant.paused() || ant.specPending()
            || ant.upgrade.due() || ant.mailbox.hasUrgent() || ant.merge.reworkPending());
    ant.fire(new LifecycleEvent.Woken());
    return false;
  }

  /** The ant's globs and its task's, in order, without repeats. */
  List<String> globs() {
    List<String> out = new ArrayList<>();
    for (String g : ant.spec().workspace() == null ? List.<String>of() : ant.spec().workspace().touches()) {
      add(out, g);
    }
    TaskBrief task = ant.task.brief();
    if (task != null) {
      for (String g : taskTouches(task.body())) {
        add(out, g);
      }
    }
    return out;
  }

  private static void add(List<String> out, String glob) {
    String g = glob == null ? "" : glob.strip();
    if (!g.isEmpty() && !out.contains(g) && out.size() < MAX_GLOBS) {
      out.add(g);
    }
  }

  /** The globs of a task body's {@code touches:} lines (comma or space separated). */
  static List<String> taskTouches(String body) {
    List<String> out = new ArrayList<>();
    if (body == null) {
      return out;
    }
    for (String line : body.split("\n")) {
      String l = line.strip();
      if (l.startsWith("- ") || l.startsWith("* ")) {
        l = l.substring(2).strip();
      }
      if (l.toLowerCase(Locale.ROOT).startsWith(TOUCHES)) {
        for (String g : l.substring(TOUCHES.length()).split("[,\\s]+")) {
          String glob = g.replace("`", "").strip();
          if (dev.colony.merge.PathGlobs.problem(glob) == null && !glob.startsWith("/")) {
            add(out, glob);
          }
        }
      }
    }
    return out;
  }

  /** On the ant's host, before the session: its branch moves onto the target its last work landed on. */
  void syncBranch() {
    if (!on() || !ant.merge.syncPending()) {
      return;
    }
    String from = ant.merge.syncFrom();
    String to = ant.merge.syncTo();
    try {
      MergeActivities git = Workflow.newActivityStub(MergeActivities.class, hosts.onHost(
          ActivityOptions.newBuilder(dev.colony.Activities.MERGE_SYNC)
              .setSummary("sync branch onto " + short7(to))).build());
      String line = git.syncBranch(ant.spec(), from, to);
      log.info("{}: {}", ant.spec().name(), line);
    } catch (ActivityFailure f) {
      if (HostAffinity.gone(f)) {
        return; // the host is gone: the session that follows finds out and moves; sync later
      }
      log.warn("{}: branch not moved onto the target: {}", ant.spec().name(), Texts.rootMessage(f));
    }
    ant.merge.synced();
  }

  // ---- after a session ----

  /**
   * A session that went well submits the ant's branch (the queue reads it when its turn comes).
   * With {@code review: true} only work for a task is submitted (it waits for the task's approval);
   * other work waits for a human's {@code colony merge submit}.
   *
   * @param task the task the session worked on (null: none)
   * @param letGo whether the ant let that task go after the session (the rule of runs before {@code Change.MERGE_ACCEPTED_REPORT})
   * @param accepted whether the board accepted the session's report that handed the task over (In
   *     Review or Done): only then is its work submitted for the task
   */
  void afterSession(SessionResult r, TaskBrief task, boolean letGo, boolean accepted) {
    if (!on() || r == null || ant.stopRequested()) {
      return;
    }
    Outcome outcome = r.outcome() == null ? Outcome.TRANSIENT : r.outcome();
    if (outcome.action() != dev.colony.errorpolicy.Outcome.Action.CONTINUE
        && outcome.action() != dev.colony.errorpolicy.Outcome.Action.RESTART_NOW) {
      return;
    }
    MergeRepo repo = ant.spec().merge();
    if (task != null && !submitted(letGo, accepted)) {
      return; // the task goes on in the next session (and keeps its paths), or is no longer the ant's
    }
    if (repo.review() && task == null) {
      release(); // nothing goes to the queue by itself: the paths are not held for it
      return;
    }
    submit(task, task == null ? null : r.work(), false);
  }

  /**
   * After a rework's session: its work goes back to the queue, where it joins the item that was
   * sent back (the queue takes it again; with review, at the head the session ended at). The task
   * the ant holds has nothing to do with it: it is neither reported nor submitted. A rework whose
   * session did not go well (or was stopped) runs again.
   */
  void afterRework(SessionResult r, MergeSlot.Rework rework) {
    Outcome outcome = r == null || r.outcome() == null ? Outcome.TRANSIENT : r.outcome();
    if (!on() || ant.stopRequested() || outcome.action() != Outcome.Action.CONTINUE
        && outcome.action() != Outcome.Action.RESTART_NOW) {
      ant.merge.giveBack(rework);
      return;
    }
    submit(null, r.work(), true);
  }

  /**
   * Submits the ant's branch: for {@code task} (or none), at the head {@code work} ended at (or
   * none). {@code fix}: the rework session's submission, which alone ends the item's rework.
   */
  private void submit(TaskBrief task, TaskWork work, boolean fix) {
    MergeRepo repo = ant.spec().merge();
    String name = ant.spec().name();
    String branch = ant.spec().workspace() == null ? "colony/" + name : ant.spec().workspace().branchOf(name);
    // An ant that declares no paths: its work holds the files it changed (undeclared: everything
    // holds the ** it claimed, as any claim is held).
    List<String> changed = repo.undeclared() == Undeclared.CHANGED && declaresNothing(task) && undeclaredVisible()
        ? changedFiles(repo, name, branch) : null;
    // The head the session ended at: with review, the approval covers exactly it.
    Submission s = new Submission(name, ant.host() == null ? "" : ant.host(), branch,
        task == null ? null : task.id(), priority(task), "ant", false, work == null ? null : sha(work.head()),
        work == null || task == null ? null : sha(work.base()), reworkItem() ? Boolean.valueOf(fix) : null, changed);
    try {
      SubmitReply reply = desk("submit " + name + (task == null ? "" : " · task " + task.id())).submit(repo, s);
      log.info("{}: submitted to merge queue {}: {}", name, repo.name(), reply.text());
    } catch (ActivityFailure f) {
      log.warn("{}: could not submit to merge queue {}: {}", name, repo.name(), Texts.rootMessage(f));
    }
  }

  /** Whether neither the ant ({@code workspace.touches}) nor the task in hand declares paths. */
  private boolean declaresNothing(TaskBrief task) {
    return globs().isEmpty() && (task == null || taskTouches(task.body()).isEmpty());
  }

  /**
   * On the ant's host (its worktree is there): the files its branch changed against the target, as
   * the queue reads them at the item's turn; empty when they cannot be read (the item then holds
   * its files from its turn on).
   */
  private List<String> changedFiles(MergeRepo repo, String name, String branch) {
    try {
      MergeActivities git = Workflow.newActivityStub(MergeActivities.class, hosts.onHost(
          ActivityOptions.newBuilder(dev.colony.Activities.MERGE_PUBLISH)
              .setSummary("changed files of " + branch)).build());
      dev.colony.merge.BranchHead b = git.publishBranch(repo, name, branch, null, null);
      return b == null ? List.of() : b.paths();
    } catch (ActivityFailure f) {
      log.warn("{}: could not read the files its branch changed: {}", name, Texts.rootMessage(f));
      return List.of();
    }
  }

  /** The prompt's text of a rework (what the queue said, bounded when it came). */
  static String reworkMessage(MergeSlot.Rework rework) {
    return REWORK_PREFIX + rework.text();
  }

  /**
   * Whether the task was handed over. Runs before {@code Change.MERGE_ACCEPTED_REPORT} read "held before, not
   * held after" as handed over, even when the board refused the report (a human requeued the task
   * meanwhile); now only an accepted report is. Where both rules agree no marker is written.
   */
  private static boolean submitted(boolean letGo, boolean accepted) {
    if (letGo == accepted) {
      return accepted;
    }
    return !Change.MERGE_ACCEPTED_REPORT.applies() ? letGo
        : accepted;
  }

  private static String sha(String s) {
    return s != null && s.matches("[0-9a-fA-F]{4,64}") ? s : null;
  }

  private static int priority(TaskBrief task) {
    if (task == null || task.priority() == null) {
      return Submission.NORMAL;
    }
    return switch (task.priority()) {
      case HIGH -> 1;
      case NORMAL -> 2;
      case LOW -> 3;
    };
  }

  /** At a stop: a claim held goes back, so no other ant waits for an ant that is gone. */
  void release() {
    if (!on() || !ant.merge.claimHeld()) {
      return;
    }
    try {
      desk("release paths").releasePaths(ant.spec().merge(), ant.spec().name());
    } catch (ActivityFailure f) {
      log.warn("{}: could not release its paths: {}", ant.spec().name(), Texts.rootMessage(f));
    }
    ant.merge.released();
  }

  private MergeDeskActivities desk(String summary) {
    return Workflow.newActivityStub(MergeDeskActivities.class,
        ActivityOptions.newBuilder(dev.colony.Activities.MERGE_DESK).setSummary(summary).build());
  }

  private static String short7(String sha) {
    return sha == null ? "?" : sha.substring(0, Math.min(7, sha.length()));
  }
}
