package dev.colony.worker;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.testing.OtlpReceiver;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * OTLP push: the process's meters (the SDK's, Colony's, the JVM's) reach an OTLP/HTTP receiver
 * with the headers the variables give, whether or not the process is also scraped.
 */
@Timeout(60)
class MetricsPushTest {
  static final String TOKEN = "Bearer s3cr3t+T0ken==";

  /** Every metric the receiver got at /v1/metrics, by name, the last push's (decoded with the exporter's protos). */
  static Map<String, Metric> metrics(OtlpReceiver receiver) {
    Map<String, Metric> out = new java.util.TreeMap<>();
    for (OtlpReceiver.Post post : receiver.posts("/v1/metrics")) {
      for (ResourceMetrics rm : decode(post).getResourceMetricsList()) {
        rm.getScopeMetricsList().forEach(sm -> sm.getMetricsList().forEach(m -> out.put(m.getName(), m)));
      }
    }
    return out;
  }

  static ExportMetricsServiceRequest decode(OtlpReceiver.Post post) {
    try {
      return ExportMetricsServiceRequest.parseFrom(post.body());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError("not an OTLP metrics request", e);
    }
  }

  static Map<String, String> attributes(List<KeyValue> kvs) {
    return kvs.stream().collect(Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().getStringValue()));
  }

  static OtlpPush push(OtlpReceiver receiver) {
    return OtlpPush.fromEnv(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
        "OTEL_METRIC_EXPORT_INTERVAL", "200",
        "OTEL_EXPORTER_OTLP_HEADERS", "authorization=" + TOKEN.replace(" ", "%20"),
        "OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test"), "colony-worker");
  }

  @Test
  void aPushOnlyProcessSendsTheSdksAndColonysMetersWithTheHeaders() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver();
        Metrics metrics = Metrics.create(false, push(receiver));
        TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setMetricsScope(metrics.scope()).build())) {
      env.newWorker("echo").registerWorkflowImplementationTypes(MetricsTest.EchoImpl.class);
      env.start();
      MetricsTest.Echo echo = env.getWorkflowClient().newWorkflowStub(MetricsTest.Echo.class,
          WorkflowOptions.newBuilder().setTaskQueue("echo").setWorkflowId("echo-1").build());
      assertEquals("hi", echo.echo("hi"));
      metrics.scope().tagged(Map.of("colony", "c", "outcome", "completed")).counter("colony_sessions").inc(2);
      metrics.scope().tagged(Map.of("colony", "c")).timer("colony_session_duration_seconds")
          .record(com.uber.m3.util.Duration.ofSeconds(45));

      eventually(java.time.Duration.ofSeconds(20), () -> {
        Map<String, Metric> m = metrics(receiver);
        return m.containsKey("temporal_workflow_completed") && m.containsKey("colony_sessions")
            && m.get("colony_sessions").getSum().getDataPointsList().stream().anyMatch(p -> p.getAsDouble() == 2)
            && m.containsKey("colony_session_duration_seconds");
      }, () -> "the SDK's and Colony's meters pushed; got " + metrics(receiver).keySet());

      Map<String, Metric> m = metrics(receiver);
      Metric sessions = m.get("colony_sessions");
      assertTrue(sessions.getSum().getIsMonotonic(), sessions.toString());
      assertEquals(Map.of("colony", "c", "outcome", "completed"),
          attributes(sessions.getSum().getDataPoints(0).getAttributesList()));
      // the timer: Colony's buckets, in seconds (the unit the Prometheus side has)
      var duration = m.get("colony_session_duration_seconds").getHistogram().getDataPoints(0);
      assertEquals(List.of(10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0, 7200.0),
          duration.getExplicitBoundsList());
      assertEquals(45.0, duration.getSum(), 0.001);
      assertTrue(m.keySet().stream().anyMatch(n -> n.startsWith("jvm")), m.keySet().toString());
      // the names docs/observability.md gives for the OTLP side
      for (String name : List.of("jvm.memory.used", "process.cpu.usage", "colony_session_duration_seconds.max",
          "temporal_workflow_endtoend_latency", "temporal_request")) {
        assertTrue(m.containsKey(name), name + " in " + m.keySet());
      }
      assertEquals("seconds", m.get("colony_session_duration_seconds").getUnit());
      assertEquals("seconds", m.get("temporal_workflow_endtoend_latency").getUnit());

      OtlpReceiver.Post post = receiver.posts("/v1/metrics").getLast();
      assertEquals(TOKEN, post.headers().get("authorization"));
      assertEquals("application/x-protobuf", post.headers().get("content-type"));
      Map<String, String> resource = attributes(decode(post).getResourceMetrics(0).getResource().getAttributesList());
      assertEquals("colony-worker", resource.get("service.name"));
      assertEquals("test", resource.get("deployment.environment"));

      assertFalse(metrics.scraped());
      assertThrows(IllegalStateException.class, metrics::scrape);
      assertThrows(IllegalStateException.class, () -> metrics.serve(new InetSocketAddress("127.0.0.1", 0)));
    }
  }

  @Test
  void scrapedAndPushedTheSameMeters() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver(); Metrics metrics = Metrics.create(true, push(receiver))) {
      metrics.scope().tagged(Map.of("colony", "c")).counter("colony_sessions_started").inc(3);
      eventually(() -> metrics.scrape().contains("colony_sessions_started_total{colony=\"c\"} 3.0"),
          "scraped");
      eventually(() -> Optional.ofNullable(metrics(receiver).get("colony_sessions_started"))
          .map(x -> x.getSum().getDataPoints(0).getAsDouble() == 3).orElse(false), "pushed");
      assertEquals(java.util.Set.of(), metrics.refused());
    }
  }

  @Test
  void closingPushesWhatIsLeftAndAFailingReceiverIsToldWithoutTheToken() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      OtlpPush push = OtlpPush.fromEnv(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
          "OTEL_METRIC_EXPORT_INTERVAL", "3600000"), "colony-dev");
      Metrics metrics = Metrics.create(false, push);
      metrics.registry().counter("colony_last_words").increment();
      metrics.close(); // an hour's step: only the closing push sends it
      assertTrue(metrics(receiver).containsKey("colony_last_words"), metrics(receiver).keySet().toString());
    }
    // a receiver that refuses: the sender swallows it (told once, masked), the registry goes on
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      receiver.answerWith(401);
      OtlpPush push = push(receiver);
      var sender = push.sender();
      var request = io.micrometer.registry.otlp.OtlpMetricsSender.Request.builder(new byte[0])
          .address(push.url().toString()).headers(push.config().headers()).build();
      sender.send(request); // no exception: a failure is logged, not thrown
      sender.send(request);
      assertEquals(2, receiver.posts("/v1/metrics").size());
      assertEquals(TOKEN, receiver.posts("/v1/metrics").get(0).headers().get("authorization"));
    }
  }
}
