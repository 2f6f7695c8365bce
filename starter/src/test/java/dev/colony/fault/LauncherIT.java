package dev.colony.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The launcher ({@code ./colony}) as a user runs it: right after a build, the first command,
 * whatever it is, has the one-shot commands' start-up archive made by the training run; the
 * archive is one the JVM accepts for this jar; a damaged one is made again; and no command prints
 * a JVM warning.
 */
@Timeout(600)
class LauncherIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path TARGET = ROOT.resolve("starter/target");
  private static final boolean AOT = Runtime.version().feature() >= 25;
  private static final Path ARCHIVE = TARGET.resolve(AOT ? "colony-cli.aot" : "colony-cli.jsa");

  record Run(int code, String out) {}

  private static Run launcher(String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of(ROOT.resolve("colony").toString()));
    argv.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
    pb.environment().put("COLONY_TEMPORAL_CLI", Cluster.temporalCli());
    // The JVM path and its start-up archive (FastPathIT: the resident process in front of it).
    pb.environment().put("COLONY_FAST", "off");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "./colony " + String.join(" ", args) + " hung");
    return new Run(p.exitValue(), out);
  }

  private static void forgetArchive() throws IOException {
    try (var files = Files.list(TARGET)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith("colony-cli.")).toList()) {
        Files.delete(f);
      }
    }
  }

  private static void assertNoJvmWarning(Run r) {
    for (String line : r.out().lines().toList()) {
      assertFalse(line.contains("VM warning") || line.contains("[warning]") || line.startsWith("WARNING:"),
          "a JVM warning: " + line + "\n" + r.out());
    }
  }

  /**
   * The sources the launcher looks at to decide whether to build (its stale() check): none may be
   * newer than the jar. Else the launcher would run Maven, rebuilding starter/target and the jar
   * under the integration tests that run at the same time in other JVMs.
   */
  private static void assertTheLauncherWillNotBuild() throws IOException, InterruptedException {
    assertEquals(false, LauncherStaleTest.stale(ROOT, TARGET.resolve("colony.jar")),
        "a pom or main source is newer than " + TARGET.resolve("colony.jar")
        + ": ./colony would rebuild it under the other integration tests; build first (mvn package)");
  }

  /**
   * The one jar a worker runs holds no fake server and no mock web server: `colony fakes` loads them
   * from the fakes module's own jar (SlackNtfyExampleIT runs it).
   */
  @Test
  void theCliJarWhichIsTheWorkersHoldsNoFakes() throws Exception {
    List<String> fakes = new ArrayList<>();
    try (var jar = new java.util.zip.ZipFile(TARGET.resolve("colony.jar").toFile())) {
      jar.stream().map(java.util.zip.ZipEntry::getName)
          .filter(n -> n.startsWith("dev/colony/fakes/") || n.startsWith("mockwebserver3/") || n.contains("mockwebserver"))
          .limit(5).forEach(fakes::add);
    }
    assertEquals(List.of(), fakes, "fakes in colony.jar");
    try (var jar = new java.util.zip.ZipFile(ROOT.resolve("fakes/target/colony-fakes.jar").toFile())) {
      assertTrue(jar.getEntry("dev/colony/fakes/FakesTerminal.class") != null, "the fakes' own jar has the terminal");
      assertTrue(jar.getEntry("mockwebserver3/MockWebServer.class") != null, "and the mock web server");
    }
  }

  @Test
  void theFirstCommandAfterABuildGetsTheTrainedArchiveAndADamagedOneIsMadeAgain() throws Exception {
    assertTheLauncherWillNotBuild();
    forgetArchive();
    Run help = launcher("--help");
    assertEquals(0, help.code(), help.out());
    assertTrue(help.out().contains("preparing quick start-up for one-shot commands"), help.out());
    assertTrue(help.out().contains("Usage: colony [-hvV] [COMMAND]"), help.out());
    assertNoJvmWarning(help);
    assertTrue(Files.size(ARCHIVE) > 5_000_000, "a trained archive holds the client's classes: " + Files.size(ARCHIVE));

    // The JVM takes it for this jar: with the archive required, it starts (else it would exit).
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> strict = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData"));
    strict.addAll(AOT ? List.of("-XX:AOTCache=" + ARCHIVE, "-XX:AOTMode=on", "--sun-misc-unsafe-memory-access=allow")
        : List.of("-XX:SharedArchiveFile=" + ARCHIVE, "-Xshare:on"));
    strict.addAll(List.of("-jar", TARGET.resolve("colony.jar").toString(), "--version"));
    Process p = new ProcessBuilder(strict).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), "the JVM refused the archive: " + out);

    // Made once per build: the next command uses it as it is.
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Run refused = launcher("status", "--address", "127.0.0.1:" + port);
    assertEquals(1, refused.code(), refused.out());
    assertFalse(refused.out().contains("preparing quick start-up"), refused.out());
    assertNoJvmWarning(refused);

    // Zero-filled, as after a crash mid-write: dropped and made again, never used.
    long size = Files.size(ARCHIVE);
    Files.write(ARCHIVE, new byte[(int) Math.min(size, 4 << 20)]);
    Run again = launcher("status", "--address", "127.0.0.1:" + port);
    assertEquals(1, again.code(), again.out());
    assertTrue(again.out().contains("preparing quick start-up"), again.out());
    assertTrue(again.out().contains("colony: "), again.out());
    assertNoJvmWarning(again);
    assertTrue(Files.size(ARCHIVE) > 5_000_000);
  }
}
