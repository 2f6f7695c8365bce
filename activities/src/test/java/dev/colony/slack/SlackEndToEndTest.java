package dev.colony.slack;

import static dev.colony.testing.Eventually.DEFAULT;
import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.chat.impl.ChatActivitiesImpl;
import dev.colony.config.ColonyLoader;
import dev.colony.config.LoadedColony;
import dev.colony.engine.claude.FakeClaude;
import dev.colony.fakes.FakeSlack;
import dev.colony.session.impl.SessionActivitiesImpl;
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slack end to end on loopback: the real Slack SDK and Bolt's Socket Mode client against the fake
 * Slack, the real AntWorkflow with the real session, workspace and chat activities on Temporal's
 * in-memory server, and the fake claude CLI asking for a dangerous tool.
 */
@Timeout(180)
class SlackEndToEndTest {
  private static final String WORK = "C0WORK001";
  private static final String ALERTS = "C0ALERTS1";
  private static final String DANA = "U0DANA001"; // operator, through the ops user group
  private static final String EVE = "U0EVE0001"; // in the channel, not an operator
  private static final String ADA = "U0ADA0001"; // a workspace admin
  private static final String OPS = "S0OPS0001";

  @TempDir
  Path dir;

  private FakeSlack slack;
  private TestWorkflowEnvironment env;
  private SlackBridge bridge;
  private Path fake;
  private LoadedColony colony;

  @AfterEach
  void close() throws Exception {
    if (bridge != null) {
      bridge.close();
    }
    if (env != null) {
      env.close();
    }
    if (slack != null) {
      slack.close();
    }
  }

  private List<String> posts() {
    return slack.texts(WORK);
  }

  private boolean posted(String prefix) {
    return posts().stream().anyMatch(p -> p.startsWith(prefix));
  }

