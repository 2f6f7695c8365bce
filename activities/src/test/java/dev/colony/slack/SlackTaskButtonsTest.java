package dev.colony.slack;

import static dev.colony.testing.Eventually.DEFAULT;
import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.chat.ChatPost;
import dev.colony.board.FakeTaskBoard;
import dev.colony.fakes.FakeSlack;
import dev.colony.task.TaskState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task's post in Slack carries Approve and Re-queue (Block Kit); pressing them over Socket Mode
 * drives the board (the real Slack SDK and Bolt against the fake Slack, an in-memory board);
 * Re-queue's comment comes from a modal; {@code !task} and {@code /colony tasks} in the channel.
 */
@Timeout(120)
class SlackTaskButtonsTest {
  private static final String WORK = "C0WORK001";
  private static final String DANA = "U0DANA001"; // operator, through the ops user group
  private static final String EVE = "U0EVE0001"; // in the channel, not an operator
  private static final String OPS = "S0OPS0001";

  private FakeSlack slack;
  private SlackBridge bridge;
  private final FakeTaskBoard board = new FakeTaskBoard();

  @AfterEach
  void close() throws Exception {
    if (bridge != null) {
      bridge.close();
    }
    if (slack != null) {
      slack.close();
    }
  }

  private boolean told(String user, String prefix) {
    return slack.ephemerals.stream().anyMatch(e -> e.path("user").asText().equals(user)
        && e.path("text").asText().startsWith(prefix));
  }

  private FakeSlack.Message message(String ts) {
    return slack.messages(WORK).stream().filter(m -> m.ts().equals(ts)).findFirst().orElseThrow();
  }

