package dev.colony.session.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.sandbox.Bubblewrap;
import dev.colony.sandbox.Confinement;
import dev.colony.sandbox.SessionWalls;
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
import dev.colony.task.TaskWork;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker reads a task's work (git log and diff) in the ant's repository, whose config is the
 * ant's: a program it names there (here the signature checker git runs for {@code git log} with
 * {@code log.showSignature}) runs in the ant's walls, never with the worker's powers.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TaskWorkReaderWallsTest {
  @TempDir
  Path tmp;

  static String git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString(), "-c", "user.name=A", "-c",
        "user.email=a@example.com", "-c", "commit.gpgSign=false"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    return out.strip();
  }

  @Test
  void aProgramTheAntsRepositoryNamesRunsInItsWallsWhenItsWorkIsRead() throws Exception {
    assertTrue(Bubblewrap.probe().works(), Bubblewrap.probe().problem());
    Path colony = Files.createDirectories(tmp.resolve("colony"));
    Path ws = Files.createDirectories(colony.resolve(".colony/workspaces/a"));
    Path marker = tmp.resolve("ran-on-the-worker");
    git(ws, "init", "-q", "-b", "colony/a");
    git(ws, "commit", "-q", "--allow-empty", "-m", "base");
    String base = git(ws, "rev-parse", "HEAD");
    // What a hostile ant leaves: a commit carrying a signature, and its config naming the checker.
    String tree = git(ws, "rev-parse", "HEAD^{tree}");
    Path object = tmp.resolve("commit.txt");
    Files.writeString(object, "tree " + tree + "\nparent " + base + "\nauthor A <a@example.com> 1700000000 +0000\n"
        + "committer A <a@example.com> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n"
        + " -----END PGP SIGNATURE-----\n\nsigned work\n");
    String signed = git(ws, "hash-object", "-t", "commit", "-w", object.toString());
    git(ws, "update-ref", "HEAD", signed);
    Path checker = ws.resolve("checker.sh");
    Files.writeString(checker, "#!/bin/sh\ntouch " + marker + "\n");
    checker.toFile().setExecutable(true);
    git(ws, "config", "gpg.program", checker.toString());
    git(ws, "config", "log.showSignature", "true");
    git(ws, "config", "core.fsmonitor", checker.toString());

    AntSpec spec = AntSpec.builder().colony("c").name("a").description("d").instructions("i")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS)
        .command(new CommandSpec(List.of("/bin/true"), Map.of(), List.of()))
        .autonomy(Autonomy.HUMAN).confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL)
        .lmOutput(LmOutput.DISCORD).recovery(RecoveryPolicy.RESUME).sessionTimeoutSeconds(3600)
        .heartbeatTimeoutSeconds(30).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec(ws.getParent().toString(), null, null))
        .colonyDir(colony.toString()).sourceFile("ants/a.yaml").sandbox(SandboxSpec.DEFAULTS).build();
    try (SessionWalls walls = SessionWalls.of(spec, ws, System.getenv(), Map.of("COLONY_ANT", "a"), List.of(),
        "reader-" + System.nanoTime())) {
      assertNull(walls.refusal());
      TaskWork work = TaskWorkReader.since(ws, base, walls.confinement());
      assertNotNull(work);
      assertEquals(signed, work.head());
      assertEquals(1, work.commits().size());
      assertFalse(Files.exists(marker), "the ant's signature checker ran on the worker");
    }
    // Without walls (sandbox: off, a trusted ant) the same read runs it: the door this test watches.
    TaskWorkReader.since(ws, base, Confinement.NONE);
    assertTrue(Files.exists(marker), "git ran the repository's program: the test can fail");
  }
}
