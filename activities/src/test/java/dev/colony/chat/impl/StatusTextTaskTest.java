package dev.colony.chat.impl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.AntStatus;
import dev.colony.ant.Lifecycle;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code colony status ANT} and {@code /status} name the task from the board the ant holds. */
@Timeout(10)
class StatusTextTaskTest {
  private static AntStatus status(String taskId, String title) {
    return new AntStatus("c", "alpha", Lifecycle.RUNNING, false, null, 0, 3, 0, null, null, null, "claude", List.of(),
        null, 0, 4, null, 0, null, null, null, taskId, title);
  }

  @Test
  void theTaskIsShownWithItsTitle() {
    String text = StatusText.detail(status("k7m2qx", "Fix the docs"), null, Instant.EPOCH);
    assertTrue(text.contains("  task:               k7m2qx · Fix the docs\n"), text);
    assertFalse(StatusText.detail(status(null, null), null, Instant.EPOCH).contains("task:"));
  }
}
