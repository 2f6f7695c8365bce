package dev.colony.engine.gemini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.chat.ChatPost;
import dev.colony.engine.Narrator;
import dev.colony.sandbox.Confinement;
import dev.colony.sandbox.SessionWalls;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.SandboxSpec;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.toolgate.ToolGate;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Gemini engine's file tools run where the agent stands: a symbolic link the agent made in
 * its workspace (with its own shell tool) to a file of the worker does not hand that file over,
 * and a write through one does not reach it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GeminiToolsWallsTest {
  @TempDir
  Path tmp;

  private AntSpec spec(Path colony) {
    return AntSpec.builder().colony("c").name("g").description("d").instructions("i").engine(EngineKind.GEMINI)
        .claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS).autonomy(Autonomy.FULL)
        .confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL).lmOutput(LmOutput.DISCORD)
        .recovery(RecoveryPolicy.RESUME).sessionTimeoutSeconds(600).heartbeatTimeoutSeconds(30)
        .continueAsNewEvery(100).workspace(new WorkspaceSpec(colony.resolve(".colony/workspaces").toString(), null, null))
        .colonyDir(colony.toString()).sourceFile("ants/g.yaml").sandbox(SandboxSpec.DEFAULTS).build();
  }

  private GeminiTools tools(AntSpec spec, Path ws, Confinement walls) {
    ToolGate gate = new ToolGate(spec, 1, r -> new ConfirmationDecision(1, true, "tester", null));
    Narrator narrator = new Narrator(spec, (ChatPost p) -> { }, new PrintStream(PrintStream.nullOutputStream()), "k");
    return new GeminiTools(ws, gate, narrator, walls, Map.of("COLONY_ANT", "g"));
  }

  @Test
  void aHumanApprovalsNoteIsInTheResponseTheModelReads() throws Exception {
    Path colony = Files.createDirectories(tmp.resolve("colony"));
    Path ws = Files.createDirectories(colony.resolve(".colony/workspaces/g"));
    AntSpec spec = spec(colony).toBuilder().autonomy(Autonomy.HUMAN)
        .confirmation(new ConfirmationSpec(List.of("write_file"), List.of())).build();
    ToolGate gate = new ToolGate(spec, 1, r -> new ConfirmationDecision(1, true, "dana (console)", "only notes/"));
    Narrator narrator = new Narrator(spec, (ChatPost p) -> { }, new PrintStream(PrintStream.nullOutputStream()), "k");
    GeminiTools t = new GeminiTools(ws, gate, narrator, Confinement.NONE, Map.of("COLONY_ANT", "g"));
    Map<String, Object> wrote = t.call("write_file", Map.of("path", "notes/a.txt", "content", "hello"));
    assertEquals("notes/a.txt", wrote.get("written"), wrote.toString());
    assertEquals("This write_file call was approved by dana (console), with a note: only notes/",
        wrote.get("approval_note"), wrote.toString());
    // A call nobody was asked about carries no note.
    assertNull(t.call("read_file", Map.of("path", "notes/a.txt")).get("approval_note"));
  }

  @Test
  void aLinkToTheWorkersFilesReadsNothingAndWritesNothing() throws Exception {
    Path colony = Files.createDirectories(tmp.resolve("colony"));
    Path ws = Files.createDirectories(colony.resolve(".colony/workspaces/g"));
    Path secret = Files.writeString(tmp.resolve("worker-secret.txt"), "the worker's secret");
    AntSpec spec = spec(colony);
    try (SessionWalls walls = SessionWalls.of(spec, ws, System.getenv(), Map.of("COLONY_ANT", "g"), List.of(), "gem-" + System.nanoTime())) {
      assertNull(walls.refusal());
      GeminiTools t = tools(spec, ws, walls.confinement());
      // The agent's own shell (in its walls) makes the links; the file tools then follow them.
      assertEquals(0, t.call("run_shell", Map.of("command", "ln -s " + secret + " leak && ln -s " + tmp + " up")).get("exit_code"));
      Map<String, Object> read = t.call("read_file", Map.of("path", "leak"));
      assertNull(read.get("content"), read.toString());
      assertNotNull(read.get("error"), read.toString());
      Map<String, Object> search = t.call("search_files", Map.of("pattern", "secret", "path", "."));
      assertFalse(search.toString().contains("the worker's secret"), search.toString());
      // (Inside, the link leads into the sandbox's own private /tmp, or nowhere: never the worker's.)
      t.call("write_file", Map.of("path", "up/planted.txt", "content", "x"));
      assertFalse(Files.exists(tmp.resolve("planted.txt")));
      assertEquals("the worker's secret", Files.readString(secret));
      // Its own files work as before.
      assertEquals(Map.of("written", "notes/a.txt", "bytes", 5), t.call("write_file", Map.of("path", "notes/a.txt", "content", "hello")));
      assertEquals("hello", t.call("read_file", Map.of("path", "notes/a.txt")).get("content"));
      assertEquals(Map.of("edited", "notes/a.txt"), t.call("edit_file", Map.of("path", "notes/a.txt", "old_text", "hello", "new_text", "bye")));
      assertEquals(List.of("notes/a.txt:1: bye"), t.call("search_files", Map.of("pattern", "by+e", "path", ".")).get("matches"));
      assertTrue(((List<?>) t.call("list_files", Map.of("path", ".")).get("files")).contains("notes/a.txt"));
    }
    // Without walls the same link hands the file over: the test can fail.
    GeminiTools loose = tools(spec, ws, Confinement.NONE);
    assertEquals("the worker's secret", loose.call("read_file", Map.of("path", "leak")).get("content"));
  }
}
