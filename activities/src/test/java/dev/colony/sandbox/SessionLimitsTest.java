package dev.colony.sandbox;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SessionLimitsTest {
  @TempDir
  Path tmp;

  @Test
  void aKilledWorkersGroupsAreSweptAndALiveOnesAreKept() throws Exception {
    // A pid no process has (above the kernel's pid_max), and this JVM's own.
    Path dead = Files.createDirectory(tmp.resolve("colony-c-ant-s1-a1-999999999-7"));
    Path live = Files.createDirectory(tmp.resolve("colony-c-ant-s1-a1-" + ProcessHandle.current().pid() + "-8"));
    Path other = Files.createDirectory(tmp.resolve("user-app"));
    SessionLimits.sweepStale(tmp);
    assertFalse(Files.exists(dead), "a dead worker's group goes");
    assertTrue(Files.exists(live), "a live worker's stays");
    assertTrue(Files.exists(other), "a group that is not a session's stays");
  }
}
