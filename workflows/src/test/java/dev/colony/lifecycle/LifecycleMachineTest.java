package dev.colony.lifecycle;

import static dev.colony.ant.Lifecycle.BUILDING_PROMPT;
import static dev.colony.ant.Lifecycle.COOLING_DOWN;
import static dev.colony.ant.Lifecycle.INITIALIZING;
import static dev.colony.ant.Lifecycle.INTERRUPTING;
import static dev.colony.ant.Lifecycle.PARKED;
import static dev.colony.ant.Lifecycle.PAUSED;
import static dev.colony.ant.Lifecycle.RUNNING;
import static dev.colony.ant.Lifecycle.SESSION_COMPLETE;
import static dev.colony.ant.Lifecycle.SPAWNING;
import static dev.colony.ant.Lifecycle.STOPPED;
import static dev.colony.ant.Lifecycle.WAITING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.colony.ant.Lifecycle;
import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.lifecycle.LifecycleEvent.Exit;
import dev.colony.lifecycle.LifecycleEvent.SessionExited;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every row of the lifecycle's transition table, Colony's additions, and the two global events. */
@Timeout(30)
class LifecycleMachineTest {
  private static final long NOW = 1_000_000;
  /** An example error policy: 2 s doubling to 60 s; park after 5 in a row or 20 in all. */
  private static final ErrorPolicy SEED_001 = new ErrorPolicy(2, 60, 5, 20);

  private static Phase at(Lifecycle s) {
    return new Phase(s, 3, null, null, 0, 0);
  }

  private static Transition next(Phase p, LifecycleEvent e) {
    return LifecycleMachine.next(p, e, SEED_001);
  }

  private static void row(Lifecycle from, LifecycleEvent e, Lifecycle to, Class<? extends SideEffect> effect) {
    Transition t = next(at(from), e);
    assertEquals(to, t.phase().state(), from + " + " + e);
    assertInstanceOf(effect, t.effect(), from + " + " + e);
  }

  // ---- the lifecycle's rows ----

  @Test
  void aLostHostSendsTheSessionBackToBePreparedWithoutAnError() {
    for (Lifecycle from : new Lifecycle[] {INITIALIZING, BUILDING_PROMPT, SPAWNING, RUNNING, SESSION_COMPLETE}) {
      Transition t = next(new Phase(from, 3, null, null, 2, 4), new LifecycleEvent.HostLost("a"));
      assertEquals(BUILDING_PROMPT, t.phase().state(), from.name());
      assertEquals(2, t.phase().consecutiveErrors(), "not counted as an error");
      assertEquals(4, t.phase().totalErrors());
      assertEquals("moving off host a", t.phase().reason());
    }
    for (Lifecycle from : new Lifecycle[] {WAITING, PAUSED, PARKED, COOLING_DOWN, INTERRUPTING, STOPPED}) {
      assertEquals(from, next(at(from), new LifecycleEvent.HostLost("a")).phase().state(), from.name());
    }
  }

  @Test
  void initializingWorktreeReadyBuildsThePrompt() {
    row(INITIALIZING, new LifecycleEvent.WorktreeReady(), BUILDING_PROMPT, SideEffect.None.class);
  }

  @Test
  void buildingPromptPromptReadySpawnsAndStoresThePrompt() {
    Transition t = next(at(BUILDING_PROMPT), new LifecycleEvent.PromptReady("2 message(s)"));
    assertEquals(SPAWNING, t.phase().state());
    assertEquals(new SideEffect.StorePrompt("2 message(s)"), t.effect());
  }

  @Test
  void spawningSessionStartedRunsWithTheSessionNumber() {
    Transition t = next(at(SPAWNING), new LifecycleEvent.SessionStarted(4));
    assertEquals(RUNNING, t.phase().state());
    assertEquals(4, t.phase().session());
    assertInstanceOf(SideEffect.None.class, t.effect());
  }

  @Test
  void spawningSessionExitedWithAnErrorCoolsDown() {
    Transition t = next(at(SPAWNING), SessionExited.of(Exit.ERROR, NOW));
    assertEquals(COOLING_DOWN, t.phase().state());
    assertEquals(NOW + 2_000, t.phase().untilMillis());
    assertEquals(1, t.phase().consecutiveErrors());
  }

  @Test
  void spawningSessionExitedWithATimeoutCoolsDown() {
    row(SPAWNING, SessionExited.of(Exit.TIMEOUT, NOW), COOLING_DOWN, SideEffect.None.class);
  }

