package dev.colony.fakes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;

/**
 * An ntfy server on loopback, speaking its publishing API as the real one does: JSON publishing
 * ({@code POST /} with the topic in the body) and plain publishing ({@code POST /<topic>} with
 * {@code Title}, {@code Priority}, {@code Tags} and {@code Click} headers); access tokens
 * ({@code Authorization: Bearer}) when one is required; and polling a topic's messages
 * ({@code GET /<topic>/json?poll=1}), which is how a test, or a phone's app, reads them.
 */
public final class FakeNtfy implements Closeable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BODY = 4096;

  /** A published message. */
  public record Message(String id, String topic, String title, String message, int priority, List<String> tags,
      String click, String actionUrl, String authorization) {}

  private final MockWebServer server = new MockWebServer();
  private final AtomicLong ids = new AtomicLong();
  private final AtomicInteger failuresToSend = new AtomicInteger();
  public final List<Message> messages = new CopyOnWriteArrayList<>();
  private volatile String requiredToken;
  private volatile Consumer<Message> listener = m -> { };

  public FakeNtfy() throws IOException {
    this(0);
  }

  /** A fake ntfy on {@code port} of the loopback interface (0: any free port). */
  public FakeNtfy(int port) throws IOException {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest r) {
        try {
          return handle(r);
        } catch (Exception e) {
          return json(500, JSON.createObjectNode().put("code", 50000).put("error", "fake: " + e));
        }
      }
    });
    server.start(java.net.InetAddress.getLoopbackAddress(), port);
  }

  /** The server's base URL; a topic's URL is this plus its name. */
  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** Publishing then needs {@code Authorization: Bearer <token>}. */
  public FakeNtfy requireToken(String token) {
    this.requiredToken = token;
    return this;
  }

  /** The next {@code n} publishes get HTTP 500. */
  public void failNext(int n) {
    failuresToSend.set(n);
  }

  /** Called with each message as it is published. */
  public void onMessage(Consumer<Message> l) {
    this.listener = l;
  }

  public List<Message> in(String topic) {
    return messages.stream().filter(m -> m.topic().equals(topic)).toList();
  }

  private MockResponse handle(RecordedRequest r) throws IOException {
    String path = r.getUrl().encodedPath();
    if ("GET".equals(r.getMethod()) && path.endsWith("/json")) {
      String topic = path.substring(1, path.length() - "/json".length());
      StringBuilder lines = new StringBuilder();
      for (Message m : in(topic)) {
        lines.append(JSON.writeValueAsString(JSON.createObjectNode().put("id", m.id()).put("event", "message")
            .put("topic", m.topic()).put("title", m.title()).put("message", m.message()).put("priority", m.priority())
            .put("click", m.click()))).append('\n');
      }
      return new MockResponse.Builder().code(200).setHeader("Content-Type", "application/x-ndjson")
          .body(lines.toString()).build();
    }
    if (!"POST".equals(r.getMethod()) && !"PUT".equals(r.getMethod())) {
      return json(405, JSON.createObjectNode().put("code", 40500).put("error", "method not allowed"));
    }
    String auth = r.getHeaders().get("Authorization");
    if (requiredToken != null && !("Bearer " + requiredToken).equals(auth)) {
      return json(auth == null ? 401 : 403, JSON.createObjectNode().put("code", auth == null ? 40101 : 40301)
          .put("error", auth == null ? "unauthorized" : "forbidden"));
    }
    if (failuresToSend.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return json(500, JSON.createObjectNode().put("code", 50001).put("error", "internal server error"));
    }
    String body = r.getBody() == null ? "" : r.getBody().utf8();
    if (body.length() > MAX_BODY) {
      return json(413, JSON.createObjectNode().put("code", 41301).put("error", "message too large"));
    }
    Message m;
    if (path.equals("/") || path.isEmpty()) {
      JsonNode j = JSON.readTree(body);
      String topic = j.path("topic").asText("");
      if (!topic.matches("[A-Za-z0-9_-]{1,64}")) {
        return json(400, JSON.createObjectNode().put("code", 40009).put("error", "invalid topic"));
      }
      List<String> tags = new java.util.ArrayList<>();
      j.path("tags").forEach(t -> tags.add(t.asText()));
      String action = j.path("actions").path(0).path("url").asText(null);
      m = new Message("m" + ids.incrementAndGet(), topic, j.path("title").asText(null), j.path("message").asText(""),
          j.path("priority").asInt(3), tags, j.path("click").asText(null), action, auth);
    } else {
      String topic = path.substring(1);
      if (!topic.matches("[A-Za-z0-9_-]{1,64}")) {
        return json(404, JSON.createObjectNode().put("code", 40401).put("error", "page not found"));
      }
      String tagsHeader = r.getHeaders().get("Tags");
      m = new Message("m" + ids.incrementAndGet(), topic, r.getHeaders().get("Title"), body,
          priority(r.getHeaders().get("Priority")), tagsHeader == null ? List.of() : List.of(tagsHeader.split(",")),
          r.getHeaders().get("Click"), null, auth);
    }
    messages.add(m);
    listener.accept(m);
    ObjectNode ok = JSON.createObjectNode().put("id", m.id()).put("time", 1_790_000_000).put("event", "message")
        .put("topic", m.topic()).put("message", m.message());
    return json(200, ok);
  }

  private static int priority(String p) {
    if (p == null) {
      return 3;
    }
    return switch (p) {
      case "1", "min" -> 1;
      case "2", "low" -> 2;
      case "4", "high" -> 4;
      case "5", "urgent", "max" -> 5;
      default -> 3;
    };
  }

  private static MockResponse json(int code, JsonNode body) {
    return new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json").body(body + "\n").build();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
