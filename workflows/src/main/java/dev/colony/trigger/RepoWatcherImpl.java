package dev.colony.trigger;

import dev.colony.ant.AntWorkflow;
import dev.colony.github.GithubActivities;
import dev.colony.github.IssuePage;
import dev.colony.upgrade.Upgrade;
import io.temporal.failure.ActivityFailure;
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
  static final int MAX_FORWARDED = 20_000;
  static final int POLLS_PER_RUN = 200;

  private final GithubActivities github = Workflow.newActivityStub(GithubActivities.class,
      dev.colony.Activities.GITHUB);

  private WatchState state;
  private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();
  private final LinkedHashSet<String> forwarded = new LinkedHashSet<>();
  private final List<IssueEvent> pushed = new ArrayList<>();
  private String etag;
  private boolean pollNow;

  @Override
  public void run(WatchState s) {
    state = s;
    etag = s.etag();
    s.subscriptions().forEach(sub -> subscriptions.put(sub.antWorkflowId(), sub));
    forwarded.addAll(s.forwarded());
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
        state.pollSeconds(), List.copyOf(subscriptions.values()), etag, List.copyOf(forwarded)));
  }

  /** Signals every subscribed ant the issue matches, once per ant and issue. */
  private void forward(IssueEvent e) {
    for (Subscription sub : List.copyOf(subscriptions.values())) {
      String key = sub.antWorkflowId() + "|" + e.key();
      if (!sub.matches(e) || forwarded.contains(key)) {
        continue;
      }
      try {
        Workflow.newExternalWorkflowStub(AntWorkflow.class, sub.antWorkflowId()).githubIssue(e);
        forwarded.add(key);
        if (forwarded.size() > MAX_FORWARDED) {
          forwarded.remove(forwarded.iterator().next());
        }
      } catch (SignalExternalWorkflowException gone) {
        // The ant was stopped: it no longer watches.
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