  private void setUp(String slackLines) throws Exception {
    slack = new FakeSlack().channel(WORK, "work", true).channel(ALERTS, "colony-alerts", true)
        .user(DANA, "dana", false).user(EVE, "eve", false).user(ADA, "ada", true).group(OPS, DANA);
    fake = Files.createDirectories(dir.resolve("fake"));
    Path bin = FakeClaude.install(fake);
    Files.write(fake.resolve("script.jsonl"), List.of(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"sess-s\"}",
        "{\"type\":\"control_request\",\"request_id\":\"p1\",\"request\":{\"subtype\":\"can_use_tool\",\"tool_name\":\"Bash\",\"input\":{\"command\":\"git push origin fix\"}}}",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":3,\"result\":\"Fix pushed.\",\"session_id\":\"sess-s\"}"));
    Files.writeString(dir.resolve("colony.yaml"), """
        name: sc
        integrations:
          slack:
            bot_token: ${SLACK_BOT_TOKEN}
            app_token: ${SLACK_APP_TOKEN}
            %s
        defaults:
          poll_interval: 1h
        """.formatted(slackLines));
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/fixer.yaml"), """
        name: fixer
        description: fixes bugs
        instructions: fix the bug
        engine: claude
        integrations:
          slack:
            channel: "#work"
        """ + FakeClaude.sandboxYaml(fake));
    Files.writeString(dir.resolve(".env"), "SLACK_BOT_TOKEN=" + FakeSlack.BOT_TOKEN + "\nSLACK_APP_TOKEN="
        + FakeSlack.APP_TOKEN + "\nCOLONY_CLAUDE_BIN=" + bin + "\nFAKE_CLAUDE_DIR=" + fake + "\nANTHROPIC_API_KEY=sk-test\n");
    colony = ColonyLoader.load(dir);
    SlackSettings settings = colony.slack();
    OkHttpClient http = new OkHttpClient();
    SlackSink sink = new SlackSink(new SlackApi(http, slack.apiUrl(), FakeSlack.BOT_TOKEN), settings);

    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    worker.registerActivitiesImplementations(
        SessionActivitiesImpl.withDefaultEngines(sink, new PrintStream(PrintStream.nullOutputStream())),
        new WorkspaceActivitiesImpl(), new ChatActivitiesImpl(sink));
    env.start();
    bridge = new SlackBridge(env.getWorkflowClient(), "sc", settings, new SlackApi(http, slack.apiUrl(),
        FakeSlack.BOT_TOKEN), FakeSlack.BOT_TOKEN);
    bridge.connect(FakeSlack.APP_TOKEN);
    eventually(DEFAULT, () -> slack.openSockets() == 1 && bridge.connected(), () -> "sockets: " + slack.openSockets());
  }

  private AntWorkflow startFixer() {
    var spec = colony.ant("fixer").orElseThrow();
    AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(ant::run, new AntRun(spec, null));
    return ant;
  }

  private FakeSlack.Message request() {
    return slack.messages(WORK).stream().filter(m -> m.text().contains("wants to use Bash")).findFirst().orElseThrow();
  }

  @Test
  void operatorsDriveAnAntFromItsChannelWithButtonsCommandsAndTheSlashCommand() throws Exception {
    setUp("operators: [" + OPS + "]\n    alerts_channel: colony-alerts");
    AntWorkflow ant = startFixer();

    // The request is posted with the operators' group mentioned, buttons, and a copy in the alerts channel.
    eventually(DEFAULT, () -> posts().stream().anyMatch(p -> p.contains("wants to use Bash")), () -> posts().toString());
    FakeSlack.Message request = request();
    assertTrue(request.text().startsWith("<!subteam^" + OPS + "> ⚙️ *fixer* wants to use Bash"), request.text());
    assertEquals("colony_approve", request.blocks().get(1).path("elements").get(0).path("action_id").asText());
    assertEquals("fixer#1", request.metadata().path("event_payload").path("request").asText());
    eventually(DEFAULT, () -> slack.texts(ALERTS).stream().anyMatch(t -> t.contains("wants to use Bash")
        && t.contains("|open>")), () -> slack.texts(ALERTS).toString());

    // A stranger's button press is refused, privately; the request still waits.
    slack.press(WORK, request.ts(), EVE, "colony_approve", "fixer#1");
    eventually(DEFAULT, () -> slack.ephemerals.stream().anyMatch(e -> e.path("user").asText().equals(EVE)
        && e.path("text").asText().startsWith("⛔ eve")), () -> slack.ephemerals.toString());
    assertEquals(1, ant.status().confirmations().size());

    // An operator approves: the session goes on, the request shows who decided instead of the buttons.
    slack.press(WORK, request.ts(), DANA, "colony_approve", "fixer#1");
    eventually(DEFAULT, () -> posted("✅ *fixer* finished session 1: Fix pushed"), () -> posts().toString());
    eventually(DEFAULT, () -> request().blocks().get(1).toString().contains("approved by dana"), () -> request().toString());
    assertTrue(Files.readString(fake.resolve("decisions.txt")).contains("\"behavior\":\"allow\""));
    // A later reaction changes nothing and says so.
    slack.react(WORK, request.ts(), DANA, "x");
    eventually(DEFAULT, () -> slack.ephemerals.stream().anyMatch(e -> e.path("text").asText().contains("already decided")), () -> slack.ephemerals.toString());

    // !status answers from the workflow at once.
    slack.say(WORK, DANA, "!status");
    eventually(DEFAULT, () -> posts().stream().anyMatch(p -> p.contains("sc/fixer (engine claude)") && p.contains("sessions:           1")), () -> posts().toString());

    // The slash command: answered in its acknowledgement, within Slack's 3 seconds.
    String envelope = slack.slash(WORK, DANA, "status fixer");
    JsonNode ack = slack.ack(envelope, Duration.ofSeconds(5));
    assertNotNull(ack, "the slash command was acknowledged");
    assertTrue(ack.path("text").asText().contains("sc/fixer (engine claude)"), ack.toString());
    JsonNode refused = slack.ack(slack.slash(WORK, EVE, "pause"), Duration.ofSeconds(5));
    assertTrue(refused.path("text").asText().startsWith("⛔"), refused.toString());
    assertFalse(ant.status().paused());
    JsonNode help = slack.ack(slack.slash(WORK, EVE, ""), Duration.ofSeconds(5));
    assertTrue(help.path("text").asText().contains("/colony pause"), help.toString());

    // !pause pauses; a stranger's !resume is refused.
    slack.say(WORK, DANA, "!pause");
    eventually(DEFAULT, () -> ant.status().paused(), () -> posts().toString());
    eventually(DEFAULT, () -> posted("⏸️ *fixer*"), () -> posts().toString());
    slack.say(WORK, EVE, "!resume");
    eventually(DEFAULT, () -> posted("⛔ Only the colony's operators"), () -> posts().toString());
    assertTrue(ant.status().paused());

    // Plain text is a work instruction (Slack's escapes undone): the paused ant resumes to handle it.
    slack.say(WORK, DANA, "please also update the docs &amp; keep &lt;b&gt; tags");
    eventually(DEFAULT, () -> posted("▶️ *fixer*"), () -> posts().toString());
    eventually(DEFAULT, () -> {
      try {
        return Files.readString(fake.resolve("prompt.json")).contains("please also update the docs & keep <b> tags");
      } catch (java.io.IOException e) {
        return false;
      }
    }, () -> posts().toString());

    // The bot's own posts and other bots are never taken as instructions; hostile frames change nothing.
    int queued = ant.status().queueDepth();
    slack.say(WORK, FakeSlack.BOT_USER, "!pause");
    slack.raw("not json at all \u0000\u0001");
    slack.raw("{\"envelope_id\":\"x\",\"type\":\"events_api\",\"payload\":{\"event\":{\"type\":\"message\"}}}");
    slack.say(WORK, DANA, "!status");
    eventually(DEFAULT, () -> posts().stream().filter(p -> p.contains("sc/fixer (engine claude)")).count() >= 2, () -> posts().toString());
    assertEquals(queued, ant.status().queueDepth());
    assertFalse(ant.status().paused());
    assertTrue(bridge.connected());
  }

  @Test
  void withoutOperatorsOnlyAWorkspaceAdminMayDecideByReaction() throws Exception {
    setUp("mention: none");
    AntWorkflow ant = startFixer();
    eventually(DEFAULT, () -> posts().stream().anyMatch(p -> p.contains("wants to use Bash")), () -> posts().toString());
    FakeSlack.Message request = request();
    assertTrue(request.text().startsWith("⚙️"), "nobody to mention: " + request.text());
    slack.react(WORK, request.ts(), EVE, "white_check_mark");
    eventually(DEFAULT, () -> slack.ephemerals.stream().anyMatch(e -> e.path("text").asText().contains("Administrators only")), () -> slack.ephemerals.toString());
    assertEquals(1, ant.status().confirmations().size());
    slack.react(WORK, request.ts(), ADA, "x");
    eventually(DEFAULT, () -> posted("❌ *fixer*: request #1 denied by ada (Slack)"), () -> posts().toString());
    // Anyone may still ask for the status.
    slack.say(WORK, EVE, "!status");
    eventually(DEFAULT, () -> posts().stream().anyMatch(p -> p.contains("sc/fixer (engine claude)")), () -> posts().toString());
  }
}
