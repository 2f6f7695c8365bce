package dev.colony.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.board.FakeTaskBoard;
import dev.colony.client.FakeMergeSource;
import dev.colony.client.FakeSource;
import dev.colony.secrets.Secrets;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server as the SDK serves it on stdio, spoken to line by line as a client would: the
 * protocol revision it agrees, the tools it lists with their annotations and schemas, a call
 * recorded as the client named in its initialize, a bad call answered as a tool error, and only
 * JSON-RPC messages on its output.
 */
@Timeout(60)
class McpProtocolTest {
  static final ObjectMapper JSON = new ObjectMapper();
  FakeSource source;
  McpSyncServer server;
  OutputStream toServer;
  BufferedReader fromServer;
  final List<String> lines = new ArrayList<>();
  volatile boolean ended;

  @BeforeEach
  void start() throws Exception {
    source = new FakeSource();
    source.put(FakeSource.row("alpha", 1, "session 3 running"));
    Pipe in = Pipe.open();
    Pipe out = Pipe.open();
    toServer = Channels.newOutputStream(in.sink());
    fromServer = new BufferedReader(new InputStreamReader(Channels.newInputStream(out.source()), StandardCharsets.UTF_8));
    ColonyMcp mcp = new ColonyMcp(source, new FakeTaskBoard("hello"), new FakeMergeSource(), new Secrets(), "dana");
    OutputStream serverOut = Channels.newOutputStream(out.sink());
    // As colony mcp serves it: the guard before the SDK's transport.
    server = mcp.serve(new StdioServerTransportProvider(ColonyMcp.jsonMapper(),
        new StdioGuard(Channels.newInputStream(in.source()), serverOut, ColonyMcp.jsonMapper(), () -> ended = true),
        serverOut), "test");
  }

  @AfterEach
  void stop() throws Exception {
    toServer.close();
    server.close();
  }

  void send(String json) throws Exception {
    toServer.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    toServer.flush();
  }

  /** The response to request {@code id}; every line before it must be a JSON-RPC message too. */
  JsonNode response(int id) throws Exception {
    while (true) {
      String line = fromServer.readLine();
      assertTrue(line != null, "the server closed its output");
      lines.add(line);
      JsonNode n = JSON.readTree(line);
      assertEquals("2.0", n.get("jsonrpc").asText(), "only protocol messages on the output: " + line);
      if (n.has("id") && n.get("id").asInt() == id) {
        return n;
      }
    }
  }

  @Test
  void aClientInitializesListsAndCalls() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"test-host\",\"version\":\"1.0\"}}}");
    JsonNode init = response(1).get("result");
    assertEquals("2025-11-25", init.get("protocolVersion").asText(), "the protocol's current revision");
    assertEquals("colony", init.get("serverInfo").get("name").asText());
    assertTrue(init.get("capabilities").has("tools"));
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

    send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    JsonNode tools = response(2).get("result").get("tools");
    assertEquals(24, tools.size());
    JsonNode stop = null;
    for (JsonNode t : tools) {
      if (t.get("name").asText().equals("ant_stop")) {
        stop = t;
      }
    }
    assertTrue(stop != null, tools.toString());
    assertTrue(stop.get("annotations").get("destructiveHint").asBoolean(), stop.toString());
    assertFalse(stop.get("annotations").get("readOnlyHint").asBoolean());
    assertEquals("object", stop.get("inputSchema").get("type").asText());
    assertTrue(stop.has("outputSchema"));

    send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ant_pause\","
        + "\"arguments\":{\"ant\":\"alpha\"}}}");
    JsonNode paused = response(3).get("result");
    assertFalse(paused.path("isError").asBoolean(), paused.toString());
    assertEquals("mcp:test-host (dana)", paused.get("structuredContent").get("by").asText());
    assertEquals(List.of("alpha pause by test-host (dana)"), source.actions);
    assertEquals(List.of("mcp:test-host (dana)"), source.identities);

    send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"ant_pause\","
        + "\"arguments\":{\"ant\":\"not an ant\"}}}");
    JsonNode bad = response(4).get("result");
    assertTrue(bad.get("isError").asBoolean(), bad.toString());
    assertTrue(bad.get("content").get(0).get("text").asText().startsWith("'ant' is not an ant's name"), bad.toString());

    send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"colony_ants\","
        + "\"arguments\":{\"limit\":\"lots\"}}}");
    assertTrue(response(5).get("result").get("isError").asBoolean(), "a mistyped argument is a tool error too");

    send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"colony_inbox\"}}");
    JsonNode inbox = response(6).get("result");
    assertFalse(inbox.path("isError").asBoolean(), inbox.toString());
    assertEquals("hello", inbox.get("structuredContent").get("colony").asText());
    assertEquals(1, source.actions.size(), "the reads sent nothing");
  }

  /**
   * The SDK ended the whole session on the first line it could not read (a blank line, {}, JSON
   * nested too deep): the host then waited for answers that never came. Each such line is now
   * answered with the protocol's error and the session goes on.
   */
  @Test
  void aLineTheServerCannotReadIsAnsweredAndTheSessionGoesOn() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"test-host\",\"version\":\"1.0\"}}}");
    response(1);
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    send("");
    send("{}");
    JsonNode empty = JSON.readTree(fromServer.readLine());
    assertEquals(-32600, empty.get("error").get("code").asInt(), empty.toString());
    assertTrue(empty.get("id").isNull(), empty.toString());
    send("{\"id\":9}");
    JsonNode noMethod = response(9);
    assertEquals(-32600, noMethod.get("error").get("code").asInt(), noMethod.toString());
    send("this is not json");
    assertEquals(-32700, JSON.readTree(fromServer.readLine()).get("error").get("code").asInt());
    send("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"colony_ants\",\"arguments\":"
        + "[".repeat(1100) + "]".repeat(1100) + "}}");
    JsonNode deep = JSON.readTree(fromServer.readLine());
    assertEquals(-32700, deep.get("error").get("code").asInt(), "nested deeper than the parser reads: " + deep);

    // A CR is JSON's whitespace; the SDK ended the line there and the session with it.
    send("{\"jsonrpc\":\"2.0\",\r\"id\":11,\"method\":\"ping\"}\r\r");
    assertTrue(response(11).has("result"), "the line with CRs is read whole");
    // Inside a string a raw CR is not JSON: refused, never changed into something the client did not send.
    send("{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"ant_send\","
        + "\"arguments\":{\"ant\":\"alpha\",\"text\":\"a\rb\"}}}");
    assertEquals(-32700, JSON.readTree(fromServer.readLine()).get("error").get("code").asInt());
    send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    assertEquals(24, response(2).get("result").get("tools").size(), "the session is alive");
    assertFalse(ended);
    toServer.close();
    dev.colony.testing.Eventually.eventually(java.time.Duration.ofSeconds(10), () -> ended,
        "the end of the client's output ends the server");
  }
}
