package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/slack-ntfy as the README runs it, offline: {@code colony fakes} (a fake Slack and ntfy)
 * and {@code colony dev} on the example, two processes. The ant posts in Slack; its billing error
 * mentions the operators, is copied to the alerts channel and pushed to the phone once, then
 * reminded; an operator's {@code !resume} typed into the fakes resumes it; a stranger is refused.
 * Then the same colony with a refused app-level token, an unknown channel and an unreachable
 * ntfy: one clear line each, no token and no stack trace, and the ant still runs.
 */
@Timeout(600)
class SlackNtfyExampleIT {
  private static final Path EXAMPLE = Path.of("../examples/slack-ntfy").toAbsolutePath().normalize();
  private static final Duration LONG = Duration.ofSeconds(90);

  @TempDir
  Path tmp;

  private Cluster cluster;
  private Process fakes;
  private Process dev;

  @AfterEach
  void tearDown() throws Exception {
    for (Process p : new Process[] {dev, fakes}) {
      if (p != null) {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
    Cluster.closeAll(cluster);
  }

  private Process start(Path log, List<String> args, java.util.Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(Cluster.jvm(args.toArray(String[]::new)))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("COLONY_TEMPORAL_CLI", Cluster.temporalCli());
    pb.environment().putAll(env);
    return pb.start();
  }

  @Test
  void theExampleRunsOfflineAgainstTheFakesThroughColonyDev() throws Exception {
    cluster = new Cluster(tmp, EXAMPLE);
    int slackPort = Cluster.freePort();
    int ntfyPort = Cluster.freePort();
    Path fakesLog = cluster.logs.resolve("fakes.log");
    Path devLog = cluster.logs.resolve("dev.log");
    fakes = start(fakesLog, List.of("fakes", "--slack-port", Integer.toString(slackPort), "--ntfy-port",
        Integer.toString(ntfyPort)), java.util.Map.of());
    eventually(LONG, () -> Cluster.read(fakesLog).contains("fake ntfy:"), () -> "Cluster.read(fakesLog).contains(\"fake ntfy:\")" + logs(fakesLog));
    // The example's .env names the fakes' default ports; these override them (the environment wins).
    dev = start(devLog, List.of("dev", cluster.dir.toString(), "--port", Integer.toString(cluster.port),
        "--ui-port", Integer.toString(cluster.uiPort)), java.util.Map.of(
            "COLONY_SLACK_API_URL", "http://127.0.0.1:" + slackPort + "/api/",
            "NTFY_URL", "http://127.0.0.1:" + ntfyPort + "/night-shift"));
    eventually(LONG, () -> Cluster.read(fakesLog).contains("[slack #work] 🐜 *builder* is starting up."), () -> "Cluster.read(fakesLog).contains(\"[slack #work] 🐜 *builder* is starting up.\")" + logs(devLog, fakesLog));
    eventually(LONG, () -> Cluster.read(fakesLog).contains("[slack #work] ✅ *builder* finished session 1"), () -> "Cluster.read(fakesLog).contains(\"[slack #work] ✅ *builder* finished session 1\")" + logs(devLog, fakesLog));

    // The billing error: the operators' group mentioned in #work, a copy in #alerts, one push.
    eventually(LONG, () -> Cluster.read(fakesLog).contains("[slack #work] <!subteam^S0OPS00001> 💳 *builder* has a "
        + "billing error"), () -> "Cluster.read(fakesLog).contains(\"[slack #work] <!subteam^S0OPS00001> 💳 *builder* has a ..." + logs(devLog, fakesLog));
    eventually(LONG, () -> Cluster.read(fakesLog).contains("[slack #alerts] <!subteam^S0OPS00001> 💳 *builder*"), () -> "Cluster.read(fakesLog).contains(\"[slack #alerts] <!subteam^S0OPS00001> 💳 *builder*\")" + logs(devLog, fakesLog));
    eventually(LONG, () -> Cluster.read(fakesLog).contains("[ntfy night-shift, priority 4] night-shift/builder needs "
        + "a human: builder is paused: the agent's billing or quota needs attention. Answer: fix the cause, then "
        + "colony resume night-shift/builder"), () -> "Cluster.read(fakesLog).contains(\"[ntfy night-shift, priority 4] night-shift/builder nee..." + logs(devLog, fakesLog));
    assertTrue(Cluster.read(fakesLog).contains("/namespaces/default/workflows/ant%2Fnight-shift%2Fbuilder)"),
        Cluster.read(fakesLog));

    try (Writer human = new OutputStreamWriter(fakes.getOutputStream(), StandardCharsets.UTF_8)) {
      // A stranger cannot resume it; an operator can.
      human.write("say work eve !resume\n");
      human.flush();
      eventually(LONG, () -> Cluster.read(fakesLog).contains("[slack #work] ⛔ Only the colony's operators"), () -> "Cluster.read(fakesLog).contains(\"[slack #work] ⛔ Only the colony's operators\")" + logs(devLog, fakesLog));
      human.write("slash work dana status\n");
      human.flush();
      eventually(LONG, () -> Cluster.read(fakesLog).contains("[/colony, only you see this]")
          && Cluster.read(fakesLog).contains("paused:             yes (billing)"), () -> "Cluster.read(fakesLog).contains(\"[/colony, only you see this]\") && Cluster.read(fakesLo..." + logs(devLog, fakesLog));
      human.write("say work dana !resume\n");
      human.flush();
      eventually(LONG, () -> Cluster.read(fakesLog).contains("[slack #work] ▶️ *builder* resuming."), () -> "Cluster.read(fakesLog).contains(\"[slack #work] ▶️ *builder* resuming.\")" + logs(devLog, fakesLog));
      eventually(LONG, () -> Cluster.read(fakesLog).contains("[slack #work] ✅ *builder* finished session 3"), () -> "Cluster.read(fakesLog).contains(\"[slack #work] ✅ *builder* finished session 3\")" + logs(devLog, fakesLog));
    }
    String log = Cluster.read(fakesLog);
    assertEquals(1, log.lines().filter(l -> l.startsWith("[ntfy ") && !l.contains("Reminder")).count(),
        "one push for one need:\n" + log);
    assertFalse(Cluster.read(devLog).contains("xoxb-fake") || Cluster.read(devLog).contains("xapp-fake"),
        "no token in colony dev's output");
  }

  @Test
  void aWrongTokenAnUnknownChannelAndAnUnreachableNtfyAreOneClearLineEachAndTheAntRunsOn() throws Exception {
    cluster = new Cluster(tmp, EXAMPLE);
    int slackPort = Cluster.freePort();
    Path fakesLog = cluster.logs.resolve("fakes.log");
    Path devLog = cluster.logs.resolve("dev.log");
    fakes = start(fakesLog, List.of("fakes", "--slack-port", Integer.toString(slackPort), "--ntfy-port",
        Integer.toString(Cluster.freePort())), java.util.Map.of());
    eventually(LONG, () -> Cluster.read(fakesLog).contains("fake ntfy:"), () -> "Cluster.read(fakesLog).contains(\"fake ntfy:\")" + logs(fakesLog));
    Files.writeString(cluster.dir.resolve("ants/builder.yaml"),
        Files.readString(cluster.dir.resolve("ants/builder.yaml")).replace("\"#work\"", "\"#nowhere\""));
    dev = start(devLog, List.of("dev", cluster.dir.toString(), "--port", Integer.toString(cluster.port),
        "--ui-port", Integer.toString(cluster.uiPort)), java.util.Map.of(
            "COLONY_SLACK_API_URL", "http://127.0.0.1:" + slackPort + "/api/",
            "SLACK_APP_TOKEN", "xapp-revoked-token-9999999999",
            "NTFY_URL", "http://127.0.0.1:9/night-shift"));
    // The ant runs on regardless: sessions go on and it pauses on its billing error as usual.
    eventually(LONG, () -> cluster.statusSays("night-shift/builder", "paused:             yes (billing)"),
        () -> "night-shift/builder's status says paused (billing)" + logs(devLog, fakesLog));
    eventually(LONG, () -> Cluster.read(devLog).contains("notify: ntfy topic 'team': cannot reach ntfy at 127.0.0.1:9"), () -> "Cluster.read(devLog).contains(\"notify: ntfy topic 'team': cannot reach ntfy at 127.0.0...." + logs(devLog));
    String out = Cluster.read(devLog);
    assertTrue(out.contains("slack: connection failed: apps.connections.open: the app-level token was refused "
        + "(invalid_auth): check integrations.slack.app_token"), out);
    assertTrue(out.contains("slack: post of builder to '#nowhere' not delivered: no channel '#nowhere' that the app can see"), out);
    assertEquals(1, out.lines().filter(l -> l.contains("slack: connection failed")).count(), "said once:\n" + out);
    assertEquals(1, out.lines().filter(l -> l.contains("to '#nowhere' not delivered")).count(), "said once:\n" + out);
    assertFalse(out.contains("xapp-revoked") || out.contains("Exception in") || out.contains("\tat "),
        "no token, no stack trace:\n" + out);
  }

  /** What a failed wait shows: the logs named. */
  private static String logs(Path log, Path... more) {
    StringBuilder sb = new StringBuilder().append("\n==== ").append(log).append('\n').append(Cluster.read(log));
    for (Path m : more) {
      sb.append("\n==== ").append(m).append('\n').append(Cluster.read(m));
    }
    return sb.toString();
  }
}
