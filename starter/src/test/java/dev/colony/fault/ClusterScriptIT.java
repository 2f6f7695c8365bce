package dev.colony.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parts of {@code bin/cluster.sh} that meet the machine it runs on, tried where users run it:
 * as root with the clone in root's home directory or in any {@code mktemp -d} folder, both 0700.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterScriptIT {
  @TempDir
  Path tmp;

  private final StringBuilder log = new StringBuilder();

  @Test
  void asRootUnderA0700DirectoryPostgresqlStillStarts() throws Exception {
    assumeTrue(((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0,
        "as root only: PostgreSQL then runs as the postgres user");
    // mktemp -d and root's home directory are 0700: the postgres user cannot get through them.
    Path home = Files.createDirectory(tmp.resolve("home"), PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rwx------")));
    ClusterScript script = new ClusterScript(home.resolve("clone/.colony/cluster"), ClusterScript.freeBase());
    try {
      ClusterScript.Run up = script.run(Duration.ofMinutes(3), "postgres");
      log.append(up.out());
      assertEquals(0, up.code(), "bin/cluster.sh postgres: " + up.out());
      ClusterScript.Run status = script.run(Duration.ofSeconds(30), "status");
      assertTrue(status.out().matches("(?s).*postgresql\\s+running.*"), status.out());
    } finally {
      ClusterScript.Run down = script.run(Duration.ofMinutes(1), "down");
      assertEquals(0, down.code(), down.out());
    }
    ClusterScript.Run status = script.run(Duration.ofSeconds(30), "status");
    assertTrue(status.out().matches("(?s).*postgresql\\s+stopped.*"), status.out());
  }

  @AfterEach
  void forgetPostgresFilesKeptOutsideTheStateDirectory() throws Exception {
    // "cluster: the postgres user cannot reach STATE: PostgreSQL's files are in DIR"
    for (String line : log.toString().split("\n")) {
      int at = line.indexOf("PostgreSQL's files are in /var/lib/colony-cluster/");
      if (at >= 0) {
        Path dir = Path.of(line.substring(at + "PostgreSQL's files are in ".length()).strip());
        try (var files = Files.walk(dir)) {
          for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
    }
  }
}
