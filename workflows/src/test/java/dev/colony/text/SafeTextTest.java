package dev.colony.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SafeTextTest {
  private static final String ANT = "\uD83D\uDC1C"; // 🐜, one code point, two chars

  @Test
  void loneSurrogatesBecomeTheReplacementCharacterAndPairsStay() {
    assertEquals("look \uFFFD", SafeText.clean("look \uD83D"));
    assertEquals("\uFFFDx", SafeText.clean("\uDC1Cx"));
    assertEquals("a\uFFFD\uFFFDb", SafeText.clean("a\uDC1C\uD83Db"));
    String fine = "ants " + ANT + " and\ttabs\nand lines";
    assertSame(fine, SafeText.clean(fine), "clean text is returned as it is");
    assertEquals("a\nb\tc", SafeText.clean("a\u0000\n\u001bb\tc\u0085"));
    assertEquals(ANT + "\uFFFD", SafeText.clean(ANT + "\uD83D\u0007"));
    assertNull(SafeText.clean(null));
  }

  @Test
  void aCutNeverSplitsAPair() {
    String s = "x".repeat(15_999) + ANT + "tail";
    assertEquals("x".repeat(15_999), SafeText.cut(s, 16_000), "the emoji across the boundary is left out whole");
    assertEquals("x".repeat(15_999) + ANT, SafeText.cut(s, 16_001));
    assertEquals("abc", SafeText.cut("abc", 5));
    assertEquals("ab", SafeText.cut("abc", 2));
    assertEquals("", SafeText.cut(ANT, 1));
  }
}
