package dev.colony.trigger;

import dev.colony.ant.AntWorkflow;
import dev.colony.compat.Compatibility.Change;
import dev.colony.github.GithubActivities;
import dev.colony.github.IssuePage;
import dev.colony.github.IssueTaskActivities;
import dev.colony.upgrade.Upgrade;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/** See {@link RepoWatcher}. */
public final class RepoWatcherImpl implements RepoWatcher {
  private final Upgrade upgrade = new Upgrade();
  private static final Logger log = Workflow.getLogger(RepoWatcherImpl.class);
  /** Runs before {@link #BOUND}: up to 20,000 keys each (towards Temporal's 2 MB payload limit). */
  static final int OLD_MAX_KEYS = 20_000;
  static final int POLLS_PER_RUN = 200;
  static final int MAX_CLOSED_DONE = 1_000;
  /**
   * What a watcher carries over continue-as-new, at most (change {@link #BOUND}): ants told, issues
   * made tasks, closed issues whose task may reopen; oldest dropped first. Dropping is safe: an ant
   * keeps its own record of the issues it handled, and an issue's task is made once (its id).
   */
  static final int MAX_FORWARDED = 4_000;
  static final long MAX_FORWARDED_CHARS = 256 * 1024;
  static final int MAX_TASKED = 4_000;
  static final long MAX_TASKED_CHARS = 128 * 1024;
  static final int MAX_CLOSED_TASKS = 2_000;
  static final long MAX_CLOSED_TASKS_CHARS = 64 * 1024;

  private final GithubActivities github = Workflow.newActivityStub(GithubActivities.class,
      dev.colony.Activities.GITHUB);

  private WatchState state;
  private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();
  private final KeySet forwarded = new KeySet(OLD_MAX_KEYS, Long.MAX_VALUE);
  private final List<IssueEvent> pushed = new ArrayList<>();
  private final KeySet tasked = new KeySet(OLD_MAX_KEYS, Long.MAX_VALUE);
  /** Issues whose closing moved (or found) their task Done: opened again, the task reopens (once). */
  private final KeySet closedTasks = new KeySet(MAX_CLOSED_TASKS, MAX_CLOSED_TASKS_CHARS);
  /** Whether this run reopens tasks of reopened issues (runs begun before the change do not). */
  private boolean reopens;
  /**
   * Closed issues whose task this run has moved (or found) Done: GitHub's {@code since} is
   * inclusive, so the newest closure is listed again; it costs no second call. Not carried over
   * continue-as-new (a repeat there is one idempotent call).
   */
  private final LinkedHashSet<String> closedDone = new LinkedHashSet<>();
  private String etag;
  private String closedSince;
  private String closedEtag;
  private boolean pollNow;

  @Override
  public void run(WatchState s) {
    Change.ISSUE_TASKS.require();
    if (Change.WATCH_BOUND.applies()) {
      forwarded.bound(MAX_FORWARDED, MAX_FORWARDED_CHARS);
      tasked.bound(MAX_TASKED, MAX_TASKED_CHARS);
    }
    reopens = Change.ISSUE_REOPEN.applies();
    state = s;
    etag = s.etag();
    closedSince = s.closedSince();
    closedEtag = s.closedEtag();
    s.subscriptions().forEach(sub -> subscriptions.put(sub.antWorkflowId(), sub));
    forwarded.addAll(s.forwarded());
    tasked.addAll(s.tasked());
    closedTasks.addAll(s.closedTasks());
    for (int polls = 0; polls < POLLS_PER_RUN && !Workflow.getInfo().isContinueAsNewSuggested() && !upgrade.due(); polls++) {
      long waitSeconds = state.pollSeconds();
      pollNow = false;
      try {
        IssuePage page = github.listOpenIssues(state.colonyDir(), state.tokenVar(), state.repo(), etag);
        if (!page.notModified()) {
          etag = page.etag();
          page.issues().forEach(this::forward);
        }
        waitSeconds = Math.max(waitSeconds, page.retryAfterSeconds());
        if (page.retryAfterSeconds() == 0) {
          pollClosed();
        }
      } catch (ActivityFailure f) {
        log.warn("github: polling {} failed: {}", state.repo(), f.getCause() == null ? f.getMessage() : f.getCause().getMessage());
      }
      // Wait for the next poll; webhook pushes and new subscribers are handled at once.
      long until = Workflow.currentTimeMillis() + waitSeconds * 1000;
      while (!pollNow) {
        long left = until - Workflow.currentTimeMillis();
        if (left <= 0 || !Workflow.await(Duration.ofMillis(left), () -> !pushed.isEmpty() || pollNow || upgrade.due())
            || upgrade.due()) {
          break;
        }
        while (!pushed.isEmpty()) {
          forward(pushed.remove(0));
        }
      }
    }
    Workflow.await(Workflow::isEveryHandlerFinished);
    while (!pushed.isEmpty()) {
      forward(pushed.remove(0));
    }
    Upgrade.continueAsNew(new WatchState(state.colony(), state.repo(), state.colonyDir(), state.tokenVar(),
        state.pollSeconds(), List.copyOf(subscriptions.values()), etag, forwarded.list(), tasked.list(),
        closedSince, closedEtag, closedTasks.list()));
  }