  @Test
  void runningSessionExitedSuccessCompletesAndResetsTheConsecutiveCounter() {
    Phase p = new Phase(RUNNING, 3, null, null, 4, 9);
    Transition t = next(p, SessionExited.of(Exit.SUCCESS, NOW));
    assertEquals(SESSION_COMPLETE, t.phase().state());
    assertEquals(0, t.phase().consecutiveErrors());
    assertEquals(9, t.phase().totalErrors(), "the total is never reset by a success");
  }

  @Test
  void runningSessionExitedErrorCoolsDownWithTheConfiguredBackoff() {
    long[] expected = {2_000, 4_000, 8_000, 16_000};
    Phase p = at(RUNNING);
    for (long delay : expected) {
      Transition t = next(p, SessionExited.of(Exit.ERROR, NOW));
      assertEquals(COOLING_DOWN, t.phase().state());
      assertEquals(NOW + delay, t.phase().untilMillis());
      p = new Phase(RUNNING, 3, null, null, t.phase().consecutiveErrors(), t.phase().totalErrors());
    }
  }

  @Test
  void runningSessionExitedTimeoutCoolsDown() {
    row(RUNNING, SessionExited.of(Exit.TIMEOUT, NOW), COOLING_DOWN, SideEffect.None.class);
  }

  @Test
  void runningUrgentMessageInterruptsAndCancelsTheSession() {
    row(RUNNING, new LifecycleEvent.UrgentMessage(), INTERRUPTING, SideEffect.CancelSession.class);
  }

  @Test
  void interruptingGraceExceededForceStops() {
    row(INTERRUPTING, new LifecycleEvent.GraceExceeded(), INTERRUPTING, SideEffect.ForceStopSession.class);
  }

  @Test
  void interruptingSessionExitedStartsTheNextSessionAtOnceWithoutCountingAnError() {
    for (Exit exit : Exit.values()) {
      Transition t = next(at(INTERRUPTING), SessionExited.of(exit, NOW));
      assertEquals(BUILDING_PROMPT, t.phase().state(), exit.name());
      assertInstanceOf(SideEffect.IncrementSession.class, t.effect());
      assertEquals(0, t.phase().consecutiveErrors());
    }
  }

  @Test
  void sessionCompleteWorktreeReadyIncrementsTheSession() {
    row(SESSION_COMPLETE, new LifecycleEvent.WorktreeReady(), BUILDING_PROMPT, SideEffect.IncrementSession.class);
  }

  @Test
  void coolingDownBackoffElapsedIncrementsTheSession() {
    row(COOLING_DOWN, new LifecycleEvent.BackoffElapsed(), BUILDING_PROMPT, SideEffect.IncrementSession.class);
  }

  @Test
  void operatorStopFromEveryStateStops() {
    for (Lifecycle s : Lifecycle.values()) {
      Transition t = next(at(s), new LifecycleEvent.OperatorStop());
      assertEquals(STOPPED, t.phase().state(), s.name());
      Class<? extends SideEffect> expected = s.sessionLive() ? SideEffect.CancelSession.class : SideEffect.None.class;
      assertEquals(expected, t.effect().getClass(), s.name());
    }
  }

  @Test
  void fatalErrorFromEveryStateStopsAndLogs() {
    for (Lifecycle s : Lifecycle.values()) {
      Transition t = next(at(s), new LifecycleEvent.FatalError("disk gone"));
      assertEquals(STOPPED, t.phase().state(), s.name());
      if (s != STOPPED) {
        assertEquals(new SideEffect.LogFatal("disk gone"), t.effect(), s.name());
      }
    }
  }

  @Test
  void stoppedIsTerminal() {
    for (LifecycleEvent e : new LifecycleEvent[] {new LifecycleEvent.WorktreeReady(), new LifecycleEvent.Resumed(),
        new LifecycleEvent.Woken(), SessionExited.of(Exit.SUCCESS, NOW), new LifecycleEvent.FatalError("x")}) {
      Transition t = next(at(STOPPED), e);
      assertEquals(STOPPED, t.phase().state());
      assertInstanceOf(SideEffect.None.class, t.effect());
    }
  }

  @Test
  void unexpectedEventsLeaveTheStateAlone() {
    row(RUNNING, new LifecycleEvent.WorktreeReady(), RUNNING, SideEffect.None.class);
    row(INITIALIZING, new LifecycleEvent.SessionStarted(1), INITIALIZING, SideEffect.None.class);
    row(SESSION_COMPLETE, new LifecycleEvent.GraceExceeded(), SESSION_COMPLETE, SideEffect.None.class);
    row(WAITING, new LifecycleEvent.UrgentMessage(), WAITING, SideEffect.None.class);
    row(RUNNING, new LifecycleEvent.Paused("operator", null), RUNNING, SideEffect.None.class);
  }

  // ---- thresholds ----

