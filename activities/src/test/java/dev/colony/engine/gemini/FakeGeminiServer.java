package dev.colony.engine.gemini;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback stand-in for the Gemini REST API: answers {@code :generateContent} calls from a
 * script of (status, JSON body) pairs and records every request it got.
 */
final class FakeGeminiServer implements AutoCloseable {
  record Reply(int status, String body) {}

  record Request(String path, String apiKey, String body) {}

  private final HttpServer server;
  final ConcurrentLinkedDeque<Reply> script = new ConcurrentLinkedDeque<>();
  final List<Request> requests = new CopyOnWriteArrayList<>();

  FakeGeminiServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  FakeGeminiServer reply(int status, String body) {
    script.add(new Reply(status, body));
    return this;
  }

  private void handle(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    requests.add(new Request(ex.getRequestURI().getPath(), ex.getRequestHeaders().getFirst("x-goog-api-key"), body));
    Reply r = script.poll();
    if (r == null) {
      r = new Reply(500, "{\"error\":{\"code\":500,\"message\":\"script exhausted\",\"status\":\"INTERNAL\"}}");
    }
    byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
    ex.sendResponseHeaders(r.status(), bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  static String call(String name, String argsJson) {
    return "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"" + name
        + "\",\"args\":" + argsJson + "}}]},\"finishReason\":\"STOP\"}],"
        + "\"usageMetadata\":{\"promptTokenCount\":100,\"candidatesTokenCount\":10,\"totalTokenCount\":110}}";
  }

  static String text(String text) {
    return "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"" + text + "\"}]},"
        + "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":200,\"candidatesTokenCount\":30,\"totalTokenCount\":230}}";
  }

  static String error(int code, String status, String message, String detailsJson) {
    return "{\"error\":{\"code\":" + code + ",\"message\":\"" + message + "\",\"status\":\"" + status + "\""
        + (detailsJson == null ? "" : ",\"details\":" + detailsJson) + "}}";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
