package dev.colony.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.colony.testing.Seeds;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Conflict-aware scheduling under random ants, globs, claims, submissions, landings, reworks,
 * drops, pauses, stops and continue-as-new: two ants never hold overlapping unlanded work at once
 * (claims and submitted work alike), and once the holders move on every waiter is served, the
 * first to wait first. Some ants declare no paths: with {@code undeclared: changed} they work
 * without a claim and their submitted work holds the files it changed (no ant is granted paths that
 * overlap them until that work lands or is dropped); with {@code undeclared: everything} they claim
 * {@code **}. Seeded: seeds 1 to 300 by default, each run in every {@code undeclared} mode; a
 * failure names its seed and the operations that led to it, and {@code -Dcolony.seed=N} runs that
 * one seed alone ({@link Seeds}).
 */
@Timeout(120)
class MergeClaimsPropertyTest {
  static final List<String> GLOBS = List.of("src/**", "src/a/**", "src/a/x.txt", "src/b/*.java", "docs/**",
      "docs/guide.md", "web/**", "lib/{x,y}/**", "src/./a/y", "README.md", "./web//app.js", "src/b/../a/z");
  static final int ANTS = 6;
  /** Drain rounds in which busy ants claim again for their next session. */
  static final int BUSY = 80;
  /** Drain rounds a waiter may wait at most while others keep working. */
  static final int MAX_WAIT = 60;
  /** The files an ant that declares no paths may change. */
  static final List<String> FILES = List.of("src/a/x.txt", "src/a/y", "src/b/Foo.java", "docs/guide.md",
      "web/app.js", "lib/x/k.c", "README.md", "notes/n.md");

  enum Phase { IDLE, WORKING, WAITING, PAUSED, STOPPED }

  static final class Ant {
    final String name;
    Phase phase = Phase.IDLE;
    List<String> globs = List.of();
    /** It declares no paths (the run's {@code undeclared} setting decides what it holds). */
    boolean undeclared;
    /** What its work changed (an ant that declares no paths), submitted with its work. */
    List<String> changed = List.of();
    /** Its items sent back while it was stopped: it never learns of them (started again, it does not rework them). */
    final java.util.Set<String> lostReworks = new java.util.TreeSet<>();
    /** The files its submitted work changed (an ant that declares no paths), until that work lands or is dropped. */
    final java.util.Set<String> submitted = new java.util.TreeSet<>();
    /** When it began waiting (the test's own order), for the first-come check. */
    long waitingSince = -1;
    Ant(String name) {
      this.name = name;
    }
  }

  @Test
  void overlappingUnlandedWorkNeverCoexistsAndEveryWaiterIsServed() {
    java.util.OptionalLong one = Seeds.given();
    long first = one.orElse(1);
    long last = one.isPresent() ? first : 300;
    System.err.println("MergeClaimsPropertyTest: seeds " + first + ".." + last + " (replay one with -D" + Seeds.PROPERTY
        + "=N)");
    for (long seed = first; seed <= last; seed++) {
      for (Undeclared mode : Undeclared.values()) {
        run(seed, mode);
      }
    }
  }

  @Test
  void theSameSeedReplaysTheSameOperations() {
    long seed = Seeds.pick("MergeClaimsPropertyTest.theSameSeedReplaysTheSameOperations");
    for (Undeclared mode : Undeclared.values()) {
      List<String> once = run(seed, mode);
      assertFalse(once.isEmpty(), "a run logs its operations");
      assertEquals(once, run(seed, mode), Seeds.replay(seed) + ": a second run with the seed did other things");
    }
  }