  @Test
  void aTasksPostCarriesButtonsThatOperatorsPressOnce() throws Exception {
    slack = new FakeSlack().channel(WORK, "work", true).user(DANA, "dana", false).user(EVE, "eve", false)
        .group(OPS, DANA);
    SlackSettings settings = new SlackSettings("B", "A", List.of(OPS), Map.of(), Map.of("fixer", "#work"), false, null,
        true);
    OkHttpClient http = new OkHttpClient();
    SlackApi api = new SlackApi(http, slack.apiUrl(), FakeSlack.BOT_TOKEN);
    SlackSink sink = new SlackSink(api, settings);
    bridge = new SlackBridge(null, "sc", settings, api, FakeSlack.BOT_TOKEN, board);
    bridge.connect(FakeSlack.APP_TOKEN);
    eventually(DEFAULT, () -> slack.openSockets() == 1 && bridge.connected(), () -> "sockets: " + slack.openSockets());

    // The ant's post about a task in review carries the two buttons.
    board.put("r1", "fix login", TaskState.IN_REVIEW, "fixer");
    sink.deliver(new ChatPost("sc", "fixer", "#work", "🔍 **fixer** finished `r1` fix login: waiting for review", "k1", 0, "r1"));
    FakeSlack.Message post = slack.messages(WORK).get(0);
    JsonNode buttons = post.blocks().get(1).path("elements");
    assertEquals("colony_task_approve", buttons.get(0).path("action_id").asText());
    assertEquals("colony_task_requeue", buttons.get(1).path("action_id").asText());
    assertEquals("r1", buttons.get(0).path("value").asText());

    // A stranger's press is refused, privately; the task still waits.
    slack.press(WORK, post.ts(), EVE, "colony_task_approve", "r1");
    eventually(DEFAULT, () -> told(EVE, "⛔ eve: only the colony's operators"), () -> slack.ephemerals.toString());
    assertEquals(TaskState.IN_REVIEW, board.get("r1").state());

    // An operator approves: told privately, the post shows who did it instead of the buttons.
    slack.press(WORK, post.ts(), DANA, "colony_task_approve", "r1");
    eventually(DEFAULT, () -> told(DANA, "✅ `r1` is Done now."), () -> slack.ephemerals.toString());
    eventually(DEFAULT, () -> message(post.ts()).blocks().size() == 2
        && message(post.ts()).blocks().get(1).toString().contains("approved by @dana"), () -> message(post.ts()).toString());
    assertEquals(TaskState.DONE, board.get("r1").state());
    // Pressed twice: nothing changes, and it says so.
    slack.press(WORK, post.ts(), DANA, "colony_task_approve", "r1");
    eventually(DEFAULT, () -> told(DANA, "ℹ️ `r1` is already Done"), () -> slack.ephemerals.toString());
    assertEquals(1, board.changes.stream().filter(c -> c.startsWith("approve r1")).count());

    // Re-queue opens a modal for the required comment; a stranger's press opens none.
    board.put("b1", "flaky test", TaskState.BLOCKED, "fixer");
    sink.deliver(new ChatPost("sc", "fixer", "#work", "🧱 **fixer** is blocked on `b1`", "k2", 0, "b1"));
    FakeSlack.Message blocked = slack.messages(WORK).get(1);
    slack.press(WORK, blocked.ts(), EVE, "colony_task_requeue", "b1");
    eventually(DEFAULT, () -> slack.ephemerals.stream().filter(e -> e.path("user").asText().equals(EVE)).count() == 2,
        () -> slack.ephemerals.toString());
    assertTrue(slack.views.isEmpty());
    slack.press(WORK, blocked.ts(), DANA, "colony_task_requeue", "b1");
    eventually(DEFAULT, () -> slack.views.size() == 1, () -> slack.requests.toString());
    JsonNode view = slack.views.get(0);
    assertEquals("colony_task_requeue", view.path("callback_id").asText());
    assertEquals("comment", view.path("blocks").get(0).path("block_id").asText());
    // A stranger submitting it (forged) is refused like a press.
    JsonNode ack = slack.ack(slack.submitView(EVE, view, Map.of("comment", "nothing")), Duration.ofSeconds(5));
    assertNotNull(ack, "the submission was acknowledged");
    eventually(DEFAULT, () -> slack.ephemerals.stream().filter(e -> e.path("user").asText().equals(EVE)).count() == 3,
        () -> slack.ephemerals.toString());
    assertEquals(TaskState.BLOCKED, board.get("b1").state());
    slack.submitView(DANA, view, Map.of("comment", "mock the clock <!channel>"));
    eventually(DEFAULT, () -> told(DANA, "🔁 `b1` is To Do now."), () -> slack.ephemerals.toString());
    assertEquals("requeue b1 by @dana: mock the clock <!channel>", board.changes.getLast());
    eventually(DEFAULT, () -> message(blocked.ts()).blocks().get(1).toString().contains("re-queued by @dana"),
        () -> message(blocked.ts()).toString());
    assertTrue(!message(blocked.ts()).blocks().get(1).toString().contains("<!channel>"), message(blocked.ts()).toString());
    // Re-queue pressed again: no second modal, a sentence.
    slack.press(WORK, blocked.ts(), DANA, "colony_task_requeue", "b1");
    eventually(DEFAULT, () -> told(DANA, "ℹ️ `b1` is already To Do"), () -> slack.ephemerals.toString());
    assertEquals(1, slack.views.size());

    // The words: !task from an operator; a stranger refused; the slash command lists.
    slack.say(WORK, DANA, "!task add Fix the &lt;!here&gt; banner priority:high");
    eventually(DEFAULT, () -> slack.texts(WORK).stream().anyMatch(t -> t.startsWith("📋 Added task `t1` to To Do: Fix the")
        && t.contains("(high, for fixer)")), () -> slack.texts(WORK).toString());
    assertTrue(slack.texts(WORK).stream().noneMatch(t -> t.contains("<!here>")), slack.texts(WORK).toString());
    slack.say(WORK, EVE, "!task add sneaky");
    eventually(DEFAULT, () -> slack.texts(WORK).stream().anyMatch(t -> t.startsWith("⛔ Only the colony's operators")),
        () -> slack.texts(WORK).toString());
    JsonNode list = slack.ack(slack.slash(WORK, DANA, "tasks todo"), Duration.ofSeconds(5));
    assertTrue(list.path("text").asText().contains("*To Do* (2)"), list.toString());
    assertNull(board.get("t2"));
  }
}
