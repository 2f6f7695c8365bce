package dev.colony.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine's program reached through links inside its sandbox, as npm installs a CLI
 * ({@code node_modules/.bin/claude -> ../@anthropic-ai/claude-code/bin/claude.exe}) in a
 * directory that is itself reached through a link (a worktree's {@code .tools}, a symlinked
 * prefix): every hop of the link chain, as the program names it, is there inside the walls.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EngineProgramLinksTest {
  @TempDir
  Path tmp;

  @Test
  void aProgramReachedThroughARelativeLinkInALinkedDirectoryRunsInside() throws Exception {
    assertTrue(Bubblewrap.probe().works(), "bubblewrap: " + Bubblewrap.probe().problem());
    Path real = tmp.resolve("real-tools/pkg");
    Files.createDirectories(real.resolve("node_modules/.bin"));
    Files.createDirectories(real.resolve("node_modules/cli/bin"));
    Path exe = real.resolve("node_modules/cli/bin/cli.exe");
    Files.writeString(exe, "#!/bin/sh\necho ran-inside-$(id -u)\n");
    Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.createSymbolicLink(real.resolve("node_modules/.bin/cli"), Path.of("../cli/bin/cli.exe"));
    Path linkedTools = Files.createSymbolicLink(tmp.resolve("work/.tools"), mkdirs(tmp.resolve("real-tools")));
    Path program = linkedTools.resolve("pkg/node_modules/.bin/cli");

    Path colony = Files.createDirectories(tmp.resolve("colony"));
    Path workspace = Files.createDirectories(colony.resolve(".colony/workspaces/a"));
    AntSpec spec = AntSpec.builder().colony("c").name("a").description("d").instructions("i")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS)
        .command(new CommandSpec(List.of(program.toString()), Map.of(), List.of()))
        .autonomy(Autonomy.HUMAN).confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL)
        .lmOutput(LmOutput.DISCORD).recovery(RecoveryPolicy.RESUME).sessionTimeoutSeconds(3600)
        .heartbeatTimeoutSeconds(30).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec(colony.resolve(".colony/workspaces").toString(), null, null))
        .colonyDir(colony.toString()).sourceFile("ants/a.yaml").sandbox(SandboxSpec.DEFAULTS).build();
    Map<String, String> worker = new LinkedHashMap<>(System.getenv());
    try (SessionWalls walls = SessionWalls.of(spec, workspace, worker, Map.of("COLONY_ANT", "a"), List.of(),
        "links-" + System.nanoTime())) {
      assertNull(walls.refusal());
      Process p = walls.confinement().processFor(List.of(program.toString()), worker, Map.of(), workspace)
          .redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      assertTrue(p.waitFor(60, TimeUnit.SECONDS));
      assertEquals("ran-inside-1000", out);
    }
  }

  private static Path mkdirs(Path p) throws java.io.IOException {
    Files.createDirectories(p);
    Files.createDirectories(p.getParent().resolve("work"));
    return p;
  }
}
