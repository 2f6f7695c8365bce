package dev.colony.cli;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The resident process's rules that need no process: what it runs, where it listens, when its sources changed. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ResidentRulesTest {
  @TempDir
  Path tmp;

  private static List<byte[]> raw(String... args) {
    return java.util.Arrays.stream(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toList();
  }

  @Test
  void itRunsTheOneShotCommandsAndSendsTheRestBack() {
    assertArrayEquals(new String[] {"status", "alpha"}, ResidentProcess.decode(raw("status", "alpha")));
    assertArrayEquals(new String[0], ResidentProcess.decode(raw()));
    assertNull(ResidentProcess.decode(raw("dev", "examples/hello")), "a long-running command");
    assertNull(ResidentProcess.decode(raw("start", "x")));
    assertNull(ResidentProcess.decode(raw("status", "-v")), "verbose is the whole process's switch");
    assertNull(ResidentProcess.decode(raw("status", "--verbose")));
    assertNull(ResidentProcess.decode(raw("status", "-hv")));
    assertNull(ResidentProcess.decode(raw("status", "--verbose=true")), "picocli takes --verbose=true too");
    assertNull(ResidentProcess.decode(raw("status", "-v=true")));
    assertNotNull(ResidentProcess.decode(raw("send", "alpha", "--", "-v")), "after --, -v is the message");
    assertNotNull(ResidentProcess.decode(raw("task", "add", "--very-long")), "an option that only starts with -v");
    // A malformed byte reads as U+FFFD, as the JVM's own UTF-8 decoding of its arguments
    assertEquals("c\uFFFD", ResidentProcess.decode(List.of("validate".getBytes(), new byte[] {'c', (byte) 0xff}))[1]);
  }

  /** The launcher's list and the resident process's are one: a command missing from either runs slow or not at all. */
  @Test
  void theLauncherSendsTheResidentProcessExactlyItsCommands() throws Exception {
    Path launcher = Path.of(System.getProperty("user.dir")).getParent().resolve("colony");
    List<String> lines = Files.readAllLines(launcher).stream().map(String::trim)
        .filter(l -> l.startsWith("pause|") && l.endsWith(")")).toList();
    assertEquals(1, lines.size(), "one case line of one-shot commands in " + launcher + ": " + lines);
    java.util.Set<String> expected = new java.util.HashSet<>(Resident.COMMANDS);
    expected.addAll(List.of("daemon", "\"\""));
    assertEquals(expected, java.util.Set.of(lines.get(0).substring(0, lines.get(0).length() - 1).split("\\|")));
  }

  @Test
  void aCallerWhoseJvmWouldFormatOrStartOtherwiseGetsAJvmOfItsOwn() {
    assertFalse(ResidentProcess.differs(Map.of(), "UTF-8", Map.of()));
    assertFalse(ResidentProcess.differs(Map.of("LANG", "C.UTF-8"), "UTF-8", Map.of()));
    assertFalse(ResidentProcess.differs(Map.of("LANG", "en_US.UTF-8"), "UTF-8", Map.of()));
    assertTrue(ResidentProcess.differs(Map.of("LANG", "de_DE.UTF-8"), "UTF-8", Map.of()), "80.000, not 80,000");
    assertTrue(ResidentProcess.differs(Map.of("LANG", "C.UTF-8", "LC_NUMERIC", "fr_FR.UTF-8"), "UTF-8", Map.of()));
    assertFalse(ResidentProcess.differs(Map.of("LC_ALL", "C", "LC_NUMERIC", "fr_FR.UTF-8"), "ANSI_X3.4-1968", Map.of()), "LC_ALL wins");
    assertTrue(ResidentProcess.differs(Map.of("JAVA_TOOL_OPTIONS", "-Djavax.net.ssl.trustStore=/x" + System.nanoTime()), "UTF-8", Map.of()));
    assertTrue(ResidentProcess.differs(Map.of("TEMPORAL_NAMESPACE", "café"), "ANSI_X3.4-1968", Map.of()));
    assertFalse(ResidentProcess.differs(Map.of("TEMPORAL_NAMESPACE", "café"), "UTF-8", Map.of()));
  }

  @Test
  void outsideAUtf8LocaleOnlyAsciiWithoutATerminalIsAnsweredHere() {
    assertFalse(ResidentProcess.decline(raw("status", "café"), "UTF-8", 0b111));
    assertFalse(ResidentProcess.decline(raw("status", "alpha"), "ANSI_X3.4-1968", 0b001));
    assertTrue(ResidentProcess.decline(raw("status", "café"), "ANSI_X3.4-1968", 0));
    assertTrue(ResidentProcess.decline(raw("status"), "ANSI_X3.4-1968", 0b010), "a terminal on stdout");
    assertTrue(ResidentProcess.decline(raw("status"), "ISO-8859-1", 0b100), "a terminal on stderr");
  }

  @Test
  void coloursFollowTheCallersTerminalAndVariablesAsPicocliDoes() {
    assertTrue(ResidentProcess.ansi(Map.of(), 0b011));
    assertFalse(ResidentProcess.ansi(Map.of(), 0b010), "stdin not a terminal");
    assertFalse(ResidentProcess.ansi(Map.of("NO_COLOR", ""), 0b011));
    assertTrue(ResidentProcess.ansi(Map.of("CLICOLOR_FORCE", "1"), 0));
    assertFalse(ResidentProcess.ansi(Map.of("CLICOLOR", "0"), 0b011));
  }

  @Test
  void theRuntimeDirectoryMustBeTheUsersAloneAndTheSocketNameIsTheClientsToo() throws Exception {
    long uid = Resident.uid();
    assertEquals(tmp.resolve("own"), Resident.runtimeDir(Map.of("COLONY_RUNTIME_DIR", tmp.resolve("own").toString()), uid));
    assertEquals(tmp.resolve("colony"), Resident.runtimeDir(Map.of("XDG_RUNTIME_DIR", tmp.toString()), uid));
    assertEquals(Path.of("/tmp", "colony-" + uid), Resident.runtimeDir(Map.of(), uid));
    assertEquals(Path.of("/tmp", "colony-" + uid), Resident.runtimeDir(Map.of("COLONY_RUNTIME_DIR", "relative/dir"), uid),
        "a relative directory is not taken (the client and the process would read it against different directories)");
    Path made = tmp.resolve("made");
    assertNull(Resident.secureDir(made, uid));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
    Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rwxr-x---"));
    assertTrue(Resident.secureDir(made, uid).contains("open to other users"));
    assertTrue(Resident.secureDir(made, uid + 1).contains("belongs to user"));
    Files.writeString(tmp.resolve("file"), "");
    assertTrue(Resident.secureDir(tmp.resolve("file"), uid).contains("not a directory"));
    // The same FNV-1a as bin/colony-fast's name(): the client finds the socket the process made.
    Process p = new ProcessBuilder("python3", "-I", "-S", "-B", "-c",
        "import importlib.machinery, importlib.util, sys\n"
            + "loader = importlib.machinery.SourceFileLoader('client', sys.argv[1])\n"
            + "module = importlib.util.module_from_spec(importlib.util.spec_from_loader('client', loader))\n"
            + "loader.exec_module(module)\nprint(module.name(sys.argv[2]))\n",
        Path.of("../bin/colony-fast").toAbsolutePath().toString(), "/some/tree/starter/target/colony.jar").start();
    String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(Resident.name(Path.of("/some/tree/starter/target/colony.jar")), printed);
  }

  @Test
  void aChangeOfASourceOrAPomIsSeenAndOneOfTheBuildsOutputIsNot() throws Exception {
    Files.writeString(tmp.resolve("pom.xml"), "<project><modules><module>m</module></modules></project>");
    Path module = Files.createDirectories(tmp.resolve("m/src/main/java/x"));
    Files.writeString(tmp.resolve("m/pom.xml"), "<project/>");
    Files.writeString(module.resolve("X.java"), "class X {}");
    Files.createDirectories(tmp.resolve("m/target"));
    AtomicInteger changes = new AtomicInteger();
    try (SourceWatch w = SourceWatch.start(tmp, null, changes::incrementAndGet)) {
      Files.writeString(tmp.resolve("m/target/colony.jar"), "built");
      Files.writeString(tmp.resolve("README.md"), "notes");
      throughout(Duration.ofSeconds(2), () -> changes.get() == 0, () -> "the build's output and other files are not sources");
      Files.writeString(module.resolve("X.java"), "class X { int y; }");
      eventually(Duration.ofSeconds(20), () -> changes.get() == 1, "an edited source is seen");
    }
    // A source newer than the jar when the watch begins (changed after the launcher's check): seen at once.
    Path jar = tmp.resolve("m/target/colony.jar");
    Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    AtomicInteger early = new AtomicInteger();
    try (SourceWatch w = SourceWatch.start(tmp, jar, early::incrementAndGet)) {
      assertEquals(1, early.get(), "X.java is newer than the jar");
    }
    AtomicInteger poms = new AtomicInteger();
    try (SourceWatch w = SourceWatch.start(tmp, null, poms::incrementAndGet)) {
      Files.writeString(tmp.resolve("m/pom.xml"), "<project><!-- changed --></project>");
      eventually(Duration.ofSeconds(20), () -> poms.get() == 1, "an edited pom is seen");
    }
  }
}
