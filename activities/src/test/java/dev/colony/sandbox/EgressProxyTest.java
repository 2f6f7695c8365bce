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
class EgressProxyTest {
  @TempDir
  Path tmp;

  @Test
  void aKilledWorkersSocketDirectoryIsSweptAndALiveOneIsKept() throws Exception {
    // A pid no process has (above the kernel's pid_max), and this JVM's own.
    Path dead = Files.createDirectory(tmp.resolve(EgressProxy.PREFIX + "999999999-123"));
    Files.writeString(dead.resolve("s1.sock"), "");
    Path live = Files.createDirectory(tmp.resolve(EgressProxy.PREFIX + ProcessHandle.current().pid() + "-456"));
    Path other = Files.createDirectory(tmp.resolve("colony-something-else"));
    EgressProxy.sweepStale(tmp);
    assertFalse(Files.exists(dead), "a dead worker's directory goes");
    assertTrue(Files.exists(live), "a live worker's stays");
    assertTrue(Files.exists(other));
  }
}
