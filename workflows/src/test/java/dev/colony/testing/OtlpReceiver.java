package dev.colony.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

/**
 * A tiny OTLP/HTTP receiver for tests: a JDK {@code HttpServer} on {@code 127.0.0.1} (any free
 * port) that answers every {@code POST} with 200 and an empty body, and keeps what it was sent
 * (path, headers, body, gzip undone). Decoding the protobuf body is the test's business (with the
 * {@code opentelemetry-proto} classes of the exporter under test). Set
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} to {@link #endpoint()}.
 */
public final class OtlpReceiver implements AutoCloseable {
  /** One request: its path ({@code /v1/metrics}), its headers (names in lower case), its body. */
  public record Post(String path, Map<String, String> headers, byte[] body) {}

  private final HttpServer server;
  private final java.util.concurrent.ExecutorService answering;
  private final List<Post> posts = new CopyOnWriteArrayList<>();
  private volatile int status = 200;

  public OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::answer);
    answering = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "otlp-receiver");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(answering);
    server.start();
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      Map<String, String> headers = new TreeMap<>();
      exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
      byte[] body;
      try (InputStream in = "gzip".equalsIgnoreCase(headers.get("content-encoding"))
          ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      posts.add(new Post(exchange.getRequestURI().getPath(), headers, body));
      exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(status, -1);
    }
  }

  /** The base URL, as {@code OTEL_EXPORTER_OTLP_ENDPOINT} takes it: {@code http://127.0.0.1:PORT}. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Every request so far, in the order received. */
  public List<Post> posts() {
    return List.copyOf(posts);
  }

  /** The requests to {@code path} so far. */
  public List<Post> posts(String path) {
    return posts.stream().filter(p -> p.path().equals(path)).toList();
  }

  /** The status the next requests are answered with (200 unless a test makes the receiver fail). */
  public void answerWith(int status) {
    this.status = status;
  }

  @Override
  public void close() {
    server.stop(0);
    answering.shutdownNow();
  }
}
