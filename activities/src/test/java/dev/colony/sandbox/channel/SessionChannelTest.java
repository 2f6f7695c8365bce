package dev.colony.sandbox.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.Progress;
import dev.colony.engine.SessionContext;
import dev.colony.engine.command.CommandEngine;
import dev.colony.mailbox.Mail;
import dev.colony.sandbox.Bubblewrap;
import dev.colony.sandbox.SessionWalls;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session in its real sandbox (bubblewrap, the {@code command} engine) reaches its colony through
 * {@code $COLONY_BIN} with the CLI's own command line: mail as itself arrives, everything else is
 * refused with one line, and nothing else of the worker (its socket directory, Temporal) is there.
 * Here through the python client ({@code /usr/bin/python3}, run from the sandbox's {@code /usr});
 * {@link SessionChannelJvmTest}: the same through the JVM client, the fallback.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SessionChannelTest {
  @TempDir
  Path tmp;

  record Sent(String to, Mail mail) {}

  final List<Sent> sent = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void bubblewrapIsThere() {
    Bubblewrap.Probe p = Bubblewrap.probe();
    assertTrue(p.works(), "bubblewrap: " + p.problem());
  }

  /** The python3 the channel tries. */
  Path tried() {
    return PythonClient.PYTHON;
  }

  /** The python3 the channel runs its client on; null: the JVM client. */
  Path expected() throws java.io.IOException {
    // A worker without a python3 the sandbox runs: the JVM client, which these tests then check.
    Path f = tmp.resolve(PythonClient.FILE);
    try (var in = ChannelClient.class.getResourceAsStream(PythonClient.FILE)) {
      Files.write(f, in.readAllBytes());
    }
    return PythonClient.problem(PythonClient.PYTHON, f) == null ? PythonClient.PYTHON : null;
  }

  private AntSpec spec(Path colony, String script) {
    return dev.colony.sandbox.CommandAnts.ant(colony, "scout", List.of("/bin/sh", "-c", script))
        .sandbox(SandboxSpec.DEFAULTS).build();
  }

  /** Runs {@code script} as scout's session 4 with its channel; returns its output. */
  private String session(String script) throws Exception {
    Path colony = tmp.resolve("colony");
    Path workspace = colony.resolve(".colony/workspaces/scout");
    Files.createDirectories(workspace);
    AntSpec spec = spec(colony, script);
    Map<String, String> session = new LinkedHashMap<>();
    session.put("COLONY_ANT", "scout");
    session.put("COLONY_COLONY", "c");
    session.put("COLONY_SESSION", "4");
    session.put("TEMPORAL_ADDRESS", "127.0.0.1:7233");
    session.put("COLONY_BIN", "/usr/local/bin/colony");
    Map<String, String> worker = new LinkedHashMap<>(System.getenv());
    worker.putAll(session);
    ChannelRules.Identity who = new ChannelRules.Identity("c", "scout", 4);
    ColonyChannel.Colony fake = new ColonyChannel.Colony() {
      @Override
      public String send(String to, Mail mail) {
        sent.add(new Sent(to, mail));
        return "c/" + to + ": message from " + mail.from() + " sent";
      }

      @Override
      public String status() {
        return "c/scout (engine command)";
      }
    };
    Path expected = expected();
    Path[] socketDir = new Path[1];
    dev.colony.sandbox.CommandAnts.Ran ran = dev.colony.sandbox.CommandAnts.run(spec, 4, workspace, worker, session,
        Duration.ofSeconds(90), () -> {
          ColonyChannel ch = ColonyChannel.open(who, fake, System::nanoTime, () -> { }, tried());
          assertEquals(expected, ch.python(), "the client the sandbox runs");
          socketDir[0] = ch.socket().getParent();
          return ch;
        });
    String out = ran.output();
    assertTrue(!Files.exists(socketDir[0]) || socketDir[0] != null, out);
    return out.replace(socketDir[0].toString(), "<worker's channel directory>") + "\n[outcome " + ran.result().outcome() + "]";
  }

  @Test
  void aSandboxedAntSendsMailAsItselfThroughItsColonyBin() throws Exception {
    String out = session("\"$COLONY_BIN\" send --from \"$COLONY_ANT\" builder \"finding 1 from session $COLONY_SESSION\"; "
        + "echo \"send=$?\"");
    assertTrue(out.contains("c/builder: message from scout sent"), out);
    assertTrue(out.contains("send=0"), out);
    assertEquals(List.of(new Sent("builder", new Mail("finding 1 from session 4", false, "scout",
        Mail.derivedId("scout", "4", "builder", "finding 1 from session 4")))), sent);
  }

  @Test
  void textThatIsNotAsciiArrivesAsWrittenWhateverTheSessionsLocale() throws Exception {
    // An agent's shell in the C locale (LC_ALL=C is common in scripts) still sends UTF-8 bytes.
    String out = session("LC_ALL=C \"$COLONY_BIN\" send --from \"$COLONY_ANT\" builder 'caf\u00e9 \u2713 \ud83d\udc1c'; "
        + "echo \"send=$?\"");
    assertTrue(out.contains("send=0"), out);
    assertEquals(List.of(new Sent("builder", new Mail("caf\u00e9 \u2713 \ud83d\udc1c", false, "scout",
        Mail.derivedId("scout", "4", "builder", "caf\u00e9 \u2713 \ud83d\udc1c")))), sent);
  }

  @Test
  void insideItCannotSendAsAnotherAntOrSteerAny() throws Exception {
    String out = session("\"$COLONY_BIN\" send --from builder tester 'from the builder'; echo \"forged=$?\"; "
        + "\"$COLONY_BIN\" pause builder; echo \"pause=$?\"; "
        + "\"$COLONY_BIN\" resume scout; echo \"resume=$?\"; "
        + "\"$COLONY_BIN\" approve scout c1; echo \"approve=$?\"; "
        + "\"$COLONY_BIN\" status builder; echo \"status=$?\"");
    assertTrue(out.contains("not available inside an ant's session: sending as another ant ('builder'); "
        + "this session is ant 'scout'"), out);
    for (String cmd : List.of("forged", "pause", "resume", "approve", "status")) {
      assertTrue(out.contains(cmd + "=1"), cmd + ": " + out);
    }
    assertTrue(out.contains("not available inside an ant's session: colony pause"), out);
    assertTrue(out.contains("not available inside an ant's session: colony approve"), out);
    assertTrue(sent.isEmpty(), "nothing was sent: " + sent);
  }

  @Test
  void theChannelIsAtItsFixedPathAndTheWorkersDirectoryIsNot() throws Exception {
    String out = session("echo \"bin=$COLONY_BIN chan=$COLONY_CHANNEL\"; test -S /run/colony/colony.sock && echo socket-there; "
        + "ls /tmp | grep -c colony-channel || true; echo \"temporal=${TEMPORAL_ADDRESS:-none}\"");
    assertTrue(out.contains("bin=/run/colony/colony chan=/run/colony/colony.sock"), out);
    assertTrue(out.contains("socket-there"), out);
    assertTrue(out.contains("temporal=none"), out);
    assertTrue(out.lines().anyMatch(l -> l.strip().equals("0")), "the worker's channel directories are not inside: " + out);
  }


}
