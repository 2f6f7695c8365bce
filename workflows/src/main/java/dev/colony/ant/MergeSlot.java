package dev.colony.ant;

import java.util.ArrayList;
import java.util.List;

/**
 * What the ant keeps about its repository's merge queue: landed work whose branch it still has to
 * move onto the target (before its next session), whether it holds a path claim or waits for one,
 * the items that wait for a human (one phone notice each), and a pending rework (the queue sent the
 * ant's item back: it runs as a session of its own before the ant's next session). Carried across
 * continue-as-new in {@link Memory}; null there when there is nothing to carry.
 */
final class MergeSlot {
  /** How many needs of a human the ant remembers (the queue's card holds them all). */
  static final int MAX_NEEDS = 20;

  /**
   * @param syncFrom the original head of the ant's last landed work, until its branch is moved
   * @param syncTo the target's head it landed as
   * @param claimHeld whether the queue granted the ant's path claim (and has not released it)
   * @param waitingFor while it waits for paths: "beta: src/api/**" (for status and the card)
   * @param needs items waiting for a human: [need id, text]
   * @param rework the rework waiting for its session, or null (absent in runs before it)
   */
  record Memory(String syncFrom, String syncTo, boolean claimHeld, String waitingFor, List<List<String>> needs,
      Rework rework) {
    Memory {
      needs = needs == null ? List.of() : needs.stream().map(List::copyOf).toList();
    }
  }

  /**
   * The queue's REWORK news, kept until its session runs: one at a time (an ant has one open item
   * in its queue; a newer rework replaces an older one), its text bounded by the desk.
   *
   * @param itemId the item sent back ({@code alpha-3})
   * @param text what the queue told the agent (the conflicting files, or the tests' last lines)
   */
  record Rework(String itemId, String text) {}

  private String syncFrom;
  private String syncTo;
  private boolean claimHeld;
  private String waitingFor;
  private boolean pathsFree;
  private final List<List<String>> needs = new ArrayList<>();
  private Rework rework;

  MergeSlot(Memory m) {
    if (m != null) {
      syncFrom = m.syncFrom();
      syncTo = m.syncTo();
      claimHeld = m.claimHeld();
      waitingFor = m.waitingFor();
      needs.addAll(m.needs());
      rework = m.rework();
    }
  }

  Memory memory() {
    if (syncFrom == null && !claimHeld && waitingFor == null && needs.isEmpty() && rework == null) {
      return null;
    }
    return new Memory(syncFrom, syncTo, claimHeld, waitingFor, List.copyOf(needs), rework);
  }

  /** The queue sent the ant's item back: its rework waits for a session of its own (the newest wins). */
  void rework(String itemId, String text) {
    rework = new Rework(itemId, text);
  }

  boolean reworkPending() {
    return rework != null;
  }

  /** The pending rework, taken by the session that does it (null when none). */
  Rework takeRework() {
    Rework r = rework;
    rework = null;
    return r;
  }

  /** The rework's session did not do it (cancelled, failed, interrupted): it runs again, unless a newer one came. */
  void giveBack(Rework r) {
    if (r != null && rework == null) {
      rework = r;
    }
  }

  /** The item landed, was closed or waits for a human: its rework is no longer the ant's to do. */
  void reworkEnded(String itemId) {
    if (rework != null && rework.itemId() != null && rework.itemId().equals(itemId)) {
      rework = null;
    }
  }

  void landed(String from, String to) {
    syncFrom = from;
    syncTo = to;
    claimHeld = false; // the queue releases a claim when the work lands
  }

  boolean syncPending() {
    return syncFrom != null && syncTo != null;
  }

  String syncFrom() {
    return syncFrom;
  }

  String syncTo() {
    return syncTo;
  }

  void synced() {
    syncFrom = null;
    syncTo = null;
  }

  boolean claimHeld() {
    return claimHeld;
  }

  void granted() {
    claimHeld = true;
    waitingFor = null;
    pathsFree = false;
  }

  void released() {
    claimHeld = false;
  }

  void waiting(String forWhom) {
    waitingFor = forWhom;
    pathsFree = false;
  }

  String waitingFor() {
    return waitingFor;
  }

  void stopWaiting() {
    waitingFor = null;
  }

  void pathsFree() {
    pathsFree = true;
  }

  boolean pathsFreed() {
    return pathsFree;
  }

  void need(String id, String text) {
    needs.removeIf(n -> n.get(0).equals(id));
    needs.add(List.of(id, text));
    while (needs.size() > MAX_NEEDS) {
      needs.remove(0);
    }
  }

  List<String> needIds() {
    return needs.stream().map(n -> n.get(0)).toList();
  }

  String needText(String id) {
    for (List<String> n : needs) {
      if (n.get(0).equals(id)) {
        return n.get(1);
      }
    }
    return null;
  }

  /** A need was told (one notice; the queue's card and the console's inbox hold it from then on). */
  void noticeSent(String id) {
    needs.removeIf(n -> n.get(0).equals(id));
  }
}
