package dev.colony.ant;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The words a timer's summary is made of, as the Web UI's timeline shows them. */
@Timeout(30)
class TimersTest {
  @Test
  void durationsReadAsAPersonWouldSayThem() {
    assertEquals("0s", Timers.words(Duration.ZERO));
    assertEquals("1s", Timers.words(Duration.ofMillis(1))); // a part of a second still waits
    assertEquals("45s", Timers.words(Duration.ofSeconds(45)));
    assertEquals("5m", Timers.words(Duration.ofMinutes(5)));
    assertEquals("1m30s", Timers.words(Duration.ofSeconds(90)));
    assertEquals("2h30m", Timers.words(Duration.ofMinutes(150)));
    assertEquals("1h", Timers.words(Duration.ofHours(1)));
    assertEquals("3d", Timers.words(Duration.ofDays(3)));
    assertEquals("1d6h", Timers.words(Duration.ofHours(30)));
  }

  @Test
  void momentsAreClockTimesInTheAntsZoneWithTheDateWhenNotToday() {
    long now = Instant.parse("2026-11-25T10:00:00Z").toEpochMilli();
    assertEquals("14:05 UTC", Timers.at(Instant.parse("2026-11-25T14:05:00Z").toEpochMilli(), "UTC", now));
    assertEquals("15:05 Europe/Paris",
        Timers.at(Instant.parse("2026-11-25T14:05:00Z").toEpochMilli(), "Europe/Paris", now));
    assertEquals("2026-11-26 00:00 UTC", Timers.at(Instant.parse("2026-11-26T00:00:00Z").toEpochMilli(), null, now));
    assertEquals("14:05 UTC", Timers.at(Instant.parse("2026-11-25T14:05:00Z").toEpochMilli(), "Not/AZone", now));
  }
}
