package dev.colony.session.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class SessionEnvironmentTest {
  @TempDir
  Path dir;

  private AntSpec spec(String name) {
    return AntSpec.builder().colony("c").name(name).description("d").instructions("i").engine(EngineKind.COMMAND)
        .claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS).autonomy(Autonomy.HUMAN)
        .confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL).lmOutput(LmOutput.DISCORD)
        .recovery(RecoveryPolicy.RESUME).pollIntervalSeconds(0).confirmationTimeoutSeconds(1800)
        .sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(30).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec("/tmp", null, null)).colonyDir(dir.toString())
        .sourceFile("ants/" + name + ".yaml").build();
  }

  @Test
  void aBigColonysPeersGoToAFileAndTheVariableStaysBounded() throws Exception {
    Files.createDirectories(dir.resolve("ants"));
    for (int i = 0; i < 700; i++) {
      // Unparsable on purpose: the names then come from the file names, fast.
      Files.writeString(dir.resolve("ants").resolve(String.format("%060d.yaml", i)), ":");
    }
    Map<String, String> env = new SessionEnvironment(null, null, null).forSession(spec(String.format("%060d", 0)), 1);
    String peers = env.get("COLONY_PEERS");
    assertTrue(peers.length() <= SessionEnvironment.MAX_PEERS_CHARS, "bounded: " + peers.length());
    assertTrue(peers.startsWith(String.format("%060d", 1)), "whole names, the ant itself left out");
    assertEquals(0, peers.split(",")[peers.split(",").length - 1].length() % 60);
    assertNotNull(env.get("COLONY_PEERS_FILE"));
    List<String> all = Files.readAllLines(Path.of(env.get("COLONY_PEERS_FILE")));
    assertEquals(699, all.size());
    // The list is cached, and read again when the ants directory changes.
    Files.writeString(dir.resolve("ants").resolve("newcomer.yaml"), ":");
    Files.setLastModifiedTime(dir.resolve("ants"),
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5_000));
    assertTrue(SessionEnvironment.peers(spec("x")).contains("newcomer"));
  }

  @Test
  void aSmallColonysPeersAreAllInTheVariable() throws Exception {
    Files.createDirectories(dir.resolve("ants"));
    for (String n : List.of("a", "b", "c")) {
      Files.writeString(dir.resolve("ants").resolve(n + ".yaml"), ":");
    }
    Map<String, String> env = new SessionEnvironment(null, null, null).forSession(spec("b"), 1);
    assertEquals("a,c", env.get("COLONY_PEERS"));
    assertEquals(null, env.get("COLONY_PEERS_FILE"));
  }
}
