package dev.colony.discord;

import static dev.colony.testing.Eventually.DEFAULT;
import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.chat.ChatPost;
import dev.colony.chat.impl.ChannelCommands;
import dev.colony.board.FakeTaskBoard;
import dev.colony.config.ColonyLoader;
import dev.colony.config.LoadedColony;
import dev.colony.task.TaskState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task's post in Discord carries Approve and Re-queue; pressing them drives the board (the real
 * JDA client and REST poster against the fake Discord, an in-memory board); {@code /task} and
 * {@code /tasks} in the channel.
 */
@Timeout(120)
class DiscordTaskButtonsTest {
  private static final String DANA = "900000000000000601"; // operator, by role
  private static final String EVE = "900000000000000602"; // in the guild, not an operator
  private static final List<String> OPS = List.of(FakeDiscord.OPS_ROLE_ID);

  @TempDir
  Path dir;

  private FakeDiscord discord;
  private DiscordBridge bridge;
  private final FakeTaskBoard board = new FakeTaskBoard();

  @AfterEach
  void close() throws Exception {
    if (bridge != null) {
      bridge.close();
    }
    if (discord != null) {
      discord.close();
    }
  }

  private List<String> posts(String channel) {
    return discord.botMessagesIn(channel).stream().map(FakeDiscord.Message::content).toList();
  }

  private boolean answered(String prefix) {
    return discord.followups.stream().anyMatch(f -> f.path("content").asText().startsWith(prefix)
        && (f.path("flags").asInt() & 64) != 0);
  }

  @Test
  void aTasksPostCarriesButtonsThatOperatorsPressOnce() throws Exception {
    discord = new FakeDiscord();
    String work = discord.addChannel("work");
    Files.writeString(dir.resolve("colony.yaml"), """
        name: dc
        integrations:
          discord:
            token: ${DISCORD_TOKEN}
            guild: Colony Test
            operators: ["Colony Ops"]
        """);
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("ants/fixer.yaml"), """
        name: fixer
        description: fixes bugs
        instructions: fix the bug
        engine: claude
        integrations:
          discord:
            channel: work
        """);
    Files.writeString(dir.resolve(".env"), "DISCORD_TOKEN=fake-token\nANTHROPIC_API_KEY=sk-test\n");
    LoadedColony colony = ColonyLoader.load(dir);
    OkHttpClient http = new OkHttpClient();
    DiscordSink sink = new DiscordSink(new DiscordRest(http, discord.apiUrl(), "fake-token"), colony.discordSettings());
    bridge = new DiscordBridge(null, "dc", colony.ants(), colony.discordSettings(), board);
    bridge.connect("fake-token", new DiscordBridge.Endpoints(discord.apiUrl(), discord.gatewayUrl()), http);
    eventually(DEFAULT, () -> discord.registeredCommands.size() == ChannelCommands.COMMANDS.size(),
        () -> "slash commands registered: " + discord.registeredCommands);
    assertTrue(discord.registeredCommands.stream().anyMatch(c -> c.path("name").asText().equals("task")
        && c.path("options").get(0).path("name").asText().equals("text")), discord.registeredCommands.toString());

    // The ant's post about a task in review carries the two buttons; a plain post none.
    board.put("r1", "fix login", TaskState.IN_REVIEW, "fixer");
    sink.deliver(new ChatPost("dc", "fixer", "work", "🔍 **fixer** finished `r1` fix login: waiting for review", "k1", 0, "r1"));
    sink.deliver(new ChatPost("dc", "fixer", "work", "plain", "k2"));
    FakeDiscord.Message post = discord.botMessagesIn(work).get(0);
    assertEquals(List.of("colony_task:approve:r1", "colony_task:requeue:r1"), post.buttons());
    assertEquals(List.of(), discord.botMessagesIn(work).get(1).buttons());

    // A stranger's press is refused, to them alone; the task still waits.
    discord.pressButton(post.id(), EVE, "eve", List.of(), "colony_task:approve:r1");
    eventually(DEFAULT, () -> discord.interactionCallbacks.stream().anyMatch(c -> c.path("type").asInt() == 4
        && c.path("data").path("content").asText().startsWith("⛔ eve: only the colony's operators")
        && (c.path("data").path("flags").asInt() & 64) != 0), () -> discord.interactionCallbacks.toString());
    assertEquals(TaskState.IN_REVIEW, board.get("r1").state());

