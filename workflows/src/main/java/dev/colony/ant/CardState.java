package dev.colony.ant;

import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntCard.SessionRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * What the console's card ({@link AntCard}) shows that nothing else keeps: the card's revision,
 * the state it last showed and since when, since when a human is needed, the last sessions and
 * the last error. Carried across continue-as-new (but the need's start: a pause keeps its own).
 * Times are workflow time; the {@link VisibilityPublisher} observes the state when it writes.
 */
final class CardState {
  private long revision;
  private String stateShown;
  private Long stateSinceMillis;
  private String needShown;
  private Long needSinceMillis;
  private final List<SessionRecord> recent = new ArrayList<>();
  private String lastError;
  private Long lastErrorMillis;

  CardState() {}

  /** What it carries across continue-as-new (the JSON names of the ant's memory). */
  record Memory(List<SessionRecord> recent, String stateShown, Long stateSinceMillis, long cardRevision,
      String lastError, Long lastErrorMillis) {
    Memory {
      recent = recent == null ? List.of() : List.copyOf(recent);
    }
  }

  Memory memory() {
    return new Memory(recent(), stateShown, stateSinceMillis, revision, lastError, lastErrorMillis);
  }

  CardState(Memory m) {
    revision = m.cardRevision();
    stateShown = m.stateShown();
    stateSinceMillis = m.stateSinceMillis();
    recent.addAll(m.recent());
    trimRecent();
    lastError = m.lastError();
    lastErrorMillis = m.lastErrorMillis();
  }

  /** The card shows {@code state} at {@code nowMillis}: since now if it is a new one. */
  void observeState(String state, long nowMillis) {
    if (!state.equals(stateShown) || stateSinceMillis == null) {
      stateShown = state;
      stateSinceMillis = nowMillis;
    }
  }

  /** Since when the ant has been in {@code state}; null when it has not been observed in it yet. */
  Long stateSince(String state) {
    return state.equals(stateShown) ? stateSinceMillis : null;
  }

  /** The card shows the need {@code kind} (null: none) at {@code nowMillis}. */
  void observeNeed(String kind, long nowMillis) {
    if (kind == null) {
      needShown = null;
      needSinceMillis = null;
    } else if (!kind.equals(needShown)) {
      needShown = kind;
      needSinceMillis = nowMillis;
    }
  }

  Long needSince(String kind) {
    return kind != null && kind.equals(needShown) ? needSinceMillis : null;
  }

  /** A session ended: it joins the last ones; a failed one is the last error. */
  void sessionEnded(SessionRecord r, boolean failed) {
    recent.add(r);
    trimRecent();
    if (failed) {
      lastError = Texts.bounded(r.outcome() + (r.summary() == null || r.summary().isEmpty() ? "" : ": " + r.summary()),
          AntCard.LINE_CHARS);
      lastErrorMillis = r.endMillis();
    }
  }

  /** The card was rewritten: its new revision. */
  long nextRevision() {
    return ++revision;
  }

  long revision() {
    return revision;
  }

  String stateShown() {
    return stateShown;
  }

  Long stateSinceMillis() {
    return stateSinceMillis;
  }

  List<SessionRecord> recent() {
    return List.copyOf(recent);
  }

  SessionRecord last() {
    return recent.isEmpty() ? null : recent.get(recent.size() - 1);
  }

  String lastError() {
    return lastError;
  }

  Long lastErrorMillis() {
    return lastErrorMillis;
  }

  private void trimRecent() {
    while (recent.size() > AntCard.RECENT_SESSIONS) {
      recent.remove(0);
    }
  }
}
