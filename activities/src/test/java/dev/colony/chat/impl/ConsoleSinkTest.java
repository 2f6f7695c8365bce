package dev.colony.chat.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.chat.ChatPost;
import dev.colony.engine.Narrator;
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
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The console chat of a colony without Discord (ants' posts, the colony supervisor's lines, the agent's narration). */
@Timeout(30)
class ConsoleSinkTest {
  /** Retitles the terminal, clears it, a C1 CSI, a lone CR, a right-to-left override. */
  private static final String HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\u009b31mred\rover\u202etxt.exe";

  static void assertNoRawControls(String out) {
    for (int i = 0; i < out.length(); i++) {
      char c = out.charAt(i);
      boolean bad = c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f
          || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069;
      assertTrue(!bad, String.format("raw U+%04X at %d in: %s", (int) c, i, out));
    }
  }

  @Test
  void aPostIsPrintedLineByLineWithEveryControlEscaped() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new ConsoleSink(new PrintStream(bytes, true, StandardCharsets.UTF_8))
        .deliver(new ChatPost("c", "colony", null, "🛑 supervisor: agent failed **evil**: " + HOSTILE + "\nsecond\tline", "k"));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertNoRawControls(out);
    assertEquals(List.of("[colony] 🛑 supervisor: agent failed **evil**: \\u001b]0;pwned\\u0007\\u001b[2J\\u009b31mred",
        "[colony] over\\u202etxt.exe", "[colony] second\tline"), out.lines().toList());
  }

  @Test
  void whatTheAgentSaysOnTheConsoleIsEscaped() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    AntSpec spec = AntSpec.builder().colony("c").name("evil").description("d").instructions("i")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS)
        .discordChannel("ops").autonomy(Autonomy.FULL).confirmation(ConfirmationSpec.NONE)
        .toolCalls(ToolCallLogging.IMPACTFUL).lmOutput(LmOutput.CONSOLE).recovery(RecoveryPolicy.RESUME)
        .pollIntervalSeconds(3600).confirmationTimeoutSeconds(1800).sessionTimeoutSeconds(3600)
        .heartbeatTimeoutSeconds(3600).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec("/tmp", null, null)).colonyDir("/tmp").sourceFile("ants/evil.yaml").build();
    new Narrator(spec, p -> { }, new PrintStream(bytes, true, StandardCharsets.UTF_8), "k").text("I did it " + HOSTILE);
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertNoRawControls(out);
    assertTrue(out.startsWith("[evil] I did it \\u001b]0;pwned\\u0007"), out);
  }
}
