package dev.colony.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SessionGuardTest {
  @Test
  void aPendingConfirmationOrARunningToolIsNotSilence() throws Exception {
    SessionGuard guard = new SessionGuard(Duration.ofMillis(50), Duration.ofSeconds(1));
    String answer = guard.holding(() -> {
      sleep(150); // a human takes their time
      assertFalse(guard.idle(), "waiting for a human never counts as silence");
      return "approved";
    });
    assertEquals("approved", answer);
    assertFalse(guard.idle(), "the answer is activity: the silence starts again");
    sleep(150);
    assertTrue(guard.idle(), "then silence counts again");
    guard.touch();
    assertFalse(guard.idle());
  }

  @Test
  void releasesNeverGoBelowZero() throws Exception {
    SessionGuard guard = new SessionGuard(Duration.ofMillis(20), Duration.ofSeconds(1));
    guard.release();
    guard.release();
    sleep(60);
    assertTrue(guard.idle());
    assertEquals("no output for 0s; the session was interrupted", guard.idleDetail());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
