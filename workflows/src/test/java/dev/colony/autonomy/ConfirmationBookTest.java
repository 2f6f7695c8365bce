package dev.colony.autonomy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ConfirmationBookTest {
  private static ConfirmationRequest request(String key, int session) {
    return new ConfirmationRequest(session, key, "Bash", "git push", "pushes to a remote");
  }

  @Test
  void requestsAreNumberedDecidedOldestFirstAndForgottenWithTheirSession() {
    ConfirmationBook book = new ConfirmationBook();
    ConfirmationBook.Entry a = book.open(request("k1", 1), 1_000);
    ConfirmationBook.Entry b = book.open(request("k2", 2), 2_000);
    assertEquals(List.of(1, 2), book.pending().stream().map(PendingConfirmation::id).toList());
    assertSame(a, book.find(request("k1", 1)), "a retried attempt attaches to the same request");
    assertSame(a, book.target(null), "no id: the oldest waiting");
    assertSame(b, book.target(2));
    assertNull(book.target(7));
    a.decide(new ConfirmationDecision(1, true, "dana", null));
    assertEquals(1, book.waiting());
    assertSame(b, book.target(null));
    book.forgetSessionsUpTo(1);
    assertNull(book.find(request("k1", 1)));
    assertEquals(1, book.waiting());
    assertEquals(3, book.open(request("k3", 3), 3_000).id(), "numbers are never reused");
  }

  @Test
  void theOpenRequestsOfEndedSessionsAreDeniedSoTheirHandlersReturn() {
    ConfirmationBook book = new ConfirmationBook();
    ConfirmationBook.Entry a = book.open(request("k1", 1), 1_000);
    ConfirmationBook.Entry b = book.open(request("k2", 2), 2_000);
    ConfirmationBook.Entry c = book.open(request("k3", 2), 2_000);
    c.decide(new ConfirmationDecision(3, true, "dana", null));
    assertEquals(List.of(1), book.denyOpenUpTo(1));
    assertFalse(a.open());
    assertEquals(new ConfirmationDecision(1, false, "colony", "the session ended"), a.decision());
    assertSame(b, book.target(null), "a later session's request stays open");
    assertEquals(List.of(2), book.denyOpenUpTo(Integer.MAX_VALUE));
    assertEquals(true, c.decision().approved(), "a decision already made stands");
    assertEquals(0, book.waiting());
  }

  @Test
  void aPendingRequestSaysWhenItWasAsked() {
    ConfirmationBook book = new ConfirmationBook();
    book.open(request("k1", 1), 61_000, 1_000L);
    book.open(request("k2", 1), 62_000);
    var pending = book.pending();
    org.junit.jupiter.api.Assertions.assertEquals(1_000L, pending.get(0).requestedAtMillis());
    org.junit.jupiter.api.Assertions.assertNull(pending.get(1).requestedAtMillis());
  }
}
