package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.github.impl.FakeGithub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/triggers, run offline through the CLI against the fake GitHub: the GitHub-triggered
 * ant takes each bug once (a question and a pull request wake nobody), the event-only ant runs
 * only when a human writes, the scheduled ant waits for its next weekday tick; after a SIGKILL of
 * the worker and a full re-read of the issues, nothing handled is taken again.
 */
@Timeout(600)
class TriggersExampleIT {
  private static final Path EXAMPLE = Path.of("../examples/triggers").toAbsolutePath().normalize();

  @TempDir
  Path tmp;

  private Cluster cluster;
  private FakeGithub github;
  private Cluster.WorkerProcess replacement;

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster, github); // the cluster first: its workers still talk to the fake
  }

  @Test
  void theTriggersExampleRunsOfflineAgainstTheFakeGithub() throws Exception {
    github = new FakeGithub();
    github.issue("acme/app", 1, "Crash on save", List.of("bug"), "Steps: save twice.");
    github.issue("acme/app", 2, "How do I export?", List.of("question"), "?");
    github.pullRequest("acme/app", 3, "Fix the crash", List.of("bug"));
    cluster = new Cluster(tmp, EXAMPLE).startServer("dev");
    Files.writeString(cluster.dir.resolve(".env"), "GITHUB_TOKEN=offline-token\nCOLONY_GITHUB_API_URL=" + github.url() + "\n");
    Cluster.WorkerProcess worker = cluster.startWorker("w1");
    String started = cluster.cli("start", cluster.dir.toString());
    assertTrue(started.contains("watching acme/app for GitHub issues (1 ant, every 300s)"), started);
    try {
      eventually(Duration.ofSeconds(60), () -> Cluster.read(worker.log())
          .contains("[triage] ✅ **triage** finished session 1: triage worked on issue #1"), "Cluster.read(worker.log()) .contains(\"[triage] ✅ **triage** finished session 1: triage ...");
      String helper = cluster.cli("status", "triggers/helper");
      assertTrue(helper.contains("wakes on:           human messages only"), helper);
      assertTrue(helper.contains("sessions:           0"), helper);
      String standup = cluster.cli("status", "triggers/standup");
      assertTrue(standup.contains("wakes on:           cron '0 9 * * 1-5' (Europe/Paris)"), standup);
      cluster.cli("send", "triggers/helper", "summarise the open bugs");
      eventually(Duration.ofSeconds(60), () -> Cluster.read(worker.log())
          .contains("[helper] ✅ **helper** finished session 1: helper ran session 1"), "Cluster.read(worker.log()) .contains(\"[helper] ✅ **helper** finished session 1: helper ...");
      // A second bug arrives later and is its own session; the first is never taken again.
      github.issue("acme/app", 4, "Data loss", List.of("bug", "p1"), "lost it");
      cluster.cli("start", cluster.dir.toString(), "triage"); // re-subscribing polls at once
      eventually(Duration.ofSeconds(60), () -> Cluster.read(worker.log())
          .contains("[triage] ✅ **triage** finished session 2: triage worked on issue #4"), "Cluster.read(worker.log()) .contains(\"[triage] ✅ **triage** finished session 2: triage ...");
      // SIGKILL the worker, start another, and make the watcher read every open issue again:
      // the issues already handled are not taken again, a new one is.
      Cluster.kill9(worker);
      replacement = cluster.startWorker("w2");
      github.issue("acme/app", 5, "Slow start", List.of("bug"), "slow");
      cluster.cli("start", cluster.dir.toString(), "triage");
      eventually(Duration.ofSeconds(60), () -> Cluster.read(replacement.log())
          .contains("[triage] ✅ **triage** finished session 3: triage worked on issue #5"), "Cluster.read(replacement.log()) .contains(\"[triage] ✅ **triage** finished session 3: tr...");
      // No issue is taken twice and nothing else runs: watched for 3 s after the last session.
      throughout(Duration.ofSeconds(3), () -> {
        String seen = Cluster.read(worker.log()) + Cluster.read(replacement.log());
        return seen.lines().filter(l -> l.contains("worked on issue #")).count() <= 3
            && seen.lines().noneMatch(l -> l.contains("[standup] ✅"));
      }, () -> "an issue taken twice, or standup ran: " + Cluster.read(worker.log()) + Cluster.read(replacement.log()));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics() + "\ngithub: " + github.log, e);
    }
    String log = Cluster.read(worker.log()) + Cluster.read(replacement.log());
    assertEquals(1, log.lines().filter(l -> l.contains("worked on issue #4")).count(), log);
    assertEquals(1, log.lines().filter(l -> l.contains("worked on issue #5")).count(), log);
    assertEquals(1, log.lines().filter(l -> l.contains("worked on issue #1")).count(), log);
    assertTrue(log.lines().noneMatch(l -> l.contains("issue #2") || l.contains("issue #3")), log);
    assertTrue(log.lines().noneMatch(l -> l.contains("[standup] ✅")), log);

    // Shutting the colony down: every ant stops, and the command waits until each has.
    String stopped = cluster.cli("stop", "--all", cluster.dir.toString(), "--timeout", "30");
    assertTrue(stopped.contains("colony 'triggers': 3 of 3 running ants stopped"), stopped);
    assertTrue(Cluster.read(replacement.log()).contains("[helper] ⏹️"), Cluster.read(replacement.log()));
  }
}
