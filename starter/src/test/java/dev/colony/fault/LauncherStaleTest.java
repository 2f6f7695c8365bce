package dev.colony.fault;

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
