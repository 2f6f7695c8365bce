package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.testing.OtlpReceiver;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * OTLP metrics push from a real {@code colony worker} process: with only the standard
 * {@code OTEL_EXPORTER_OTLP_*} variables (no {@code --metrics-port}), its ants' {@code colony_*}
 * counters and the Temporal SDK's {@code temporal_*} meters reach an OTLP/HTTP receiver with the
 * headers the variables give; the headers' token never shows in the process's output; a bad value
 * is one line naming the variable, before anything starts.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class OtlpMetricsIT {
  private static final Duration LONG = Duration.ofSeconds(60);
  private static final String TOKEN = "s3cr3tPushT0ken+abc==";
  /** A token pasted without its key: no '=' in it, so the entry is not key=value. */
  private static final String BARE = "s3cr3tBareT0ken";

  @TempDir
  Path tmp;

  private Cluster cluster;
  private OtlpReceiver receiver;

  @BeforeEach
  void setUp() throws Exception {
    cluster = new Cluster(tmp);
    receiver = new OtlpReceiver();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
    receiver.close();
  }

  /** The data points of every metric pushed so far, by metric name, each with its attributes. */
  private Map<String, List<Map<String, String>>> pushed() {
    Map<String, List<Map<String, String>>> out = new TreeMap<>();
    for (OtlpReceiver.Post post : receiver.posts("/v1/metrics")) {
      ExportMetricsServiceRequest request;
      try {
        request = ExportMetricsServiceRequest.parseFrom(post.body());
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw new AssertionError("not an OTLP metrics request", e);
      }
      request.getResourceMetricsList().forEach(rm -> rm.getScopeMetricsList().forEach(sm -> {
        for (Metric m : sm.getMetricsList()) {
          List<Map<String, String>> points = out.computeIfAbsent(m.getName(), k -> new ArrayList<>());
          List<List<KeyValue>> attributes = switch (m.getDataCase()) {
            case SUM -> m.getSum().getDataPointsList().stream().map(NumberDataPoint::getAttributesList).toList();
            case GAUGE -> m.getGauge().getDataPointsList().stream().map(NumberDataPoint::getAttributesList).toList();
            case HISTOGRAM -> m.getHistogram().getDataPointsList().stream().map(p -> p.getAttributesList()).toList();
            default -> List.of();
          };
          attributes.forEach(a -> points.add(a.stream().collect(
              Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().getStringValue(), (x, y) -> y, TreeMap::new))));
        }
      }));
    }
    return out;
  }

  private boolean pushedWith(String metric, String key, String value) {
    return pushed().getOrDefault(metric, List.of()).stream().anyMatch(a -> value.equals(a.get(key)));
  }

  @Test
  void aWorkerWithoutAMetricsPortPushesItsAntsAndTheSdksMetersWithTheHeaders() throws Exception {
    cluster.env.put("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
    cluster.env.put("OTEL_METRIC_EXPORT_INTERVAL", "500");
    cluster.env.put("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20" + TOKEN + ",x-scope-orgid=ants");
    cluster.startServer();
    Cluster.WorkerProcess worker = cluster.startWorker("pusher");
    cluster.start("delta");
    eventually(LONG, () -> cluster.status("delta").sessions() >= 1, "delta ran a session");

    eventually(LONG, () -> pushedWith("colony_sessions_started", "ant", "delta")
            && pushedWith("colony_sessions", "ant", "delta")
            && pushedWith("temporal_num_pollers", "task_queue", "colony-fault")
            && pushedWith("temporal_workflow_task_execution_latency", "workflow_type", "AntWorkflow"),
        () -> "delta's sessions and the SDK's meters pushed; got " + pushed().keySet());
    Map<String, String> started = pushed().get("colony_sessions_started").stream()
        .filter(a -> "delta".equals(a.get("ant"))).findFirst().orElseThrow();
    assertEquals("fault", started.get("colony"), started.toString());
    assertEquals("command", started.get("engine"), started.toString());

    OtlpReceiver.Post last = receiver.posts("/v1/metrics").getLast();
    assertEquals("Bearer " + TOKEN, last.headers().get("authorization"));
    assertEquals("ants", last.headers().get("x-scope-orgid"));
    Map<String, String> resource = ExportMetricsServiceRequest.parseFrom(last.body()).getResourceMetrics(0)
        .getResource().getAttributesList().stream()
        .collect(Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().getStringValue()));
    assertEquals("colony-worker", resource.get("service.name"), resource.toString());

    String log = Cluster.read(worker.log());
    assertTrue(log.contains("metrics pushed (OTLP) to " + receiver.endpoint() + "/v1/metrics every 500ms, headers "
        + "Authorization, x-scope-orgid"), log);
    assertFalse(log.contains("metrics on http"), "no --metrics-port: nothing served\n" + log);
    assertFalse(log.contains(TOKEN), log);
  }

  @Test
  void aBadVariableIsOneLineNamingItAndNothingStarts() throws Exception {
    cluster.startServer();
    for (Map<String, String> bad : List.of(
        Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(), "OTEL_METRIC_EXPORT_INTERVAL", "5s"),
        Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"),
        Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(), "OTEL_EXPORTER_OTLP_HEADERS", "x-a=1," + BARE))) {
      Path log = tmp.resolve("bad.log");
      ProcessBuilder pb = new ProcessBuilder(Cluster.jvm("worker", cluster.dir.toString(), "--address", cluster.address))
          .redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().putAll(bad);
      Process p = pb.start();
      boolean exited = p.waitFor(60, TimeUnit.SECONDS);
      if (!exited) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // a worker that started: the value was taken
      }
      String out = java.nio.file.Files.readString(log, StandardCharsets.UTF_8);
      assertTrue(exited, bad + " was taken, the worker ran: " + out);
      assertNotEquals(0, p.exitValue(), out);
      String variable = bad.keySet().stream().filter(k -> !k.equals("OTEL_EXPORTER_OTLP_ENDPOINT")).findFirst()
          .orElse("OTEL_EXPORTER_OTLP_ENDPOINT");
      List<String> lines = out.strip().lines().filter(l -> !l.startsWith("WARNING")).toList();
      assertEquals(1, lines.size(), out);
      assertTrue(lines.get(0).startsWith("colony: invalid " + variable), out);
      assertFalse(out.contains("Exception") || out.contains("\tat "), out);
      assertFalse(out.contains(TOKEN) || out.contains(BARE), out);
      assertFalse(out.contains("polling"), "nothing started: " + out);
    }
    assertEquals(List.of(), receiver.posts(), "nothing pushed");
  }
}
