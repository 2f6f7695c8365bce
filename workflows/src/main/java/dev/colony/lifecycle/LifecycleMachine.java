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

import dev.colony.ant.Lifecycle;
import dev.colony.errorpolicy.Backoff;
import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.lifecycle.LifecycleEvent.BackoffElapsed;
import dev.colony.lifecycle.LifecycleEvent.FatalError;
import dev.colony.lifecycle.LifecycleEvent.GraceExceeded;
import dev.colony.lifecycle.LifecycleEvent.HostLost;
import dev.colony.lifecycle.LifecycleEvent.OperatorStop;
import dev.colony.lifecycle.LifecycleEvent.Paused;
import dev.colony.lifecycle.LifecycleEvent.PromptReady;
import dev.colony.lifecycle.LifecycleEvent.Resumed;
import dev.colony.lifecycle.LifecycleEvent.SessionExited;
import dev.colony.lifecycle.LifecycleEvent.SessionStarted;
import dev.colony.lifecycle.LifecycleEvent.UrgentMessage;
import dev.colony.lifecycle.LifecycleEvent.Waiting;
import dev.colony.lifecycle.LifecycleEvent.Woken;
import dev.colony.lifecycle.LifecycleEvent.WorktreeReady;
import java.util.EnumSet;
import java.util.Set;

/**
 * The agent lifecycle as one pure function: (phase, event) to (phase, side effect). No
 * time, no I/O: events carry the time they happened at, and the policy (backoff, thresholds) is
 * the ant's {@link ErrorPolicy}. An event a state does not expect leaves it as it is.
 *
 * <p>Where Colony differs from the seed, on purpose:
 * <ul>
 *   <li>An error threshold parks the ant (state Parked, a 🛑 fatal message) instead of stopping it:
 *       a human can {@code resume} it with its counters reset, or stop it.
 *   <li>The consecutive-errors counter resets on a successful session, not when a session starts:
 *       an agent that starts and crashes every time is the crash loop the threshold must catch.
 *   <li>A rate limit cools the ant down until the limit lifts without counting as an error; an
 *       error only a human can fix (billing, auth, budget) pauses it.
 *   <li>An urgent message also interrupts a session that is scheduled but not yet started.
 *   <li>Waiting (tick, trigger, message, poll interval) and Paused are states of their own.
 * </ul>
 */
public final class LifecycleMachine {
  /** The pause reason of an ant parked by an error threshold. */
  public static final String PARKED_REASON = "errors";
  /** Parked because the ant's own workflow code failed (Colony's addition: not a stop for good on a fatal error). */
  public static final String FATAL_REASON = "fatal";

  private static final Set<Lifecycle> IDLE = EnumSet.of(INITIALIZING, BUILDING_PROMPT, SESSION_COMPLETE, WAITING,
      COOLING_DOWN);

  private LifecycleMachine() {}

