package dev.colony.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class PrintableTest {
  @Test
  void everyControlAndBidiOverrideBecomesAVisibleEscape() {
    assertEquals("\\u001b]0;title\\u0007\\u001b[2J", Printable.of("\u001b]0;title\u0007\u001b[2J"));
    assertEquals("\\u009b31m \\u0085 \\u007f \\u0000", Printable.of("\u009b31m \u0085 \u007f \u0000"));
    assertEquals("a\\rb", Printable.of("a\rb"));
    for (char c : "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\ufeff".toCharArray()) {
      assertEquals(String.format("x\\u%04xy", (int) c), Printable.of("x" + c + "y"));
    }
  }

  @Test
  void everyC0AndC1ControlButLineBreakAndTabIsEscaped() {
    for (char c = 0; c <= 0x9f; c++) {
      if (c >= 0x20 && c < 0x7f) {
        continue;
      }
      String out = Printable.of("<" + c + ">");
      if (c == '\n' || c == '\t') {
        assertEquals("<" + c + ">", out);
      } else {
        assertEquals(c == '\r' ? "<\\r>" : String.format("<\\u%04x>", (int) c), out);
        assertTrue(out.chars().allMatch(x -> x >= 0x20 && x < 0x7f), out);
      }
    }
  }

  @Test
  void ordinaryTextIsUntouched() {
    String text = "✅ **greeter** finished session 4\n\tcafé, 日本語, שלום, 👩‍💻 🏳️‍🌈";
    assertSame(text, Printable.of(text));
    assertEquals("line\nnext\n", Printable.of("line\r\nnext\r\n"));
    assertNull(Printable.of(null));
  }

  @Test
  void oneLineEscapesLineBreaksAndIsCut() {
    assertEquals("a\\nb\\tc\\r\\u001b[2J", Printable.line("a\nb\tc\r\u001b[2J", 100));
    assertEquals("abc… [7 more characters]", Printable.line("abcdefghij", 3));
    assertNull(Printable.line(null, 3));
  }

  @Test
  void aCutLineNeverSplitsAnEmoji() {
    String line = Printable.line("ab\uD83D\uDE00cd", 3);
    assertEquals("ab\uD83D\uDE00… [2 more characters]", line);
  }

  @Test
  void tagCharactersBeyondTheFirstPlaneAreEscapedEmojiAreNot() {
    // U+E0073 U+E0074: "st" spelled in invisible tag characters
    assertEquals("a\\udb40\\udc73\\udb40\\udc74b", Printable.of("a\udb40\udc73\udb40\udc74b"));
    assertEquals("a\\udb40\\udc73", Printable.line("a\udb40\udc73", 100));
    assertEquals("🐜 ok", Printable.of("🐜 ok"));
    assertEquals("🐜", Printable.line("🐜", 10));
  }
}
