package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colony.discord.FakeDiscord;
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
 * Discord with real processes: two workers with the bot token against the fake Discord, on the
 * real Temporal dev server. One gateway session for both; operators drive the ant from its
 * channel; a stranger is refused; the holder is killed with SIGKILL and the survivor takes the
 * gateway over; a 429 is waited out; no post shows twice.
 */
@Timeout(600)
class DiscordIT {
  private static final Path FIXTURE = Path.of("src/test/resources/discord-colony").toAbsolutePath();
  private static final String DANA = "900000000000000601";
  private static final String EVE = "900000000000000602";
  private static final List<String> OPS = List.of(FakeDiscord.OPS_ROLE_ID);

  @TempDir
  Path tmp;

  private Cluster cluster;
  private FakeDiscord discord;

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster, discord); // the cluster first: its workers still talk to the fake
  }

  private List<String> posts(String channel) {
    return discord.botMessagesIn(channel).stream().map(FakeDiscord.Message::content).toList();
  }

  @Test
  void twoWorkersOneGatewayOperatorsDriveTheAntAndTheSurvivorTakesOver() throws Exception {
    discord = new FakeDiscord();
    String work = discord.addChannel("work");
    String alerts = discord.addChannel("alerts");
    cluster = new Cluster(tmp, FIXTURE).startServer("dev");
    // the fault tests' controllable agent
    Files.copy(Cluster.FIXTURE.resolve("agent.sh"), cluster.dir.resolve("agent.sh"),
        java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    Files.writeString(cluster.dir.resolve(".env"), "DISCORD_TOKEN=fake-token\nCOLONY_DISCORD_API_URL="
        + discord.apiUrl() + "\nCOLONY_DISCORD_GATEWAY_URL=" + discord.gatewayUrl() + "\n");
    cluster.mode("alpha", 1, "block");
    cluster.mode("alpha", 2, "block");
    cluster.mode("alpha", 3, "billing");
    Cluster.WorkerProcess w1 = cluster.startWorker("w1");
    Cluster.WorkerProcess w2 = cluster.startWorker("w2");
    eventually(Duration.ofSeconds(30), () -> discord.connectedSessions() == 1, () -> "discord.connectedSessions() == 1" + diagnostics(work));
    // several lease renewals by both workers: one gateway session all along
    org.awaitility.Awaitility.await("one gateway session for two workers").during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
        .until(() -> discord.identifies.get() == 1);
    assertEquals(1, discord.identifies.get(), "one gateway session for two workers");

    cluster.start("alpha");
    eventually(Duration.ofSeconds(30), () -> posts(work).contains("🐜 **alpha** is starting up."), () -> "posts(work).contains(\"🐜 **alpha** is starting up.\")" + diagnostics(work));
    // The ant claims a host before its first session; a pause before the session has started
    // pauses at once, so wait until the agent of session 1 runs.
    eventually(Duration.ofSeconds(30), () -> cluster.startsOf("alpha", 1) >= 1, () -> "cluster.startsOf(\"alpha\", 1) >= 1" + diagnostics(work));

    discord.humanWrites(work, DANA, "dana", OPS, "/pause");
    eventually(Duration.ofSeconds(20), () -> posts(work).contains("⏸️ **alpha** will pause after the current session."), () -> "posts(work).contains(\"⏸️ **alpha** will pause after the current session.\")" + diagnostics(work));
    discord.humanWrites(work, EVE, "eve", List.of(), "/resume");
    eventually(Duration.ofSeconds(20), () -> posts(work).stream().anyMatch(p -> p.startsWith("⛔ Only the colony's operators")), () -> "posts(work).stream().anyMatch(p -> p.startsWith(\"⛔ Only the colony's operators\"))" + diagnostics(work));
    cluster.release("alpha", 1);
    eventually(Duration.ofSeconds(30), () -> cluster.status("alpha").paused(), () -> "cluster.status(\"alpha\").paused()" + diagnostics(work));

    discord.humanWrites(work, DANA, "dana", OPS, "please add tests for the parser");
    eventually(Duration.ofSeconds(30), () -> posts(work).stream().anyMatch(p -> p.startsWith("▶️ **alpha**")), () -> "posts(work).stream().anyMatch(p -> p.startsWith(\"▶️ **alpha**\"))" + diagnostics(work));
    eventually(Duration.ofSeconds(30), () -> {
      try {
        return cluster.prompt("alpha", 2).contains("please add tests for the parser");
      } catch (java.io.IOException e) {
        return false;
      }
    }, () -> "{ try { return cluster.prompt(\"alpha\", 2).contains(\"please add tests for the parser\"); ..." + diagnostics(work));

    // SIGKILL the worker holding the gateway: the other one takes it over.
    Cluster.WorkerProcess holder = Cluster.read(w1.log()).contains("discord: this worker holds the connection") ? w1 : w2;
    Cluster.WorkerProcess survivor = holder == w1 ? w2 : w1;
    Cluster.kill9(holder);
    eventually(Duration.ofSeconds(45), () -> discord.identifies.get() == 2 && discord.connectedSessions() == 1, () -> "discord.identifies.get() == 2 && discord.connectedSessions() == 1" + diagnostics(work));
    eventually(Duration.ofSeconds(20), () -> Cluster.read(survivor.log()).contains("discord: this worker holds the connection"), () -> "Cluster.read(survivor.log()).contains(\"discord: this worker holds the connection\")" + diagnostics(work));

    // A 429 on the next posts is waited out; nothing is lost.
    discord.rateLimitNextPosts(2);
    discord.humanWrites(work, DANA, "dana", OPS, "/clear");
    eventually(Duration.ofSeconds(30), () -> posts(work).stream().anyMatch(p -> p.startsWith("🧹 **alpha**")), () -> "posts(work).stream().anyMatch(p -> p.startsWith(\"🧹 **alpha**\"))" + diagnostics(work));
    assertEquals(2, discord.rateLimitsSent());
    discord.humanWrites(work, DANA, "dana", OPS, "/status");
    eventually(Duration.ofSeconds(30), () -> posts(work).stream().anyMatch(p -> p.contains("fault/alpha (engine command)")), () -> "posts(work).stream().anyMatch(p -> p.contains(\"fault/alpha (engine command)\"))" + diagnostics(work));
    cluster.release("alpha", 2);
    eventually(Duration.ofSeconds(60), () -> posts(work).stream().anyMatch(p -> p.startsWith("✅ **alpha** finished session 2")), () -> "posts(work).stream().anyMatch(p -> p.startsWith(\"✅ **alpha** finished session 2\"))" + diagnostics(work));

    // Session 3 hits a billing error: the pause post mentions the operators, and the alerts
    // channel gets a one-line copy with a link.
    eventually(Duration.ofSeconds(60), () -> posts(work).stream()
        .anyMatch(p -> p.startsWith("<@&" + FakeDiscord.OPS_ROLE_ID + "> 💳 **alpha** has a billing error")), () -> "posts(work).stream() .anyMatch(p -> p.startsWith(\"<@&\" + FakeDiscord.OPS_ROLE_ID + \"> 💳..." + diagnostics(work));
    eventually(Duration.ofSeconds(30), () -> posts(alerts).stream().anyMatch(p -> p.contains("💳 **alpha**")
        && p.contains("https://discord.com/channels/" + FakeDiscord.GUILD_ID + "/" + work + "/")), () -> "posts(alerts).stream().anyMatch(p -> p.contains(\"💳 **alpha**\") && p.contains(\"https://d..." + diagnostics(work));

    Map<String, Long> counts = posts(work).stream().filter(p -> !p.startsWith("```") && !p.startsWith("⛔"))
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    counts.forEach((text, n) -> assertEquals(1L, n, "shown once: " + text));
  }

  /** What a failed wait shows: the channel's posts, the requests, the cluster's logs. */
  private String diagnostics(String channel) {
    return "\nposts: " + posts(channel) + "\nrequests: " + discord.requestLog() + "\n" + cluster.diagnostics();
  }
}
