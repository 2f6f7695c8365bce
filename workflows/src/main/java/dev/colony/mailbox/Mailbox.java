package dev.colony.mailbox;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * An ant's queued instructions: urgent ones first, then the others, each in arrival order; and
 * the ids of the messages already received, so a message is queued once however often it is sent.
 * Deterministic (workflow code): plain collections, no clock.
 */
public final class Mailbox {
  /** How many message ids an ant remembers (the oldest are forgotten first). */
  public static final int MAX_REMEMBERED_IDS = 2_000;

  private final List<String> urgent = new ArrayList<>();
  private final List<String> queue = new ArrayList<>();
  private final LinkedHashSet<String> seen = new LinkedHashSet<>();

  /** What a mailbox carries across continue-as-new (the JSON names of the ant's memory). */
  public record Memory(List<String> queue, List<String> urgentQueue, List<String> mailIds) {
    public Memory {
      queue = queue == null ? List.of() : List.copyOf(queue);
      urgentQueue = urgentQueue == null ? List.of() : List.copyOf(urgentQueue);
      mailIds = mailIds == null ? List.of() : List.copyOf(mailIds);
    }
  }

  public Mailbox(Memory m) {
    this(m.queue(), m.urgentQueue(), m.mailIds());
  }

  public Memory memory() {
    return new Memory(queue(), urgentQueue(), seenIds());
  }

  public Mailbox(Collection<String> queue, Collection<String> urgent, Collection<String> seen) {
    this.queue.addAll(queue);
    this.urgent.addAll(urgent);
    this.seen.addAll(seen);
  }

  /** True when a message with this id was received before (and so must be dropped). */
  public boolean seenBefore(String id) {
    if (id == null || id.isBlank()) {
      return false;
    }
    if (!seen.add(id)) {
      return true;
    }
    while (seen.size() > MAX_REMEMBERED_IDS) {
      seen.remove(seen.iterator().next());
    }
    return false;
  }

  /** Queues an instruction already checked and bounded by the caller. */
  public void add(String text, boolean isUrgent) {
    (isUrgent ? urgent : queue).add(text);
  }

  /** The instructions for one session, urgent first: in order, at most {@code maxChars} (at least one). */
  public List<String> takeBatch(int maxChars) {
    return takeBatch(maxChars, Integer.MAX_VALUE);
  }

  /** As {@link #takeBatch(int)}, and at most {@code maxMessages} instructions. */
  public List<String> takeBatch(int maxChars, int maxMessages) {
    List<String> batch = new ArrayList<>();
    int chars = 0;
    while (batch.size() < maxMessages) {
      List<String> from = !urgent.isEmpty() ? urgent : queue;
      if (from.isEmpty() || !(batch.isEmpty() || chars + from.get(0).length() <= maxChars)) {
        return batch;
      }
      chars += from.get(0).length();
      batch.add(from.remove(0));
    }
    return batch;
  }

  /** Everything queued, urgent first (runs recorded before bounded delivery took all at once). */
  public List<String> takeAll() {
    List<String> all = new ArrayList<>(urgent);
    all.addAll(queue);
    urgent.clear();
    queue.clear();
    return all;
  }

  /** Gives a session's instructions back: after any urgent message that arrived meanwhile. */
  public void giveBack(List<String> delivered) {
    queue.addAll(0, delivered);
  }

  public boolean hasUrgent() {
    return !urgent.isEmpty();
  }

  public boolean isEmpty() {
    return urgent.isEmpty() && queue.isEmpty();
  }

  public int size() {
    return urgent.size() + queue.size();
  }

  /** Drops every queued instruction; returns how many. */
  public int clear() {
    int n = size();
    urgent.clear();
    queue.clear();
    return n;
  }

  public List<String> queue() {
    return List.copyOf(queue);
  }

  public List<String> urgentQueue() {
    return List.copyOf(urgent);
  }

  public List<String> seenIds() {
    return List.copyOf(seen);
  }
}