    // An operator approves: answered privately, the post says who did it and loses its buttons.
    discord.pressButton(post.id(), DANA, "dana", OPS, "colony_task:approve:r1");
    eventually(DEFAULT, () -> answered("✅ `r1` is Done now."), () -> discord.followups.toString());
    eventually(DEFAULT, () -> discord.message(post.id()).content().endsWith("\n✅ approved by @dana (Done)")
        && discord.message(post.id()).buttons().isEmpty(), () -> discord.message(post.id()).toString());
    assertEquals(TaskState.DONE, board.get("r1").state());
    // Pressed twice (a client that still shows the buttons): nothing changes, and it says so.
    discord.pressButton(post.id(), DANA, "dana", OPS, "colony_task:approve:r1");
    eventually(DEFAULT, () -> answered("ℹ️ `r1` is already Done"), () -> discord.followups.toString());
    assertEquals(1, board.changes.stream().filter(c -> c.startsWith("approve r1")).count());

    // Re-queue asks for the comment in a modal, then re-queues with it.
    board.put("b1", "flaky test", TaskState.BLOCKED, "fixer");
    sink.deliver(new ChatPost("dc", "fixer", "work", "🧱 **fixer** is blocked on `b1`", "k3", 0, "b1"));
    FakeDiscord.Message blocked = discord.botMessagesIn(work).get(2);
    discord.pressButton(blocked.id(), DANA, "dana", OPS, "colony_task:requeue:b1");
    eventually(DEFAULT, () -> discord.interactionCallbacks.stream().anyMatch(c -> c.path("type").asInt() == 9
        && c.path("data").path("custom_id").asText().equals("colony_task_requeue:b1")), () -> discord.interactionCallbacks.toString());
    // A forged submit by a stranger is refused like a press.
    discord.submitModal(blocked.id(), EVE, "eve", List.of(), "colony_task_requeue:b1", Map.of("comment", "do nothing"));
    eventually(DEFAULT, () -> answered("⛔ eve"), () -> discord.followups.toString());
    assertEquals(TaskState.BLOCKED, board.get("b1").state());
    discord.submitModal(blocked.id(), DANA, "dana", OPS, "colony_task_requeue:b1", Map.of("comment", "mock the clock @everyone"));
    eventually(DEFAULT, () -> answered("🔁 `b1` is To Do now."), () -> discord.followups.toString());
    eventually(DEFAULT, () -> discord.message(blocked.id()).content().endsWith("\n🔁 re-queued by @dana: mock the clock @\u200beveryone"),
        () -> discord.message(blocked.id()).toString());
    assertEquals("requeue b1 by @dana: mock the clock @everyone", board.changes.getLast());
    // Re-queue pressed again: no modal, a sentence.
    int modals = (int) discord.interactionCallbacks.stream().filter(c -> c.path("type").asInt() == 9).count();
    discord.pressButton(blocked.id(), DANA, "dana", OPS, "colony_task:requeue:b1");
    eventually(DEFAULT, () -> discord.interactionCallbacks.stream().anyMatch(c -> c.path("data").path("content").asText()
        .startsWith("ℹ️ `b1` is already To Do")), () -> discord.interactionCallbacks.toString());
    assertEquals(modals, discord.interactionCallbacks.stream().filter(c -> c.path("type").asInt() == 9).count());

    // The words in the channel: operators add, strangers are refused; /tasks lists; mentions stay inert.
    discord.humanWrites(work, DANA, "dana", OPS, "/task add Fix the @everyone banner priority:high");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("📋 Added task `t1` to To Do: Fix the @\u200beveryone banner (high, for fixer).")),
        () -> posts(work).toString());
    discord.humanWrites(work, EVE, "eve", List.of(), "/task add sneaky");
    eventually(DEFAULT, () -> posts(work).stream().anyMatch(p -> p.startsWith("⛔ Only the colony's operators")), () -> posts(work).toString());
    discord.slashCommand(work, DANA, "dana", OPS, "tasks", Map.of("state", "todo"));
    eventually(DEFAULT, () -> discord.interactionCallbacks.stream().anyMatch(c -> c.path("data").path("content").asText()
        .contains("**To Do** (2)")), () -> discord.interactionCallbacks.toString());
    assertEquals(2, board.list(dev.colony.board.TaskBoard.Filter.all(10)).stream().filter(c -> c.state() == TaskState.TODO).count());
  }
}