  @Test
  void theFifthErrorInARowParksWithAFatalMessage() {
    Transition t = next(new Phase(RUNNING, 3, null, null, 4, 4), SessionExited.of(Exit.ERROR, NOW));
    assertEquals(PARKED, t.phase().state());
    assertEquals(LifecycleMachine.PARKED_REASON, t.phase().reason());
    assertNull(t.phase().untilMillis(), "parked: no timer");
    assertEquals(new SideEffect.LogFatal("5 failed sessions in a row (max_consecutive_errors 5)"), t.effect());
  }

  @Test
  void theTwentiethErrorInAllParksEvenWithSuccessesBetween() {
    Transition t = next(new Phase(RUNNING, 3, null, null, 0, 19), SessionExited.of(Exit.TIMEOUT, NOW));
    assertEquals(PARKED, t.phase().state());
    assertEquals(new SideEffect.LogFatal("20 failed sessions in all (max_total_errors 20)"), t.effect());
  }

  @Test
  void resumingAParkedAntResetsBothCounters() {
    Transition t = next(new Phase(PARKED, 3, null, "errors", 5, 20), new LifecycleEvent.Resumed());
    assertEquals(BUILDING_PROMPT, t.phase().state());
    assertEquals(0, t.phase().consecutiveErrors());
    assertEquals(0, t.phase().totalErrors());
  }

  @Test
  void withoutThresholdsErrorsNeverPark() {
    Phase p = new Phase(RUNNING, 3, null, null, 1000, 5000);
    Transition t = LifecycleMachine.next(p, SessionExited.of(Exit.ERROR, NOW), ErrorPolicy.DEFAULTS);
    assertEquals(COOLING_DOWN, t.phase().state());
    assertEquals(NOW + 300_000, t.phase().untilMillis(), "the default backoff's 5 minute cap");
  }

  // ---- Colony's additions ----

  @Test
  void maxTurnsCompletesTheSession() {
    row(RUNNING, SessionExited.of(Exit.MAX_TURNS, NOW), SESSION_COMPLETE, SideEffect.None.class);
  }

  @Test
  void aRateLimitCoolsDownUntilItLiftsWithoutCountingAnError() {
    Transition t = next(at(RUNNING), new SessionExited(Exit.RATE_LIMITED, "rate_limit", NOW, NOW + 90_000));
    assertEquals(COOLING_DOWN, t.phase().state());
    assertEquals(NOW + 90_000, t.phase().untilMillis());
    assertEquals("rate limit", t.phase().reason());
    assertEquals(0, t.phase().totalErrors());
  }

  @Test
  void aBlockingErrorPausesWithItsReason() {
    Transition t = next(at(RUNNING), new SessionExited(Exit.BLOCKED, "billing", NOW, null));
    assertEquals(PAUSED, t.phase().state());
    assertEquals("billing", t.phase().reason());
    assertEquals(0, t.phase().consecutiveErrors(), "billing, auth and budget do not count");
  }

  @Test
  void aFailedPreparationCoolsDown() {
    for (Lifecycle s : new Lifecycle[] {INITIALIZING, BUILDING_PROMPT, SESSION_COMPLETE}) {
      row(s, SessionExited.of(Exit.ERROR, NOW), COOLING_DOWN, SideEffect.None.class);
    }
  }

  @Test
  void anUrgentMessageAlsoInterruptsASessionNotYetStarted() {
    row(SPAWNING, new LifecycleEvent.UrgentMessage(), INTERRUPTING, SideEffect.CancelSession.class);
  }

  @Test
  void waitingAndWaking() {
    Transition t = next(at(SESSION_COMPLETE), new LifecycleEvent.Waiting("poll interval", NOW + 60_000));
    assertEquals(WAITING, t.phase().state());
    assertEquals("poll interval", t.phase().reason());
    row(WAITING, new LifecycleEvent.Woken(), BUILDING_PROMPT, SideEffect.IncrementSession.class);
    row(COOLING_DOWN, new LifecycleEvent.Waiting("x", null), COOLING_DOWN, SideEffect.None.class);
  }

  @Test
  void pausingBetweenSessionsAndResuming() {
    for (Lifecycle s : new Lifecycle[] {INITIALIZING, BUILDING_PROMPT, SESSION_COMPLETE, WAITING, COOLING_DOWN}) {
      Transition t = next(at(s), new LifecycleEvent.Paused("budget", NOW + 5));
      assertEquals(PAUSED, t.phase().state(), s.name());
      assertEquals(NOW + 5, t.phase().untilMillis());
    }
    row(PAUSED, new LifecycleEvent.Resumed(), BUILDING_PROMPT, SideEffect.None.class);
    row(WAITING, new LifecycleEvent.Paused(LifecycleMachine.PARKED_REASON, null), PARKED, SideEffect.None.class);
  }
}
