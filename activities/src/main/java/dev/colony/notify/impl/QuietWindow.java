package dev.colony.notify.impl;

import dev.colony.spec.NotifySpec.QuietHours;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/** Quiet hours: whether a moment falls in them, and when they end. */
final class QuietWindow {
  private QuietWindow() {}

  static boolean contains(QuietHours q, Instant at) {
    if (q == null) {
      return false;
    }
    LocalTime from = LocalTime.parse(q.from());
    LocalTime to = LocalTime.parse(q.to());
    LocalTime t = at.atZone(ZoneId.of(q.timezone())).toLocalTime();
    if (from.equals(to)) {
      return false;
    }
    return from.isBefore(to) ? !t.isBefore(from) && t.isBefore(to) : !t.isBefore(from) || t.isBefore(to);
  }

  /** The end of the quiet hours {@code at} falls in (the next {@code to} after it). */
  static Instant end(QuietHours q, Instant at) {
    ZonedDateTime local = at.atZone(ZoneId.of(q.timezone()));
    ZonedDateTime end = local.with(LocalTime.parse(q.to()));
    if (!end.isAfter(local)) {
      end = end.plusDays(1).with(LocalTime.parse(q.to()));
    }
    return end.toInstant();
  }
}
