package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.client.AntVerb;
import dev.colony.client.VerbRefused;
import dev.colony.client.Verbs;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The CLI and the dev terminal read an ant's verbs with the one parser ({@link Verbs}): the same
 * bad input gets the same sentence, before anything reaches Temporal (there is none here); and
 * {@code stop} ends an ant in the CLI, while typed in the dev terminal it does nothing and says so.
 */
@Timeout(60)
class SurfaceVerbsTest {
  private static String refusal(Verbs verbs, String word, String arg) {
    return assertThrows(VerbRefused.class, () -> verbs.parse(word, arg)).getMessage();
  }

  /** What the dev terminal prints for {@code lines}, without Temporal. */
  private static List<String> devTerminal(String... lines) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DevConsole console = new DevConsole(null, "acme", new PrintStream(bytes, true, StandardCharsets.UTF_8));
    console.run(new BufferedReader(new StringReader(String.join("\n", lines) + "\n")));
    return bytes.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void theDevTerminalAnswersABadVerbWithTheParsersSentence() throws Exception {
    Verbs typed = Verbs.typed("/");
    List<String> out = devTerminal("worker /stop", "worker /urgent", "worker /approve first", "worker /frobnicate",
        "worker /deny 0");
    assertEquals(List.of(
        "colony: " + refusal(typed, "stop", ""),
        "colony: " + refusal(typed, "urgent", ""),
        "colony: " + refusal(typed, "approve", "first"),
        "colony: " + refusal(typed, "frobnicate", ""),
        "colony: " + refusal(typed, "deny", "0")), out);
    assertTrue(out.get(0).contains("`/pause` pauses the ant") && out.get(0).contains("`colony stop ANT`"), out.get(0));
    assertTrue(DevConsole.HELP.contains("to stop an ant for good: colony stop ANT"), DevConsole.HELP);
    assertEquals(DevConsole.HELP.lines().toList(), devTerminal("worker /help"), "help is the terminal's own word");
    assertTrue(!DevConsole.HELP.contains("/start") && !DevConsole.HELP.contains("old names"), "an old name is never written");
  }

  @Test
  void theCliAnswersABadVerbWithTheParsersSentence() {
    Verbs named = Verbs.named();
    CliTest.Result empty = CliTest.run("send", "alpha", " ");
    assertEquals(1, empty.code(), empty.err());
    assertEquals("colony: " + assertThrows(VerbRefused.class, () -> named.message(" ", false)).getMessage(),
        empty.err().strip());
    CliTest.Result urgent = CliTest.run("send", "--urgent", "alpha", " ");
    assertEquals("colony: " + assertThrows(VerbRefused.class, () -> named.message(" ", true)).getMessage(),
        urgent.err().strip());
    CliTest.Result zero = CliTest.run("approve", "alpha", "0");
    assertEquals("colony: " + assertThrows(VerbRefused.class, () -> named.decide(true, 0, null)).getMessage(),
        zero.err().strip());
    String note = "n".repeat(Verbs.MAX_NOTE_CHARS + 1);
    CliTest.Result longNote = CliTest.run("deny", "alpha", "--note", note);
    assertEquals("colony: " + assertThrows(VerbRefused.class, () -> named.decide(false, null, note)).getMessage(),
        longNote.err().strip());
    CliTest.Result self = CliTest.run("send", "--from", "scout", "scout", "hi");
    assertEquals("colony: an ant cannot send a message to itself ('scout')", self.err().strip());
  }

  @Test
  void theCliNamesItsVerbsStopEndsTheAntForGood() {
    for (String word : List.of("pause", "resume", "stop", "abort", "clear")) {
      CommandLine.ParseResult parsed = ColonyCli.commandLine().parseArgs(word, "alpha");
      SignalCommands.AntCommand command = (SignalCommands.AntCommand) parsed.subcommand().commandSpec().userObject();
      assertEquals(word, command.verb().word(), "the command's verb, read by the one parser");
    }
    SignalCommands.AntCommand stop = (SignalCommands.AntCommand) ColonyCli.commandLine().parseArgs("stop", "alpha")
        .subcommand().commandSpec().userObject();
    assertInstanceOf(AntVerb.Stop.class, stop.verb());
    assertTrue(CliTest.run("stop", "--help").out().contains("Stop an ant for good"));
  }
}