  /** One run of the property; returns the operations it did, in order (what a failure prints). */
  private List<String> run(long seed, Undeclared mode) {
    Random rnd = new Random(seed);
    MergeBook[] book = {MergeBookTest.book()};
    Map<String, Ant> ants = new LinkedHashMap<>();
    for (int i = 0; i < ANTS; i++) {
      Ant a = new Ant("a" + i);
      a.undeclared = rnd.nextInt(3) == 0;
      ants.put(a.name, a);
    }
    List<String> log = new ArrayList<>();
    long[] clock = {0};
    try {
      for (int step = 0; step < 80; step++) {
        Ant a = new ArrayList<>(ants.values()).get(rnd.nextInt(ANTS));
        int op = rnd.nextInt(10);
        clock[0] += 1000;
        switch (op) {
          case 0, 1, 2 -> { // claim before a session: new globs when idle, the same ones when waiting
            if (a.phase == Phase.IDLE || a.phase == Phase.STOPPED) {
              List<String> g = new ArrayList<>();
              int n = 1 + rnd.nextInt(2);
              for (int k = 0; k < n; k++) {
                g.add(GLOBS.get(rnd.nextInt(GLOBS.size())));
              }
              a.globs = List.copyOf(g);
              if (a.undeclared) {
                a.changed = List.of(FILES.get(rnd.nextInt(FILES.size())), FILES.get(rnd.nextInt(FILES.size())));
              }
              claim(book[0], a, log, clock[0], mode, ants);
            } else if (a.phase == Phase.WAITING) {
              claim(book[0], a, log, clock[0], mode, ants);
            }
          }
          case 3, 4 -> { // a session went well: its work is submitted; the ant is idle again
            if (a.phase == Phase.WORKING) {
              book[0].submit(sub(a, mode, null), clock[0]);
              a.phase = Phase.IDLE;
              log.add(a.name + " submits" + (a.undeclared && mode == Undeclared.CHANGED ? " " + a.changed : ""));
            }
          }
          case 5, 6 -> land(book[0], rnd, log, clock[0], ants, mode);
          case 7 -> { // a human pauses a working ant (it keeps its paths) or resumes it
            if (a.phase == Phase.WORKING) {
              a.phase = Phase.PAUSED;
              log.add(a.name + " paused");
            } else if (a.phase == Phase.PAUSED) {
              a.phase = Phase.WORKING;
              log.add(a.name + " resumed");
            }
          }
          case 8 -> { // the ant is stopped: its claim goes back, its submitted work stays held
            if (a.phase != Phase.STOPPED) {
              tell(book[0].release(a.name), ants, log);
              a.phase = Phase.STOPPED;
              a.waitingSince = -1;
              log.add(a.name + " stopped");
            }
          }
          default -> { // continue-as-new
            book[0] = MergeBook.of(book[0].state());
            log.add("continue-as-new");
          }
        }
        check(book[0], ants, seed, log, mode);
      }
      // The holders move on: paused ants resume and finish, everything submitted lands, waiters
      // claim again when told (or at their periodic re-claim). Every waiter must be served.
      // Busy ants keep working meanwhile (for the first BUSY rounds): an idle ant whose work has not
      // landed yet claims again for its next session. That must not keep a waiter out: each waiter is
      // served within MAX_WAIT rounds.
      List<String> served = new ArrayList<>();
      Map<String, Integer> waitedSince = new TreeMap<>();
      for (int round = 0; round < 400 && (round < BUSY || ants.values().stream().anyMatch(x -> x.phase == Phase.WAITING));
          round++) {
        clock[0] += 1000;
        for (Ant a : ants.values()) {
          if (a.phase == Phase.PAUSED || a.phase == Phase.WORKING) {
            book[0].submit(sub(a, mode, null), clock[0]);
            a.phase = Phase.IDLE;
            log.add(a.name + " finishes and submits");
          }
        }
        if (round < BUSY) {
          List<MergeItem> open = book[0].card(null, clock[0]).items();
          for (Ant a : ants.values()) {
            // (an ant that declares no paths with undeclared: changed claims nothing: it cannot be kept
            // waiting, and its work holds what it changed from its submission on, as docs/merge.md says)
            if (a.phase == Phase.IDLE && open.stream().anyMatch(it -> it.ant().equals(a.name))
                && !(a.undeclared && mode == Undeclared.CHANGED)) {
              log.add(a.name + " claims again for its next session, its work unlanded");
              claim(book[0], a, log, clock[0], mode, ants);
            }
          }
        }
        for (MergeItem it : book[0].card(null, clock[0]).items()) {
          if (it.state() == ItemState.REWORK && (ants.get(it.ant()).phase == Phase.STOPPED
              || ants.get(it.ant()).lostReworks.contains(it.id()))
              || it.state() == ItemState.NEEDS_HUMAN) {
            // a stopped ant's rework, or an item out of tries: shown in the inbox, a human drops it
            book[0].decide(new MergeDecision(it.id(), "cancel", "@ops"), clock[0]); // as colony merge cancel does
            tell(book[0].freed(), ants, log);
            log.add(it.id() + " cancelled");
          }
        }
        land(book[0], rnd, log, clock[0], ants, mode);
        for (Ant a : ants.values()) {
          if (a.phase == Phase.WAITING && claim(book[0], a, log, clock[0], mode, ants)) {
            served.add(a.name);
          }
        }
        for (Ant a : ants.values()) {
          if (a.phase == Phase.WAITING) {
            int since = waitedSince.computeIfAbsent(a.name, k -> 0);
            assertTrue(since++ < MAX_WAIT, a.name + " waited " + MAX_WAIT + " rounds while others kept working");
            waitedSince.put(a.name, since);
          } else {
            waitedSince.remove(a.name);
          }
        }
        check(book[0], ants, seed, log, mode);
      }
      for (Ant a : ants.values()) {
        assertTrue(a.phase != Phase.WAITING, a.name + " was never served");
      }
      assertTrue(book[0].card(null, clock[0]).waiting().isEmpty(), "the queue has no waiter left");
    } catch (AssertionError e) {
      fail(Seeds.replay(seed) + " (undeclared: " + mode.configName() + "): " + e.getMessage() + "\n  "
          + String.join("\n  ", log), e);
    }
    return log;
  }

