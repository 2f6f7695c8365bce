package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.fakes.FakeSlack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slack with real processes: two workers with the tokens against the fake Slack (Web API and
 * Socket Mode), on the real Temporal dev server. One Socket Mode connection for both; operators
 * drive the ant from its channel; a stranger is refused; the connection holder is killed with
 * SIGKILL and the survivor connects; a 429 is waited out; no post shows twice; no token in any
 * log or in the ant's history.
 */
@Timeout(600)
class SlackIT {
  private static final Path FIXTURE = Path.of("src/test/resources/slack-colony").toAbsolutePath();
  private static final String WORK = "C0WORK001";
  private static final String ALERTS = "C0ALERTS1";
  private static final String DANA = "U0DANA001";
  private static final String EVE = "U0EVE0001";

  @TempDir
  Path tmp;

  private Cluster cluster;
  private FakeSlack slack;

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster, slack); // the cluster first: its workers still talk to the fake
  }

  private List<String> posts(String channel) {
    return slack.texts(channel);
  }

  private boolean posted(String prefix) {
    return posts(WORK).stream().anyMatch(p -> p.startsWith(prefix));
  }

  @Test
  void twoWorkersOneConnectionOperatorsDriveTheAntAndTheSurvivorTakesOver() throws Exception {
    slack = new FakeSlack().channel(WORK, "work", true).channel(ALERTS, "alerts", true)
        .user(DANA, "dana", false).user(EVE, "eve", false).group("S0OPS0001", DANA);
    cluster = new Cluster(tmp, FIXTURE).startServer("dev");
    Files.copy(Cluster.FIXTURE.resolve("agent.sh"), cluster.dir.resolve("agent.sh"),
        java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    Files.writeString(cluster.dir.resolve(".env"), "SLACK_BOT_TOKEN=" + FakeSlack.BOT_TOKEN + "\nSLACK_APP_TOKEN="
        + FakeSlack.APP_TOKEN + "\nCOLONY_SLACK_API_URL=" + slack.apiUrl() + "\n");
    cluster.mode("alpha", 1, "block");
    cluster.mode("alpha", 2, "block");
    cluster.mode("alpha", 3, "billing");
    Cluster.WorkerProcess w1 = cluster.startWorker("w1");
    Cluster.WorkerProcess w2 = cluster.startWorker("w2");
    eventually(Duration.ofSeconds(30), () -> slack.openSockets() == 1, () -> "slack.openSockets() == 1" + diagnostics());
    // several lease renewals by both workers: one connection all along
    org.awaitility.Awaitility.await("one Socket Mode connection for two workers").during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> slack.openSockets() == 1);
    String holds = "slack: this worker holds the connection";
    assertEquals(1, List.of(w1, w2).stream().filter(w -> Cluster.read(w.log()).contains(holds)).count());

    cluster.start("alpha");
    eventually(Duration.ofSeconds(30), () -> posts(WORK).contains("🐜 *alpha* is starting up."), () -> "posts(WORK).contains(\"🐜 *alpha* is starting up.\")" + diagnostics());
    eventually(Duration.ofSeconds(30), () -> cluster.startsOf("alpha", 1) >= 1, () -> "cluster.startsOf(\"alpha\", 1) >= 1" + diagnostics());

    slack.say(WORK, DANA, "!pause");
    eventually(Duration.ofSeconds(20), () -> posts(WORK).contains("⏸️ *alpha* will pause after the current session."), () -> "posts(WORK).contains(\"⏸️ *alpha* will pause after the current session.\")" + diagnostics());
    slack.say(WORK, EVE, "!resume");
    eventually(Duration.ofSeconds(20), () -> posted("⛔ Only the colony's operators"), () -> "posted(\"⛔ Only the colony's operators\")" + diagnostics());
    cluster.release("alpha", 1);
    eventually(Duration.ofSeconds(30), () -> cluster.status("alpha").paused(), () -> "cluster.status(\"alpha\").paused()" + diagnostics());

    slack.say(WORK, DANA, "please add tests for the parser");
    eventually(Duration.ofSeconds(30), () -> posted("▶️ *alpha*"), () -> "posted(\"▶️ *alpha*\")" + diagnostics());
    eventually(Duration.ofSeconds(30), () -> {
      try {
        return cluster.prompt("alpha", 2).contains("please add tests for the parser");
      } catch (java.io.IOException e) {
        return false;
      }
    }, () -> "{ try { return cluster.prompt(\"alpha\", 2).contains(\"please add tests for the parser\"); ..." + diagnostics());

    // SIGKILL the worker holding the connection: the other one connects.
    Cluster.WorkerProcess holder = Cluster.read(w1.log()).contains(holds) ? w1 : w2;
    Cluster.WorkerProcess survivor = holder == w1 ? w2 : w1;
    int opened = slack.connectionsOpened.get();
    Cluster.kill9(holder);
    eventually(Duration.ofSeconds(45), () -> slack.connectionsOpened.get() > opened && slack.openSockets() == 1, () -> "slack.connectionsOpened.get() > opened && slack.openSockets() == 1" + diagnostics());
    eventually(Duration.ofSeconds(20), () -> Cluster.read(survivor.log()).contains(holds), () -> "Cluster.read(survivor.log()).contains(holds)" + diagnostics());

    // A 429 on the next calls is waited out; nothing is lost. The slash command answers from the new holder.
    slack.rateLimitNextPosts(2);
    slack.say(WORK, DANA, "!clear");
    eventually(Duration.ofSeconds(30), () -> posted("🧹 *alpha*"), () -> "posted(\"🧹 *alpha*\")" + diagnostics());
    var ack = slack.ack(slack.slash(WORK, DANA, "status"), Duration.ofSeconds(10));
    assertTrue(ack != null && ack.path("text").asText().contains("fault/alpha (engine command)"), String.valueOf(ack));
    cluster.release("alpha", 2);
    eventually(Duration.ofSeconds(60), () -> posted("✅ *alpha* finished session 2"), () -> "posted(\"✅ *alpha* finished session 2\")" + diagnostics());

    // Session 3 hits a billing error: the pause post mentions the operators' group, and the
    // alerts channel gets a one-line copy with a link.
    eventually(Duration.ofSeconds(60), () -> posted("<!subteam^S0OPS0001> 💳 *alpha* has a billing error"), () -> "posted(\"<!subteam^S0OPS0001> 💳 *alpha* has a billing error\")" + diagnostics());
    eventually(Duration.ofSeconds(30), () -> posts(ALERTS).stream().anyMatch(p -> p.contains("💳 *alpha*")
        && p.contains("https://colony.slack.com/archives/" + WORK + "/p")), () -> "posts(ALERTS).stream().anyMatch(p -> p.contains(\"💳 *alpha*\") && p.contains(\"https://col..." + diagnostics());

    Map<String, Long> counts = posts(WORK).stream().filter(p -> !p.startsWith("⛔"))
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    counts.forEach((text, n) -> assertEquals(1L, n, "shown once: " + text));
    for (Cluster.WorkerProcess w : List.of(w1, w2)) {
      String log = Cluster.read(w.log());
      assertFalse(log.contains(FakeSlack.BOT_TOKEN) || log.contains(FakeSlack.APP_TOKEN), "no token in " + w.log());
    }
    String history = cluster.history("alpha");
    assertFalse(history.contains("xoxb-") || history.contains("xapp-"), "no token in the ant's history");
  }

  /** What a failed wait shows: the posts, the requests, the cluster's logs. */
  private String diagnostics() {
    return "\nposts: " + posts(WORK) + "\nrequests: " + slack.requests + "\n" + cluster.diagnostics();
  }
}
