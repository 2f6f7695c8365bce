package dev.colony.session.impl;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.SessionGuard;
import dev.colony.overseer.OverseerSpec;
import dev.colony.overseer.Turn;
import dev.colony.overseer.TurnReply;
import dev.colony.overseer.TurnReport;
import dev.colony.overseer.Whisper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The engine side of the supervisor: batching, whispers at the next turn, acknowledgements, silence. */
@Timeout(60)
public class TurnReporterTest {
  static final OverseerSpec SPEC = new OverseerSpec("anthropic", "m", "off", 20, 3, 3, 60);

  record Sent(TurnReport report, String id, boolean waited) {}

  /** The workflow's side, scripted: each send gets the next reply (or none). */
  static final class Channel implements TurnReporter.Channel {
    final List<Sent> sent = new CopyOnWriteArrayList<>();
    final ConcurrentLinkedDeque<TurnReply> replies = new ConcurrentLinkedDeque<>();

    @Override
    public TurnReply send(TurnReport report, String updateId, boolean waitForVerdict) {
      sent.add(new Sent(report, updateId, waitForVerdict));
      TurnReply r = replies.poll();
      return r == null ? new TurnReply(List.of(), false) : r;
    }
  }

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final SessionGuard guard = new SessionGuard(Duration.ofMinutes(15), Duration.ofSeconds(5));

  /**
   * Waits until the reporter's thread has looked at least once entirely after this call (a look
   * under way may have read the clock before it moved): the injected clock's time is seen.
   */
  private static void lookedAgain(TurnReporter r) {
    long seen = r.looks();
    eventually(() -> r.looks() >= seen + 2, "the reporter looked again");
  }

  private TurnReporter reporter(Channel channel) {
    return new TurnReporter(channel, 7, SPEC, guard, s -> s == null ? null : s.replace("hunter2", "${PASSWORD}"),
        "turns/run/s7/a1", now::get);
  }

  @Test
  void batchesOfEvalIntervalAndWhispersAtTheNextTurn() throws Exception {
    Channel ch = new Channel();
    ch.replies.add(new TurnReply(List.of(new Whisper("w1", "CORRECTION", "Read the error.")), false));
    TurnReporter r = reporter(ch);
    r.turn(Turn.tool("Bash", "echo hunter2", "hunter2", false));
    r.turn(Turn.text("thinking"));
    assertTrue(r.take().isEmpty());
    assertEquals(0, ch.sent.size(), "no batch before eval_interval turns");
    r.turn(Turn.tool("Read", "a.txt", "...", false));
    eventually(() -> ch.sent.size() == 1, "first batch");
    Sent first = ch.sent.get(0);
    assertEquals(3, first.report().turns().size());
    assertEquals(7, first.report().session());
    assertEquals("turns/run/s7/a1/1", first.id());
    assertTrue(first.waited());
    assertEquals("echo ${PASSWORD}", first.report().turns().get(0).input(), "secrets are masked before they leave");
    // The whisper waits for the agent's next turn; taking it delivers it once.
    r.turn(Turn.text("next"));
    AtomicReference<List<String>> got = new AtomicReference<>(List.of());
    eventually(() -> !got.updateAndGet(g -> g.isEmpty() ? r.take() : g).isEmpty(), "the whisper is ready");
    assertEquals(List.of("[CORRECTION] Read the error."), got.get());
    assertTrue(r.take().isEmpty(), "delivered once");
    r.close();
    Sent last = ch.sent.get(ch.sent.size() - 1);
    assertEquals(List.of("w1"), last.report().delivered(), "the delivery is acknowledged");
    assertFalse(last.waited(), "the last batch does not hold up the end of the session");
  }

  @Test
  void whileEvaluatingEveryTurnIsSent() throws Exception {
    Channel ch = new Channel();
    ch.replies.add(new TurnReply(List.of(), true));
    ch.replies.add(new TurnReply(List.of(new Whisper("w9", "THINK_DEEPER", "Slow down.")), false));
    TurnReporter r = reporter(ch);
    for (int i = 0; i < 3; i++) {
      r.turn(Turn.text("t" + i));
    }
    eventually(() -> ch.sent.size() == 1, "first batch");
    // No pause for the verdict-pending answer to land: until it does, the turn waits in the buffer,
    // and it leaves alone only if the reporter honours "evaluating" (3 turns make a batch otherwise).
    r.turn(Turn.text("t3"));
    eventually(() -> ch.sent.size() == 2, "a single turn goes at once while the verdict is pending");
    assertEquals(1, ch.sent.get(1).report().turns().size());
    eventually(() -> {
      List<String> w = r.take();
      return w.equals(List.of("[THINK_DEEPER] Slow down."));
    }, "whisper taken");
    r.close();
  }

