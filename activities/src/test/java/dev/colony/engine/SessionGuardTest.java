package dev.colony.engine;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SessionGuardTest {
  @Test
  void aPendingConfirmationOrARunningToolIsNotSilence() throws Exception {
    SessionGuard guard = new SessionGuard(Duration.ofMillis(50), Duration.ofSeconds(1));
    String answer = guard.holding(() -> {
      sleep(150); // not a wait: a human takes their time (longer than the 50 ms idle timeout)
      assertFalse(guard.idle(), "waiting for a human never counts as silence");
      return "approved";
    });
    assertEquals("approved", answer);
    assertFalse(guard.idle(), "the answer is activity: the silence starts again");
    eventually(Duration.ofSeconds(5), guard::idle, "then silence counts again");
    guard.touch();
    assertFalse(guard.idle());
  }

  @Test
  void releasesNeverGoBelowZero() throws Exception {
    SessionGuard guard = new SessionGuard(Duration.ofMillis(20), Duration.ofSeconds(1));
    guard.release();
    guard.release();
    // two releases of nothing: the guard still goes idle once 20 ms pass with no activity
    eventually(Duration.ofSeconds(5), guard::idle, "idle after two releases of no hold");
    assertEquals("no output for 0s; the session was interrupted", guard.idleDetail());
  }

  @Test
  void theWatchdogsInterruptionIsCountedOncePerSession() {
    java.util.concurrent.atomic.AtomicInteger counted = new java.util.concurrent.atomic.AtomicInteger();
    SessionGuard guard = new SessionGuard(Duration.ofMillis(20), Duration.ofSeconds(1), counted::incrementAndGet);
    assertEquals(0, counted.get(), "nothing counted before the watchdog gives up");
    assertEquals("no output for 0s; the session was interrupted", guard.interrupted());
    assertEquals(1, counted.get());
    guard.interrupted(); // an engine that asks again (its stop path, a log line) counts nothing more
    assertEquals(1, counted.get(), "one interruption, one count");
    assertEquals(guard.idleDetail(), guard.interrupted());
  }

  @Test
  void aSpecsGuardCountsOnTheWorkersRegistryWithConfigNamesOnly() {
    var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    dev.colony.spec.AntSpec spec = dev.colony.spec.AntSpec.builder().colony("hive").name("scout").description("d")
        .instructions("i").engine(dev.colony.spec.EngineKind.GEMINI).build();
    SessionGuard a = SessionGuard.of(spec, new SessionMetrics(registry));
    SessionGuard b = SessionGuard.of(spec, new SessionMetrics(registry));
    a.interrupted();
    b.interrupted();
    b.interrupted();
    var meters = registry.find(SessionMetrics.WATCHDOG_INTERRUPTIONS).counters();
    assertEquals(1, meters.size(), "one series for the ant");
    var c = meters.iterator().next();
    assertEquals(2.0, c.count(), "two sessions interrupted");
    assertEquals(java.util.List.of(io.micrometer.core.instrument.Tag.of("ant", "scout"),
        io.micrometer.core.instrument.Tag.of("colony", "hive"), io.micrometer.core.instrument.Tag.of("engine", "gemini")),
        c.getId().getTags());
    // Without a registry nothing is counted and nothing fails.
    assertEquals(a.idleDetail(), SessionGuard.of(spec).interrupted());
  }

  /** Simulated time passing (a human answering), never a wait for a condition. */
  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