  /** Claims; returns whether it was granted. A grant must not overtake an overlapping earlier waiter. */
  private static boolean claim(MergeBook book, Ant a, List<String> log, long now, Undeclared mode,
      Map<String, Ant> ants) {
    if (a.undeclared && mode == Undeclared.CHANGED) {
      a.phase = Phase.WORKING; // it cannot say what it will change: it claims nothing
      a.waitingSince = -1;
      log.add(a.name + " works, declaring no paths");
      return true;
    }
    List<String> globs = a.undeclared ? List.of("**") : a.globs;
    PathReply r = book.claim(new PathClaim(a.name, globs, null, "ant/test/" + a.name, a.undeclared));
    log.add(a.name + " claims " + globs + ": " + (r.granted() ? "granted" : "waits for " + r.holder()));
    if (r.granted()) {
      // Granted: no other ant's unlanded work overlaps, the files an ant that declares no paths
      // submitted included (as the test knows them, not as the queue says).
      List<MergeItem> items = book.card(null, now).items();
      for (Ant x : ants.values()) {
        if (x == a || !x.undeclared || mode != Undeclared.CHANGED) {
          continue;
        }
        if (items.stream().noneMatch(it -> it.ant().equals(x.name) && it.state().open())) {
          x.submitted.clear(); // its work landed or was dropped
        }
        for (String f : x.submitted) {
          assertTrue(!PathGlobs.matchesAny(globs.stream().map(PathGlobs::normalize).toList(), f),
              a.name + " granted " + globs + " while the unlanded work of " + x.name + " changed " + f);
        }
      }
      a.phase = Phase.WORKING;
      a.waitingSince = -1;
      return true;
    }
    a.phase = Phase.WAITING;
    if (a.waitingSince < 0) {
      a.waitingSince = now;
    }
    return false;
  }

