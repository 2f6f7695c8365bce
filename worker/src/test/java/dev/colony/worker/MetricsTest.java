package dev.colony.worker;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The process's registry: the Temporal SDK's meters reach it through the Tally scope (the SDK's
 * {@code MicrometerClientStatsReporter} on this Micrometer), timers carry the trimmed buckets, and
 * {@code /metrics} answers in the Prometheus text format.
 */
@Timeout(60)
class MetricsTest {
  @WorkflowInterface
  public interface Echo {
    @WorkflowMethod
    String echo(String s);
  }

  public static class EchoImpl implements Echo {
    @Override
    public String echo(String s) {
      return s;
    }
  }

  /** The {@code _bucket} lines of each series of {@code metric} (its labels but {@code le}), counted. */
  static Map<String, Integer> bucketsPerSeries(String scrape, String metric) {
    return scrape.lines().filter(l -> l.startsWith(metric + "_bucket{"))
        .collect(Collectors.groupingBy(l -> l.substring(0, l.indexOf('}')).replaceAll(",?le=\"[^\"]*\"", ""),
            TreeMap::new, Collectors.summingInt(l -> 1)));
  }

  @Test
  void theSdksClientAndWorkerMetersLandInThePrometheusRegistry() {
    try (Metrics metrics = Metrics.create();
        TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setMetricsScope(metrics.scope()).build())) {
      env.newWorker("echo").registerWorkflowImplementationTypes(EchoImpl.class);
      env.start();
      Echo echo = env.getWorkflowClient().newWorkflowStub(Echo.class,
          WorkflowOptions.newBuilder().setTaskQueue("echo").setWorkflowId("echo-1").build());
      assertEquals("hi", echo.echo("hi"));
      eventually(() -> metrics.scrape().contains("temporal_workflow_completed_total{")
              && metrics.scrape().contains("temporal_request_total{"),
          "the SDK's workflow and client counters in the scrape");
      String scrape = metrics.scrape();
      assertTrue(scrape.contains("workflow_type=\"Echo\""), scrape);
      assertTrue(scrape.contains("jvm_memory_used_bytes{"), scrape);
      assertTrue(scrape.contains("process_cpu_usage "), scrape);
      // A timer the SDK reports with a percentile histogram (about 70 buckets) keeps the 10 bounds
      // and +Inf; 0.2 s (the schedule-to-start alert's bound) is one of them.
      Map<String, Integer> latency = bucketsPerSeries(scrape, "temporal_workflow_endtoend_latency_seconds");
      assertFalse(latency.isEmpty(), scrape);
      latency.forEach((series, n) -> assertEquals(Metrics.TEMPORAL_BUCKETS.length + 1, n, series));
      Map<String, Integer> all = scrape.lines().filter(l -> l.startsWith("temporal_") && l.contains("_bucket{"))
          .map(l -> l.substring(0, l.indexOf("_bucket{")))
          .distinct().collect(Collectors.toMap(m -> m, m -> bucketsPerSeries(scrape, m).values().stream()
              .mapToInt(Integer::intValue).max().orElse(0)));
      all.forEach((m, n) -> assertEquals(Metrics.TEMPORAL_BUCKETS.length + 1, n, m));
      assertTrue(scrape.contains("temporal_workflow_endtoend_latency_seconds_bucket{") && scrape.contains("le=\"0.2\""),
          scrape);
      assertEquals(java.util.Set.of(), metrics.refused(), "every meter the SDK made is exported");
    }
  }

  @Test
  void colonyTimersGetTheirOwnBucketsAndHistogramsOfTheScopeAreNotReported() {
    try (Metrics metrics = Metrics.create()) {
      metrics.scope().tagged(Map.of("colony", "c")).timer("colony_session_duration")
          .record(com.uber.m3.util.Duration.ofSeconds(45));
      metrics.scope().timer("colony_something_new").record(com.uber.m3.util.Duration.ofSeconds(2));
      // The SDK's reporter drops Tally histograms: a duration Colony records must be a timer.
      metrics.scope().histogram("colony_dropped", com.uber.m3.tally.ValueBuckets.linear(0, 1, 5)).recordValue(1);
      eventually(() -> metrics.scrape().contains("colony_something_new_seconds_count"), "the timers reported");
      String scrape = metrics.scrape();
      Map<String, Integer> session = bucketsPerSeries(scrape, "colony_session_duration_seconds");
      assertEquals(Map.of("colony_session_duration_seconds_bucket{colony=\"c\"", 11), session, scrape);
      assertTrue(scrape.contains("colony_session_duration_seconds_bucket{colony=\"c\",le=\"30.0\"} 0"), scrape);
      assertTrue(scrape.contains("colony_session_duration_seconds_bucket{colony=\"c\",le=\"60.0\"} 1"), scrape);
      assertEquals(Metrics.DEFAULT_COLONY_BUCKETS.length + 1,
          bucketsPerSeries(scrape, "colony_something_new_seconds").values().iterator().next(), scrape);
      assertFalse(scrape.contains("colony_dropped"), scrape);
    }
  }

  @Test
  void bucketsAreDecidedByNameWithOrWithoutTheUnit() {
    assertEquals(Metrics.BUCKETS.get("colony_wait_planned"), Metrics.bucketsOf("colony_wait_planned_seconds"));
    assertEquals(Metrics.BUCKETS.get("colony_wait_planned"), Metrics.bucketsOf("colony.wait.planned"));
    assertEquals(Metrics.TEMPORAL_BUCKETS, Metrics.bucketsOf("temporal_activity_execution_latency"));
    assertEquals(null, Metrics.bucketsOf("http_server_requests"));
  }

  @Test
  void metricsAreServedAtSlashMetricsOnlyAndATakenPortIsRefused() throws Exception {
    try (Metrics metrics = Metrics.create()) {
      InetSocketAddress at = metrics.serve(new InetSocketAddress("127.0.0.1", 0));
      assertTrue(at.getPort() > 0);
      assertEquals(at, metrics.address());
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + at.getPort();
      HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, ok.statusCode());
      assertEquals(Metrics.CONTENT_TYPE, ok.headers().firstValue("Content-Type").orElse(""));
      assertTrue(ok.body().contains("# TYPE jvm_memory_used_bytes gauge"), ok.body());
      HttpResponse<String> other = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(404, other.statusCode());
      HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
          .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(405, post.statusCode());
      assertEquals(List.of("GET, HEAD"), post.headers().allValues("Allow"));
      try (Metrics second = Metrics.create()) {
        assertThrows(IOException.class, () -> second.serve(at));
        assertEquals(null, second.address());
      }
    }
  }

  @Test
  void closingStopsServing() throws Exception {
    Metrics metrics = Metrics.create();
    InetSocketAddress at = metrics.serve(new InetSocketAddress("127.0.0.1", 0));
    metrics.close();
    assertThrows(IOException.class, () -> HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()
        .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + at.getPort() + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString()));
  }
}
