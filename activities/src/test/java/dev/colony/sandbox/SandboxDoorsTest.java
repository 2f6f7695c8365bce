package dev.colony.sandbox;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.Progress;
import dev.colony.engine.SessionContext;
import dev.colony.engine.command.CommandEngine;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.SandboxSpec;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile agent (a script on the {@code command} engine) tries each door of its sandbox, through
 * the same path a session takes ({@link SessionWalls} and the engine): each door stays shut, and
 * with {@code sandbox: off} the same script gets through (so the test can fail).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SandboxDoorsTest {
  @TempDir
  Path tmp;
  Path colony;
  Path workspace;
  Path other;
  static final String WORKER_TOKEN = "ghp_workerTokenValue123";

  @BeforeAll
  static void bubblewrapIsThere() {
    // The project's scripts install it (run-tests); without it every session is refused, so a
    // machine without it fails here with the reason rather than passing by skipping.
    Bubblewrap.Probe p = Bubblewrap.probe();
    assertTrue(p.works(), "bubblewrap: " + p.problem());
  }

  @BeforeEach
  void colony() throws IOException {
    colony = tmp.resolve("colony");
    Files.createDirectories(colony.resolve("ants"));
    Files.writeString(colony.resolve(".env"), "DOTENV_SECRET=dotenvValue456\n");
    Files.writeString(colony.resolve("ants/a.yaml"), "name: a\n");
    Files.writeString(colony.resolve("colony.yaml"), "name: c\n");
    Files.createDirectories(colony.resolve(".colony/state"));
    Files.writeString(colony.resolve(".colony/state/x"), "state");
    workspace = colony.resolve(".colony/workspaces/a");
    other = colony.resolve(".colony/workspaces/b");
    Files.createDirectories(workspace);
    Files.createDirectories(other);
    Files.writeString(other.resolve("secret.txt"), "b's work");
  }

  private AntSpec spec(String script, SandboxSpec sandbox) {
    return CommandAnts.ant(colony, "a", List.of("/bin/bash", "-c", script))
        .command(new CommandSpec(List.of("/bin/bash", "-c", script), Map.of("FROM_CONFIG", "granted"), List.of()))
        .sandbox(sandbox).build();
  }

  /** Runs {@code script} as the ant's session; returns its whole output. */
  private String run(String script, SandboxSpec sandbox) throws Exception {
    return run(script, sandbox, Duration.ofSeconds(60)).output();
  }

  private CommandAnts.Ran run(String script, SandboxSpec sandbox, Duration timeout) throws Exception {
    AntSpec spec = spec(script, sandbox);
    Map<String, String> worker = new LinkedHashMap<>(System.getenv());
    worker.put("GITHUB_TOKEN", WORKER_TOKEN);
    worker.put("DOTENV_SECRET", "dotenvValue456");
    worker.put("GRANTED_KEY", "grantedValue789");
    Map<String, String> session = new LinkedHashMap<>();
    session.put("COLONY_ANT", "a");
    session.put("COLONY_COLONY", "c");
    session.put("TEMPORAL_ADDRESS", "127.0.0.1:7233");
    session.put("COLONY_BIN", "/usr/local/bin/colony");
    worker.putAll(session);
    return CommandAnts.run(spec, 1, workspace, worker, session, timeout, null);
  }

  private static final SandboxSpec ON = SandboxSpec.DEFAULTS;

  @Test
  void theWorkersSecretsAndTemporalAreNotInItsEnvironment() throws Exception {
    String script = "env; echo END";
    String inside = run(script, ON);
    assertFalse(inside.contains(WORKER_TOKEN), inside);
    assertFalse(inside.contains("dotenvValue456"), inside);
    assertFalse(inside.contains("TEMPORAL_ADDRESS"), inside);
    assertFalse(inside.contains("COLONY_BIN"), inside);
    assertTrue(inside.contains("COLONY_ANT=a"), inside);
    assertTrue(inside.contains("FROM_CONFIG=granted"), inside); // command.env is the ant's own grant
    assertFalse(inside.contains("grantedValue789"), inside);
    String unconfined = run(script, SandboxSpec.OFF);
    assertTrue(unconfined.contains(WORKER_TOKEN), "with sandbox: off the worker's token is there: the test can fail");
  }

  @Test
  void aSecretTheAntNamesIsGrantedAndNoOther() throws Exception {
    SandboxSpec s = new SandboxSpec(false, false, List.of(), List.of("GRANTED_KEY"), 0, 0, List.of(), List.of());
    String inside = run("env", s);
    assertTrue(inside.contains("GRANTED_KEY=grantedValue789"), inside);
    assertFalse(inside.contains(WORKER_TOKEN), inside);
  }

  @Test
  void theColonysFilesStateAndOtherAntsAreOutOfSight() throws Exception {
    String script = String.join("; ",
        "cat " + colony.resolve(".env") + " && echo DOOR-dotenv-open",
        "cat " + colony.resolve("ants/a.yaml") + " && echo DOOR-config-open",
        "echo 'autonomy: full' >> " + colony.resolve("ants/a.yaml") + " && echo DOOR-config-write-open",
        "ls " + colony.resolve(".colony/state") + " && echo DOOR-state-open",
        "cat " + other.resolve("secret.txt") + " && echo DOOR-other-read-open",
        "echo x > " + other.resolve("mine.txt") + " && echo DOOR-other-write-open",
        "echo mine > own.txt && echo OWN-ok", "echo END");
    String inside = run(script, ON);
    assertFalse(inside.contains("DOOR-"), inside);
    assertTrue(inside.contains("OWN-ok"), inside);
    assertEquals("mine\n", Files.readString(workspace.resolve("own.txt")));
    assertFalse(Files.exists(other.resolve("mine.txt")));
    String unconfined = run(script, SandboxSpec.OFF);
    assertTrue(unconfined.contains("DOOR-other-read-open"), unconfined);
  }

  @Test
  void theSystemIsReadOnlyAndTheHomeAndShadowAreNotThere() throws Exception {
    String home = System.getProperty("user.home");
    String script = String.join("; ",
        "cat /etc/shadow && echo DOOR-shadow-open",
        "ls " + home + " && echo DOOR-home-open",
        "touch /etc/colony-was-here && echo DOOR-etc-write-open",
        "touch /usr/colony-was-here && echo DOOR-usr-write-open",
        "echo in-home > ~/note && echo HOME-ok", "id -u", "echo END");
    String inside = run(script, ON);
    assertFalse(inside.contains("DOOR-"), inside);
    assertTrue(inside.contains("HOME-ok"), inside);
    assertTrue(inside.contains("\n1000\n"), "an unprivileged user inside: " + inside);
    assertEquals("in-home\n", Files.readString(SessionWalls.homeOf(spec("", ON)).resolve("note")));
  }

  @Test
  void loopbackServicesAndPrivateAddressesAreUnreachable() throws Exception {
    try (ServerSocket temporal = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = temporal.getLocalPort();
      List<String> tries = new ArrayList<>(List.of("127.0.0.1:" + port, "10.0.0.1:80", "192.168.1.1:80",
          "172.16.0.1:80", "169.254.169.254:80"));
      for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (InetAddress a : Collections.list(nif.getInetAddresses())) {
          if (a instanceof java.net.Inet4Address && !a.isLoopbackAddress()) {
            tries.add(a.getHostAddress() + ":" + port); // the host's own address, same port
          }
        }
      }
      StringBuilder script = new StringBuilder();
      for (String t : tries) {
        String[] hp = t.split(":");
        script.append("timeout 5 bash -c 'echo > /dev/tcp/").append(hp[0]).append('/').append(hp[1])
            .append("' 2>/dev/null && echo DOOR-net-open-").append(t).append("; ");
      }
      script.append("echo END");
      String inside = run(script.toString(), ON);
      assertFalse(inside.contains("DOOR-"), inside);
      assertTrue(inside.contains("END"), inside);
      String unconfined = run("timeout 5 bash -c 'echo > /dev/tcp/127.0.0.1/" + port + "' && echo DOOR-open", SandboxSpec.OFF);
      assertTrue(unconfined.contains("DOOR-open"), unconfined);
    }
  }

  @Test
  void itSeesNoProcessButItsOwn() throws Exception {
    long worker = ProcessHandle.current().pid();
    String inside = run("ls /proc | grep -E '^[0-9]+$' | wc -l; kill -0 " + worker + " && echo DOOR-worker-visible;"
        + " test -e /proc/" + worker + "/environ && echo DOOR-worker-proc; echo END", ON);
    assertFalse(inside.contains("DOOR-"), inside);
  }

  @Test
  void everythingItStartedEndsWithTheSession() throws Exception {
    String marker = "colony-orphan-" + System.nanoTime();
    // A detached child in a new session, as an agent that leaves a server running would start.
    run("setsid nohup bash -c 'exec -a " + marker + " sleep 600' >/dev/null 2>&1 & echo started; echo END", ON);
    eventually(() -> Processes.none(marker), "no process of the session outlives it");
    // Unconfined, the same child outlives its session: the check above can fail.
    String loose = marker + "-loose";
    run("setsid nohup bash -c 'exec -a " + loose + " sleep 30' >/dev/null 2>&1 & echo END", SandboxSpec.OFF);
    eventually(() -> !Processes.none(loose), "the unconfined orphan is seen");
    ProcessHandle.allProcesses().filter(h -> argv0(h).equals(loose)).forEach(ProcessHandle::destroyForcibly);
  }

  @Test
  void aForkBombMeetsItsProcessLimitAndTheWorkerGoesOn() throws Exception {
    SandboxSpec s = new SandboxSpec(false, false, List.of(), List.of(), 256L << 20, 64, List.of(), List.of());
    String marker = "colony-bomb-" + System.nanoTime();
    CommandAnts.Ran r = run("bomb() { bomb | bomb & }; export -f bomb; timeout 10 bash -c 'exec -a " + marker
        + " bash -c bomb' ; echo survived-limit; echo END", s, Duration.ofSeconds(60));
    assertTrue(r.output().contains("survived-limit") || r.result().outcome() != Outcome.SUCCESS, r.output());
    eventually(() -> Processes.none(marker), "the bomb ends with the session");
    // The worker can still start processes.
    Process p = new ProcessBuilder("true").start();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
  }

  @Test
  void aMemoryHogIsKilledInsideItsLimit() throws Exception {
    SandboxSpec s = new SandboxSpec(false, false, List.of(), List.of(), 128L << 20, 256, List.of(), List.of());
    String inside = run("python3 -c 'a = bytearray(512 * 1024 * 1024); print(\"DOOR-hog-got\", len(a))'; "
        + "echo exit=$?; echo END", s);
    assertFalse(inside.contains("DOOR-hog-got 536870912"), inside);
    assertTrue(inside.contains("exit=137"), inside);
  }

  @Test
  void whenTheSandboxCannotBeMadeTheSessionIsRefusedWithTheFix() {
    SessionWalls w = SessionWalls.refusedFor(new Bubblewrap.Probe(false,
        "bubblewrap is not installed: run `sudo apt-get install bubblewrap`"));
    assertNotNull(w.refusal());
    assertTrue(w.refusal().contains("apt-get install bubblewrap"), w.refusal());
  }

  private static String argv0(ProcessHandle h) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline")),
          java.nio.charset.StandardCharsets.UTF_8).split("\0", 2)[0];
    } catch (IOException | RuntimeException gone) {
      return "";
    }
  }

  /** Looks for a process by its argv[0] (its /proc cmdline: Java's info() shows the executable instead). */
  static final class Processes {
    static boolean none(String marker) {
      return ProcessHandle.allProcesses().noneMatch(h -> {
        try {
          byte[] cmd = Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
          return h.isAlive() && new String(cmd, java.nio.charset.StandardCharsets.UTF_8).split("\0", 2)[0].equals(marker);
        } catch (IOException | RuntimeException gone) {
          return false;
        }
      });
    }
  }
}
