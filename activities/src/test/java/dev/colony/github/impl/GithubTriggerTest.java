package dev.colony.github.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.chat.ChatActivities;
import dev.colony.config.ColonyLoader;
import dev.colony.config.LoadedColony;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionActivities;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.trigger.IssueEvent;
import dev.colony.trigger.RepoWatcher;
import dev.colony.trigger.RepoWatcherImpl;
import dev.colony.trigger.Subscription;
import dev.colony.workspace.WorkspaceActivities;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * GitHub issue triggers end to end on Temporal's time-skipping server: the real RepoWatcher and
 * AntWorkflow, the real GitHub activity on OkHttp against the fake GitHub, and a recording
 * session activity.
 */
@Timeout(180)
class GithubTriggerTest {
  @TempDir
  Path dir;

  private TestWorkflowEnvironment env;
  private FakeGithub github;
  private final List<Integer> sessions = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() throws Exception {
    env.close();
    github.close();
  }

  @Test
  void eachMatchingIssueWakesTheAntOnceWhateverPathItTakes() throws Exception {
    github = new FakeGithub();
    github.issue("acme/app", 1, "Crash on save", List.of("bug"), "Steps: save twice.");
    github.issue("acme/app", 2, "How do I export?", List.of(), "question");
    github.pullRequest("acme/app", 3, "Fix the crash", List.of("bug"));
    Files.writeString(dir.resolve("colony.yaml"), """
        name: gh
        integrations:
          github:
            token: ${GITHUB_TOKEN}
            poll_interval: 1m
        """);
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/triage.yaml"), """
        name: triage
        description: triages bugs
        instructions: fix the issue you are given
        engine: command
        command:
          argv: ["true"]
        integrations:
          github:
            repos: [acme/app]
        triggers:
          - type: github_issue
            labels: [bug]
        """);
    Files.writeString(dir.resolve(".env"), "GITHUB_TOKEN=ghp-fake-token\nCOLONY_GITHUB_API_URL=" + github.url() + "\n");
    LoadedColony colony = ColonyLoader.load(dir);
    AntSpec spec = colony.ant("triage").orElseThrow().withContinueAsNewEvery(2);

    env = TestWorkflowEnvironment.newInstance();
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class, RepoWatcherImpl.class);
    worker.registerActivitiesImplementations(
        (SessionActivities) request -> {
          sessions.add(request.issue() == null ? 0 : request.issue().number());
          return SessionResult.of(Outcome.SUCCESS, "handled");
        },
        WorkspaceActivities.anywhere(s -> dir.toString()),
        (ChatActivities) post -> { },
        new GithubActivitiesImpl(new OkHttpClient()));
    env.start();
    WorkflowClient client = env.getWorkflowClient();
    AntWorkflow ant = client.newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(ant::run, new AntRun(spec, null));
    RepoWatcher watcher = client.newWorkflowStub(RepoWatcher.class, WorkflowOptions.newBuilder()
        .setWorkflowId(RepoWatcher.workflowId("gh", "acme/app")).setTaskQueue("q").build());
    BatchRequest req = client.newSignalWithStartRequest();
    req.add(watcher::run, new RepoWatcher.WatchState("gh", "acme/app", colony.colony().dir(),
        colony.colony().githubTokenVar(), colony.colony().githubPollSeconds(), List.of(), null, List.of()));
    req.add(watcher::subscribe, new Subscription(spec.workflowId(), List.of(List.of("bug"))));
    client.signalWithStart(req);

    // The bug wakes the ant; the question and the pull request do not.
    env.sleep(Duration.ofSeconds(30));
    assertEquals(List.of(1), sessions);
    assertEquals("Bearer ghp-fake-token", github.lastAuthorization);
    // Nothing changed: the next poll is a 304.
    env.sleep(Duration.ofMinutes(2));
    assertTrue(github.notModified.get() >= 1, github.log.toString());
    assertEquals(List.of(1), sessions);

    // The webhook pushes #4; then a poll sees #4 again, #2 now labelled bug, and #5: one session
    // each, in the order they arrived.
    IssueEvent four = new IssueEvent("acme/app", 4, "UI freezes", "https://github.com/acme/app/issues/4",
        List.of("bug", "ui"), "freezes");
    github.issue("acme/app", 4, "UI freezes", List.of("bug", "ui"), "freezes");
    client.newWorkflowStub(RepoWatcher.class, RepoWatcher.workflowId("gh", "acme/app")).issue(four);
    env.sleep(Duration.ofSeconds(5));
    github.issue("acme/app", 2, "How do I export?", List.of("question", "bug"), "question");
    github.issue("acme/app", 5, "Data loss", List.of("BUG"), "lost it");
    env.sleep(Duration.ofMinutes(2));
    assertEquals(List.of(1, 4, 2, 5), sessions);

    // A rate limit: the watcher waits, then polls again; nothing is lost.
    github.rateLimitNext(1);
    github.issue("acme/app", 6, "Slow start", List.of("bug"), "slow");
    env.sleep(Duration.ofMinutes(1));
    assertEquals(0, github.pendingRateLimits(), "the 403 was served");
    env.sleep(Duration.ofMinutes(3));
    assertEquals(List.of(1, 4, 2, 5, 6), sessions);

    // Across continue-as-new (every 2 sessions here), a repeat of an old issue is still ignored.
    client.newWorkflowStub(AntWorkflow.class, spec.workflowId()).githubIssue(new IssueEvent("acme/app", 1,
        "Crash on save", "u", List.of("bug"), "again"));
    env.sleep(Duration.ofMinutes(1));
    assertEquals(List.of(1, 4, 2, 5, 6), sessions);
    assertTrue(github.log.stream().noneMatch(l -> l.contains("pulls")));
  }
}
