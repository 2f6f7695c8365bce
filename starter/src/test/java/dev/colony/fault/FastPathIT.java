package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one-shot commands through the resident process, as a user runs them: {@code ./colony} hands
 * them to a warm JVM through the python3 thin client. Every command answers as a JVM of its own
 * answers (output, errors, exit codes; the tests run each both ways); each caller's directory,
 * environment and secrets are its own; Ctrl-C stops that command and only it; another user cannot
 * reach the process; a rebuild is never answered by the old build; without python3 the launcher
 * runs the command in a JVM of its own.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FastPathIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern ADDED = Pattern.compile("^([a-z0-9]{6}) added", Pattern.MULTILINE);

  @TempDir
  Path tmp;

  private Path runtime;
  private Cluster cluster;

  record Result(int code, String out, String err) {
    String both() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  @BeforeEach
  void privateRuntimeDirectory() throws IOException {
    runtime = Files.createDirectory(tmp.resolve("rt"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
  }

  @AfterEach
  void tearDown() throws Exception {
    run(ROOT, Map.of(), null, "daemon", "stop");
    Cluster.closeAll(cluster);
  }

  /** {@code ./colony args} in {@code cwd} with {@code env} over this test's own runtime directory. */
  private Result run(Path cwd, Map<String, String> env, String stdin, String... args) throws Exception {
    return run(ROOT.resolve("colony"), cwd, env, stdin, args);
  }

  private Result run(Path launcher, Path cwd, Map<String, String> env, String stdin, String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of(launcher.toString()));
    argv.addAll(List.of(args));
    if (args.length == 2 && args[0].equals("__shell__")) {
      argv = List.of("bash", "-c", args[1]); // a command line as typed in a shell, in ROOT
    }
    ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile());
    pb.environment().put("COLONY_RUNTIME_DIR", runtime.toString());
    pb.environment().put("COLONY_TEMPORAL_CLI", Cluster.temporalCli());
    pb.environment().putAll(env);
    Path out = Files.createTempFile(tmp, "out", ".txt");
    Path err = Files.createTempFile(tmp, "err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    if (stdin == null) {
      pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    }
    Process p = pb.start();
    if (stdin != null) {
      try (var in = p.getOutputStream()) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    }
    assertTrue(p.waitFor(3, TimeUnit.MINUTES), "./colony " + String.join(" ", args) + " hung");
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  private String daemonStatus() throws Exception {
    Result r = run(ROOT, Map.of(), null, "daemon", "status");
    return r.code() == 0 ? r.out() : "";
  }

  private long answered() throws Exception {
    Matcher m = Pattern.compile("(\\d+) commands? answered").matcher(daemonStatus());
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** Starts the resident process the way a user does (a first command), and waits until it listens. */
  private void warm() throws Exception {
    run(ROOT, Map.of(), null, "--version");
    eventually(Duration.ofSeconds(90), () -> {
      try {
        return answered() >= 0;
      } catch (Exception e) {
        return false;
      }
    }, "the resident process listens after the first command");
  }

  /** Ages, clock times and counters move between two runs of one command: compare the rest. */
  private static String stable(String s) {
    return ADDED.matcher(s).replaceAll("ID added").replaceAll("\\d+", "#");
  }

  private void assertAlike(Path cwd, Map<String, String> env, String stdin, String... args) throws Exception {
    long before = answered();
    Result fast = run(cwd, env, stdin, args);
    long after = answered();
    Map<String, String> off = new HashMap<>(env);
    off.put("COLONY_FAST", "off");
    Result own = run(cwd, off, stdin, args);
    String what = "colony " + String.join(" ", args);
    assertEquals(before + 1, after, what + " was answered by the resident process\n" + fast.both());
    assertEquals(own.code(), fast.code(), what + "\nfast:\n" + fast.both() + "\nown JVM:\n" + own.both());
    assertEquals(stable(own.out()), stable(fast.out()), what + ": stdout");
    assertEquals(stable(own.err()), stable(fast.err()), what + ": stderr");
  }

  @Test
  void everyOneShotCommandAnswersAsAJvmOfItsOwnDoes() throws Exception {
    cluster = new Cluster(tmp).startServer("dev");
    cluster.startWorker("w1");
    cluster.start("alpha", "beta");
    // Still ants, so that two runs of a status show the same
    cluster.cli("pause", "alpha");
    cluster.cli("pause", "beta");
    cluster.awaitSettledPaused("alpha");
    cluster.awaitSettledPaused("beta");
    warm();
    String a = cluster.target();
    Path dir = cluster.dir;
    assertAlike(dir, Map.of(), null, "status", "--address", a);
    assertAlike(dir, Map.of(), null, "status", "alpha", "--address", a);
    assertAlike(dir, Map.of(), null, "status", "--json", "--address", a);
    assertAlike(dir, Map.of(), null, "status", "nobody", "--address", a);
    assertAlike(dir, Map.of(), "the body, from standard input\n", "task", "add", "write the docs", "--body-file", "-", "--address", a);
    assertAlike(dir, Map.of(), null, "task", "list", "--address", a);
    String id = matchOne(ADDED, run(dir, Map.of(), null, "task", "add", "another", "--address", a).out());
    assertAlike(dir, Map.of(), null, "task", "show", id, "--address", a);
    assertAlike(dir, Map.of(), null, "task", "approve", id, "--address", a);
    assertAlike(dir, Map.of(), null, "merge", "status", "--address", a);
    assertAlike(tmp, Map.of(), null, "validate", "colony");
    // A directory typed relative is the caller's, also for --all (not the resident process's own)
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    assertAlike(elsewhere, Map.of(), null, "pause", ".", "--all", "--address", a);
    assertAlike(dir, Map.of(), null, "resume", ".", "--all", "--address", a);
    assertAlike(tmp, Map.of(), null, "validate", "no-such-colony");
    assertAlike(tmp, Map.of(), null, "--help");
    assertAlike(tmp, Map.of(), null, "status", "--help");
    assertAlike(tmp, Map.of(), null, "--version");
    assertAlike(dir, Map.of(), null, "pause");
    assertAlike(dir, Map.of(), null, "status", "--bogus");
    assertAlike(dir, Map.of(), null, "status", "--address", "127.0.0.1:1");
    assertAlike(dir, Map.of(), null, "status", "--address", "no such host");
    assertAlike(dir, Map.of(), null, "send", "beta", "hello from the test", "--address", a);
    assertAlike(dir, Map.of(), null, "send", "--from", "alpha", "beta", "a peer's note", "--address", a);
    assertAlike(dir, Map.of(), null, "pause", "alpha", "--address", a);
    assertAlike(dir, Map.of(), null, "resume", "alpha", "--address", a);
    // Verbose logging is a whole process's switch: such a command runs in a JVM of its own.
    long before = answered();
    Result verbose = run(dir, Map.of(), null, "status", "-v", "--address", a);
    assertEquals(0, verbose.code(), verbose.both());
    assertEquals(before, answered(), "-v is not answered by the resident process");

    // A caller's secret-looking variables answer as in its own JVM (CliTest runs every masking
    // case through the resident process's way of running a command).
    String secret = "tok-" + "9f8e7d6c5b4a3210";
    assertAlike(dir, Map.of("MY_API_TOKEN", secret), null, "status", secret, "--address", a);
    assertAlike(dir, Map.of("MY_API_TOKEN", secret), null, "task", "show", secret, "--address", a);

    // A fresh resident process, and callers at once: they share one new connection, and none is
    // closed under another's command.
    run(ROOT, Map.of(), null, "daemon", "stop");
    warm();
    List<CompletableFuture<Result>> together = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      together.add(CompletableFuture.supplyAsync(() -> call(dir, Map.of(), "status", "alpha", "--address", a)));
    }
    for (CompletableFuture<Result> f : together) {
      Result r = f.join();
      assertEquals(0, r.code(), r.both());
      assertTrue(r.out().contains("fault/alpha"), r.both());
    }
    assertTrue(daemonStatus().contains("1 connection to Temporal kept"), daemonStatus());
  }

  private static String matchOne(Pattern p, String text) {
    Matcher m = p.matcher(text);
    assertTrue(m.find(), text);
    return m.group(1);
  }

  @Test
  void eachCallersDirectoryEnvironmentAndSecretsAreItsOwn() throws Exception {
    Path one = colonyNamed("north", "${NORTH_TOKEN}");
    Path two = colonyNamed("south", "${SOUTH_TOKEN}");
    warm();
    // Two callers at once, over and over: each sees its own directory and variables.
    List<CompletableFuture<Result>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(CompletableFuture.supplyAsync(() -> call(one, Map.of("NORTH_TOKEN", "north-secret-value-1234"), "validate", ".")));
      calls.add(CompletableFuture.supplyAsync(() -> call(two, Map.of(), "validate", ".")));
    }
    for (int i = 0; i < calls.size(); i++) {
      Result r = calls.get(i).join();
      if (i % 2 == 0) {
        assertEquals(0, r.code(), r.both());
        assertTrue(r.out().contains("colony 'north' is valid"), r.both());
      } else {
        // SOUTH_TOKEN is unset for this caller (the other caller's variables are not its own)
        assertEquals(1, r.code(), r.both());
        assertTrue(r.err().contains("SOUTH_TOKEN"), r.both());
        assertFalse(r.both().contains("north"), r.both());
      }
    }
  }

  private Result call(Path cwd, Map<String, String> env, String... args) {
    try {
      return run(cwd, env, null, args);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private Path colonyNamed(String name, String reference) throws IOException {
    Path d = Files.createDirectories(tmp.resolve(name));
    Files.createDirectories(d.resolve("ants"));
    Files.writeString(d.resolve("colony.yaml"), "name: " + name + "\nintegrations:\n  discord:\n    token: " + reference
        + "\n    guild: g\n");
    Files.writeString(d.resolve("ants/a.yaml"), "name: a\ndescription: d\ninstructions: i\nintegrations:\n  discord:\n    channel: x\n");
    return d;
  }

  private Process waiting(ServerSocket silent) throws IOException {
    List<String> argv = List.of(ROOT.resolve("colony").toString(), "status", "--address", "127.0.0.1:" + silent.getLocalPort());
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
    pb.environment().put("COLONY_RUNTIME_DIR", runtime.toString());
    return pb.start();
  }

  @Test
  void ctrlCStopsThatCommandAndOnlyIt() throws Exception {
    warm();
    ServerSocket silent = new ServerSocket(0);
    try {
      // A server that takes the connection and never answers: both commands wait for it.
      Process stuck = waiting(silent);
      Process other = waiting(silent);
      eventually(Duration.ofSeconds(30), () -> {
        try {
          return daemonStatus().contains(" 2 running");
        } catch (Exception e) {
          return false;
        }
      }, "both commands run in the resident process");
      new ProcessBuilder("kill", "-INT", Long.toString(stuck.pid())).start().waitFor();
      assertTrue(stuck.waitFor(10, TimeUnit.SECONDS), "Ctrl-C stops the command");
      assertEquals(130, stuck.exitValue());
      eventually(Duration.ofSeconds(20), () -> {
        try {
          return daemonStatus().contains(" 1 running");
        } catch (Exception e) {
          return false;
        }
      }, "the resident process stopped that command, and that one only");
      assertTrue(other.isAlive(), "the other command goes on");
      // The server goes away: the other command ends as it would have, not interrupted.
      silent.close();
      assertTrue(other.waitFor(60, TimeUnit.SECONDS));
      String said = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(1, other.exitValue(), said);
      assertTrue(said.startsWith("colony: ") && said.contains("Temporal at 127.0.0.1:" + silent.getLocalPort()), said);
      Result after = run(ROOT, Map.of(), null, "--version");
      assertEquals(0, after.code(), "and it goes on answering: " + after.both());
    } finally {
      silent.close();
    }
  }

  @Test
  void pipesClosedStreamsLocalesAndVerboseAnswerAsAJvmOfItsOwn() throws Exception {
    warm();
    for (String shell : List.of(
        "./colony help task | head -c1 >/dev/null; echo \"exit ${PIPESTATUS[0]}\"",
        "./colony help task >&-; echo \"exit $?\"",
        "./colony validate nowhere <&-; echo \"exit $?\"",
        "LANG=de_DE.UTF-8 ./colony validate nowhere; echo \"exit $?\"",
        "./colony status --verbose=true --address 127.0.0.1:1 2>&1 | tail -1; echo \"exit ${PIPESTATUS[0]}\"")) {
      Result fast = run(ROOT, Map.of(), null, "__shell__", shell);
      Result own = run(ROOT, Map.of("COLONY_FAST", "off"), null, "__shell__", shell);
      assertEquals(own.out(), fast.out(), shell);
      assertEquals(own.err(), fast.err(), shell);
    }
  }

  @Test
  void anotherUserCannotReachTheResidentProcess() throws Exception {
    warm();
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(runtime)));
    Path socket;
    try (var files = Files.list(runtime)) {
      socket = files.filter(f -> f.toString().endsWith(".sock")).findFirst().orElseThrow();
    }
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
    // The thin client will not talk through a directory open to others: the command still runs.
    Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwxr-xr-x"));
    long before = answered();
    Result r = run(ROOT, Map.of(), null, "--version");
    assertEquals(0, r.code(), r.both());
    assertEquals(before, answered(), "not through the resident process");
    // Even with the directory and the socket opened, the process answers its own user only.
    Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
    org.junit.jupiter.api.Assumptions.assumeTrue(((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue() == 0,
        "another user's connection needs root to make (CI runs as root)");
    String script = "import socket,struct,sys\n"
        + "s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
        + "s.sendall(b'C'+struct.pack('>i',6)+b'status')\n"
        + "try:\n  got = s.recv(100)\nexcept ConnectionResetError:\n  got = b''\n"
        + "print('closed' if got == b'' else 'answered: ' + repr(got))\n";
    Process other = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script,
        socket.toString()).redirectErrorStream(true).start();
    String said = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(other.waitFor(30, TimeUnit.SECONDS));
    assertEquals("closed", said.strip(), "closed without a word");
    Path log = Path.of(socket.toString().replace(".sock", ".log"));
    assertTrue(Files.readString(log).contains("refused a connection from user"), Files.readString(log));
    Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
    Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwx------"));
    assertTrue(answered() >= 0, "the resident process goes on for its user");
  }

  @Test
  void aRebuildIsNeverAnsweredByTheOldBuild() throws Exception {
    // A build tree of its own (the launcher, its scripts and a copy of the jar), so "rebuilding"
    // it touches nobody else's.
    Path tree = tmp.resolve("tree");
    Files.createDirectories(tree.resolve("bin"));
    Files.createDirectories(tree.resolve("starter/target"));
    for (String f : List.of("colony", "bin/colony-fast", "bin/colony-jvm", "bin/jdk.sh", "bin/temporal.sh", "bin/sandbox.sh", "bin/build.sh")) {
      Files.copy(ROOT.resolve(f), tree.resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
    }
    Files.writeString(tree.resolve("pom.xml"), "<project><modules></modules></project>\n");
    Path jar = tree.resolve("starter/target/colony.jar");
    Files.copy(Cluster.JAR, jar);
    Path launcher = tree.resolve("colony");
    Result first = run(launcher, tmp, Map.of(), null, "--version");
    assertEquals(0, first.code(), first.both());
    eventually(Duration.ofSeconds(90), () -> control(launcher, "status").code() == 0, "its resident process listens");
    String oldBuild = buildOf(control(launcher, "status").out());
    // The rebuild: a new jar in place (another inode and time, as Maven's package writes it).
    Path fresh = tree.resolve("starter/target/colony.jar.new");
    Files.copy(Cluster.JAR, fresh);
    Files.move(fresh, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Result next = run(launcher, tmp, Map.of(), null, "--version");
    assertEquals(0, next.code(), next.both());
    eventually(Duration.ofSeconds(90), () -> {
      Result s = control(launcher, "status");
      return s.code() == 0 && !buildOf(s.out()).equals(oldBuild);
    }, "a resident process of the new build took over");
    control(launcher, "stop");
  }

  private Result control(Path launcher, String word) {
    try {
      return run(launcher, tmp, Map.of("COLONY_FAST", "off"), null, "daemon", word);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String buildOf(String status) {
    Matcher m = Pattern.compile("build (\\S+)").matcher(status);
    return m.find() ? m.group(1) : "";
  }

  @Test
  void withoutPython3TheCommandRunsInAJvmOfItsOwn() throws Exception {
    // A PATH with every program of this machine but python3.
    Path bin = Files.createDirectories(tmp.resolve("nopython"));
    for (String d : List.of("/usr/local/bin", "/usr/bin", "/bin")) {
      if (!Files.isDirectory(Path.of(d))) {
        continue;
      }
      try (var files = Files.list(Path.of(d))) {
        for (Path f : files.toList()) {
          Path link = bin.resolve(f.getFileName().toString());
          if (!f.getFileName().toString().startsWith("python3") && !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(link, f);
          }
        }
      }
    }
    Result r = run(tmp, Map.of("PATH", bin.toString()), null, "validate", "no-such-colony");
    assertEquals(1, r.code(), r.both());
    assertTrue(r.err().contains("not a directory"), r.both());
    assertFalse(r.both().toLowerCase().contains("python"), r.both());
    assertEquals("", daemonStatus(), "no resident process was started");
  }

  @Test
  void theResidentProcessStopsByItselfWhenIdle() throws Exception {
    ProcessBuilder pb = new ProcessBuilder(Cluster.jvm("daemon", "serve", "--idle-seconds", "3")).redirectErrorStream(true);
    pb.environment().put("COLONY_RUNTIME_DIR", runtime.toString());
    Process p = pb.start();
    eventually(Duration.ofSeconds(60), () -> {
      try {
        return answered() >= 0;
      } catch (Exception e) {
        return false;
      }
    }, "it listens");
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "it stops after 3 s without a command");
    assertEquals(0, p.exitValue());
    assertEquals("", daemonStatus());
    try (var files = Files.list(runtime)) {
      assertFalse(files.anyMatch(f -> f.toString().endsWith(".sock")), "and leaves no socket behind");
    }
  }
}
