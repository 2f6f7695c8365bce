package dev.colony.console;

import static dev.colony.testing.Eventually.eventually;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.board.FakeTaskBoard;
import dev.colony.client.ColonySource.Row;
import dev.colony.client.FakeMergeSource;
import dev.colony.client.FakeSource;
import dev.colony.mcp.ColonyMcp;
import dev.colony.merge.ItemState;
import dev.colony.overseer.Turn;
import dev.colony.secrets.Secrets;
import dev.colony.task.TaskState;
import dev.colony.testing.Eventually;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Subscriptions on the console's {@code /mcp}, told from the console's one live stream: the MCP
 * SDK's Streamable HTTP client subscribes and hears of an ant's change and new turns and of the
 * inbox's; two clients share the one poll; with nobody subscribed (and no page) the console asks
 * Temporal nothing, before the first subscription and after the last one goes (an unsubscribe, a
 * session closed, a client gone without a word).
 */
@Timeout(90)
class McpLiveTest {
  static final String TOKEN = ConsoleServerTest.TOKEN;
  static final String READ = ConsoleServerTest.READ;
  static final String ALPHA = "colony://ant/alpha/live";
  static final String INBOX = "colony://inbox";

  final FakeSource source = new FakeSource();
  final FakeTaskBoard board = new FakeTaskBoard("hello");
  final FakeMergeSource merges = new FakeMergeSource();
  final List<McpSyncClient> clients = new ArrayList<>();
  final HttpClient http = HttpClient.newHttpClient();
  ConsoleServer server;

  void start(Duration keepAlive) {
    source.put(FakeSource.row("alpha", 1, "waiting for the next tick"));
    source.put(FakeSource.row("beta", 1, "waiting"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0).withTokens(TOKEN, READ)
        .withTiming(Duration.ofMillis(50), keepAlive), source, board, merges, new Secrets());
  }

  @AfterEach
  void stop() {
    clients.forEach(McpSyncClient::close);
    if (server != null) {
      server.close();
    }
  }

  /** A client of the SDK, its token {@code token}, that writes down each resource it is told changed. */
  record Client(McpSyncClient mcp, List<String> told) {
    long of(String uri) {
      return told.stream().filter(uri::equals).count();
    }
  }

