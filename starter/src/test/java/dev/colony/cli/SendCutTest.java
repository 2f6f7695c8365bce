package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What {@code colony send} says of a message over the limit: the ant's cut, never half an emoji. */
@Timeout(10)
class SendCutTest {
  private static final String ANT = "\uD83D\uDC1C"; // 🐜: one character, two UTF-16 units
  private static final int MAX = dev.colony.ant.AntWorkflow.MAX_MESSAGE_CHARS;

  @Test
  void aMessageWithinTheLimitIsNotCut() {
    assertEquals("", dev.colony.client.Verbs.cutNote("x".repeat(MAX)));
  }

  @Test
  void anEmojiAcrossTheBoundaryIsKeptWholeOrLeftOutAndTheCountIsInCharactersAHumanSees() {
    String text = "x".repeat(MAX - 1) + ANT + "y".repeat(100);
    assertEquals(", cut to its first 15,999 of 16,100 characters (send the rest separately)",
        dev.colony.client.Verbs.cutNote(text));
    assertEquals(", cut to its first 16,000 of 20,000 characters (send the rest separately)",
        dev.colony.client.Verbs.cutNote("x".repeat(20_000)));
  }
}