  @Test
  void aWhisperTheWorkflowRepeatsBeforeTheAckIsNotGivenTwice() throws Exception {
    Channel ch = new Channel();
    Whisper w = new Whisper("w1", "CORRECTION", "once");
    ch.replies.add(new TurnReply(List.of(w), false));
    ch.replies.add(new TurnReply(List.of(w), false));
    TurnReporter r = reporter(ch);
    for (int i = 0; i < 3; i++) {
      r.turn(Turn.text("a" + i));
    }
    eventually(() -> ch.sent.size() == 1, "batch 1");
    r.turn(Turn.text("x"));
    eventually(() -> !r.take().isEmpty(), "first delivery");
    r.turn(Turn.text("x2"));
    r.turn(Turn.text("x3"));
    eventually(() -> ch.sent.size() >= 2, "batch 2");
    assertEquals(List.of("w1"), ch.sent.get(1).report().delivered());
    // Batch 3 leaves only after the reporter has handled batch 2's answer (one thread sends and
    // handles in turn): by then the repeated whisper would be ready, had it been taken again.
    ch.replies.add(new TurnReply(List.of(), false));
    r.turn(Turn.text("y1"));
    r.turn(Turn.text("y2"));
    r.turn(Turn.text("y3"));
    eventually(() -> ch.sent.size() >= 3, "batch 3");
    assertTrue(r.take().isEmpty(), "already given");
    r.close();
  }

  @Test
  void silenceIsReportedOnceAndNotWhileAToolRuns() throws Exception {
    Channel ch = new Channel();
    TurnReporter r = reporter(ch);
    r.turn(Turn.text("start"));
    guard.hold(); // a long build
    now.addAndGet(120_000);
    lookedAgain(r);
    assertEquals(0, ch.sent.size(), "a running tool is not silence");
    guard.release();
    eventually(() -> ch.sent.size() == 1, "silence reported");
    TurnReport silent = ch.sent.get(0).report();
    assertEquals(120, silent.silentSeconds());
    assertEquals(1, silent.turns().size(), "with the turn that was pending");
    lookedAgain(r);
    assertEquals(1, ch.sent.size(), "once per silence");
    r.activity(); // output resumes: a new silence may be reported later
    r.close();
  }

  @Test
  void aRefusedOrLostReportNeverStopsTheSession() throws Exception {
    TurnReporter.Channel failing = (report, id, wait) -> {
      throw new IllegalStateException("server unreachable");
    };
    TurnReporter r = new TurnReporter(failing, 1, SPEC, guard, s -> s, "p", now::get);
    for (int i = 0; i < 500; i++) {
      r.turn(Turn.text("t" + i));
    }
    assertTrue(r.take().isEmpty());
    r.close();
  }

  /** An ant without an overseer: its turns go to the workflow about every second, never waiting for an answer. */
  @Test
  void withoutOverseerTurnsLeaveByTimeAndNothingWaits() throws Exception {
    Channel ch = new Channel();
    TurnReporter r = new TurnReporter(ch, 3, null, guard, s -> s == null ? null : s.replace("hunter2", "${PASSWORD}"),
        "turns/run/s3/a1", now::get);
    r.turn(Turn.tool("Bash", "echo hunter2", "ok", false));
    r.turn(Turn.text("thinking"));
    lookedAgain(r);
    assertEquals(0, ch.sent.size(), "a batch waits for its second");
    now.addAndGet(TurnReporter.PLAIN_EVERY_MILLIS);
    eventually(() -> ch.sent.size() == 1, "the batch left after a second");
    Sent first = ch.sent.get(0);
    assertEquals(2, first.report().turns().size());
    assertEquals(3, first.report().session());
    assertFalse(first.waited(), "no verdict to wait for");
    assertEquals("echo ${PASSWORD}", first.report().turns().get(0).input());
    // A burst leaves at once, bounded.
    for (int i = 0; i < TurnReporter.PLAIN_BATCH; i++) {
      r.turn(Turn.text("t" + i));
    }
    eventually(() -> ch.sent.size() == 2, "a full batch leaves at once");
    assertEquals(TurnReporter.PLAIN_BATCH, ch.sent.get(1).report().turns().size());
    // Silence is the overseer's business: none is reported, however long.
    now.addAndGet(Duration.ofHours(1).toMillis());
    lookedAgain(r);
    assertEquals(2, ch.sent.size());
    // The end of the session sends what is left.
    r.turn(Turn.text("last"));
    r.close();
    eventually(() -> ch.sent.size() == 3, "the rest at the end");
    assertEquals("last", ch.sent.get(2).report().turns().get(0).input());
    assertFalse(ch.sent.get(2).waited());
    assertTrue(r.take().isEmpty());
  }