  /**
   * While any trigger makes tasks: the issues closed since the last look (GitHub's
   * {@code updated_at}, so its clock, not ours), each of whose tasks moves to Done. The first look
   * starts now: issues closed before the watcher made tasks have none.
   */
  private void pollClosed() {
    if (subscriptions.values().stream().allMatch(sub -> sub.taskRoutes().isEmpty())) {
      return;
    }
    if (closedSince == null) {
      closedSince = java.time.Instant.ofEpochMilli(Workflow.currentTimeMillis()).toString();
    }
    GithubActivities closedIssues = Workflow.newActivityStub(GithubActivities.class,
        dev.colony.Activities.GITHUB.toBuilder().setSummary("closed issues of " + state.repo() + " since " + closedSince)
            .build());
    IssuePage page = closedIssues.listClosedIssues(state.colonyDir(), state.tokenVar(), state.repo(), closedSince, closedEtag);
    if (page.notModified()) {
      return;
    }
    closedEtag = page.etag();
    page.issues().forEach(this::close);
    if (page.newestUpdate() != null && page.newestUpdate().compareTo(closedSince) > 0) {
      closedSince = page.newestUpdate();
      closedEtag = null; // a new query: its first answer has no ETag to match yet
    }
  }

  /** A closed issue: its task, when the watcher made one or a task trigger matches it, moves to Done. */
  private void close(IssueEvent e) {
    boolean ours = tasked.contains(e.key())
        || subscriptions.values().stream().anyMatch(sub -> sub.taskRoute(e) != null);
    if (!ours || closedDone.contains(e.key())) {
      return;
    }
    try {
      String answer = issueTasks("issue " + e.key() + " closed: its task to Done").close(state.colony(), e);
      if (reopens && !"none".equals(answer)) {
        closedTasks.add(e.key());
      }
      closedDone.add(e.key());
      if (closedDone.size() > MAX_CLOSED_DONE) {
        closedDone.remove(closedDone.iterator().next());
      }
    } catch (ActivityFailure f) {
      // The next poll lists it again (the same since): it is tried then.
      closedEtag = null;
      log.warn("github: moving the task of {} to Done failed: {}", e.key(), f.getCause() == null ? f.getMessage()
          : f.getCause().getMessage());
    }
  }

  /** An issue open again after its closing moved its task to Done: the task goes back to To Do, once. */
  private void reopen(IssueEvent e) {
    try {
      issueTasks("issue " + e.key() + " reopened: its task back to To Do").reopen(state.colony(), e);
      closedTasks.remove(e.key());
    } catch (ActivityFailure f) {
      etag = null; // listed again at the next poll: tried then
      log.warn("github: reopening the task of {} failed: {}", e.key(), f.getCause() == null ? f.getMessage()
          : f.getCause().getMessage());
    }
  }

  private IssueTaskActivities issueTasks(String summary) {
    return Workflow.newActivityStub(IssueTaskActivities.class,
        dev.colony.Activities.ISSUE_TASK.toBuilder().setSummary(summary).build());
  }

  /**
   * Makes the issue a task when an {@code as: task} trigger matches it (the first subscription's
   * route that does, once per issue), and signals every subscribed ant the issue wakes, once per
   * ant and issue. A closed issue wakes nobody: its task moves to Done.
   */
  private void forward(IssueEvent e) {
    if (e.closed()) {
      close(e);
      return;
    }
    closedDone.remove(e.key()); // open again: a later closing counts
    if (reopens && closedTasks.contains(e.key())) {
      reopen(e);
    }
    if (!tasked.contains(e.key())) {
      for (Subscription sub : List.copyOf(subscriptions.values())) {
        Subscription.TaskRoute route = sub.taskRoute(e);
        if (route == null) {
          continue;
        }
        try {
          issueTasks("task from issue " + e.key()).add(state.colony(), e, route.assignee());
          tasked.add(e.key());
        } catch (ActivityFailure f) {
          // Listed again at the next poll (the ETag is forgotten): tried then.
          etag = null;
          log.warn("github: making a task of {} failed: {}", e.key(), f.getCause() == null ? f.getMessage()
              : f.getCause().getMessage());
        }
        break;
      }
    }
    for (Subscription sub : List.copyOf(subscriptions.values())) {
      String key = sub.antWorkflowId() + "|" + e.key();
      if (!sub.matches(e) || forwarded.contains(key)) {
        continue;
      }
      try {
        Workflow.newExternalWorkflowStub(AntWorkflow.class, sub.antWorkflowId()).githubIssue(e);
        forwarded.add(key);
      } catch (SignalExternalWorkflowException gone) {
        // The ant was stopped: it no longer watches.
        subscriptions.remove(sub.antWorkflowId());
      } catch (ApplicationFailure f) {
        // How the SDK reports a signal to a workflow that is not there.
        if (f.getType() == null || !f.getType().contains("NOT_FOUND")) {
          throw f;
        }
        subscriptions.remove(sub.antWorkflowId());
      }
    }
  }

  @Override
  public void subscribe(Subscription subscription) {
    subscriptions.put(subscription.antWorkflowId(), subscription);
    // A new (or changed) interest needs the full list, not "not modified since last time".
    etag = null;
    pollNow = true;
  }

  @Override
  public void issue(IssueEvent event) {
    if (event != null) {
      pushed.add(event);
    }
  }

  @Override
  public List<Subscription> subscriptions() {
    return List.copyOf(subscriptions.values());
  }

  @Override
  public void upgrade() {
    upgrade.request();
  }
}
