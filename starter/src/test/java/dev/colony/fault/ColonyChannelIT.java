package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * On the real dev server and a real worker, a {@code command} ant in its sandbox (the default)
 * writes to a peer with {@code "$COLONY_BIN" send --from "$COLONY_ANT" PEER TEXT}, exactly as the
 * mailbox example does: the mail goes through the session's channel and arrives as the peer's
 * {@code message} signal. Sending as another ant, pausing a peer or resuming itself is refused with
 * one line and nothing is sent; it reads its own status.
 */
@Timeout(600)
class ColonyChannelIT {
  @TempDir
  Path tmp;

  private Cluster cluster;

  @AfterEach
  void tearDown() throws Exception {
    Cluster.closeAll(cluster);
  }

  private static void script(Path file, String body) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, body);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** Two ants, as in examples/mailbox, whose scripts keep what they saw in their own workspaces. */
  private Path fixture() throws Exception {
    Path f = tmp.resolve("fixture");
    Files.createDirectories(f.resolve("ants"));
    Files.writeString(f.resolve("colony.yaml"), "name: chan\ndefaults:\n  session_timeout: 5m\n  heartbeat_timeout: 10s\n");
    for (String ant : List.of("scout", "builder")) {
      Files.writeString(f.resolve("ants/" + ant + ".yaml"), "name: " + ant + "\ndescription: d\ninstructions: i\n"
          + "engine: command\ncommand:\n  argv: [\"./scripts/" + ant + ".sh\"]\ntriggers:\n  - type: discord_command\n");
    }
    // The forged mail goes first: had it been sent, the builder would see it no later than the honest one.
    script(f.resolve("scripts/scout.sh"), """
        #!/bin/sh
        {
          "$COLONY_BIN" send --from builder builder2 "forged as the builder"; echo "forged=$?"
          "$COLONY_BIN" send --from tester builder "forged as tester"; echo "forged2=$?"
          "$COLONY_BIN" pause builder; echo "pause=$?"
          "$COLONY_BIN" resume scout; echo "resume=$?"
          "$COLONY_BIN" status; echo "status=$?"
          "$COLONY_BIN" send --from "$COLONY_ANT" builder "finding from session $COLONY_SESSION"; echo "send=$?"
        } > scout.out 2>&1
        echo "TEMPORAL_ADDRESS=${TEMPORAL_ADDRESS:-none}" >> scout.out
        echo "client: $(sed -n 2p "$COLONY_BIN")" >> scout.out
        """);
    script(f.resolve("scripts/builder.sh"), """
        #!/bin/sh
        grep -o '\\[message from ant [^]]*\\] .*' "$COLONY_PROMPT_FILE" >> inbox.log || true
        """);
    return f;
  }

  @Test
  void aSandboxedAntMailsItsPeerThroughItsChannelAndCannotPoseAsAnother() throws Exception {
    cluster = new Cluster(tmp, fixture()).startServer("dev");
    Path inbox = cluster.dir.resolve(".colony/workspaces/builder/inbox.log");
    Path scoutOut = cluster.dir.resolve(".colony/workspaces/scout/scout.out");
    cluster.startWorker("w1");
    try {
      cluster.cli("start", cluster.dir.toString());
      cluster.cli("send", "chan/scout", "go");
      eventually(Duration.ofSeconds(120), () -> Files.exists(inbox)
          && Cluster.read(inbox).contains("[message from ant scout] finding from session 1"), "the builder got the scout's mail");
    } catch (AssertionError e) {
      String out = Files.exists(scoutOut) ? Cluster.read(scoutOut) : "(no scout.out)";
      throw new AssertionError(e.getMessage() + "\nscout.out:\n" + out + "\n" + cluster.diagnostics(), e);
    }
    assertEquals(List.of("[message from ant scout] finding from session 1"), Cluster.read(inbox).lines().toList(),
        "only the honest mail arrived, from the scout itself");
    String out = Cluster.read(scoutOut);
    assertTrue(out.contains("not available inside an ant's session: sending as another ant ('builder'); "
        + "this session is ant 'scout'"), out);
    assertTrue(out.contains("forged=1") && out.contains("forged2=1"), out);
    assertTrue(out.contains("not available inside an ant's session: colony pause") && out.contains("pause=1"), out);
    assertTrue(out.contains("not available inside an ant's session: colony resume") && out.contains("resume=1"), out);
    assertTrue(out.contains("chan/scout (engine command)") && out.contains("status=0"), out);
    assertTrue(out.contains("chan/builder: message from scout sent") && out.contains("send=0"), out);
    assertTrue(out.contains("TEMPORAL_ADDRESS=none"), out);
    assertFalse(out.contains("Exception"), out);
    // The worker's python3 runs the client (milliseconds a call) where it has one; else its JDK.
    assertTrue(out.contains(Files.isExecutable(Path.of("/usr/bin/python3"))
        ? "client: exec '/usr/bin/python3' -I -S -X utf8 '/run/colony/lib/channel_client.py' \"$@\""
        : "dev.colony.sandbox.channel.ChannelClient"), out);
    String builder = cluster.cli("status", "chan/builder");
    assertTrue(builder.contains("paused:             no"), builder);
  }
}
