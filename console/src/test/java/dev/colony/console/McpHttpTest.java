package dev.colony.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.client.FakeSource;
import dev.colony.mcp.ColonyMcp;
import dev.colony.secrets.Secrets;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console's {@code /mcp}: the MCP SDK's own Streamable HTTP client against the real server on
 * loopback, behind the console's tokens and Origin rule.
 */
@Timeout(60)
class McpHttpTest {
  static final String TOKEN = ConsoleServerTest.TOKEN;
  static final String READ = ConsoleServerTest.READ;
  static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

  final FakeSource source = new FakeSource();
  final List<McpSyncClient> clients = new ArrayList<>();
  ConsoleServer server;

  void start(String token, String readToken) {
    source.put(FakeSource.row("alpha", 1, "waiting for the next tick"));
    server = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0).withTokens(token, readToken),
        source, new Secrets());
  }

  @AfterEach
  void stop() {
    clients.forEach(McpSyncClient::close);
    if (server != null) {
      server.close();
    }
  }

  /** A client of the SDK's Streamable HTTP transport, sending these headers on every request. */
  McpSyncClient client(String... headers) {
    HttpRequest.Builder rb = HttpRequest.newBuilder();
    for (int i = 0; i < headers.length; i += 2) {
      rb.header(headers[i], headers[i + 1]);
    }
    HttpClientStreamableHttpTransport t = HttpClientStreamableHttpTransport.builder(server.url()).endpoint("/mcp")
        .jsonMapper(ColonyMcp.jsonMapper()).requestBuilder(rb).build();
    McpSyncClient c = McpClient.sync(t).clientInfo(new McpSchema.Implementation("colony-test", "1"))
        .requestTimeout(Duration.ofSeconds(20)).initializationTimeout(Duration.ofSeconds(20)).build();
    clients.add(c);
    return c;
  }

  static List<String> names(McpSyncClient c) {
    return c.listTools().tools().stream().map(McpSchema.Tool::name).toList();
  }

  static McpSchema.CallToolResult call(McpSyncClient c, String tool, Map<String, Object> args) {
    return c.callTool(new McpSchema.CallToolRequest(tool, args));
  }

  @Test
  void anOperatorTokenSeesEveryToolAndActsUnderItsName() {
    start(TOKEN, READ);
    McpSyncClient c = client("Authorization", "Bearer " + TOKEN, "X-Colony-Operator", "dana");
    c.initialize();
    List<String> tools = names(c);
    assertTrue(tools.containsAll(List.of("colony_inbox", "ant_pause", "ant_stop", "task_add", "merge_cancel")), tools.toString());
    McpSchema.CallToolResult r = call(c, "ant_pause", Map.of("ant", "alpha"));
    assertFalse(Boolean.TRUE.equals(r.isError()), r.toString());
    assertEquals(List.of("alpha pause by colony-test (dana)"), source.actions);
    assertEquals(List.of("mcp:colony-test (dana)"), source.identities);
  }

  @Test
  void aReadOnlyTokenSeesOnlyTheReadsAndMayNotAct() {
    start(TOKEN, READ);
    McpSyncClient c = client("Authorization", "Bearer " + READ);
    c.initialize();
    List<String> tools = names(c);
    assertTrue(tools.containsAll(List.of("colony_ants", "ant_status", "colony_inbox", "task_list", "merge_status")),
        tools.toString());
    for (String write : List.of("ant_pause", "ant_stop", "ant_decide", "task_add", "merge_approve", "merge_cancel")) {
      assertFalse(tools.contains(write), write + " listed for a read-only token: " + tools);
    }
    // every tool listed is annotated read-only
    c.listTools().tools().forEach(t -> assertEquals(Boolean.TRUE, t.annotations().readOnlyHint(), t.name()));
    assertTrue(call(c, "colony_ants", Map.of()).toString().contains("alpha"));
    Exception refused = assertThrows(Exception.class, () -> call(c, "ant_pause", Map.of("ant", "alpha")));
    assertTrue(String.valueOf(refused.getMessage()).toLowerCase().contains("ant_pause")
        || String.valueOf(refused.getMessage()).toLowerCase().contains("unknown tool"), refused.toString());
    assertEquals(List.of(), source.actions);
  }

  @Test
  void theConsoleServesNoTranscriptToAnyToken() {
    start(TOKEN, READ);
    dev.colony.visibility.AntCard card = new dev.colony.visibility.AntCard(dev.colony.visibility.AntCard.VERSION, 1,
        "waiting", 0, "waiting", null, null, null, 2, false, null, 0, 0, 0, null, null, "UTC", null, null, List.of(),
        List.of(), List.of(), List.of(), 0);
    source.put(new dev.colony.client.ColonySource.Row("alpha", "waiting", false, null, 2, 0, 0, null, "host1", false,
        "success", card, true, System.currentTimeMillis()));
    for (String token : List.of(TOKEN, READ)) {
      McpSyncClient c = client("Authorization", "Bearer " + token);
      c.initialize();
      Exception e = assertThrows(Exception.class, () -> c.readResource(
          new McpSchema.ReadResourceRequest("colony://ant/alpha/session/1")));
      assertTrue(String.valueOf(e.getMessage()).contains("the console serves no transcripts, as its pages show none"),
          e.toString());
    }
  }

  @Test
  void noTokenOrAWrongOneIsRefusedWhenTokensAreSet() throws Exception {
    start(TOKEN, READ);
    assertEquals(401, post(INIT).statusCode());
    assertEquals(401, post(INIT, "Authorization", "Bearer not-the-token-0123456789").statusCode());
    assertEquals(401, get("Authorization", "Bearer wrong").statusCode());
    assertThrows(RuntimeException.class, () -> client().initialize());
    assertEquals(200, post(INIT, "Authorization", "Bearer " + TOKEN).statusCode());
  }

  /**
   * A refusal is a JSON-RPC error whose message is the console's sentence: an MCP client shows it
   * (the Python SDK surfaces a JSON-RPC error in a non-2xx body; any other body becomes its own
   * "Server returned an error response", which says nothing of the token).
   */
  @Test
  void aRefusalIsAJsonRpcErrorThatSaysWhy() throws Exception {
    start(TOKEN, READ);
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    HttpResponse<String> anonymous = post(INIT);
    assertEquals(401, anonymous.statusCode());
    assertTrue(anonymous.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
        anonymous.headers().toString());
    assertEquals("Bearer realm=\"colony\"", anonymous.headers().firstValue("WWW-Authenticate").orElse(""));
    var body = json.readTree(anonymous.body());
    assertEquals("2.0", body.path("jsonrpc").asText(), anonymous.body());
    assertTrue(body.has("id") && body.get("id").isNull(), anonymous.body());
    assertEquals(-32000, body.path("error").path("code").asInt(), anonymous.body());
    assertEquals("a token is needed (Authorization: Bearer TOKEN)", body.path("error").path("message").asText(),
        anonymous.body());
    var hostile = json.readTree(post(INIT, "Authorization", "Bearer " + TOKEN, "Origin", "http://evil.example").body());
    assertTrue(hostile.path("error").path("message").asText().startsWith("cross-site requests are refused"),
        hostile.toString());
  }

  @Test
  void onLoopbackWithoutTokensNoneIsNeeded() {
    start(null, null);
    McpSyncClient c = client();
    c.initialize();
    assertTrue(names(c).contains("ant_pause"));
    call(c, "ant_pause", Map.of("ant", "alpha"));
    assertEquals(List.of("mcp:colony-test (local)"), source.identities);
  }

  @Test
  void aPageOfAnotherSiteIsRefused() throws Exception {
    start(TOKEN, READ);
    HttpResponse<String> hostile = post(INIT, "Authorization", "Bearer " + TOKEN, "Origin", "http://evil.example");
    assertEquals(403, hostile.statusCode());
    assertTrue(hostile.body().contains("cross-site"), hostile.body());
    // a rebinding name: the Origin and Host of the attacker's site
    assertEquals(403, post(INIT, "Authorization", "Bearer " + TOKEN, "Origin", "http://127.0.0.1:1").statusCode());
    assertEquals(403, get("Authorization", "Bearer " + TOKEN, "Origin", "http://evil.example").statusCode());
    assertEquals(403, post(INIT, "Authorization", "Bearer " + TOKEN, "Sec-Fetch-Site", "cross-site").statusCode());
    // the console's own page may
    assertEquals(200, post(INIT, "Authorization", "Bearer " + TOKEN, "Origin", server.url()).statusCode());
    assertEquals(List.of(), source.actions);
  }

  HttpResponse<String> post(String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + "/mcp"))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(10));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + "/mcp"))
        .header("Accept", "text/event-stream").GET().timeout(Duration.ofSeconds(10));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
