package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher rebuilds the CLI jar when a main source of any module the parent pom lists changed,
 * and not for a test source: `colony_jar_stale` in bin/build.sh, run by bash as ./colony runs it.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class LauncherStaleTest {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  // the folders the test makes are as old as now: the jar is a day younger, a changed file two days
  private static final Instant NOW = Instant.now();
  private static final FileTime OLDER = FileTime.from(NOW.minus(Duration.ofDays(1)));
  private static final FileTime JAR_TIME = FileTime.from(NOW.plus(Duration.ofDays(1)));
  private static final FileTime NEWER = FileTime.from(NOW.plus(Duration.ofDays(2)));

  @TempDir
  Path tmp;

  /** True when the launcher would build: bash sourcing bin/build.sh, as ./colony does. */
  static boolean stale(Path root, Path jar) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("bash", "-c", ". \"$1\"; colony_jar_stale \"$2\" \"$3\"", "bash",
        ROOT.resolve("bin/build.sh").toString(), root.toString(), jar.toString())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("bin/build.sh did not answer in 30 s");
    }
    return p.exitValue() == 0;
  }

  private Path file(String rel, FileTime time) throws IOException {
    Path f = tmp.resolve(rel);
    Files.createDirectories(f.getParent());
    if (!Files.exists(f)) {
      Files.writeString(f, "x");
    }
    Files.setLastModifiedTime(f, time);
    return f;
  }

  @Test
  void aChangedMainSourceOfAnyListedModuleRebuildsAndATestSourceDoesNot() throws Exception {
    Files.writeString(tmp.resolve("pom.xml"), """
        <project><modules>
            <module>workflows</module>
            <module>client</module>
          <module>console</module>
        </modules></project>""");
    Files.setLastModifiedTime(tmp.resolve("pom.xml"), OLDER);
    Path jar = file("starter/target/colony.jar", JAR_TIME);
    for (String m : new String[] {"workflows", "client", "console"}) {
      file(m + "/pom.xml", OLDER);
      file(m + "/src/main/java/A.java", OLDER);
    }
    assertEquals(false, stale(tmp, jar), "nothing newer than the jar");
    // the modules added after the launcher was written (client, console) count like the first ones
    for (String m : new String[] {"client", "console", "workflows"}) {
      Path src = file(m + "/src/main/java/A.java", NEWER);
      assertEquals(true, stale(tmp, jar), "a newer main source of " + m);
      Files.setLastModifiedTime(src, OLDER);
      Path pom = file(m + "/pom.xml", NEWER);
      assertEquals(true, stale(tmp, jar), "a newer pom of " + m);
      Files.setLastModifiedTime(pom, OLDER);
    }
    file("client/src/test/java/ATest.java", NEWER);
    file("notamodule/src/main/java/B.java", NEWER);
    assertEquals(false, stale(tmp, jar), "a test source, or a folder the parent pom does not list");
    Files.delete(jar);
    assertEquals(true, stale(tmp, jar), "no jar");
  }

  /**
   * A build the launcher began and did not finish (killed with the launcher by Ctrl-C, a crash, a
   * failure) can leave starter/target/colony.jar newer than every source but not the CLI (Maven's
   * plain jar before the shade step, or a jar cut short): the next start builds again instead of
   * running it. An agent host that stops waiting for {@code colony mcp}'s first start (Claude Code
   * after 30 s) kills the launcher only: its build goes on, and once it ends well the next start
   * runs the jar without building it again. Here the launcher runs in a copy of the project whose
   * Maven wrapper writes the plain jar and dies the first time; the second time it writes it, waits
   * for the test, which kills the launcher meanwhile, then ends well.
   */
  @Test
  void aBuildThatDidNotFinishIsDoneAgainAndOneThatOutlivedTheLauncherIsNot() throws Exception {
    Files.writeString(tmp.resolve("pom.xml"), "<project><modules><module>client</module></modules></project>");
    file("client/pom.xml", OLDER);
    file("client/src/main/java/A.java", OLDER);
    Files.setLastModifiedTime(tmp.resolve("pom.xml"), OLDER);
    Files.createDirectories(tmp.resolve("bin"));
    for (String f : new String[] {"colony", "bin/colony-jvm", "bin/colony-fast", "bin/jdk.sh", "bin/temporal.sh", "bin/sandbox.sh", "bin/build.sh"}) {
      Files.copy(ROOT.resolve(f), tmp.resolve(f));
    }
    Path go = tmp.resolve("go");
    Process mkfifo = new ProcessBuilder("mkfifo", go.toString()).start();
    assertEquals(0, mkfifo.waitFor());
    Path mvnw = tmp.resolve("mvnw");
    Files.writeString(mvnw, """
        #!/bin/sh
        echo run >> builds.log
        mkdir -p starter/target
        printf 'PK-the-plain-jar' > starter/target/colony.jar
        [ "$(wc -l < builds.log)" -eq 1 ] && kill -9 $$
        read -r word < go
        printf 'PK-the-cli' > starter/target/colony.jar
        """);
    assertEquals(true, mvnw.toFile().setExecutable(true));
    Path jar = tmp.resolve("starter/target/colony.jar");

    boolean released = false;
    try {
      ended(launch());
      assertEquals(1, builds(), "the first start builds");
      assertEquals(true, stale(tmp, jar), "the jar its killed build left, newer than the sources, is not the CLI");

      Process launcher = launch();
      eventually(Duration.ofSeconds(30), () -> builds() == 2, "the next start did not build again");
      launcher.destroy(); // SIGTERM to the launcher alone, as an agent host stops a server it gave up on
      ended(launcher);
      Files.writeString(go, "go\n"); // the build, on its own now, ends well
      released = true;
      eventually(Duration.ofSeconds(30), () -> !Files.exists(tmp.resolve("starter/target/colony.jar.building")),
          "the build that ended well after its launcher was killed left its mark");
      assertEquals("PK-the-cli", Files.readString(jar));
      ended(launch());
      assertEquals(2, builds(), "a build that ended well is not done again");
    } finally {
      // a wrapper still waiting for the test (a failure above) is let go, or nothing happens in 5 s
      if (!released) {
        new ProcessBuilder("timeout", "5", "sh", "-c", ": > \"$1\"", "sh", go.toString()).start().waitFor();
      }
    }
  }

  private void ended(Process p) throws Exception {
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the launcher did not end in 30 s: " + Files.readString(tmp.resolve("launcher.log")));
    }
  }

  private int builds() {
    try {
      return Files.readAllLines(tmp.resolve("builds.log")).size();
    } catch (IOException e) {
      return 0;
    }
  }

  /** {@code ./colony mcp} in the test's copy of the project (the fake jar does not run: it ends there). */
  private Process launch() throws IOException {
    ProcessBuilder pb = new ProcessBuilder("bash", tmp.resolve("colony").toString(), "mcp").directory(tmp.toFile())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(tmp.resolve("launcher.log").toFile()));
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process p = pb.start();
    p.getOutputStream().close();
    return p;
  }

  @Test
  void theProjectsOwnModulesAreTheOnesTheParentPomLists() throws Exception {
    // on this checkout: every module directory with a pom is in the parent pom's list
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    try (var dirs = Files.list(ROOT)) {
      for (Path d : dirs.filter(d -> Files.exists(d.resolve("pom.xml")) && Files.exists(d.resolve("src/main"))).toList()) {
        String name = d.getFileName().toString();
        assertEquals(true, pom.contains("<module>" + name + "</module>"), name + " is not in the parent pom's modules");
      }
    }
  }
}
