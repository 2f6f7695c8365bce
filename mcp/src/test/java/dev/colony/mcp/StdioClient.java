package dev.colony.mcp;

import static dev.colony.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A client of a server on stdio, as an agent host speaks to {@code colony mcp}: JSON-RPC lines
 * over pipes, the server behind the same {@link StdioGuard} as the command's. Every line the server
 * writes is kept, as JSON, in {@link #messages}.
 */
final class StdioClient implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  final List<JsonNode> messages = new CopyOnWriteArrayList<>();
  final McpSyncServer server;
  private final OutputStream toServer;
  private int nextId = 10;

  private StdioClient(ColonyMcp mcp) throws IOException {
    Pipe in = Pipe.open();
    Pipe out = Pipe.open();
    toServer = Channels.newOutputStream(in.sink());
    BufferedReader fromServer = new BufferedReader(new InputStreamReader(Channels.newInputStream(out.source()),
        StandardCharsets.UTF_8));
    Thread.ofVirtual().start(() -> {
      try {
        for (String line; (line = fromServer.readLine()) != null;) {
          messages.add(JSON.readTree(line));
        }
      } catch (Exception closed) {
        // the test ended
      }
    });
    OutputStream serverOut = Channels.newOutputStream(out.sink());
    server = mcp.serve(new StdioServerTransportProvider(ColonyMcp.jsonMapper(),
        new StdioGuard(Channels.newInputStream(in.source()), serverOut, ColonyMcp.jsonMapper(), () -> { }), serverOut),
        "test");
  }

  /** {@code mcp} served on stdio, this client at the other end (not initialized yet). */
  static StdioClient serve(ColonyMcp mcp) throws IOException {
    return new StdioClient(mcp);
  }

  /** Initializes the session as "test-host"; the server's capabilities. */
  JsonNode initialize() throws Exception {
    JsonNode caps = request("initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
        + "\"clientInfo\":{\"name\":\"test-host\",\"version\":\"1.0\"}}").get("result").get("capabilities");
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return caps;
  }

  void send(String json) throws IOException {
    toServer.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    toServer.flush();
  }

  /** The answer (result or error) to request {@code method} with {@code params} (JSON, or null for none). */
  JsonNode request(String method, String params) throws IOException {
    int id = nextId++;
    send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\""
        + (params == null ? "" : ",\"params\":" + params) + "}");
    return response(id);
  }

  /** The answer to request {@code id}, once it came. */
  JsonNode response(int id) {
    eventually(() -> find(id) != null, "the response to request " + id);
    return find(id);
  }

  /** The answer to reading {@code uri}. */
  JsonNode read(String uri) throws IOException {
    return request("resources/read", JSON.writeValueAsString(Map.of("uri", uri)));
  }

  /** How many times the server said {@code uri} changed. */
  long updates(String uri) {
    return messages.stream().filter(n -> "notifications/resources/updated".equals(n.path("method").asText())
        && uri.equals(n.path("params").path("uri").asText())).count();
  }

  private JsonNode find(int id) {
    for (JsonNode n : messages) {
      if (n.has("id") && n.get("id").asInt() == id && (n.has("result") || n.has("error"))) {
        return n;
      }
    }
    return null;
  }

  /** The client goes: the end of the server's standard input (the server itself is not closed). */
  void hangUp() throws IOException {
    toServer.close();
  }

  @Override
  public void close() throws IOException {
    toServer.close();
    server.close();
  }
}