  /** Its work: an ant that declares no paths submits the files it changed with {@code undeclared: changed}. */
  private static Submission sub(Ant a, Undeclared mode, Boolean fix) {
    if (a.undeclared && mode == Undeclared.CHANGED) {
      a.submitted.addAll(a.changed);
    }
    return new Submission(a.name, "", "colony/" + a.name, null, 2, "ant", false, null, null, fix,
        a.undeclared && mode == Undeclared.CHANGED ? a.changed : null);
  }

  private static void land(MergeBook book, Random rnd, List<String> log, long now, Map<String, Ant> ants,
      Undeclared mode) {
    MergeItem it = book.next(now);
    if (it == null) {
      return;
    }
    book.landing(it.id(), now);
    int how = rnd.nextInt(6);
    if (how == 0) {
      book.rework(it.id(), "conflict", now);
      log.add(it.id() + " rework");
      Ant a = ants.get(it.ant());
      if (a.phase != Phase.STOPPED) {
        // a session of its own reworks it and submits the fix; the task in hand (a working or paused
        // ant's claim) goes on after it and keeps its paths. A stopped ant's item waits in rework for
        // a human (the drain cancels it)
        book.submit(sub(a, mode, true), now);
        log.add(it.ant() + " resubmits its fix");
      } else {
        a.lostReworks.add(it.id());
      }
      return;
    }
    if (how == 1) {
      book.close(it.id(), "nothing to land", now);
      log.add(it.id() + " closed");
    } else {
      book.landed(it.id(), new Landed(it.id(), it.ant(), null, "f", "t", "b", 1, 0, 0, now, List.of(), null), now);
      log.add(it.id() + " landed");
    }
    tell(book.freed(), ants, log);
  }

  /** PATHS_FREE: the ant claims again at its next look (in the drain, at once). */
  private static void tell(List<PathClaim> freed, Map<String, Ant> ants, List<String> log) {
    for (PathClaim c : freed) {
      log.add("PATHS_FREE " + c.ant());
    }
  }

  /** No two ants hold overlapping unlanded work: their claims and their submitted work. */
  private static void check(MergeBook book, Map<String, Ant> ants, long seed, List<String> log, Undeclared mode) {
    List<MergeItem> items = book.card(null, 0).items();
    for (Ant x : ants.values()) {
      if (items.stream().noneMatch(it -> it.ant().equals(x.name) && it.state().open())) {
        x.submitted.clear(); // its work landed or was dropped
      }
    }
    Map<String, List<String>> claims = book.card(null, 0).claims();
    TreeMap<String, List<String>> active = new TreeMap<>();
    for (String a : ants.keySet()) {
      List<String> l = new ArrayList<>(claims.getOrDefault(a, List.of()));
      l.addAll(book.held(a));
      active.put(a, l);
    }
    for (String x : active.keySet()) {
      for (String y : active.keySet()) {
        if (x.compareTo(y) >= 0) {
          continue;
        }
        for (String gx : active.get(x)) {
          for (String gy : active.get(y)) {
            if (PathGlobs.overlap(gx, gy)) {
              fail(x + " " + active.get(x) + " and " + y + " " + active.get(y) + " both hold " + gx + " ~ " + gy);
            }
          }
        }
      }
    }
    // Every working ant's paths are its claim (granted means held).
    for (Ant a : ants.values()) {
      if ((a.phase == Phase.WORKING || a.phase == Phase.PAUSED) && !(a.undeclared && mode == Undeclared.CHANGED)) {
        List<String> want = new ArrayList<>();
        for (String g : a.undeclared ? List.of("**") : a.globs) {
          String n = PathGlobs.normalize(g);
          if (!want.contains(n)) {
            want.add(n);
          }
        }
        assertTrue(claims.getOrDefault(a.name, List.of()).containsAll(want),
            a.name + " works on paths it does not hold: " + want + " not all in " + claims.get(a.name));
      }
    }
  }
}
