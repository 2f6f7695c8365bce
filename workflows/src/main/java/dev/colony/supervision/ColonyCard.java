package dev.colony.supervision;

import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import java.util.List;
import java.util.Map;

/**
 * What the colony's supervisor shows of itself, kept in its memo under {@link #MEMO_KEY}: the
 * groups with their breakers and the last events, so the console shows supervision without a
 * worker (no query). Rewritten when it changes (a failure handled, a reset, new groups); bounded.
 *
 * @param version the card's layout ({@link #VERSION}); a reader skips cards newer than it knows
 * @param revision counts the card's rewrites in this run
 * @param groups the declared groups, then the implicit one-ant groups that restarted or failed
 * @param events the last {@link #EVENTS_SHOWN} events, oldest first
 */
public record ColonyCard(int version, long revision, List<Group> groups, List<ColonyEvent> events) {
  public static final String MEMO_KEY = "card";
  public static final int VERSION = 1;
  public static final int EVENTS_SHOWN = 50;
  /** Characters of an event's reason shown. */
  public static final int REASON_CHARS = 300;

  public ColonyCard {
    groups = groups == null ? List.of() : List.copyOf(groups);
    events = events == null ? List.of() : List.copyOf(events);
  }

  /**
   * One supervision group.
   *
   * @param strategy {@code one_for_one}, {@code one_for_all} or {@code rest_for_one}
   * @param restarts restarts within the window when the card was written (a reader can count
   *     {@code restartTimesMillis} against its own clock instead)
   * @param restartTimesMillis when the group's restarts that counted at the write happened, oldest first
   * @param breaker {@code closed} (restarts allowed) or {@code open} (the group is failed until reset)
   */
  public record Group(String name, String strategy, List<String> ants, int restarts, List<Long> restartTimesMillis,
      int maxRestarts, long withinSeconds, String breaker) {
    public Group {
      ants = ants == null ? List.of() : List.copyOf(ants);
      restartTimesMillis = restartTimesMillis == null ? List.of() : List.copyOf(restartTimesMillis);
    }
  }

  public ColonyCard withRevision(long r) {
    return new ColonyCard(version, r, groups, events);
  }

  /** The card in a colony workflow's memo, decoded; null when none, unreadable or newer than this reader. */
  public static ColonyCard fromMemo(Map<String, Payload> memo, DataConverter converter) {
    Payload p = memo == null ? null : memo.get(MEMO_KEY);
    if (p == null) {
      return null;
    }
    try {
      ColonyCard card = converter.fromPayload(p, ColonyCard.class, ColonyCard.class);
      return card == null || card.version() > VERSION ? null : card;
    } catch (RuntimeException unreadable) {
      return null;
    }
  }
}