  Client client(String token) {
    List<String> told = new CopyOnWriteArrayList<>();
    HttpClientStreamableHttpTransport t = HttpClientStreamableHttpTransport.builder(server.url()).endpoint("/mcp")
        .jsonMapper(ColonyMcp.jsonMapper())
        .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + token)).build();
    McpSyncClient c = McpClient.sync(t).clientInfo(new McpSchema.Implementation("colony-test", "1"))
        .requestTimeout(Duration.ofSeconds(20)).initializationTimeout(Duration.ofSeconds(20))
        .resourcesUpdateConsumer(contents -> contents.forEach(x -> told.add(x.uri()))).build();
    clients.add(c);
    c.initialize();
    McpSchema.ServerCapabilities caps = c.getServerCapabilities();
    assertEquals(Boolean.TRUE, caps.resources().subscribe(), "the console's /mcp takes subscriptions: " + caps);
    assertEquals(Boolean.FALSE, caps.resources().listChanged(), "nothing listed ever changes: " + caps);
    return new Client(c, told);
  }

  static void subscribe(Client c, String uri) {
    c.mcp().subscribeResource(new McpSchema.SubscribeRequest(uri));
  }

  JsonNode metrics() {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url() + "/api/metrics"))
          .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      return Views.MAPPER.readTree(r.body());
    } catch (java.io.IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  long viewers() {
    return metrics().get("viewers").asLong();
  }

  /** Waits until Temporal is asked nothing for a second (the same count of calls at every look). */
  void quiet(String why) {
    AtomicLong last = new AtomicLong(-1);
    await(why).pollInterval(Duration.ofMillis(50)).during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(20))
        .until(() -> last.getAndSet(source.calls()) == source.calls());
  }

  static Row alpha(long revision, String doing, boolean needsHuman) {
    return new Row("alpha", "waiting", false, null, 3, 0, 0, null, "host1", needsHuman, "success",
        FakeSource.card(revision, doing), true, System.currentTimeMillis());
  }

  @Test
  void aSubscriberHearsOfItsAntFromTheLiveStreamAndTheCallsStopWhenItUnsubscribes() throws Exception {
    start(Duration.ofSeconds(5));
    Client c = client(TOKEN);
    quiet("connected, not subscribed: no call");
    assertEquals(0, source.calls(), "a connected client that subscribed to nothing costs nothing");

    subscribe(c, ALPHA);
    eventually(() -> source.changedSinceCalls.get() >= 3, "the console's one poller runs for the subscriber");
    eventually(() -> source.maxFollowing.get() >= 1, "and the history long poll of alpha, as for a page of alpha");
    source.put(alpha(2, "compiling", false));
    eventually(Eventually.DEFAULT, () -> c.of(ALPHA) >= 1, () -> "told of alpha's change: " + c.told());
    long before = c.of(ALPHA);
    source.addTurns("alpha", new Turn("tool", "Bash", "make test", "all green", false));
    eventually(Eventually.DEFAULT, () -> c.of(ALPHA) > before, () -> "told of alpha's new turn: " + c.told());
    source.put(new Row("beta", "waiting", false, null, 3, 0, 0, null, "host1", false, "success",
        FakeSource.card(2, "beta changed"), true, System.currentTimeMillis()));
    long polls = metrics().get("polls").asLong();
    eventually(() -> metrics().get("polls").asLong() >= polls + 5, "more polls");
    assertEquals(0, c.of("colony://ant/beta/live"), "nobody subscribed to beta: " + c.told());

    c.mcp().unsubscribeResource(new McpSchema.UnsubscribeRequest(ALPHA));
    eventually(() -> viewers() == 0, "the last subscription gone, the console watches nothing");
    quiet("no call once nobody is subscribed");
  }

  @Test
  void twoClientsShareOneStreamAndClosingTheirSessionsStopsIt() throws Exception {
    start(Duration.ofSeconds(5));
    Client one = client(TOKEN);
    Client two = client(READ); // a reader may subscribe too: the resources only read
    subscribe(one, ALPHA);
    subscribe(two, ALPHA);
    subscribe(two, INBOX);
    eventually(() -> source.changedSinceCalls.get() >= 3, "the poller runs");
    long polls = metrics().get("polls").asLong();
    long calls = source.changedSinceCalls.get();
    eventually(() -> metrics().get("polls").asLong() >= polls + 20, "twenty polls");
    long p = metrics().get("polls").asLong() - polls;
    long c = source.changedSinceCalls.get() - calls;
    assertTrue(c <= p + 1, "one visibility read per poll for both clients, not one each: " + c + " reads in " + p
        + " polls");
    assertEquals(1, source.maxFollowing.get(), "one history long poll of alpha for both");

    source.put(alpha(2, "compiling", false));
    eventually(Eventually.DEFAULT, () -> one.of(ALPHA) >= 1 && two.of(ALPHA) >= 1,
        () -> "both told of alpha's change: " + one.told() + " " + two.told());

    assertTrue(one.mcp().closeGracefully(), "the first client closes its session");
    long sinceClose = source.changedSinceCalls.get();
    eventually(() -> source.changedSinceCalls.get() >= sinceClose + 3, "the other still subscribed: the poller goes on");
    assertTrue(two.mcp().closeGracefully(), "the second closes its session");
    eventually(() -> viewers() == 0, "both sessions closed, the console watches nothing");
    quiet("no call once the sessions are closed");
  }

  @Test
  void anInboxSubscriberIsToldOfAnAntATaskAndAMergeItem() throws Exception {
    source.put(new Row("gamma", "waiting", false, null, 3, 0, 0, null, "host1", true, "success",
        FakeSource.card(1, "waiting for a decision"), true, System.currentTimeMillis() - 3_600_000));
    start(Duration.ofSeconds(5));
    Client c = client(READ);
    subscribe(c, INBOX);
    eventually(() -> board.listCalls.get() >= 2, "a subscriber of the inbox: the board is followed, as for an inbox page");

    source.put(alpha(2, "waiting for a decision", true));
    eventually(Eventually.DEFAULT, () -> c.of(INBOX) >= 1, () -> "alpha needs a human: " + c.told());

    long n1 = c.of(INBOX);
    source.put(new Row("gamma", "waiting", false, null, 3, 0, 0, null, "host1", false, "success",
        FakeSource.card(2, "approved, back at work"), true, System.currentTimeMillis()));
    eventually(Eventually.DEFAULT, () -> c.of(INBOX) > n1,
        () -> "gamma, waiting since before the subscription, was answered: " + c.told());

    long n2 = c.of(INBOX);
    board.put("t1", "Fix the build", TaskState.IN_REVIEW, null);
    eventually(Eventually.DEFAULT, () -> c.of(INBOX) > n2, () -> "a task came into review: " + c.told());

    long n3 = c.of(INBOX);
    merges.put(FakeMergeSource.card("app", List.of(FakeMergeSource.item("alpha-2", "alpha", ItemState.AWAITING_REVIEW,
        null, 0, null, "t1", 60_000)), List.of(), Map.of(), Map.of(), Map.of()));
    eventually(Eventually.DEFAULT, () -> c.of(INBOX) > n3, () -> "a merge item awaits review: " + c.told());
    assertEquals(0, c.of(ALPHA), "not subscribed to alpha itself: " + c.told());
  }

  @Test
  void aClientGoneWithoutAWordIsForgotten() throws Exception {
    // keep-alive 200 ms: a session with no open stream that sends nothing is forgotten within 2 × 12 of them
    start(Duration.ofMillis(200));
    String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    HttpResponse<String> r = post(init, null);
    assertEquals(200, r.statusCode(), r.body());
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertEquals(202, post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session).statusCode());
    HttpResponse<String> sub = post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":"
        + "{\"uri\":\"" + ALPHA + "\"}}", session);
    assertTrue(sub.body().contains("\"result\""), sub.body());
    // One no server follows is answered as an error here, never recorded by the SDK (which keeps them all).
    HttpResponse<String> never = post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\",\"params\":"
        + "{\"uri\":\"colony://made-up/" + "x".repeat(5_000) + "\"}}", session);
    assertEquals(200, never.statusCode());
    assertTrue(never.body().contains("\"code\":-32602") && never.body().contains("\"id\":3"), never.body());
    eventually(() -> source.changedSinceCalls.get() >= 3, "the poller runs for the subscription");
    // The client goes without a DELETE and holds no stream: its session is forgotten, its subscription with it.
    eventually(Eventually.DEFAULT, () -> viewers() == 0, () -> "the gone client's subscription is dropped");
    quiet("no call once the gone client is forgotten");
  }

  @Test
  void aBodyOverTheBoundIsRefusedBeforeAnythingReadsIt() throws Exception {
    start(Duration.ofSeconds(5));
    String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"" + ALPHA
        + "\",\"pad\":\"" + "x".repeat(ConsoleServer.MAX_BODY) + "\"}}";
    assertEquals(413, post(big, null).statusCode());
    // without a length (chunked): the read stops at the bound
    HttpRequest chunked = HttpRequest.newBuilder(URI.create(server.url() + "/mcp"))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10))
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(
            big.getBytes(java.nio.charset.StandardCharsets.UTF_8)))).build();
    assertEquals(413, http.send(chunked, HttpResponse.BodyHandlers.ofString()).statusCode());
    assertEquals(0, viewers());
  }

  HttpResponse<String> post(String body, String session) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + "/mcp"))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(10));
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
