package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.colony.fakes.FakeAnthropic;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claude Code's own telemetry ({@code claude.telemetry: true}): the real CLI, against the fake
 * Anthropic API, sends its metrics and events (OTLP http/protobuf) to the receiver the worker's
 * {@code OTEL_*} variables name, with the colony, the ant, the session and the run as resource
 * attributes; the worker's own traces and metrics reach the same receiver.
 *
 * <p>The ant runs with {@code sandbox: off}: inside the walls the CLI's exporter does not go through
 * the sandbox's proxy (measured with the pinned 2.1.332: nothing arrived and the egress proxy saw
 * no attempt), so its telemetry does not leave a sandboxed session (docs/observability.md).
 */
@Timeout(600)
class ClaudeTelemetryIT {
  private static final Path FIXTURE = Path.of("src/test/resources/claude-colony").toAbsolutePath();

  @TempDir
  Path tmp;

  private Cluster cluster;
  private HttpServer receiver;
  /** "PATH HEADERS BODY" of every request the receiver got. */
  private final List<String> got = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    try {
      Cluster.closeAll(cluster);
    } finally {
      if (receiver != null) {
        receiver.stop(0);
      }
    }
  }

  @Test
  void claudeCodesTelemetryReachesTheCollectorNamedForTheSession() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    receiver.createContext("/", ex -> {
      try (ex) {
        InputStream in = ex.getRequestBody();
        if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
          in = new GZIPInputStream(in);
        }
        byte[] body = in.readAllBytes();
        boolean json = String.valueOf(ex.getRequestHeaders().getFirst("Content-Type")).contains("json");
        got.add(ex.getRequestURI().getPath() + " " + ex.getRequestHeaders().entrySet() + " "
            // protobuf carries its strings as they are: names and attribute values are readable in it
            + new String(body, json ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1));
        byte[] answer = json ? "{}".getBytes(StandardCharsets.UTF_8) : new byte[0];
        ex.getResponseHeaders().set("Content-Type", json ? "application/json" : "application/x-protobuf");
        ex.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
        if (answer.length > 0) {
          ex.getResponseBody().write(answer);
        }
      }
    });
    receiver.start();
    String claude = ClaudeCliIT.claudeCli();
    try (FakeAnthropic api = new FakeAnthropic().requireKey("sk-ant-colony-test")) {
      cluster = new Cluster(tmp, FIXTURE).startServer("dev");
      api.then(FakeAnthropic.Turn.text("Nothing to do."));
      Files.createDirectories(cluster.dir.resolve("ants"));
      Files.writeString(cluster.dir.resolve("ants/coder.yaml"), """
          name: coder
          description: reports its own telemetry
          instructions: Say that there is nothing to do.
          engine: claude
          claude:
            telemetry: true
          sandbox: off
          """);
      Files.writeString(cluster.dir.resolve(".env"), "COLONY_CLAUDE_BIN=" + claude + "\n"
          + "ANTHROPIC_BASE_URL=" + api.url() + "\n"
          + "ANTHROPIC_API_KEY=sk-ant-colony-test\n"
          + "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\n");
      String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort();
      cluster.env.put("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
      // one protocol for all: the worker's push and traces, and Claude Code, speak http/protobuf
      cluster.env.put("OTEL_METRIC_EXPORT_INTERVAL", "1000");
      cluster.env.put("OTEL_LOGS_EXPORT_INTERVAL", "1000");
      cluster.env.put("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer collector-token-123");
      cluster.env.put("OTEL_BSP_SCHEDULE_DELAY", "200");
      try {
        cluster.startWorker("w1");
        cluster.cli("start", cluster.dir.toString());
        eventually(Duration.ofSeconds(180), () -> got.stream().anyMatch(r -> (r.startsWith("/v1/metrics") || r.startsWith("/v1/logs"))
            && r.contains("claude_code") && r.contains("colony.ant") && r.contains("coder")),
            () -> "Claude Code's telemetry with the session's names; received " + got);
        String claudes = String.join("\n", got.stream().filter(r -> (r.startsWith("/v1/metrics") || r.startsWith("/v1/logs"))
            && r.contains("claude_code")).toList());
        assertTrue(claudes.contains("colony.session") && claudes.contains("colony.run_id") && claudes.contains("colony.name"),
            claudes);
        assertTrue(got.stream().anyMatch(r -> r.startsWith("/v1/traces")), "the worker's own traces: " + got);
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
      }
    }
  }
}
