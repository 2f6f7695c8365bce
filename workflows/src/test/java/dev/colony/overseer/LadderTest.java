package dev.colony.overseer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The escalation ladder and the supervisor's book, without Temporal. */
@Timeout(30)
class LadderTest {
  static final OverseerSpec SPEC = new OverseerSpec("anthropic", "m", "off", 4, 2, 3, 600);

  static Verdict flag(Pattern p) {
    return new Verdict(p, "advice", "why");
  }

  @Test
  void whisperWhisperEscalateAtTheThreshold() {
    var s1 = Ladder.next(0, flag(Pattern.SPIRALING), 3);
    assertEquals(Ladder.Action.WHISPER, s1.action());
    assertEquals("CORRECTION", s1.kind());
    assertEquals("advice", s1.text());
    var s2 = Ladder.next(s1.strikes(), flag(Pattern.SPIRALING), 3);
    assertEquals(Ladder.Action.WHISPER, s2.action());
    assertTrue(s2.text().startsWith("Notice 2 of 2: you are still retrying"), s2.text());
    var s3 = Ladder.next(s2.strikes(), flag(Pattern.DRIFT), 3);
    assertEquals(Ladder.Action.ESCALATE, s3.action());
    assertEquals("ESCALATION", s3.kind());
    assertTrue(s3.text().contains("after 2 notices"), s3.text());
  }

  @Test
  void neverEscalatesOnAFirstObservation() {
    for (int threshold : new int[] {-1, 0, 1, 2}) {
      assertEquals(Ladder.Action.WHISPER, Ladder.next(0, flag(Pattern.STALLING), threshold).action(),
          "threshold " + threshold);
    }
    assertEquals(Ladder.Action.ESCALATE, Ladder.next(1, flag(Pattern.STALLING), 2).action());
  }

  @Test
  void okResetsAndShallowThinksDeeper() {
    assertEquals(new Ladder.Step(Ladder.Action.QUIET, 0, null, null), Ladder.next(2, Verdict.ok(), 3));
    assertEquals("THINK_DEEPER", Ladder.next(0, flag(Pattern.SHALLOW), 3).kind());
    var empty = Ladder.next(0, new Verdict(Pattern.DRIFT, " ", null), 3);
    assertTrue(empty.text().startsWith("This has moved away from your task"), "a default when the model gave none");
  }

  @Test
  void theWindowIsBoundedAndSanitised() {
    OverseerBook book = new OverseerBook(null);
    List<Turn> many = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      many.add(new Turn("tool", "Bash\u001b[31m", "x".repeat(5000) + i, "line1\nline2\u0000", false));
    }
    book.accept(new TurnReport(1, many, List.of(), 0), SPEC);
    assertTrue(book.evaluationDue(SPEC));
    EvaluationRequest r = book.beginEvaluation("a", "/c", SPEC, "task");
    assertEquals(4, r.window().size(), "window_size 4");
    Turn t = r.window().get(0);
    assertEquals("Bash[31m", t.name(), "escape characters removed");
    assertEquals(Turn.MAX_INPUT + 1, t.input().length(), "cut with an ellipsis");
    assertEquals("line1 line2", t.result());
    assertFalse(book.evaluationDue(SPEC), "one evaluation at a time");
    assertTrue(book.busy(SPEC));
  }

  @Test
  void whispersWaitUntilAcknowledgedAndAreBounded() {
    OverseerBook book = new OverseerBook(null);
    for (int i = 0; i < 12; i++) {
      book.accept(new TurnReport(1, List.of(Turn.text("t" + i), Turn.text("u" + i)), List.of(), 0), SPEC);
      book.beginEvaluation("a", "/c", SPEC, "task");
      book.conclude(flag(Pattern.SPIRALING), SPEC);
      book.resetLadder();
    }
    List<Whisper> pending = book.pending();
    assertEquals(OverseerBook.MAX_PENDING, pending.size());
    assertEquals("w3", pending.get(0).id(), "the oldest are dropped first");
    book.acknowledge(List.of("w3", "w4", "nonsense"));
    assertEquals(OverseerBook.MAX_PENDING - 2, book.pending().size());
    OverseerBook copy = new OverseerBook(book.memory());
    assertEquals(book.pending(), copy.pending(), "carried over continue-as-new");
    assertEquals(book.summary(SPEC), copy.summary(SPEC));
  }

  @Test
  void aSilenceWithTurnsIsNoSilence() {
    OverseerBook book = new OverseerBook(null);
    book.accept(new TurnReport(1, List.of(Turn.text("hi")), List.of(), 900), SPEC);
    assertFalse(book.silenceDue());
    book.accept(new TurnReport(1, List.of(), List.of(), 900), SPEC);
    assertTrue(book.silenceDue());
    Verdict v = book.takeSilence();
    assertEquals(Pattern.STALLING, v.pattern());
    assertTrue(v.reason().contains("900s"), v.reason());
  }

  /**
   * An agent that outran a slow evaluation (its turns folded into one batch) or ended its session
   * between two evaluations leaves turns no evaluation read: the session's last report makes one
   * due, whatever their number.
   */
  @Test
  void theTurnsASessionEndsWithAreEvaluatedHoweverFew() {
    OverseerBook book = new OverseerBook(null);
    book.accept(new TurnReport(1, List.of(Turn.text("a"), Turn.text("b"), Turn.text("c")), List.of(), 0), SPEC);
    book.beginEvaluation("a", "/c", SPEC, "task");
    book.conclude(flag(Pattern.SPIRALING), SPEC);
    book.accept(new TurnReport(1, List.of(Turn.text("d")), List.of(), 0), SPEC);
    assertFalse(book.evaluationDue(SPEC), "while the session runs: eval_interval turns make an evaluation");
    book.accept(new TurnReport(1, List.of(Turn.text("e")), List.of("w1"), 0, true), SPEC);
    assertTrue(book.evaluationDue(SPEC), "the session ended with two turns nobody read");
    assertTrue(book.busy(SPEC), "a run does not continue as new before it");
    EvaluationRequest r = book.beginEvaluation("a", "/c", SPEC, "task");
    assertEquals(Turn.text("e").bounded(), r.window().get(r.window().size() - 1), "the last turn is in the window");
    book.conclude(Verdict.ok(), SPEC);
    assertFalse(book.evaluationDue(SPEC));
    book.accept(new TurnReport(2, List.of(), List.of(), 0, true), SPEC);
    assertFalse(book.evaluationDue(SPEC), "a last report with nothing new asks for nothing");
  }
}
