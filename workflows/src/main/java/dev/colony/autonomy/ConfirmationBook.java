package dev.colony.autonomy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dangerous tool calls of an ant's current sessions: each request once (by its key, so a
 * retried attempt attaches to the same one), numbered for humans, with the time it is denied by
 * default and the decision once made. Deterministic (workflow code): time comes in as millis.
 */
public final class ConfirmationBook {
  /** One request and what became of it. */
  public static final class Entry {
    private final int id;
    private final ConfirmationRequest request;
    private final long deadlineMillis;
    private final Long openedMillis;
    private ConfirmationDecision decision;

    Entry(int id, ConfirmationRequest request, long deadlineMillis, Long openedMillis) {
      this.id = id;
      this.request = request;
      this.deadlineMillis = deadlineMillis;
      this.openedMillis = openedMillis;
    }

    public int id() {
      return id;
    }

    public ConfirmationRequest request() {
      return request;
    }

    public long deadlineMillis() {
      return deadlineMillis;
    }

    public ConfirmationDecision decision() {
      return decision;
    }

    /** When it was asked; null for a request opened without the time. */
    public Long openedMillis() {
      return openedMillis;
    }

    public boolean open() {
      return decision == null;
    }

    public void decide(ConfirmationDecision d) {
      this.decision = d;
    }
  }

  private final Map<String, Entry> byKey = new LinkedHashMap<>();
  private int sequence;

  /** The entry for this request's key, or null when it was never asked. */
  public Entry find(ConfirmationRequest request) {
    return byKey.get(request.key());
  }

  /** Opens a request, numbered after the last one, denied by default at {@code deadlineMillis}. */
  public Entry open(ConfirmationRequest request, long deadlineMillis) {
    return open(request, deadlineMillis, null);
  }

  /** Opens a request asked at {@code nowMillis} (kept for the console's inbox: oldest first, how long it waited). */
  public Entry open(ConfirmationRequest request, long deadlineMillis, Long nowMillis) {
    Entry e = new Entry(++sequence, request, deadlineMillis, nowMillis);
    byKey.put(request.key(), e);
    return e;
  }

  /** The open request a human's answer is for: the one with {@code id}, or the oldest when null. */
  public Entry target(Integer id) {
    for (Entry e : byKey.values()) {
      if (e.open() && (id == null || id == e.id)) {
        return e;
      }
    }
    return null;
  }

  /** The request numbered {@code id}, open or decided; null when there is none (or it was forgotten). */
  public Entry entry(int id) {
    for (Entry e : byKey.values()) {
      if (e.id == id) {
        return e;
      }
    }
    return null;
  }

  /** The numbers of the open requests, oldest first. */
  public java.util.List<Integer> openIds() {
    java.util.List<Integer> ids = new java.util.ArrayList<>();
    for (Entry e : byKey.values()) {
      if (e.open()) {
        ids.add(e.id);
      }
    }
    return ids;
  }

  public int waiting() {
    int n = 0;
    for (Entry e : byKey.values()) {
      if (e.open()) {
        n++;
      }
    }
    return n;
  }

  /** Who denies a request whose session ended (an engine shows "denied by colony (the session ended)"). */
  public static final String ENDED_BY = "colony";
  public static final String SESSION_ENDED = "the session ended";

  /**
   * The sessions up to {@code session} have ended: each of their requests still open is denied,
   * "the session ended" (nobody can act on the answer any more), so the {@code confirm} update
   * waiting for it returns at once. Returns the numbers of the requests it denied, oldest first.
   */
  public List<Integer> denyOpenUpTo(int session) {
    List<Integer> denied = new ArrayList<>();
    for (Entry e : byKey.values()) {
      if (e.open() && e.request.session() <= session) {
        e.decide(new ConfirmationDecision(e.id, false, ENDED_BY, SESSION_ENDED));
        denied.add(e.id);
      }
    }
    return denied;
  }

  /** Forgets the requests of sessions up to {@code session} (they have ended). */
  public void forgetSessionsUpTo(int session) {
    byKey.values().removeIf(e -> e.request.session() <= session);
  }

  /** The open requests, for {@code status}. */
  public List<PendingConfirmation> pending() {
    List<PendingConfirmation> out = new ArrayList<>();
    for (Entry e : byKey.values()) {
      if (e.open()) {
        out.add(new PendingConfirmation(e.id, e.request.session(), e.request.tool(), e.request.summary(),
            e.request.reason(), Instant.ofEpochMilli(e.deadlineMillis).toString(), e.openedMillis));
      }
    }
    return out;
  }
}