  public static Transition next(Phase p, LifecycleEvent e, ErrorPolicy policy) {
    if (p.terminal()) {
      return Transition.to(p);
    }
    if (e instanceof OperatorStop) {
      return new Transition(p.to(STOPPED), p.state().sessionLive() ? new SideEffect.CancelSession() : SideEffect.NONE);
    }
    if (e instanceof FatalError f) {
      return new Transition(p.to(STOPPED, null, f.message()), new SideEffect.LogFatal(f.message()));
    }
    Lifecycle s = p.state();
    return switch (e) {
      case WorktreeReady w -> switch (s) {
        case INITIALIZING, BUILDING_PROMPT -> Transition.to(p.to(BUILDING_PROMPT));
        case SESSION_COMPLETE -> new Transition(p.to(BUILDING_PROMPT), new SideEffect.IncrementSession());
        default -> Transition.to(p);
      };
      case PromptReady r -> s == BUILDING_PROMPT
          ? new Transition(p.to(SPAWNING), new SideEffect.StorePrompt(r.prompt())) : Transition.to(p);
      case SessionStarted st -> s == SPAWNING ? Transition.to(p.to(RUNNING).withSession(st.session())) : Transition.to(p);
      case SessionExited x -> exited(p, x, policy);
      case UrgentMessage u -> s == RUNNING || s == SPAWNING
          ? new Transition(p.to(INTERRUPTING), new SideEffect.CancelSession()) : Transition.to(p);
      case GraceExceeded g -> s == INTERRUPTING
          ? new Transition(p, new SideEffect.ForceStopSession()) : Transition.to(p);
      case BackoffElapsed b -> s == COOLING_DOWN
          ? new Transition(p.to(BUILDING_PROMPT), new SideEffect.IncrementSession()) : Transition.to(p);
      case Paused pa -> IDLE.contains(s) || s == PAUSED || s == PARKED
          ? Transition.to(p.to(PARKED_REASON.equals(pa.reason()) || FATAL_REASON.equals(pa.reason()) ? PARKED : PAUSED,
              pa.untilMillis(), pa.reason()))
          : Transition.to(p);
      case Resumed r -> s == PAUSED || s == PARKED
          ? Transition.to(p.to(BUILDING_PROMPT).withErrors(s == PARKED ? 0 : p.consecutiveErrors(),
              s == PARKED ? 0 : p.totalErrors()))
          : Transition.to(p);
      case Waiting w -> IDLE.contains(s) && s != COOLING_DOWN
          ? Transition.to(p.to(WAITING, w.untilMillis(), w.reason())) : Transition.to(p);
      case Woken w -> s == WAITING
          ? new Transition(p.to(BUILDING_PROMPT), new SideEffect.IncrementSession()) : Transition.to(p);
      case HostLost h -> s == RUNNING || s == SPAWNING || s == BUILDING_PROMPT || s == INITIALIZING
          || s == SESSION_COMPLETE
          ? Transition.to(p.to(BUILDING_PROMPT, null, "moving off host " + h.host())) : Transition.to(p);
      case OperatorStop o -> throw new AssertionError("handled above");
      case FatalError f -> throw new AssertionError("handled above");
    };
  }

  /** A session (or the preparation of one) ended. */
  private static Transition exited(Phase p, SessionExited x, ErrorPolicy policy) {
    Lifecycle s = p.state();
    if (s == INTERRUPTING) {
      // Interrupted on purpose: not an error; the next session starts at once.
      return new Transition(p.to(BUILDING_PROMPT), new SideEffect.IncrementSession());
    }
    boolean preparing = s == INITIALIZING || s == BUILDING_PROMPT || s == SESSION_COMPLETE;
    if (!(s == RUNNING || s == SPAWNING || preparing)) {
      return Transition.to(p);
    }
    if (preparing && x.exit() != LifecycleEvent.Exit.ERROR) {
      return Transition.to(p); // only a failed preparation ends a session before it spawns
    }
    return switch (x.exit()) {
      case SUCCESS, MAX_TURNS -> Transition.to(p.to(SESSION_COMPLETE).withErrors(0, p.totalErrors()));
      case ERROR, TIMEOUT -> {
        int consecutive = p.consecutiveErrors() + 1;
        int total = p.totalErrors() + 1;
        String reached = policy.thresholdReached(consecutive, total);
        if (reached != null) {
          yield new Transition(p.to(PARKED, null, PARKED_REASON).withErrors(consecutive, total),
              new SideEffect.LogFatal(reached));
        }
        long until = x.atMillis() + Backoff.delay(consecutive, policy).toMillis();
        yield Transition.to(p.to(COOLING_DOWN, until, "backoff").withErrors(consecutive, total));
      }
      case RATE_LIMITED -> {
        if (x.retryAtMillis() != null) {
          yield Transition.to(p.to(COOLING_DOWN, Math.max(x.atMillis(), x.retryAtMillis()), "rate limit"));
        }
        int consecutive = p.consecutiveErrors() + 1;
        long until = x.atMillis() + Backoff.delay(consecutive, policy).toMillis();
        yield Transition.to(p.to(COOLING_DOWN, until, "rate limit").withErrors(consecutive, p.totalErrors()));
      }
      case BLOCKED -> Transition.to(p.to(PAUSED, null, x.detail()));
    };
  }
}
