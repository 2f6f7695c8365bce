package dev.colony.discord;

import static dev.colony.testing.Eventually.DEFAULT;
import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntRun;
import dev.colony.ant.AntWorkflow;
import dev.colony.ant.AntWorkflowImpl;
import dev.colony.chat.impl.ChatActivitiesImpl;
import dev.colony.config.ColonyLoader;
import dev.colony.config.LoadedColony;
import dev.colony.engine.claude.FakeClaude;
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
import java.util.Map;
import java.util.function.BooleanSupplier;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discord end to end on loopback: the real JDA gateway client and the REST poster against the
 * fake Discord, the real AntWorkflow with the real session, workspace and chat activities on
 * Temporal's in-memory server, and the fake claude CLI asking for a dangerous tool.
 */
@Timeout(180)
class DiscordEndToEndTest {
  private static final String DANA = "900000000000000601"; // operator, by role
  private static final String EVE = "900000000000000602"; // in the guild, not an operator

  @TempDir
  Path dir;

  private FakeDiscord discord;
  private TestWorkflowEnvironment env;
  private DiscordBridge bridge;

  @AfterEach
  void close() throws Exception {
    if (bridge != null) {
      bridge.close();
    }
    if (env != null) {
      env.close();
    }
    if (discord != null) {
      discord.close();
    }
  }

  private List<String> posts(String channel) {
    return discord.botMessagesIn(channel).stream().map(FakeDiscord.Message::content).toList();
  }

  private Path fake;
  private LoadedColony colony;

