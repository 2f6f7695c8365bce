package dev.colony.github.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.colony.trigger.IssueEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives GitHub {@code issues} webhooks. Each delivery's {@code X-Hub-Signature-256} is checked
 * (HMAC-SHA256 of the body with the colony's {@code webhook_secret}, compared in constant time);
 * a bad or missing signature is refused with 401 and one log line. Accepted issues go to
 * {@code sink} (the repository's watcher), which wakes the ants exactly as a poll would.
 */
public final class WebhookServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WebhookServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int MAX_BODY = 1 << 20;
  private static final Set<String> ACTIONS = Set.of("opened", "reopened", "labeled", "edited", "transferred");
  /** An issue closed: it wakes nobody, its task (if one was made of it) moves to Done. */
  private static final String CLOSED = "closed";

  private final HttpServer server;
  private final byte[] secret;
  private final Consumer<IssueEvent> sink;

  public WebhookServer(InetSocketAddress address, String secret, Consumer<IssueEvent> sink) throws IOException {
    this.secret = secret == null ? null : secret.getBytes(StandardCharsets.UTF_8);
    this.sink = sink;
    this.server = HttpServer.create(address, 64);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange x) throws IOException {
    try {
      if (!"POST".equals(x.getRequestMethod())) {
        reply(x, 405, "POST only");
        return;
      }
      byte[] body = readBounded(x.getRequestBody());
      if (body == null) {
        reply(x, 413, "too large");
        return;
      }
      String signature = x.getRequestHeaders().getFirst("X-Hub-Signature-256");
      if (secret == null || !valid(signature, body)) {
        log.warn("github webhook: refused a delivery from {} ({})", x.getRemoteAddress().getAddress().getHostAddress(),
            secret == null ? "no webhook_secret configured" : signature == null ? "no signature" : "bad signature");
        reply(x, 401, "bad signature");
        return;
      }
      String event = x.getRequestHeaders().getFirst("X-GitHub-Event");
      if (!"issues".equals(event)) {
        reply(x, 204, "");
        return;
      }
      IssueEvent issue = parse(body);
      if (issue != null) {
        sink.accept(issue);
      }
      reply(x, 204, "");
    } catch (RuntimeException e) {
      log.warn("github webhook: delivery not handled: {}", e.getMessage());
      reply(x, 400, "bad delivery");
    } finally {
      x.close();
    }
  }

  boolean valid(String signature, byte[] body) {
    if (signature == null || !signature.startsWith("sha256=")) {
      return false;
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      byte[] expected = mac.doFinal(body);
      byte[] given = HexFormat.of().parseHex(signature.substring("sha256=".length()));
      return MessageDigest.isEqual(expected, given);
    } catch (IllegalArgumentException e) {
      return false;
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The issue of an {@code issues} delivery worth waking for, or a {@code closed} one (with
   * {@link IssueEvent#closed()}); null otherwise (or a pull request).
   */
  static IssueEvent parse(byte[] body) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON");
    }
    JsonNode i = root.path("issue");
    String action = root.path("action").asText();
    boolean closed = CLOSED.equals(action);
    if (!closed && !ACTIONS.contains(action) || i.isMissingNode() || i.has("pull_request")
        || !closed && !"open".equals(i.path("state").asText("open"))) {
      return null;
    }
    List<String> labels = new ArrayList<>();
    for (JsonNode l : i.path("labels")) {
      labels.add(l.path("name").asText());
    }
    return new IssueEvent(root.path("repository").path("full_name").asText(), i.path("number").asInt(),
        i.path("title").asText(""), i.path("html_url").asText(""), labels, i.path("body").asText(""), closed);
  }

  private static byte[] readBounded(InputStream in) throws IOException {
    byte[] data = in.readNBytes(MAX_BODY + 1);
    if (data.length > MAX_BODY) {
      in.skip(4L * MAX_BODY); // let a moderately oversized sender read the 413; a huge one is cut off
      return null;
    }
    return data;
  }

  private static void reply(HttpExchange x, int code, String text) throws IOException {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(code, code == 204 || b.length == 0 ? -1 : b.length);
    if (b.length > 0 && code != 204) {
      x.getResponseBody().write(b);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
