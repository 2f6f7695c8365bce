package dev.colony.chat.impl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The chat words: /pause and /resume; /stop and /start only as their old names. */
@Timeout(10)
class ChannelCommandsWordsTest {
  private final ChannelCommands commands = new ChannelCommands(null, "c", null, "/", "react ✅ or ❌");

  @Test
  void theHelpShowsPauseAndResumeAndTheOldNamesAsSuch() {
    String help = commands.help();
    assertTrue(help.contains("`/pause` pause after the current session · `/resume` go on"), help);
    assertTrue(help.contains("old names: `/stop` is `/pause`, `/start` is `/resume`"), help);
    assertFalse(help.contains("`/pause` or `/stop`"), help);
    assertTrue(commands.command("help", "", java.util.List.of("a"), null).equals(help));
  }

  @Test
  void theOldNamesAreStillCommandsAndSaySo() {
    assertTrue(ChannelCommands.COMMANDS.containsAll(java.util.List.of("pause", "resume", "stop", "start")));
    assertTrue(ChannelCommands.describe("stop").startsWith("Old name of pause"));
    assertTrue(ChannelCommands.describe("start").startsWith("Old name of resume"));
    assertTrue(ChannelCommands.describe("pause").startsWith("Pause the ant"));
    for (String c : ChannelCommands.COMMANDS) {
      assertTrue(ChannelCommands.describe(c).length() <= 100, "Discord's limit for a slash command's description: " + c);
    }
  }
}
