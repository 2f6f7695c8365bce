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

  /** Simulated time passing (a human answering), never a wait for a condition. */
  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
