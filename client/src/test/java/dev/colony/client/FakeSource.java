package dev.colony.client;

import dev.colony.overseer.Turn;
import dev.colony.visibility.AntCard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A colony in memory: rows the test sets, turns it adds, the actions it was sent, every call
 * counted. Public (in the client's test-jar) for every surface's tests: the console's, the MCP
 * server's, the starter's browser test of the board.
 */
public final class FakeSource implements ColonySource {
  public final Map<String, Row> rows = new ConcurrentHashMap<>();
  public final Map<String, List<Turn>> turns = new ConcurrentHashMap<>();
  public final List<String> actions = new CopyOnWriteArrayList<>();
  public final AtomicLong calls = new AtomicLong();
  /** When set, reading an ant's config throws it (Temporal not answering). */
  public volatile RuntimeException configFailure;
  public final AtomicLong changedSinceCalls = new AtomicLong();
  public final AtomicLong countsCalls = new AtomicLong();
  public final AtomicInteger following = new AtomicInteger();
  public final AtomicInteger maxFollowing = new AtomicInteger();
  /** Long polls holding a cursor, counted under the lock: a turn added after this is seen reaches them. */
  public final AtomicInteger waiting = new AtomicInteger();
  private final Object lock = new Object();

  public static AntCard card(long revision, String doing) {
    return new AntCard(AntCard.VERSION, revision, "waiting", 1_000L, doing, null, null, null, 0, false, null, 0,
        0.5, 2.0, 5.0, null, "UTC", null, null,
        List.of(new AntCard.DayCost(java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString(), 0.5, 2)),
        List.of(), List.of(), List.of(), 0);
  }

  public static Row row(String name, long revision, String doing) {
    return new Row(name, "waiting", false, null, 3, 0, 0, null, "host1", false, "success", card(revision, doing),
        true, System.currentTimeMillis());
  }

  public void put(Row r) {
    synchronized (lock) {
      rows.put(r.name(), r);
      lock.notifyAll();
    }
  }

  public void addTurns(String ant, Turn... t) {
    synchronized (lock) {
      turns.computeIfAbsent(ant, k -> new CopyOnWriteArrayList<>()).addAll(List.of(t));
      lock.notifyAll();
    }
  }

  @Override
  public String colony() {
    return "hello";
  }

  @Override
  public String namespace() {
    return "default";
  }

  @Override
  public Counts counts() {
    calls.incrementAndGet();
    countsCalls.incrementAndGet();
    long total = rows.size();
    long need = rows.values().stream().filter(Row::needsHuman).count();
    return new Counts(total, need, 0, total, 0, 0);
  }

  @Override
  public List<Row> list(Filter filter) {
    calls.incrementAndGet();
    return rows.values().stream().filter(r -> filter != Filter.NEED_YOU || r.needsHuman())
        .sorted(Comparator.comparing(Row::name)).toList();
  }

  /** Rows one page of {@link #changedSince} holds, as visibility's pages (in name order here, not by time). */
  public volatile int pageSize = 1000;
  /** Run before each page is read (a test changes ants while the poller pages). */
  public volatile Runnable beforePage = () -> {};

  @Override
  public Changes changedSince(long sinceMillis, String token) {
    calls.incrementAndGet();
    changedSinceCalls.incrementAndGet();
    beforePage.run();
    List<Row> page = rows.values().stream().filter(r -> r.updatedMillis() >= sinceMillis)
        .filter(r -> token == null || r.name().compareTo(token) > 0)
        .sorted(Comparator.comparing(Row::name)).limit(pageSize + 1L).toList();
    if (page.size() <= pageSize) {
      return new Changes(page, null);
    }
    List<Row> rows = page.subList(0, pageSize);
    return new Changes(rows, rows.get(rows.size() - 1).name());
  }

  @Override
  public Detail ant(String name) {
    calls.incrementAndGet();
    Row r = rows.get(name);
    return r == null ? null : new Detail(r, "ant/hello/" + name, "run-1", null, "an ant", "claude");
  }

  @Override
  public Object config(String name) {
    calls.incrementAndGet();
    if (configFailure != null) {
      throw configFailure;
    }
    Object set = configs.get(name);
    return set != null ? set : rows.containsKey(name) ? Map.of("name", name, "prompt", "do the work") : null;
  }

  private final Map<String, Object> configs = new java.util.concurrent.ConcurrentHashMap<>();

  /** The ant's spec as its run loaded it, as {@link #config} answers from now on (an AntSpec, say). */
  public void putConfig(String name, Object spec) {
    configs.put(name, spec);
  }

  @Override
  public Live live(String name) {
    calls.incrementAndGet();
    if (!rows.containsKey(name)) {
      throw new NoSuchElementException("no ant '" + name + "'");
    }
    return new Live(1, true, List.copyOf(turns.getOrDefault(name, List.of())));
  }

  @Override
  public TurnBatch waitTurns(String name, String cursor, Duration maxWait) throws InterruptedException {
    calls.incrementAndGet();
    int now = following.incrementAndGet();
    maxFollowing.accumulateAndGet(now, Math::max);
    try {
      int from = cursor == null ? 0 : Integer.parseInt(cursor);
      long deadline = System.currentTimeMillis() + maxWait.toMillis();
      synchronized (lock) {
        if (cursor != null) {
          waiting.incrementAndGet();
        }
        try {
          List<Turn> all = turns.getOrDefault(name, List.of());
          while (cursor != null && all.size() <= from && System.currentTimeMillis() < deadline) {
            lock.wait(Math.max(1, deadline - System.currentTimeMillis()));
            all = turns.getOrDefault(name, List.of());
          }
          List<Turn> fresh = new ArrayList<>(all.subList(Math.min(from, all.size()), all.size()));
          return new TurnBatch(String.valueOf(all.size()), 1, cursor == null ? List.of() : fresh, false, !fresh.isEmpty());
        } finally {
          if (cursor != null) {
            waiting.decrementAndGet();
          }
        }
      }
    } finally {
      following.decrementAndGet();
    }
  }

  @Override
  public Supervision supervision() {
    calls.incrementAndGet();
    return supervision;
  }

  /** Who sent each action, as the ant's history would record them ({@link Actor#identity()}). */
  public final List<String> identities = new CopyOnWriteArrayList<>();
  /** What {@link #supervision()} answers; none by default. */
  public volatile Supervision supervision = new Supervision(false, List.of(), List.of(), "no supervision workflow");

  @Override
  public String act(String name, AntVerb verb, Actor who) {
    calls.incrementAndGet();
    if (!rows.containsKey(name)) {
      throw new NoSuchElementException("no ant '" + name + "' runs");
    }
    actions.add(name + " " + verb.word() + " by " + who.name()
        + (verb instanceof AntVerb.Send m ? ": " + m.text() : "")
        + (verb instanceof AntVerb.Decide d && (d.id() != null || d.note() != null)
            ? " #" + d.id() + (d.note() == null ? "" : ": " + d.note()) : ""));
    identities.add(who.identity());
    return verb.word() + " sent";
  }

  @Override
  public long calls() {
    return calls.get();
  }
}
