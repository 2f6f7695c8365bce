package dev.colony.mcp;

import static dev.colony.testing.Eventually.eventually;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.board.FakeTaskBoard;
import dev.colony.client.ColonySource.Row;
import dev.colony.client.FakeMergeSource;
import dev.colony.client.FakeSource;
import dev.colony.overseer.Turn;
import dev.colony.secrets.Secrets;
import dev.colony.testing.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code colony mcp} (stdio) watches the colony only while its client is subscribed to something:
 * no call before the first subscription, the watcher runs while one holds (asking the board and
 * the merge queues only for a subscriber of the inbox), and the calls stop when the last
 * subscription goes, by an unsubscribe or by the client closing the session. The capabilities say
 * that no list ever changes.
 */
@Timeout(60)
class McpSubscriptionsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String ALPHA = "colony://ant/alpha/live";
  final FakeSource source = new FakeSource();
  final FakeTaskBoard board = new FakeTaskBoard("hello");
  final FakeMergeSource merges = new FakeMergeSource();
  ColonyMcp mcp;
  StdioClient client;

  @BeforeEach
  void start() throws Exception {
    source.put(FakeSource.row("alpha", 1, "session 3 running"));
    mcp = new ColonyMcp(source, board, merges, new Secrets(), "dana");
    mcp.watchEvery = Duration.ofMillis(20);
    client = StdioClient.serve(mcp);
    JsonNode caps = client.initialize();
    assertTrue(caps.get("resources").get("subscribe").asBoolean(), caps.toString());
    // Nothing listed ever changes: one resource (the inbox), the ants and tasks are templates, the
    // tools and prompts are the server's own.
    assertFalse(caps.get("resources").path("listChanged").asBoolean(), caps.toString());
    assertFalse(caps.get("tools").path("listChanged").asBoolean(), caps.toString());
    assertFalse(caps.get("prompts").path("listChanged").asBoolean(), caps.toString());
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
  }

  JsonNode response(int id) {
    return client.response(id);
  }

  JsonNode request(String method, String uri) throws Exception {
    JsonNode r = client.request(method, "{\"uri\":\"" + uri + "\"}");
    assertTrue(r.has("result"), r.toString());
    return r;
  }

  long updates(String uri) {
    return client.updates(uri);
  }

  /** Waits until the colony is asked nothing for half a second (the same count of calls at every look). */
  void quiet(String why) {
    AtomicLong last = new AtomicLong(-1);
    await(why).pollInterval(Duration.ofMillis(50)).during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10))
        .until(() -> last.getAndSet(source.calls()) == source.calls());
  }

  @Test
  void theWatcherRunsOnlyWhileAClientIsSubscribed() throws Exception {
    quiet("no call while nobody is subscribed (the watcher asks every 20 ms when it runs)");
    assertEquals(0, source.calls(), "not one call before the first subscription");

    request("resources/subscribe", ALPHA);
    eventually(() -> source.changedSinceCalls.get() >= 3, "the watcher runs while a client is subscribed");
    eventually(() -> source.maxFollowing.get() >= 1, "it follows the subscribed ant's turns without a read first");
    source.addTurns("alpha", new Turn("tool", "Bash", "make", "ok", false));
    eventually(Eventually.DEFAULT, () -> updates(ALPHA) == 1, () -> "an update for alpha's new turn: " + client.messages);
    assertEquals(0, board.listCalls.get(), "only an ant is subscribed: the board is not asked");
    assertEquals(0L, merges.calls.getOrDefault("cards", 0L), "nor the merge queues");

    request("resources/unsubscribe", ALPHA);
    quiet("the calls stop with the last subscription");

    request("resources/subscribe", "colony://inbox");
    eventually(() -> board.listCalls.get() >= 2, "a subscriber of the inbox: the board is asked");
    long before = source.changedSinceCalls.get();
    source.put(new Row("alpha", "waiting", false, null, 3, 0, 0, null, "host1", true, "success",
        FakeSource.card(2, "waiting for a decision"), true, System.currentTimeMillis()));
    eventually(Eventually.DEFAULT, () -> updates("colony://inbox") == 1, () -> "an inbox update: " + client.messages);
    assertTrue(source.changedSinceCalls.get() > before);

    client.hangUp(); // the client goes: the session ends, and its subscriptions with it
    quiet("the calls stop when the session ends");
  }

  @Test
  void anAntThatNeededAHumanSinceBeforeTheSubscriptionLeavesTheInboxAndTheSubscriberIsTold() throws Exception {
    long hourAgo = System.currentTimeMillis() - 3_600_000;
    source.put(new Row("beta", "waiting", false, null, 3, 0, 0, null, "host1", true, "success",
        FakeSource.card(1, "waiting for a decision"), true, hourAgo));
    request("resources/subscribe", "colony://inbox");
    eventually(() -> source.changedSinceCalls.get() >= 3, "the watcher runs");
    source.put(new Row("beta", "waiting", false, null, 3, 0, 0, null, "host1", false, "success",
        FakeSource.card(2, "approved, back at work"), true, System.currentTimeMillis()));
    eventually(Eventually.DEFAULT, () -> updates("colony://inbox") >= 1,
        () -> "beta left the inbox (its confirmation answered): the subscriber is told: " + client.messages);
  }

  /**
   * A subscription no server follows (a config, a task, a made-up URI, up to the request's size) is
   * refused before the SDK records it: the SDK keeps every URI it is given, without a bound.
   */
  @Test
  void aSubscriptionTheServerNeverNotifiesIsRefusedAndStartsNothing() throws Exception {
    for (String uri : List.of("colony://ant/alpha/config", "colony://task/t1", "colony://x/" + "y".repeat(50_000))) {
      JsonNode r = client.request("resources/subscribe", StdioClient.JSON.writeValueAsString(Map.of("uri", uri)));
      assertEquals(-32602, r.path("error").path("code").asInt(), () -> r.toString());
      assertTrue(r.get("error").get("message").asText().startsWith("only colony://inbox and colony://ant/{name}/live"),
          () -> r.toString());
    }
    quiet("a config or a task is never told changed: nothing to watch");
    assertEquals(0, source.calls());
    request("resources/subscribe", "colony://ant/alpha/live"); // the session goes on
  }
}