  /**
   * What the session spent reaches the workflow with its attempt: without an overseer a spend
   * leaves a batch interval after it changed, with or without turns, and the last one at the end,
   * so a session that then dies or is stopped has told its workflow what it cost.
   */
  @Test
  void theSpendSoFarLeavesWithTheReportsAndAtTheEnd() throws Exception {
    Channel ch = new Channel();
    TurnReporter r = new TurnReporter(ch, 7, 2, null, guard, s -> s, "turns/run/s7/a2", now::get);
    r.spent(0.5);
    lookedAgain(r);
    assertEquals(0, ch.sent.size(), "not before the batch interval");
    now.addAndGet(TurnReporter.PLAIN_EVERY_MILLIS);
    eventually(() -> ch.sent.size() == 1, "the spend alone");
    assertEquals(0.5, ch.sent.get(0).report().spentUsd(), 1e-12);
    assertEquals(2, ch.sent.get(0).report().attempt());
    assertTrue(ch.sent.get(0).report().turns().isEmpty());
    r.spent(0.75);
    r.close();
    Sent last = ch.sent.get(ch.sent.size() - 1);
    assertEquals(0.75, last.report().spentUsd(), 1e-12, "the last spend goes with the end of the session");
    assertEquals(2, ch.sent.size());
  }

  /** A batch refused with its turns (a long history takes no more live turns) still delivers the spend, alone. */
  @Test
  void aRefusedBatchsSpendGoesAlone() throws Exception {
    List<TurnReport> accepted = new CopyOnWriteArrayList<>();
    TurnReporter.Channel refusingTurns = (report, id, wait) -> {
      if (!report.turns().isEmpty()) {
        return null;
      }
      accepted.add(report);
      return new TurnReply(List.of(), false);
    };
    TurnReporter r = new TurnReporter(refusingTurns, 7, 1, null, guard, s -> s, "turns/run/s7/a1", now::get);
    r.turn(Turn.text("working"));
    r.spent(0.3);
    lookedAgain(r);
    now.addAndGet(TurnReporter.PLAIN_EVERY_MILLIS);
    eventually(() -> !accepted.isEmpty(), "the spend alone");
    assertEquals(0.3, accepted.get(0).spentUsd(), 1e-12);
    r.close();
  }

  /**
   * A whisper is ready the moment the verdict brings it: an engine that listens gives it without
   * waiting for the agent's next turn (an agent that waits for its overseer's word would otherwise
   * wait for ever). The session's last report says it is the last.
   */
  @Test
  void aListenerHearsOfWhispersAtOnceAndTheLastReportSaysSo() throws Exception {
    Channel ch = new Channel();
    ch.replies.add(new TurnReply(List.of(new Whisper("w1", "CORRECTION", "Stop.")), false));
    TurnReporter r = reporter(ch);
    List<String> given = new CopyOnWriteArrayList<>();
    r.onWhisper(() -> given.addAll(r.take()));
    for (int i = 0; i < 3; i++) {
      r.turn(Turn.text("t" + i));
    }
    eventually(() -> given.equals(List.of("[CORRECTION] Stop.")), "the whisper given with no further turn");
    r.turn(Turn.text("after"));
    r.close();
    Sent last = ch.sent.get(ch.sent.size() - 1);
    assertTrue(last.report().last(), "the session's last report is marked");
    assertEquals(List.of("w1"), last.report().delivered());
    assertFalse(ch.sent.get(0).report().last());
  }
}
