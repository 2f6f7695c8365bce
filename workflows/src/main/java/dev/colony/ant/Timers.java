package dev.colony.ant;

import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.function.Supplier;

/**
 * Every timer the ant starts goes through here, so that each one carries a summary a person
 * reads in the Web UI's timeline ("next session in 5s", "backoff 2 of 5", "rate limit until
 * 14:05") instead of the timer's id.
 */
public final class Timers {
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm");
  private static final DateTimeFormatter DAY_AND_CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

  private Timers() {}

  /**
   * Waits until {@code condition} holds or {@code timeout} passes, whichever is first, with a timer
   * named {@code summary}; the timer is cancelled when the condition ends the wait. Returns
   * whether the condition holds (as {@code Workflow.await(Duration, Supplier)} does).
   */
  public static boolean await(Duration timeout, String summary, Supplier<Boolean> condition) {
    if (condition.get()) {
      return true;
    }
    Promise<?>[] timer = new Promise<?>[1];
    CancellationScope scope = Workflow.newCancellationScope(() -> timer[0] = Workflow.newTimer(timeout,
        TimerOptions.newBuilder().setSummary(summary).build()));
    scope.run();
    Workflow.await(() -> timer[0].isCompleted() || condition.get());
    boolean met = condition.get();
    if (!timer[0].isCompleted()) {
      scope.cancel();
    }
    return met;
  }

  /** A duration in words a timeline shows: 45s, 5m, 2h30m, 3d. */
  static String words(Duration d) {
    long s = Math.max(0, (d.toMillis() + 999) / 1000);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return s % 60 == 0 ? s / 60 + "m" : s / 60 + "m" + s % 60 + "s";
    }
    if (s < 86_400) {
      long m = s / 60 % 60;
      return s / 3600 + "h" + (m == 0 ? "" : m + "m");
    }
    long h = s / 3600 % 24;
    return s / 86_400 + "d" + (h == 0 ? "" : h + "h");
  }

  /** A moment as a clock time in {@code zone} ("14:05"), with the date when it is not today. */
  static String at(long epochMillis, String zone) {
    return at(epochMillis, zone, Workflow.currentTimeMillis());
  }

  static String at(long epochMillis, String zone, long nowMillis) {
    ZoneId z = zoneOf(zone);
    var when = Instant.ofEpochMilli(epochMillis).atZone(z);
    var today = Instant.ofEpochMilli(nowMillis).atZone(z).toLocalDate();
    String time = when.toLocalDate().equals(today) ? CLOCK.format(when) : DAY_AND_CLOCK.format(when);
    return time + ("UTC".equals(z.getId()) || "Z".equals(z.getId()) ? " UTC" : " " + z.getId());
  }

  private static ZoneId zoneOf(String zone) {
    try {
      return zone == null || zone.isBlank() ? ZoneId.of("UTC") : ZoneId.of(zone);
    } catch (RuntimeException e) {
      return ZoneId.of("UTC");
    }
  }
}