  /** The colony on the fake Discord, with {@code operatorsLine} in its discord block; returns the channel id. */
  private String setUp(String operatorsLine) throws Exception {
    discord = new FakeDiscord();
    String work = discord.addChannel("work");
    fake = Files.createDirectories(dir.resolve("fake"));
    Path bin = FakeClaude.install(fake);
    Files.write(fake.resolve("script.jsonl"), List.of(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"sess-d\"}",
        "{\"type\":\"control_request\",\"request_id\":\"p1\",\"request\":{\"subtype\":\"can_use_tool\",\"tool_name\":\"Bash\",\"input\":{\"command\":\"git push origin fix\"}}}",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":3,\"result\":\"Fix pushed.\",\"session_id\":\"sess-d\"}"));
    Files.writeString(dir.resolve("colony.yaml"), """
        name: dc
        integrations:
          discord:
            token: ${DISCORD_TOKEN}
            guild: Colony Test
            %s
        defaults:
          poll_interval: 1h
        """.formatted(operatorsLine));
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/fixer.yaml"), """
        name: fixer
        description: fixes bugs
        instructions: fix the bug
        engine: claude
        integrations:
          discord:
            channel: work
        """ + FakeClaude.sandboxYaml(fake));
    Files.writeString(dir.resolve(".env"), "DISCORD_TOKEN=fake-token\nCOLONY_CLAUDE_BIN=" + bin
        + "\nFAKE_CLAUDE_DIR=" + fake + "\nANTHROPIC_API_KEY=sk-test\n");
    colony = ColonyLoader.load(dir);
    DiscordSettings settings = colony.discordSettings();
    OkHttpClient http = new OkHttpClient();
    DiscordSink sink = new DiscordSink(new DiscordRest(http, discord.apiUrl(), "fake-token"), settings);

    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    dev.colony.visibility.AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
    Worker worker = env.newWorker("q");
    worker.registerWorkflowImplementationTypes(AntWorkflowImpl.class);
    worker.registerActivitiesImplementations(
        SessionActivitiesImpl.withDefaultEngines(sink, new PrintStream(PrintStream.nullOutputStream())),
        new WorkspaceActivitiesImpl(), new ChatActivitiesImpl(sink));
    env.start();
    bridge = new DiscordBridge(env.getWorkflowClient(), "dc", colony.ants(), settings);
    bridge.connect("fake-token", new DiscordBridge.Endpoints(discord.apiUrl(), discord.gatewayUrl()), http);
    assertEquals(1, discord.identifies.get());
    eventually(DEFAULT, () -> discord.registeredCommands.size() == dev.colony.chat.impl.ChannelCommands.COMMANDS.size(), () -> "slash commands registered: " + discord.registeredCommands);

    return work;
  }

  private AntWorkflow startFixer() {
    var spec = colony.ant("fixer").orElseThrow();
    AntWorkflow ant = env.getWorkflowClient().newWorkflowStub(AntWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(spec.workflowId()).setTaskQueue("q").build());
    WorkflowClient.start(ant::run, new AntRun(spec, null));
    return ant;
  }

  @Test
  void operatorsDriveAnAntFromItsChannelAndStrangersAreRefused() throws Exception {
    String work = setUp("operators: [\"Colony Ops\"]");
    AntWorkflow ant = startFixer();

    // A confirmation is posted, mentioning the operators' role.
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.contains("wants to use Bash")), () -> posts(work).toString());
    FakeDiscord.Message request = discord.botMessagesIn(work).stream()
        .filter(m -> m.content().contains("wants to use Bash")).findFirst().orElseThrow();
    assertTrue(request.content().startsWith("<@&" + FakeDiscord.OPS_ROLE_ID + "> ⚙️ **fixer**"), request.content());

    // A stranger's ✅ is refused; the request still waits.
    discord.reacts(request.id(), EVE, "eve", List.of(), "✅", false);
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("⛔ eve")), () -> posts(work).toString());
    assertEquals(1, ant.status().confirmations().size());
    // Another bot's reaction is ignored.
    discord.reacts(request.id(), "900000000000000777", "otherbot", List.of(FakeDiscord.OPS_ROLE_ID), "✅", true);

    // An operator approves: the session goes on, the request shows who decided.
    discord.reacts(request.id(), DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "✅", false);
    eventually(DEFAULT, () -> posts(work).contains("✅ **fixer** finished session 1: Fix pushed"), () -> posts(work).toString());
    eventually(DEFAULT, () -> discord.message(request.id()).content().endsWith("\n✅ approved by dana"), () -> discord.message(request.id()).content());
    assertTrue(Files.readString(fake.resolve("decisions.txt")).contains("\"behavior\":\"allow\""));
    // A later reaction changes nothing and says so.
    discord.reacts(request.id(), DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "❌", false);
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.contains("request #1 was already decided")), () -> posts(work).toString());

    // /status answers from the workflow at once.
    discord.humanWrites(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "/status");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.contains("dc/fixer (engine claude)") && p.contains("sessions:           1")), () -> posts(work).toString());

    // The same as a slash command: answered within Discord's 3 seconds, from the workflow.
    discord.slashCommand(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "status", Map.of("ant", "fixer"));
    eventually(DEFAULT, () -> discord.interactionCallbacks.stream().anyMatch(c -> c.path("data").path("content").asText()
        .contains("dc/fixer (engine claude)")), () -> discord.interactionCallbacks.toString());
    discord.slashCommand(work, EVE, "eve", List.of(), "pause", Map.of());
    eventually(DEFAULT, () -> discord.interactionCallbacks.stream().anyMatch(c -> c.path("data").path("content").asText()
        .startsWith("⛔")), () -> discord.interactionCallbacks.toString());
    assertFalse(ant.status().paused());

    // /pause pauses; a stranger's /resume is refused.
    discord.humanWrites(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "/pause");
    eventually(DEFAULT, () -> ant.status().paused(), () -> posts(work).toString());
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("⏸️ **fixer**")), () -> posts(work).toString());
    discord.humanWrites(work, EVE, "eve", List.of(), "/resume");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("⛔ Only the colony's operators")), () -> posts(work).toString());
    assertTrue(ant.status().paused());

    // Unknown commands get a hint; the bot's own posts are never taken as instructions.
    discord.humanWrites(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "/frobnicate");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("Unknown command `/frobnicate`")), () -> posts(work).toString());
    assertEquals(0, ant.status().queueDepth());

    // /stop does nothing in a chat and says which word to use (the one parser's sentence): the paused
    // ant neither ends nor resumes. The pause was recorded as dana's, through Discord.
    String stopAnswer = org.junit.jupiter.api.Assertions.assertThrows(dev.colony.client.VerbRefused.class,
        () -> dev.colony.client.Verbs.typed("/").parse("stop", "")).getMessage();
    discord.humanWrites(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "/stop");
    eventually(DEFAULT, () -> posts(work).contains(stopAnswer), () -> posts(work).toString());
    assertTrue(ant.status().paused(), "still paused, still running");
    List<String> pausedBy = env.getWorkflowClient().fetchHistory(colony.ant("fixer").orElseThrow().workflowId()).getEvents()
        .stream().filter(e -> e.hasWorkflowExecutionSignaledEventAttributes())
        .map(e -> e.getWorkflowExecutionSignaledEventAttributes())
        .filter(a -> a.getSignalName().equals("pause")).map(a -> a.getIdentity()).toList();
    assertEquals(List.of("Discord:dana"), pausedBy);

    // Plain text is a work instruction: the paused ant resumes to handle it, and it reaches the prompt.
    discord.humanWrites(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "please also update the docs");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("▶️ **fixer**")), () -> posts(work).toString());
    eventually(DEFAULT, () -> {
      try {
        return Files.readString(fake.resolve("prompt.json")).contains("please also update the docs");
      } catch (java.io.IOException e) {
        return false;
      }
    }, () -> posts(work).toString());
    assertFalse(ant.status().paused());

    // /urgent: without text a hint; from a stranger refused; from an operator it reaches the next prompt.
    discord.humanWrites(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "/urgent");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("`/urgent` needs the instruction")), () -> posts(work).toString());
    discord.humanWrites(work, EVE, "eve", List.of(), "/urgent drop everything");
    eventually(DEFAULT, () -> posts(work).stream().filter(p -> p.startsWith("⛔ Only the colony's operators")).count() == 2, () -> posts(work).toString());
    discord.humanWrites(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "/urgent rotate the logs first");
    eventually(DEFAULT, () -> {
      try {
        return Files.readString(fake.resolve("prompt.json")).contains("rotate the logs first");
      } catch (java.io.IOException e) {
        return false;
      }
    }, () -> posts(work).toString());
    assertFalse(Files.readString(fake.resolve("prompt.json")).contains("drop everything"));

    // /abort from an operator drops the queue (the answer to a supervisor's escalation).
    discord.humanWrites(work, DANA, "dana", List.of(FakeDiscord.OPS_ROLE_ID), "/abort");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("🗑️ **fixer** aborted its current task")), () -> posts(work).toString());
  }

  @Test
  void withoutOperatorsOnlyAnAdministratorMayApprove() throws Exception {
    String work = setUp("mention: none");
    AntWorkflow ant = startFixer();
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.contains("wants to use Bash")), () -> posts(work).toString());
    FakeDiscord.Message request = discord.botMessagesIn(work).stream()
        .filter(m -> m.content().contains("wants to use Bash")).findFirst().orElseThrow();
    assertTrue(request.content().startsWith("⚙️"), "nobody to mention: " + request.content());
    discord.reacts(request.id(), EVE, "eve", List.of(), "✅", false);
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.contains("Administrators only")), () -> posts(work).toString());
    assertEquals(1, ant.status().confirmations().size());
    discord.reacts(request.id(), "900000000000000603", "ada", List.of(FakeDiscord.ADMIN_ROLE_ID), "❌", false);
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("❌ **fixer**: request #1 denied by ada")), () -> posts(work).toString());
    // Anyone may still queue work and ask for the status.
    discord.humanWrites(work, EVE, "eve", List.of(), "/status");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.contains("dc/fixer (engine claude)")), () -> posts(work).toString());
  }
}
