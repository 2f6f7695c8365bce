package dev.colony.console;

import dev.colony.client.ColonySource;
import dev.colony.board.TaskBoard;
import dev.colony.client.ColonySource.Row;
import dev.colony.client.ColonySource.TurnBatch;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskState;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live push, the one stream for everything live: every open page is a {@link Viewer}; all of them
 * share ONE colony poller (while any page is open; it asks for the changed tasks too while a page
 * of the board or the inbox is open, and for the merge queues' cards while a page showing them is
 * open) and ONE history long poll per watched ant (while a page of that ant is open).
 * With no page open the hub makes no call at all. Each viewer has a bounded queue and a writer
 * thread of its own: a slow or stuck page loses its connection when its queue fills, it never
 * slows the pollers or the other pages. Its threads are platform threads: they block in gRPC long
 * polls and servlet writes, which may pin a virtual thread's carrier (JDK 21), and there are few.
 */
final class LiveHub implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LiveHub.class);
  /** How far back of the newest {@code AntUpdatedAt} seen each poll looks (visibility lags a little). */
  static final Duration MARGIN = Duration.ofSeconds(5);
  private static final Duration FOLLOW_WAIT = Duration.ofSeconds(20);
  private static final Duration RETRY = Duration.ofSeconds(2);
  private static final Duration MIN_EMPTY_WAIT = Duration.ofSeconds(1);
  /** Changed tasks one poll pushes one by one; above, one {@code tasks} event says "read the board again". */
  static final int TASK_BURST = 100;
  /** Changed ants one poll pushes one by one ({@code ant}); above, in {@code ants} events of this many rows. */
  static final int ANT_BURST = 50;
  static final int ANTS_PER_EVENT = 250;
  /** How often the merge queues' cards are read while a page shows them. */
  static final Duration MERGE_EVERY = Duration.ofSeconds(2);

  /** Where a viewer's events go: Javalin's {@code SseClient} in the server, a list in tests. */
  interface Sink {
    /** Writes one event; false when the client is gone. */
    boolean send(String event, String data);

    boolean comment(String text);

    void close();
  }

  /** One open page. */
  final class Viewer {
    final Sink sink;
    final String ant;
    /** Whether the page shows tasks (the board, the inbox): it gets {@code task} events. */
    final boolean tasks;
    /** Whether the page shows the merge queues (the Merge page, the inbox): it gets {@code merge} events. */
    final boolean merge;
    final BlockingQueue<String[]> queue;
    volatile boolean closed;

    Viewer(Sink sink, String ant, boolean tasks, boolean merge) {
      this.sink = sink;
      this.ant = ant;
      this.tasks = tasks;
      this.merge = merge;
      this.queue = new ArrayBlockingQueue<>(queueSize);
    }

    void offer(String event, String data) {
      if (!closed && !queue.offer(new String[] {event, data})) {
        log.info("console: a page does not keep up with the events; its connection is closed");
        detach(this);
      }
    }

    private void write() {
      try {
        while (!closed) {
          String[] e = queue.poll(keepAlive.toMillis(), TimeUnit.MILLISECONDS);
          boolean ok = e == null ? sink.comment("keep-alive") : sink.send(e[0], e[1]);
          if (!ok) {
            break;
          }
        }
      } catch (InterruptedException stop) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException gone) {
        // the client went away mid-write
      }
      detach(this);
    }
  }

  private final ColonySource source;
  private final TaskBoard board;
  /** The merge queues' answer ({@code GET /api/merge}); null: none to follow. */
  private final MergeRoutes merges;
  private final Views views;
  private final Duration pollEvery;
  private final Duration keepAlive;
  private final int queueSize;
  private final Set<Viewer> viewers = ConcurrentHashMap.newKeySet();
  private final Map<String, Thread> followers = new HashMap<>();
  private Thread poller;
  private final AtomicLong polls = new AtomicLong();
  private volatile boolean closed;

  LiveHub(ColonySource source, TaskBoard board, Views views, Duration pollEvery, Duration keepAlive, int queueSize) {
    this(source, board, null, views, pollEvery, keepAlive, queueSize);
  }

  LiveHub(ColonySource source, TaskBoard board, MergeRoutes merges, Views views, Duration pollEvery, Duration keepAlive,
      int queueSize) {
    this.source = source;
    this.board = board;
    this.merges = merges != null && merges.hasQueues() ? merges : null;
    this.views = views;
    this.pollEvery = pollEvery;
    this.keepAlive = keepAlive;
    this.queueSize = queueSize;
  }

  int viewers() {
    return viewers.size();
  }

  long polls() {
    return polls.get();
  }

  /** A page opened: starts its writer, and the poller and follower it needs when not running yet. */
  Viewer attach(Sink sink, String ant) {
    return attach(sink, ant, false);
  }

  /** The same; {@code tasks}: the page shows tasks and gets {@code task} events. */
  Viewer attach(Sink sink, String ant, boolean tasks) {
    return attach(sink, ant, tasks, false);
  }

  /** The same; {@code merge}: the page shows the merge queues and gets {@code merge} events. */
  Viewer attach(Sink sink, String ant, boolean tasks, boolean merge) {
    Viewer v = new Viewer(sink, ant, tasks && board != null, merge && merges != null);
    synchronized (this) {
      if (closed) {
        sink.close();
        return v;
      }
      viewers.add(v);
      if (poller == null) {
        poller = Thread.ofPlatform().daemon().name("console-poller").start(this::poll);
      }
      if (ant != null && !followers.containsKey(ant)) {
        followers.put(ant, Thread.ofPlatform().daemon().name("console-follow-" + ant).start(() -> follow(ant)));
      }
    }
    Thread.ofPlatform().daemon().name("console-viewer").start(v::write);
    return v;
  }

  /** Whether the hub is closed (a viewer attached now is closed at once). */
  boolean isClosed() {
    return closed;
  }

  /** A page closed (or was dropped): stops what no page needs any more. */
  void detach(Viewer v) {
    if (v.closed) {
      return;
    }
    v.closed = true;
    v.queue.clear();
    try {
      v.sink.close();
    } catch (RuntimeException ignored) {
      // already gone
    }
    synchronized (this) {
      viewers.remove(v);
      if (viewers.isEmpty() && poller != null) {
        poller.interrupt();
        poller = null;
      }
      if (v.ant != null && viewers.stream().noneMatch(x -> v.ant.equals(x.ant))) {
        Thread f = followers.remove(v.ant);
        if (f != null) {
          f.interrupt();
        }
      }
    }
  }

  private void broadcast(String event, Supplier<String> data, String ant) {
    broadcastTo(event, data, v -> ant == null || ant.equals(v.ant));
  }

  private void broadcastTo(String event, Supplier<String> data, java.util.function.Predicate<Viewer> to) {
    String d = null;
    for (Viewer v : viewers) {
      if (to.test(v)) {
        if (d == null) {
          d = data.get();
        }
        v.offer(event, d);
      }
    }
  }

  private boolean stillPolling() {
    synchronized (this) {
      return poller == Thread.currentThread() && !closed;
    }
  }

  /**
   * The colony poller: each poll reads the ants changed since the cursor ({@code AntUpdatedAt},
   * visibility pages of a thousand however large the colony), every page of the window before the
   * cursor moves, so no change is lost however many ants changed; it pushes their rows, then the
   * counts (visibility counts) and the inbox (the ants that need a human). The window starts
   * {@link #MARGIN} before the cursor and includes it ({@code >=}): an ant changed at the cursor's
   * own millisecond is read again, never skipped (the fingerprint drops the repeat). The cursor
   * moves to the newest change read, but never past the moment the read began: an ant that
   * changes while the pages are read, after its page was, is in the next window.
   */
  private void poll() {
    Map<String, String> seen = new HashMap<>();
    long cursor = System.currentTimeMillis() - MARGIN.toMillis();
    TaskPoll tasks = new TaskPoll();
    MergePoll merge = new MergePoll();
    while (stillPolling()) {
      try {
        polls.incrementAndGet();
        cursor = pollAnts(seen, cursor); // first: the rows are what a page waits for most
        if (viewers.stream().anyMatch(v -> v.tasks)) {
          try {
            tasks.poll();
          } catch (RuntimeException e) {
            // the ants' part goes on: a board that fails does not stop their rows
            log.warn("console: polling the tasks failed: {}", views.redact(String.valueOf(e.getMessage())));
          }
        } else {
          tasks.reset(); // nobody looks at tasks: no call for them
        }
        if (viewers.stream().anyMatch(v -> v.merge)) {
          try {
            merge.poll();
          } catch (RuntimeException e) {
            log.warn("console: reading the merge queues failed: {}", views.redact(String.valueOf(e.getMessage())));
          }
        } else {
          merge.reset(); // nobody looks at the queues: no call for them
        }
        Thread.sleep(pollEvery.toMillis());
      } catch (InterruptedException stop) {
        return;
      } catch (RuntimeException e) {
        log.warn("console: polling the colony failed: {}", views.redact(String.valueOf(e.getMessage())));
        try {
          Thread.sleep(RETRY.toMillis());
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  /** One window of changed ants, all its pages; returns the new cursor (unchanged when a page failed: the window is read again). */
  private long pollAnts(Map<String, String> seen, long cursor) {
    long began = System.currentTimeMillis();
    long since = cursor - MARGIN.toMillis();
    long newest = cursor;
    int pushed = 0;
    String token = null;
    do {
      ColonySource.Changes page = source.changedSince(since, token);
      List<Row> changed = new java.util.ArrayList<>();
      for (Row r : page.rows()) {
        newest = Math.max(newest, Math.min(r.updatedMillis(), began));
        if (!r.fingerprint().equals(seen.put(r.name(), r.fingerprint()))) {
          changed.add(r);
        }
      }
      if (!stillPolling()) {
        return cursor;
      }
      push(changed, page.next() == null && pushed == 0);
      pushed += changed.size();
      token = page.next();
    } while (token != null);
    if (seen.size() > 50_000) {
      seen.clear(); // bounded: at worst a few rows are pushed again
    }
    if (pushed > 0) {
      summarize();
    }
    return newest;
  }

  /**
   * Pushes changed rows: one {@code ant} event each when a window holds few ({@code alone}: the
   * whole window is this page), else {@code ants} events of {@link #ANTS_PER_EVENT} rows, so a
   * burst of thousands fits every page's queue.
   */
  private void push(List<Row> changed, boolean alone) {
    if (alone && changed.size() <= ANT_BURST) {
      for (Row r : changed) {
        broadcast("ant", () -> views.json(views.row(r)), null);
      }
      return;
    }
    for (int i = 0; i < changed.size(); i += ANTS_PER_EVENT) {
      List<Row> part = changed.subList(i, Math.min(changed.size(), i + ANTS_PER_EVENT));
      broadcast("ants", () -> views.json(Map.of("rows", part.stream().map(views::row).toList())), null);
    }
  }

  /**
   * The merge queues' part of the colony poll, while a page showing them is open: one read of the
   * queues' cards (a visibility list, the memos) every {@link #MERGE_EVERY} for every such page
   * together; a {@code merge} event ({@code GET /api/merge}'s answer) when a card changed.
   */
  private final class MergePoll {
    private String last;
    private long next;

    void reset() {
      last = null;
      next = 0;
    }

    void poll() {
      long now = System.currentTimeMillis();
      if (now < next) {
        return;
      }
      next = now + Math.max(MERGE_EVERY.toMillis(), pollEvery.toMillis());
      Map<String, Object> answer = merges.queues();
      String cards = views.json(answer.get("queues"));
      if (cards.equals(last)) {
        return;
      }
      last = cards; // the first read is pushed too: a page may have read the queues just before a change
      String data = views.json(answer);
      broadcastTo("merge", () -> data, v -> v.merge);
    }
  }

  /**
   * The tasks part of the colony poll, while a page showing tasks is open: the tasks changed since
   * its cursor ({@code TaskUpdatedAt}, one visibility call), each pushed as a {@code task} event
   * once per change (its {@code updatedAt} and state), with whether its ant is gone.
   */
  private final class TaskPoll {
    private final Map<String, String> seen = new HashMap<>();
    private long cursor = -1;

    void reset() {
      cursor = -1;
      seen.clear();
    }

    void poll() {
      long now = System.currentTimeMillis();
      if (cursor < 0) {
        cursor = now - MARGIN.toMillis();
      }
      long since = cursor - MARGIN.toMillis();
      List<TaskCard> cards = source.tasksChangedSince(since);
      if (cards == null) {
        // A source that cannot ask visibility (tests): the board's list, newest change first.
        cards = board.list(TaskBoard.Filter.all(ConsoleServer.MAX_TASKS)).stream()
            .filter(c -> c.updatedAtMillis() >= since).toList();
      }
      List<TaskCard> changed = new java.util.ArrayList<>();
      for (TaskCard c : cards) {
        cursor = Math.max(cursor, Math.min(c.updatedAtMillis(), now));
        String print = c.updatedAtMillis() + "/" + c.state() + "/" + c.worker();
        if (!print.equals(seen.put(c.id(), print))) {
          changed.add(c);
        }
      }
      if (seen.size() > 50_000) {
        seen.clear(); // bounded: at worst a few tasks are pushed again
      }
      if (changed.isEmpty()) {
        return;
      }
      if (changed.size() > TASK_BURST) {
        // More than a page's queue should carry one by one (a start, a bulk move): one event, the page reads the board again.
        String data = views.json(Map.of("changed", changed.size()));
        broadcastTo("tasks", () -> data, v -> v.tasks);
        return;
      }
      java.util.Set<String> workers = new java.util.HashSet<>();
      changed.stream().filter(c -> c.state() == TaskState.IN_PROGRESS && c.worker() != null)
          .forEach(c -> workers.add(c.worker()));
      java.util.Set<String> running = workers.isEmpty() ? java.util.Set.of() : source.running(workers);
      for (TaskCard c : changed) {
        Boolean gone = c.state() == TaskState.IN_PROGRESS && c.worker() != null ? !running.contains(c.worker()) : false;
        String data = views.json(views.task(c, gone));
        broadcastTo("task", () -> data, v -> v.tasks);
      }
    }
  }

  /** Counts and inbox are being read (off the poller's thread), and whether another read is due after it. */
  private final java.util.concurrent.atomic.AtomicBoolean summaryRunning = new java.util.concurrent.atomic.AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicBoolean summaryDue = new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * Pushes the counts and the inbox (visibility counts and a list of the ants needing a human) from
   * a thread of their own, so the poller goes on pushing rows meanwhile (counting 10,000 ants takes
   * a while); changes that come during a read are covered by one more read after it.
   */
  private void summarize() {
    summaryDue.set(true);
    if (!summaryRunning.compareAndSet(false, true)) {
      return;
    }
    Thread.ofPlatform().daemon().name("console-summary").start(() -> {
      try {
        while (summaryDue.getAndSet(false) && !closed && poller != null) {
          var counts = views.json(views.colony(source.counts(), null));
          broadcast("colony", () -> counts, null);
          List<Row> needYou = source.list(ColonySource.Filter.NEED_YOU);
          var inbox = views.json(views.inbox(needYou));
          broadcast("inbox", () -> inbox, null);
        }
      } catch (RuntimeException e) {
        log.warn("console: counting the colony failed: {}", views.redact(String.valueOf(e.getMessage())));
      } finally {
        summaryRunning.set(false);
        if (summaryDue.get() && !closed) {
          summarize(); // asked for between the last read and now
        }
      }
    });
  }

  private boolean stillFollowing(String ant) {
    synchronized (this) {
      return followers.get(ant) == Thread.currentThread() && !closed;
    }
  }

  /** One ant's history long poll: new turns, and its row when anything happened. */
  private void follow(String ant) {
    String cursor = null;
    while (stillFollowing(ant)) {
      try {
        if (cursor == null) {
          cursor = source.waitTurns(ant, null, FOLLOW_WAIT).cursor(); // what the page read already
          continue;
        }
        long asked = System.nanoTime();
        TurnBatch b = source.waitTurns(ant, cursor, FOLLOW_WAIT);
        cursor = b.cursor();
        if (!stillFollowing(ant)) {
          return;
        }
        if (!b.changed() && System.nanoTime() - asked < MIN_EMPTY_WAIT.toNanos()) {
          Thread.sleep(MIN_EMPTY_WAIT.toMillis()); // a server that does not hold the long poll: no busy loop
        }
        if (!b.turns().isEmpty() || b.reset()) {
          var turns = views.json(views.turns(ant, b));
          broadcast("turns", () -> turns, ant);
        }
        if (b.changed()) {
          var d = source.ant(ant);
          if (d != null) {
            var row = views.json(views.row(d.row()));
            broadcast("ant", () -> row, ant);
          }
        }
      } catch (InterruptedException stop) {
        return;
      } catch (RuntimeException e) {
        log.debug("console: following {} failed: {}", ant, views.redact(String.valueOf(e.getMessage())));
        cursor = null;
        try {
          Thread.sleep(RETRY.toMillis());
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    List<Viewer> all;
    synchronized (this) {
      closed = true;
      all = List.copyOf(viewers);
      if (poller != null) {
        poller.interrupt();
        poller = null;
      }
      followers.values().forEach(Thread::interrupt);
      followers.clear();
    }
    all.forEach(this::detach);
  }
}
