package dev.colony.budget;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A time zone's UTC offsets as data: the offset before the first transition, then each transition
 * (epoch second) and the offset after it, from {@link #FROM} to {@link #UNTIL}. It is made from the
 * zone's rules where the config is loaded ({@link #of}) and carried in the ant's spec, so the
 * workflow counts budget days from its history alone: a worker whose JVM has other time-zone data
 * replays the same days. After {@link #UNTIL} the last offset holds.
 *
 * @param zone the IANA name, for messages
 * @param offsets seconds east of UTC: {@code offsets[0]} before {@code transitions[0]},
 *     {@code offsets[i + 1]} from {@code transitions[i]} on
 * @param transitions epoch seconds of the zone's offset changes, ascending
 */
public record ZoneTable(String zone, List<Integer> offsets, List<Long> transitions) {
  /** The first instant the table covers (earlier ones read the first offset). */
  public static final Instant FROM = Instant.parse("2020-01-01T00:00:00Z");
  /** The end of the table's transitions. */
  public static final Instant UNTIL = Instant.parse("2041-01-01T00:00:00Z");

  public ZoneTable {
    offsets = offsets == null || offsets.isEmpty() ? List.of(0) : List.copyOf(offsets);
    transitions = transitions == null ? List.of() : List.copyOf(transitions);
    if (offsets.size() != transitions.size() + 1) {
      throw new IllegalArgumentException("a zone table needs one offset more than it has transitions");
    }
  }

  /** The table of {@code zone} from this JVM's rules (config loading, never workflow code). */
  public static ZoneTable of(String zone) {
    ZoneRules rules = ZoneId.of(zone).getRules();
    List<Integer> offsets = new ArrayList<>();
    List<Long> transitions = new ArrayList<>();
    offsets.add(rules.getOffset(FROM).getTotalSeconds());
    ZoneOffsetTransition t = rules.nextTransition(FROM);
    while (t != null && t.getInstant().isBefore(UNTIL)) {
      transitions.add(t.toEpochSecond());
      offsets.add(t.getOffsetAfter().getTotalSeconds());
      t = rules.nextTransition(t.getInstant());
    }
    return new ZoneTable(zone, offsets, transitions);
  }

  /** The offset at {@code millis}. */
  public ZoneOffset offsetAt(long millis) {
    long second = Math.floorDiv(millis, 1000);
    int i = Collections.binarySearch(transitions, second);
    int index = i >= 0 ? i + 1 : -i - 1; // transitions at or before the second
    return ZoneOffset.ofTotalSeconds(offsets.get(index));
  }

  /** The day of {@code millis} in the zone. */
  public LocalDate dayOf(long millis) {
    return LocalDateTime.ofEpochSecond(Math.floorDiv(millis, 1000), 0, offsetAt(millis)).toLocalDate();
  }

  /** When {@code day} begins in the zone (its first instant: after a gap at midnight, the gap's end). */
  public long startOf(LocalDate day) {
    LocalDateTime midnight = day.atStartOfDay();
    // The offset at midnight read as UTC is off by at most one transition: look once more.
    long guess = midnight.toEpochSecond(offsetAt(midnight.toEpochSecond(ZoneOffset.UTC) * 1000));
    ZoneOffset offset = offsetAt(guess * 1000);
    long start = midnight.toEpochSecond(offset);
    if (!dayOf(start * 1000).equals(day)) {
      // Midnight falls in a gap (the clocks jump past it): the day begins at the jump.
      int i = Collections.binarySearch(transitions, start);
      int next = i >= 0 ? i : -i - 1;
      start = next < transitions.size() ? transitions.get(next) : start;
    }
    return start * 1000;
  }
}
