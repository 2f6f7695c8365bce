package dev.colony.fakes;

import dev.colony.text.Printable;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The terminal of `colony fakes`: a fake Slack (Web API and Socket Mode) and a fake ntfy on loopback,
 * so a colony wired to Slack and ntfy runs offline (examples/slack-ntfy). What the ants post and push
 * is printed; what a human does in Slack is typed here. The same fakes the tests use.
 *
 * <p>This module (with the mock web server it needs) is not in the CLI's jar, so never on a worker's
 * classpath: `colony fakes` loads it from its own jar, fakes/target/colony-fakes.jar.
 */
public final class FakesTerminal {
  private FakesTerminal() {}

  public static final String WORK = "C0WORK0001";
  public static final String ALERTS = "C0ALERTS01";
  public static final Map<String, String> USERS = Map.of("dana", "U0DANA0001", "eve", "U0EVE00001", "ada", "U0ADA00001");
  public static final String OPS = "S0OPS00001";

  private static final String HELP = """
      Type what a human does in Slack (users: dana is an operator, through the user group; eve is not; ada is an admin):
        say CHANNEL USER TEXT      a message, e.g.  say work dana !status   or   say work dana please add tests
        slash CHANNEL USER TEXT    the /colony command, e.g.  slash work dana pause
        approve CHANNEL USER       press Approve on the newest request in CHANNEL (deny: Deny)
        help | quit""";

  /**
   * Serves the fakes on loopback until standard input says quit (or, when it is closed, until the
   * process is stopped). Started by `colony fakes` from this module's own jar.
   */
  public static int serve(int slackPort, int ntfyPort) throws Exception {
    PrintStream out = System.out;
    try (FakeSlack slack = new FakeSlack(slackPort); FakeNtfy ntfy = new FakeNtfy(ntfyPort)) {
      slack.channel(WORK, "work", true).channel(ALERTS, "alerts", true)
          .user(USERS.get("dana"), "dana", false).user(USERS.get("eve"), "eve", false).user(USERS.get("ada"), "ada", true)
          .group(OPS, USERS.get("dana"));
      slack.onPost(m -> out.println(line(m)));
      ntfy.onMessage(m -> out.println(line(m)));
      out.println("fake Slack: " + slack.apiUrl() + "   (COLONY_SLACK_API_URL; tokens " + FakeSlack.BOT_TOKEN + " and "
          + FakeSlack.APP_TOKEN + "; channels #work and #alerts; operators' user group " + OPS + ")");
      out.println("fake ntfy:  " + ntfy.url() + "/<topic>");
      out.println(HELP);
      out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        String reply = handle(slack, line.strip());
        if (reply == null) {
          break;
        }
        if (!reply.isEmpty()) {
          out.println(reply);
          out.flush();
        }
      }
      if (line == null) {
        // stdin closed (started in the background): serve until stopped
        new java.util.concurrent.CountDownLatch(1).await();
      }
    }
    return 0;
  }

  /** What an ant posted to the fake Slack, as printed. */
  public static String line(FakeSlack.Message m) {
    return "[slack #" + (m.channel().equals(WORK) ? "work" : "alerts") + "] " + Printable.of(m.text())
        + (m.blocks() != null && m.blocks().toString().contains("colony_approve") ? "   [Approve] [Deny]" : "");
  }

  /** What an ant pushed to the fake ntfy, as printed. */
  public static String line(FakeNtfy.Message m) {
    return Printable.of("[ntfy " + m.topic() + ", priority " + m.priority() + "] " + m.title() + ": "
        + m.message().replace('\n', ' ') + (m.click() == null ? "" : "  (" + m.click() + ")"));
  }

  /** One typed line; null to quit. */
  public static String handle(FakeSlack slack, String line) throws InterruptedException {
    if (line.isEmpty()) {
      return "";
    }
    String[] w = line.split("\\s+", 4);
    String cmd = w[0].toLowerCase(Locale.ROOT);
    if (cmd.equals("quit") || cmd.equals("exit")) {
      return null;
    }
    if (cmd.equals("help") || w.length < 3) {
      return HELP;
    }
    String channel = switch (w[1].replace("#", "")) {
      case "work" -> WORK;
      case "alerts" -> ALERTS;
      default -> null;
    };
    String user = USERS.get(w[2].toLowerCase(Locale.ROOT));
    if (channel == null || user == null) {
      return "unknown channel or user: channels work and alerts; users dana, eve and ada";
    }
    if (slack.openSockets() == 0) {
      return "no app is connected yet: start the colony (./colony dev examples/slack-ntfy) and wait for it";
    }
    String text = w.length > 3 ? w[3] : "";
    switch (cmd) {
      case "say" -> {
        slack.say(channel, user, text);
        return "";
      }
      case "slash" -> {
        var ack = slack.ack(slack.slash(channel, user, text), Duration.ofSeconds(5));
        return ack == null ? "(no answer within 5 s)"
            : "[/colony, only you see this] " + Printable.of(ack.path("text").asText());
      }
      case "approve", "deny" -> {
        FakeSlack.Message m = slack.newestRequest(channel);
        if (m == null) {
          return "no request with buttons in that channel";
        }
        slack.press(channel, m.ts(), user, cmd.equals("approve") ? "colony_approve" : "colony_deny",
            m.metadata().path("event_payload").path("request").asText());
        return "";
      }
      default -> {
        return HELP;
      }
    }
  }
}
