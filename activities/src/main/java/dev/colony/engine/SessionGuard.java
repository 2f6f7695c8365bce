package dev.colony.engine;

import dev.colony.config.Durations;
import dev.colony.errorpolicy.ErrorPolicy;
import dev.colony.spec.AntSpec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The hung-session watchdog and the interrupt grace of one session. Engines {@link #touch} it on
 * every sign of life (a line of output, a tool call, a model response); while a tool runs or a
 * human's confirmation is awaited the watchdog is held, so neither counts as silence. Monotonic time, so a clock change cannot fire it.
 */
public final class SessionGuard {
  private final Duration idleTimeout;
  private final Duration grace;
  private final AtomicLong lastActivityNanos = new AtomicLong(System.nanoTime());
  private final AtomicInteger holds = new AtomicInteger();
  private final Runnable onInterruption;
  private final java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();

  public SessionGuard(Duration idleTimeout, Duration grace) {
    this(idleTimeout, grace, () -> { });
  }

  /** @param onInterruption counts the watchdog's interruption ({@link SessionMetrics#watchdog}); run once at most */
  public SessionGuard(Duration idleTimeout, Duration grace, Runnable onInterruption) {
    this.idleTimeout = idleTimeout;
    this.grace = grace;
    this.onInterruption = onInterruption;
  }

  public static SessionGuard of(AntSpec spec) {
    return of(spec, SessionMetrics.NONE);
  }

  /** The ant's watchdog and grace, its interruptions counted on {@code metrics}. */
  public static SessionGuard of(AntSpec spec, SessionMetrics metrics) {
    ErrorPolicy s = spec.errorPolicy();
    return new SessionGuard(Duration.ofSeconds(s.sessionIdleTimeout()), Duration.ofSeconds(s.interruptGrace()),
        metrics.watchdog(spec));
  }

  /** The agent did something: the silence starts again from now. */
  public void touch() {
    lastActivityNanos.set(System.nanoTime());
  }

  /** Runs {@code work} (a human's confirmation, a tool) with the watchdog held. */
  public <T> T holding(Supplier<T> work) {
    hold();
    try {
      return work.get();
    } finally {
      release();
    }
  }

  /** A tool started, or a human is asked: silence does not count until {@link #release}. */
  public void hold() {
    holds.incrementAndGet();
    touch();
  }

  public void release() {
    touch();
    holds.updateAndGet(n -> Math.max(0, n - 1));
  }

  /** A tool runs or a human is being asked: silence is expected. */
  public boolean busy() {
    return holds.get() > 0;
  }

  /** True when the session has been silent for the idle timeout and no human is being waited for. */
  public boolean idle() {
    return holds.get() == 0 && System.nanoTime() - lastActivityNanos.get() >= idleTimeout.toNanos();
  }

  /**
   * The watchdog gives up on the silent session: the one call every engine makes when it stops an
   * idle agent. Counts the interruption (once per session attempt, however often it is asked) and
   * answers the transient error the session ends with ({@link #idleDetail}).
   */
  public String interrupted() {
    if (interrupted.compareAndSet(false, true)) {
      onInterruption.run();
    }
    return idleDetail();
  }

  /** The transient error a silent session ends with. */
  public String idleDetail() {
    return "no output for " + Durations.format(idleTimeout.toSeconds()) + "; the session was interrupted";
  }

  /** How long an interrupted agent gets to stop by itself before it is killed. */
  public Duration grace() {
    return grace;
  }
}
