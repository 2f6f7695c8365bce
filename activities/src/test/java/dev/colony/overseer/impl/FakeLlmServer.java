package dev.colony.overseer.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback stand-in for the two model APIs the supervisor calls: Anthropic's Messages API
 * ({@code POST /v1/messages}) and Gemini's {@code :generateContent}. It answers from a script of
 * (status, body) pairs and records each request, so the real SDKs run against it.
 */
public final class FakeLlmServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  public record Reply(int status, String body) {}

  public record Request(String path, String apiKey, String body) {}

  private final HttpServer server;
  private final ConcurrentLinkedDeque<Reply> script = new ConcurrentLinkedDeque<>();
  public final List<Request> requests = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
  private volatile java.nio.file.Path answeredFile;

  public FakeLlmServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * After each answer, writes how many requests it has answered to {@code file}: a latch a
   * scripted agent waits on instead of sleeping (whatever the load, it goes on once answered).
   */
  public FakeLlmServer countAnswersIn(java.nio.file.Path file) {
    answeredFile = file;
    return this;
  }

  public FakeLlmServer reply(int status, String body) {
    script.add(new Reply(status, body));
    return this;
  }

  /** An Anthropic message whose text is {@code text}, after a thinking block. */
  public static String claude(String text) {
    try {
      return JSON.writeValueAsString(Map.of(
          "id", "msg_01", "type", "message", "role", "assistant", "model", "claude-test",
          "content", List.of(
              Map.of("type", "thinking", "thinking", "Looking at the turns...", "signature", "sig"),
              Map.of("type", "text", "text", text)),
          "stop_reason", "end_turn",
          "usage", Map.of("input_tokens", 321, "output_tokens", 45)));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String claudeError(String type, String message) {
    return "{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":\"" + message + "\"}}";
  }

  /** A Gemini answer whose text is {@code text}. */
  public static String gemini(String text) {
    try {
      return JSON.writeValueAsString(Map.of(
          "candidates", List.of(Map.of("content", Map.of("role", "model", "parts", List.of(Map.of("text", text))),
              "finishReason", "STOP")),
          "usageMetadata", Map.of("promptTokenCount", 100, "candidatesTokenCount", 10, "totalTokenCount", 110)));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String verdict(String verdict, String whisper, String reason) {
    try {
      return JSON.writeValueAsString(Map.of("verdict", verdict, "whisper", whisper, "reason", reason));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String key = ex.getRequestHeaders().getFirst("x-api-key");
    if (key == null) {
      key = ex.getRequestHeaders().getFirst("x-goog-api-key");
    }
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    if (key == null && auth != null && auth.startsWith("Bearer ")) {
      key = auth.substring("Bearer ".length()); // how the Anthropic SDK sends an API key
    }
    requests.add(new Request(ex.getRequestURI().getPath(), key, body));
    Reply r = script.poll();
    if (r == null) {
      r = new Reply(500, claudeError("api_error", "script exhausted"));
    }
    byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(r.status(), bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
    java.nio.file.Path count = answeredFile;
    if (count != null) {
      java.nio.file.Path tmp = count.resolveSibling(count.getFileName() + ".tmp");
      java.nio.file.Files.writeString(tmp, answered.incrementAndGet() + "\n");
      java.nio.file.Files.move(tmp, count, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
