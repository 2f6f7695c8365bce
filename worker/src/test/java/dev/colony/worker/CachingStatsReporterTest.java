package dev.colony.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.uber.m3.util.Duration;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The caching reporter makes the meters the SDK's reporter makes, and looks each up once. */
@Timeout(30)
class CachingStatsReporterTest {
  private static final Map<String, String> TAGS = Map.of("namespace", "default", "task_queue", "q", "worker_type", "W");

  private static void report(com.uber.m3.tally.StatsReporter r) {
    for (int i = 0; i < 3; i++) {
      r.reportTimer("temporal_request_latency", TAGS, Duration.ofMillis(10 * (i + 1)));
      r.reportCounter("temporal_request", TAGS, 2);
    }
    r.reportTimer("temporal_request_latency", Map.of("namespace", "other"), Duration.ofMillis(5));
    r.reportGauge("temporal_num_pollers", TAGS, 5);
  }

  private static TreeSet<String> ids(SimpleMeterRegistry registry) {
    return registry.getMeters().stream().map(Meter::getId)
        .map(id -> id.getName() + id.getType() + id.getTags()).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void theMetersAndTheirValuesAreTheSdkReportersOwn() {
    SimpleMeterRegistry sdk = new SimpleMeterRegistry();
    SimpleMeterRegistry cached = new SimpleMeterRegistry();
    report(new MicrometerClientStatsReporter(sdk));
    CachingStatsReporter caching = new CachingStatsReporter(cached);
    report(caching);

    assertEquals(ids(sdk), ids(cached));
    assertEquals(4, ids(cached).size(), ids(cached).toString()); // two timers, a counter, a gauge
    Timer t = cached.get("temporal_request_latency").tags("task_queue", "q").timer();
    assertEquals(3, t.count());
    assertEquals(60, t.totalTime(TimeUnit.MILLISECONDS), 0.001);
    assertEquals(sdk.get("temporal_request_latency").tags("task_queue", "q").timer().takeSnapshot().histogramCounts().length,
        t.takeSnapshot().histogramCounts().length, "the same histogram as the SDK's timer");
    assertEquals(6, cached.get("temporal_request").counter().count(), 0.001);
    assertEquals(5, cached.get("temporal_num_pollers").gauge().value(), 0.001);
    // Three reports of a timer and a counter on one tag set, one on another: three meters looked up.
    assertEquals(3, caching.meters());
  }

  @Test
  void aTagMapThatChangesAfterwardsDoesNotChangeTheMeterFound() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CachingStatsReporter caching = new CachingStatsReporter(registry);
    java.util.HashMap<String, String> tags = new java.util.HashMap<>(Map.of("a", "1"));
    caching.reportCounter("c", tags, 1);
    tags.put("a", "2");
    caching.reportCounter("c", tags, 1);
    assertEquals(1, registry.get("c").tags("a", "1").counter().count(), 0.001);
    assertEquals(1, registry.get("c").tags("a", "2").counter().count(), 0.001);
    assertTrue(caching.meters() == 2);
  }

  @Test
  void aRootScopesMetersHaveNoTags() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CachingStatsReporter caching = new CachingStatsReporter(registry);
    caching.reportTimer("t", null, Duration.ofMillis(1));
    caching.reportCounter("c", null, 1);
    assertEquals(1, registry.get("t").timer().count());
    assertEquals(1, registry.get("c").counter().count(), 0.001);
  }
}
