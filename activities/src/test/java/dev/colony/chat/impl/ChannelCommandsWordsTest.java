package dev.colony.chat.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.client.VerbRefused;
import dev.colony.client.Verbs;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chat words: read by the one parser of verbs ({@link Verbs}), so a bad command is answered
 * with its sentence; {@code /stop} does nothing and says which word to use; the old name
 * {@code /start} is read there and never offered here.
 */
@Timeout(10)
class ChannelCommandsWordsTest {
  private static final String APPROVALS = "react ✅ or ❌";
  private final ChannelCommands commands = new ChannelCommands(null, "c", null, "/", APPROVALS);
  private final ChannelCommands slack = new ChannelCommands(null, "c", null, "/colony ", APPROVALS);

  private static String refusal(String prefix, String word, String arg) {
    return assertThrows(VerbRefused.class, () -> Verbs.typed(prefix).parse(word, arg)).getMessage();
  }

  @Test
  void theHelpShowsPauseAndResumeAndHowToStopForGoodAndNoOldName() {
    String help = commands.help();
    assertTrue(help.contains("`/pause` pause after the current session · `/resume` go on (to stop an ant for good: "
        + "`colony stop ANT` or the console)"), help);
    assertFalse(help.contains("`/stop`"), help);
    assertFalse(help.contains("`/start`"), help);
    assertFalse(help.contains("old names"), help);
    assertEquals(help, commands.command("help", "", List.of("a"), null));
  }

  @Test
  void theOfferedCommandsHoldNoOldNameAndNoStop() {
    assertFalse(ChannelCommands.COMMANDS.contains("stop"), "an ambiguous word is not offered as a slash command");
    assertFalse(ChannelCommands.COMMANDS.contains("start"), "an old name is read, never written");
    assertTrue(ChannelCommands.COMMANDS.containsAll(List.of("pause", "resume", "urgent", "abort", "clear")));
    assertTrue(ChannelCommands.describe("pause").startsWith("Pause the ant"));
    for (String c : ChannelCommands.COMMANDS) {
      assertTrue(ChannelCommands.describe(c).length() <= 100, "Discord's limit for a slash command's description: " + c);
      if (!List.of("help", "task", "tasks").contains(c)) {
        assertTrue(Verbs.typed("/").knows(c), "every ant command is a word of the one parser: " + c);
      }
    }
  }

  @Test
  void stopInTheChatDoesNothingAndAnswersWhichWordToUse() {
    String expected = refusal("/", "stop", "");
    assertTrue(expected.contains("`/pause` pauses the ant") && expected.contains("`colony stop ANT`"), expected);
    // No client here: an answer that tried to signal the ant would fail; the refusal comes first.
    assertEquals(expected, commands.command("stop", "", List.of("a"), null));
    assertEquals(expected, commands.onText(List.of("a"), null, "/stop"));
    assertEquals(expected, commands.onText(List.of("a", "b"), null, "a: /STOP now"), "named ant, any case");
    assertEquals(refusal("/colony ", "stop", ""), slack.onText(List.of("a"), null, "!stop", "!", "/"));
  }

  @Test
  void aBadCommandGetsTheParsersSentence() {
    assertEquals(refusal("/", "urgent", ""), commands.command("urgent", "", List.of("a"), null));
    assertTrue(commands.command("urgent", "", List.of("a"), null).startsWith("`/urgent` needs the instruction"));
    assertEquals(refusal("/", "frobnicate", ""), commands.onText(List.of("a"), null, "/frobnicate"));
    assertTrue(commands.onText(List.of("a"), null, "/frobnicate").startsWith("Unknown command `/frobnicate`"));
    assertEquals(refusal("/", "approve", "first"), commands.command("approve", "first", List.of("a"), null));
    assertEquals(APPROVALS, commands.command("approve", "3", List.of("a"), null),
        "a request is decided on its post here: the chat says how");
  }
}
