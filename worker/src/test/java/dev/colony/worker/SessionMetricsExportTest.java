package dev.colony.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.SessionGuard;
import dev.colony.engine.SessionMetrics;
import dev.colony.spec.AntSpec;
import dev.colony.spec.EngineKind;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The session activity's counters as a scrape shows them: their Prometheus names and their labels
 * (config names and closed sets only), on the process's registry.
 */
@Timeout(60)
class SessionMetricsExportTest {
  @Test
  void theActivitysCountersHaveTheirPrometheusNamesAndLabels() {
    try (Metrics metrics = Metrics.create()) {
      SessionMetrics m = SessionMetrics.on(metrics.registry());
      AntSpec spec = AntSpec.builder().colony("hive").name("scout").description("d").instructions("i")
          .engine(EngineKind.COMMAND).build();
      SessionGuard.of(spec, m).interrupted();
      m.refused("hive", "scout", SessionMetrics.Refusal.PATH);
      m.refused("hive", "scout", SessionMetrics.Refusal.CHANNEL);
      m.refused("hive", "scout", SessionMetrics.Refusal.CHANNEL);
      AtomicLong proxyCount = new AtomicLong(7);
      m.egress(proxyCount, "hive", "scout", AtomicLong::get);
      m.egress(new AtomicLong(99), "hive", "scout", AtomicLong::get); // a second session: the first meter stays
      String body = metrics.scrape();
      List<String> lines = body.lines().filter(l -> l.startsWith("colony_")).sorted().toList();
      assertEquals(List.of(
          "colony_sandbox_refusals_total{ant=\"scout\",colony=\"hive\",kind=\"channel\"} 2.0",
          "colony_sandbox_refusals_total{ant=\"scout\",colony=\"hive\",kind=\"path\"} 1.0",
          "colony_sandbox_refused_connections_total{ant=\"scout\",colony=\"hive\"} 7.0",
          "colony_watchdog_interruptions_total{ant=\"scout\",colony=\"hive\",engine=\"command\"} 1.0"), lines, body);
      proxyCount.addAndGet(3);
      assertTrue(metrics.scrape().contains("colony_sandbox_refused_connections_total{ant=\"scout\",colony=\"hive\"} 10.0"),
          "read from the proxy's count at each scrape");
      assertTrue(metrics.refused().isEmpty(), "no meter refused: " + metrics.refused());
    }
  }

  @Test
  void withoutARegistryNothingIsCountedAndNothingFails() {
    SessionMetrics none = SessionMetrics.on(null);
    assertEquals(SessionMetrics.NONE, none);
    none.refused("hive", "scout", SessionMetrics.Refusal.PATH);
    none.egress(new AtomicLong(1), "hive", "scout", AtomicLong::get);
    AntSpec spec = AntSpec.builder().colony("hive").name("scout").description("d").instructions("i")
        .engine(EngineKind.CLAUDE).build();
    SessionGuard.of(spec, none).interrupted();
    assertEquals(null, none.registry(), "no registry: nothing is registered anywhere");
  }
}
