package dev.colony.ant;

import org.junit.jupiter.api.Timeout;
import java.util.concurrent.TimeUnit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import org.junit.jupiter.api.Test;

/** The text helpers the ant's parts share: what a human sends is kept readable and bounded. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TextsTest {
  @Test
  void controlCharactersGoLineBreaksAndTabsStay() {
    assertEquals("a\nb\tc", Texts.clean("a\u0000\n\u001b[2Jb\tc\u0085"
        .replace("[2J", "")));
    assertEquals("[2Jx", Texts.clean("\u001b[2Jx"));
  }

  @Test
  void boundsCutWithAMark() {
    assertEquals("abc", Texts.bounded("abc", 3));
    assertEquals("ab…", Texts.bounded("abcd", 3));
    assertEquals("", Texts.clip(null, 3));
    assertEquals("abc…", Texts.clip("abcd", 3));
    assertTrue(Texts.longer("abcd", 3));
    assertFalse(Texts.longer(null, 3));
  }

  @Test
  void aFailureIsSaidInWords() {
    assertEquals("boom", Texts.failureText(new RuntimeException("wrapped",
        ApplicationFailure.newFailure("boom", "Type"))));
    assertEquals("timed out (heartbeat)", Texts.failureText(new RuntimeException("x",
        new TimeoutFailure("late", null, TimeoutType.TIMEOUT_TYPE_HEARTBEAT))));
    assertEquals("root cause", Texts.rootMessage(new RuntimeException("top", new IllegalStateException("root cause"))));
    assertEquals("IllegalStateException", Texts.rootMessage(new IllegalStateException()));
  }
}
