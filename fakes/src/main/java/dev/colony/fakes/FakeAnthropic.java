package dev.colony.fakes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;

/**
 * Anthropic's Messages API on loopback, as the real Claude Code CLI talks to it
 * ({@code ANTHROPIC_BASE_URL} pointed here): {@code POST /v1/messages} answered with server-sent
 * events when the request says {@code "stream": true} ({@code message_start},
 * {@code content_block_start}, {@code content_block_delta} with {@code text_delta} or
 * {@code input_json_delta}, {@code content_block_stop}, {@code message_delta} with the usage and
 * stop reason, {@code message_stop}) and with one JSON message otherwise;
 * {@code POST /v1/messages/count_tokens}; anything else a 404 in the API's error shape.
 *
 * <p>Scripted: the agent's turns (a request that offers tools) take the next queued {@link Turn}
 * (a text, or a tool call the CLI then runs); when none is left, a closing text. Side requests
 * the CLI makes on its own (a session title, a quota probe: no tools offered) get a short text
 * and take nothing from the queue. Every request is recorded.
 */
public final class FakeAnthropic implements Closeable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One answer of the model: text, or a tool call (and its stop reason {@code tool_use}). */
  public record Turn(String text, String tool, Map<String, Object> input, long inputTokens, long outputTokens) {
    public static Turn text(String text) {
      return new Turn(text, null, null, 100, 20);
    }

    public static Turn toolUse(String tool, Map<String, Object> input) {
      return new Turn(null, tool, input, 100, 30);
    }

    public Turn withUsage(long in, long out) {
      return new Turn(text, tool, input, in, out);
    }
  }

  /** A request as it arrived: method, path, the {@code x-api-key} header, the JSON body (or null). */
  public record Request(String method, String path, String apiKey, String anthropicBeta, JsonNode body) {
    /** Whether it is an agent's turn (it offers the model tools), not a side request. */
    public boolean agentTurn() {
      return body != null && body.path("tools").isArray() && !body.path("tools").isEmpty();
    }

    /** The text of every message it sends, joined (to look for the prompt or a tool's result). */
    public String allText() {
      return body == null ? "" : body.path("messages").toString() + body.path("system");
    }
  }

  private final MockWebServer server = new MockWebServer();
  private final ConcurrentLinkedQueue<Turn> turns = new ConcurrentLinkedQueue<>();
  private final AtomicLong ids = new AtomicLong();
  public final List<Request> requests = new CopyOnWriteArrayList<>();
  private volatile String requiredKey;
  private volatile String closing = "Done.";

  public FakeAnthropic() throws IOException {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest r) {
        try {
          return handle(r);
        } catch (Exception e) {
          return error(500, "api_error", "fake: " + e);
        }
      }
    });
    server.start(java.net.InetAddress.getLoopbackAddress(), 0);
  }

  /** The base URL to set as {@code ANTHROPIC_BASE_URL}. */
  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** host:port, as a sandbox's allow list names it. */
  public String hostPort() {
    return "127.0.0.1:" + server.getPort();
  }

  /** Requests then need {@code x-api-key: key} (a 401 authentication_error otherwise). */
  public FakeAnthropic requireKey(String key) {
    this.requiredKey = key;
    return this;
  }

  /** Queues the model's next agent turns, in order. */
  public FakeAnthropic then(Turn... next) {
    turns.addAll(List.of(next));
    return this;
  }

  /** What the model says once the queue is empty. */
  public FakeAnthropic finally_(String text) {
    this.closing = text;
    return this;
  }

  /** The queued turns not yet taken. */
  public int pending() {
    return turns.size();
  }

  /** The agent turns requested so far. */
  public List<Request> agentTurns() {
    return requests.stream().filter(Request::agentTurn).toList();
  }

  private MockResponse handle(RecordedRequest r) throws IOException {
    String path = r.getUrl().encodedPath();
    String body = r.getBody() == null ? "" : r.getBody().utf8();
    JsonNode json = null;
    if (!body.isBlank()) {
      try {
        json = JSON.readTree(body);
      } catch (IOException e) {
        json = null;
      }
    }
    String key = r.getHeaders().get("x-api-key");
    String bearer = r.getHeaders().get("Authorization");
    if (key == null && bearer != null && bearer.startsWith("Bearer ")) {
      key = bearer.substring("Bearer ".length());
    }
    Request req = new Request(r.getMethod(), path, key, r.getHeaders().get("anthropic-beta"), json);
    requests.add(req);
    if (path.equals("/api/hello")) {
      // The CLI's connectivity check at start (HEAD): the API is there.
      return json(200, JSON.createObjectNode().put("message", "hello"));
    }
    if (requiredKey != null && !requiredKey.equals(key)) {
      return error(401, "authentication_error", "invalid x-api-key");
    }
    if ("POST".equals(r.getMethod()) && path.equals("/v1/messages/count_tokens")) {
      int chars = json == null ? 0 : json.path("messages").toString().length() + json.path("system").toString().length()
          + json.path("tools").toString().length();
      return json(200, JSON.createObjectNode().put("input_tokens", Math.max(1, chars / 4)));
    }
    if ("POST".equals(r.getMethod()) && path.equals("/v1/messages")) {
      if (json == null || !json.path("messages").isArray()) {
        return error(400, "invalid_request_error", "messages: Field required");
      }
      Turn turn = req.agentTurn() ? next() : Turn.text("Colony fake session");
      String model = json.path("model").asText("claude-sonnet-4-5");
      String id = "msg_fake" + ids.incrementAndGet();
      return json.path("stream").asBoolean(false) ? stream(id, model, turn) : message(id, model, turn);
    }
    return error(404, "not_found_error", "Not found: " + r.getMethod() + " " + path);
  }

  private Turn next() {
    Turn t = turns.poll();
    return t == null ? Turn.text(closing) : t;
  }

  private ObjectNode block(Turn t, String id, boolean whole) {
    ObjectNode b = JSON.createObjectNode();
    if (t.tool() == null) {
      b.put("type", "text").put("text", whole ? t.text() : "");
    } else {
      b.put("type", "tool_use").put("id", "toolu_" + id).put("name", t.tool());
      if (whole) {
        b.set("input", JSON.valueToTree(t.input()));
      } else {
        b.putObject("input");
      }
    }
    return b;
  }

  private ObjectNode usage(long in, long out) {
    return JSON.createObjectNode().put("input_tokens", in).put("cache_creation_input_tokens", 0)
        .put("cache_read_input_tokens", 0).put("output_tokens", out);
  }

  private MockResponse message(String id, String model, Turn t) {
    ObjectNode m = JSON.createObjectNode().put("id", id).put("type", "message").put("role", "assistant").put("model", model);
    ArrayNode content = m.putArray("content");
    content.add(block(t, id, true));
    m.put("stop_reason", t.tool() == null ? "end_turn" : "tool_use");
    m.putNull("stop_sequence");
    m.set("usage", usage(t.inputTokens(), t.outputTokens()));
    return json(200, m);
  }

  /** The events Anthropic documents for a streamed message, in order, as one response body. */
  private MockResponse stream(String id, String model, Turn t) throws IOException {
    StringBuilder sse = new StringBuilder();
    ObjectNode start = JSON.createObjectNode().put("type", "message_start");
    ObjectNode m = start.putObject("message").put("id", id).put("type", "message").put("role", "assistant")
        .put("model", model);
    m.putArray("content");
    m.putNull("stop_reason");
    m.putNull("stop_sequence");
    m.set("usage", usage(t.inputTokens(), 1));
    event(sse, "message_start", start);
    ObjectNode blockStart = JSON.createObjectNode().put("type", "content_block_start").put("index", 0);
    blockStart.set("content_block", block(t, id, false));
    event(sse, "content_block_start", blockStart);
    event(sse, "ping", JSON.createObjectNode().put("type", "ping"));
    if (t.tool() == null) {
      // The text in a few pieces, as the model streams it.
      String text = t.text();
      int step = Math.max(1, (text.length() + 2) / 3);
      for (int i = 0; i < text.length(); i += step) {
        ObjectNode d = JSON.createObjectNode().put("type", "content_block_delta").put("index", 0);
        d.putObject("delta").put("type", "text_delta").put("text", text.substring(i, Math.min(text.length(), i + step)));
        event(sse, "content_block_delta", d);
      }
    } else {
      String input = JSON.writeValueAsString(t.input());
      int step = Math.max(1, (input.length() + 1) / 2);
      for (int i = 0; i < input.length(); i += step) {
        ObjectNode d = JSON.createObjectNode().put("type", "content_block_delta").put("index", 0);
        d.putObject("delta").put("type", "input_json_delta")
            .put("partial_json", input.substring(i, Math.min(input.length(), i + step)));
        event(sse, "content_block_delta", d);
      }
    }
    event(sse, "content_block_stop", JSON.createObjectNode().put("type", "content_block_stop").put("index", 0));
    ObjectNode delta = JSON.createObjectNode().put("type", "message_delta");
    delta.putObject("delta").put("stop_reason", t.tool() == null ? "end_turn" : "tool_use").putNull("stop_sequence");
    delta.set("usage", JSON.createObjectNode().put("output_tokens", t.outputTokens()));
    event(sse, "message_delta", delta);
    event(sse, "message_stop", JSON.createObjectNode().put("type", "message_stop"));
    return new MockResponse.Builder().code(200).setHeader("Content-Type", "text/event-stream; charset=utf-8")
        .setHeader("Cache-Control", "no-cache").setHeader("request-id", "req_" + id).body(sse.toString()).build();
  }

  private static void event(StringBuilder sse, String name, JsonNode data) {
    sse.append("event: ").append(name).append('\n').append("data: ").append(data).append("\n\n");
  }

  private static MockResponse error(int code, String type, String message) {
    ObjectNode e = JSON.createObjectNode().put("type", "error");
    e.putObject("error").put("type", type).put("message", message);
    return json(code, e);
  }

  private static MockResponse json(int code, JsonNode body) {
    return new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json")
        .setHeader("request-id", "req_fake").body(body + "\n").build();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
