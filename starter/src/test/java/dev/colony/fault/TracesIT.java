package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traces end to end: a real {@code colony worker} with the standard {@code OTEL_*} variables
 * pointing at an OTLP/HTTP receiver in this test (the JDK's HttpServer decoding {@code /v1/traces}
 * protobuf), an ant on the command engine whose (sandboxed) script writes its {@code $TRACEPARENT}
 * to a file. Each session is one trace: {@code colony.session} → {@code StartActivity:RunSession}
 * → {@code RunActivity:RunSession} → {@code colony.agent}, and the agent's TRACEPARENT is that
 * trace and that last span.
 */
@Timeout(300)
class TracesIT {
  @TempDir
  Path tmp;

  private Cluster cluster;
  private HttpServer receiver;
  /** Every span the receiver got, with its resource's service.name. */
  private final List<Received> spans = new CopyOnWriteArrayList<>();
  private final List<String> refused = new CopyOnWriteArrayList<>();

  record Received(String service, String traceId, String spanId, String parentSpanId, String name,
      Map<String, Object> attributes) {
    Object attr(String key) {
      return attributes.get(key);
    }
  }

  @BeforeEach
  void receive() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    receiver.createContext("/", ex -> {
      try (ex) {
        if (!ex.getRequestMethod().equals("POST") || !ex.getRequestURI().getPath().equals("/v1/traces")) {
          refused.add(ex.getRequestMethod() + " " + ex.getRequestURI());
          ex.sendResponseHeaders(404, -1);
          return;
        }
        InputStream in = ex.getRequestBody();
        if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
          in = new GZIPInputStream(in);
        }
        ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(in.readAllBytes());
        for (ResourceSpans rs : request.getResourceSpansList()) {
          String service = String.valueOf(attributes(rs.getResource().getAttributesList()).get("service.name"));
          for (ScopeSpans ss : rs.getScopeSpansList()) {
            for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList()) {
              spans.add(new Received(service, hex(s.getTraceId()), hex(s.getSpanId()), hex(s.getParentSpanId()),
                  s.getName(), attributes(s.getAttributesList())));
            }
          }
        }
        byte[] body = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
        ex.getResponseHeaders().set("Content-Type", "application/x-protobuf");
        ex.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
          ex.getResponseBody().write(body);
        }
      } catch (RuntimeException e) {
        refused.add(e.toString());
        throw e;
      }
    });
    receiver.start();
  }

  @AfterEach
  void stop() throws Exception {
    try {
      Cluster.closeAll(cluster);
    } finally {
      receiver.stop(0);
    }
  }

  private static String hex(com.google.protobuf.ByteString b) {
    return HexFormat.of().formatHex(b.toByteArray());
  }

  private static Map<String, Object> attributes(List<KeyValue> kvs) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (KeyValue kv : kvs) {
      AnyValue v = kv.getValue();
      out.put(kv.getKey(), switch (v.getValueCase()) {
        case STRING_VALUE -> v.getStringValue();
        case INT_VALUE -> v.getIntValue();
        case BOOL_VALUE -> v.getBoolValue();
        case DOUBLE_VALUE -> v.getDoubleValue();
        default -> v.toString();
      });
    }
    return out;
  }

  /** A colony of one command ant whose script writes its TRACEPARENT where the test reads it. */
  private Path colony() throws IOException {
    Path dir = tmp.resolve("fixture");
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("colony.yaml"), """
        name: traces
        defaults:
          poll_interval: 2s
          heartbeat_timeout: 5s
          session_timeout: 2m
          sandbox:
            write: [out]
        """);
    Files.writeString(dir.resolve("ants/tracer.yaml"), """
        name: tracer
        description: writes the trace context it was given
        instructions: |
          Nothing to do.
        engine: command
        command:
          argv: ["./tracer.sh"]
        """);
    Path script = dir.resolve("tracer.sh");
    Files.writeString(script, """
        #!/bin/sh
        here=$(cd "$(dirname "$0")" && pwd)
        cat > /dev/null
        mkdir -p "$here/out"
        printf '%s' "$TRACEPARENT" > "$here/out/tp-$COLONY_SESSION.tmp"
        mv "$here/out/tp-$COLONY_SESSION.tmp" "$here/out/tp-$COLONY_SESSION"
        echo "session $COLONY_SESSION traced"
        """);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return dir;
  }

  private List<Received> roots(long session) {
    return spans.stream().filter(s -> s.name().equals("colony.session") && Long.valueOf(session).equals(s.attr("colony.session")))
        .toList();
  }

  @Test
  void eachSessionIsOneTraceFromTheWorkflowToTheAgentProcess() throws Exception {
    cluster = new Cluster(tmp, colony()).startServer("dev");
    cluster.env.put("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + receiver.getAddress().getPort());
    cluster.env.put("OTEL_TRACES_EXPORTER", "otlp");
    cluster.env.put("OTEL_BSP_SCHEDULE_DELAY", "200");
    // the session path's info lines (a worker logs warnings only, unless told)
    cluster.env.put("JAVA_TOOL_OPTIONS", "-Dorg.slf4j.simpleLogger.log.dev.colony.session.impl=info");
    Cluster.WorkerProcess worker = cluster.startWorker("w1");
    Path out = cluster.dir.resolve("out");
    try {
      cluster.start("tracer");
      eventually(Duration.ofSeconds(120), () -> Files.exists(out.resolve("tp-2")) && roots(1).size() == 1 && roots(2).size() == 1
          && spans.stream().filter(s -> s.name().equals("colony.agent")).count() >= 2,
          () -> "two sessions traced; received " + spans.stream().map(Received::name).toList() + ", refused " + refused);
      for (long n = 1; n <= 2; n++) {
        Received root = roots(n).get(0);
        String trace = root.traceId();
        String runId = (String) root.attr("colony.run_id");
        assertEquals("", root.parentSpanId(), "colony.session is a root");
        assertEquals("colony-worker", root.service());
        assertEquals("traces", root.attr("colony.name"));
        assertEquals("tracer", root.attr("colony.ant"));
        assertEquals("command", root.attr("colony.engine"));
        assertEquals("success", root.attr("colony.outcome"));
        long session = n;
        eventually(Duration.ofSeconds(30), () -> spans.stream().filter(s -> s.traceId().equals(trace)).count() >= 4,
            () -> "session " + session + "'s trace: " + spans.stream().filter(s -> s.traceId().equals(trace)).toList());
        List<Received> inTrace = spans.stream().filter(s -> s.traceId().equals(trace)).toList();
        Received start = only(inTrace, "StartActivity:RunSession");
        Received run = only(inTrace, "RunActivity:RunSession");
        Received agent = only(inTrace, "colony.agent");
        assertEquals(root.spanId(), start.parentSpanId(), "StartActivity under colony.session");
        assertEquals(start.spanId(), run.parentSpanId(), "RunActivity under StartActivity");
        assertEquals(run.spanId(), agent.parentSpanId(), "colony.agent under RunActivity");
        String traceparent = Files.readString(out.resolve("tp-" + n)).trim();
        assertTrue(traceparent.matches("00-" + trace + "-" + agent.spanId() + "-0[0-9a-f]"),
            "session " + n + "'s agent got TRACEPARENT=" + traceparent + ", its span is " + agent);
        for (Received s : inTrace) {
          assertEquals(runId, s.attr("colony.run_id"), s.name() + " has the run id");
          assertEquals(n, s.attr("colony.session"), s.name() + " has the session");
        }
        assertTrue(Cluster.read(worker.log()).contains("run=" + runId + " session=" + n + " "),
            "the session's log lines carry the run and the session");
      }
      assertNotEquals(roots(1).get(0).traceId(), roots(2).get(0).traceId(), "two sessions, two traces");
      assertEquals(List.of(), refused);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.diagnostics(), e);
    }
  }

  private static Received only(List<Received> trace, String name) {
    List<Received> found = trace.stream().filter(s -> s.name().equals(name)).toList();
    assertEquals(1, found.size(), name + " in " + trace.stream().map(Received::name).toList());
    return found.get(0);
  }
}
