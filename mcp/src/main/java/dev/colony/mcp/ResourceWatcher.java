package dev.colony.mcp;

import dev.colony.board.TaskBoard;
import dev.colony.client.ColonySource;
import dev.colony.client.ColonySource.Row;
import dev.colony.client.MergeSource;
import dev.colony.merge.ItemState;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeItem;
import dev.colony.secrets.Secrets;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskState;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The watcher of {@code colony mcp} (stdio; the console's {@code /mcp} follows its one live stream
 * instead): it asks the colony what changed only while a client is subscribed to something. The
 * first subscription starts it (a virtual thread), the last one going (an unsubscribe, the client
 * closing the session) stops it: with nobody subscribed it makes no call. Each round asks the
 * colony once which ants changed ({@link ColonySource#changedSince}), follows the turns of the
 * subscribed ants (at most {@value #MAX_FOLLOWED}, the last subscribed; a short wait each,
 * {@link ColonySource#waitTurns}), and, while the inbox is subscribed, reads the tasks In Review
 * and the merge items awaiting review or a human (the inbox shows them); then it tells the server
 * which URIs changed, and the SDK notifies the sessions subscribed to each. However many
 * subscriptions, the colony is asked the same.
 */
final class ResourceWatcher implements Subscriptions.Listener {
  /** Ants whose turns the watcher follows at most (the ones subscribed to last). */
  static final int MAX_FOLLOWED = 16;
  /** Visibility's lag: a window starts this much before the last round began. */
  static final long SLACK_MILLIS = 5_000;
  /** The longest a round waits on one followed ant's turns. */
  static final long FOLLOW_WAIT_MILLIS = 250;

  private final ColonySource source;
  private final TaskBoard board;
  private final MergeSource merges;
  private final Secrets secrets;
  private final Duration every;
  /** The URIs subscribed to now, in the order they were first subscribed. */
  private final LinkedHashSet<String> watched = new LinkedHashSet<>();
  private McpSyncServer server;
  private Round current;
  private boolean closed;
  /** Rounds done, over every run (tests wait on it). */
  volatile long rounds;

  ResourceWatcher(ColonySource source, TaskBoard board, MergeSource merges, Secrets secrets, Duration every) {
    this.source = source;
    this.board = board;
    this.merges = merges;
    this.secrets = secrets;
    this.every = every;
  }

  /** The server it tells; until then (and after {@link #close}) it does not run. */
  synchronized void tell(McpSyncServer server) {
    this.server = server;
    if (!watched.isEmpty()) {
      startIfNeeded();
    }
  }

  @Override
  public synchronized void watched(String uri) {
    watched.add(uri);
    startIfNeeded();
  }

  @Override
  public synchronized void unwatched(String uri) {
    watched.remove(uri);
    if (watched.isEmpty() && current != null) {
      current.stop();
      current = null;
    }
  }

  /** The server closed: no more runs. */
  synchronized void close() {
    closed = true;
    if (current != null) {
      current.stop();
      current = null;
    }
  }

  /** Whether a run is going on now. */
  synchronized boolean running() {
    return current != null && current.thread.isAlive();
  }

  private void startIfNeeded() {
    if (current == null && server != null && !closed) {
      current = new Round(server);
    }
  }

  private synchronized List<String> followed() {
    List<String> ants = new ArrayList<>();
    for (String uri : watched) {
      String ant = Subscriptions.liveAnt(uri);
      if (ant != null) {
        ants.add(ant);
      }
    }
    return ants.subList(Math.max(0, ants.size() - MAX_FOLLOWED), ants.size());
  }

  private synchronized boolean inboxWatched() {
    return watched.contains(ColonyResources.INBOX);
  }

  /** One run of the watcher, from a first subscription to the last one going: its own thread and memory. */
  private final class Round {
    private final Object lock = new Object();
    private final Map<String, String> seen = new HashMap<>();
    private final Map<String, Boolean> needing = new HashMap<>();
    /** Followed ants and their turn cursor (null until their first round). */
    private final Map<String, String> cursors = new LinkedHashMap<>();
    private volatile boolean stopped;
    private boolean failing;
    /** The tasks In Review the round before (id@updated); null: not read yet. */
    private String inReview;
    /** The merge items awaiting review or a human the round before; null: not read yet. */
    private String mergeWaiting;
    final Thread thread;

    Round(McpSyncServer server) {
      thread = Thread.ofVirtual().name("colony-mcp-watcher").start(() -> loop(server));
    }

    void stop() {
      stopped = true;
      synchronized (lock) {
        lock.notifyAll();
      }
      thread.interrupt();
    }

    private void loop(McpSyncServer server) {
      long since = System.currentTimeMillis() - SLACK_MILLIS;
      boolean first = true;
      while (!stopped) {
        long began = System.currentTimeMillis();
        Set<String> changed = new LinkedHashSet<>();
        try {
          round(since, first, changed);
          since = began - SLACK_MILLIS;
          first = false;
          failing = false;
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          if (stopped) {
            return;
          }
          if (!failing) { // once until it works again, not every round
            System.err.println("colony mcp: watching the colony failed: " + Answer.line(e.toString(), secrets));
          }
          failing = true;
        }
        try {
          for (String uri : changed) { // what a failed round saw change is told all the same
            if (stopped) {
              return;
            }
            server.notifyResourcesUpdated(new McpSchema.ResourcesUpdatedNotification(uri));
          }
        } catch (RuntimeException e) {
          if (stopped) {
            return;
          }
          System.err.println("colony mcp: a notification failed: " + Answer.line(e.toString(), secrets));
        }
        rounds++;
        synchronized (lock) {
          if (!stopped) {
            try {
              lock.wait(Math.max(1, every.toMillis()));
            } catch (InterruptedException e) {
              return;
            }
          }
        }
      }
    }

    /** Adds to {@code changed} the URIs that changed since the round before ({@code first}: none, it only learns). */
    private void round(long since, boolean first, Set<String> changed) throws InterruptedException {
      String token = null;
      do {
        ColonySource.Changes page = source.changedSince(since, token);
        for (Row r : page.rows()) {
          String old = seen.put(r.name(), r.fingerprint());
          Boolean wasNeeding = needing.put(r.name(), r.needsHuman());
          if (!first && !r.fingerprint().equals(old)) {
            changed.add(ColonyResources.liveUri(r.name()));
            // An ant not seen yet may have needed a human before (a confirmation answered): told too.
            if (r.needsHuman() || !Boolean.FALSE.equals(wasNeeding)) {
              changed.add(ColonyResources.INBOX);
            }
          }
        }
        token = page.next();
      } while (token != null && !stopped);
      if (seen.size() > 50_000) {
        seen.clear(); // bounded: at worst a change is told twice
        needing.clear();
      }
      if (inboxWatched()) {
        inbox(first, changed);
      } else {
        inReview = null; // nobody listens to the inbox: neither the board nor the queues are asked
        mergeWaiting = null;
      }
      turns(changed);
    }

    private void inbox(boolean first, Set<String> changed) {
      if (board != null) {
        // The tasks In Review (the inbox shows them): a task coming, going or changing there.
        // A board that does not answer this round takes nothing from the ants' notifications.
        try {
          StringBuilder review = new StringBuilder();
          for (TaskCard t : board.list(new TaskBoard.Filter(TaskState.IN_REVIEW, null, null, null, ColonyMcp.MAX_LIST))) {
            review.append(t.id()).append('@').append(t.updatedAtMillis()).append(' ');
          }
          String now = review.toString();
          if (!first && inReview != null && !now.equals(inReview)) {
            changed.add(ColonyResources.INBOX);
          }
          inReview = now;
        } catch (RuntimeException e) {
          // the next round asks again
        }
      }
      if (merges != null) {
        // The merge items awaiting review or a human (the inbox shows them).
        try {
          StringBuilder waiting = new StringBuilder();
          for (MergeCard c : merges.cards()) {
            for (MergeItem i : c.items()) {
              if (i.state() == ItemState.AWAITING_REVIEW || i.state() == ItemState.NEEDS_HUMAN) {
                waiting.append(c.repo()).append('/').append(i.id()).append('/').append(i.state()).append('@')
                    .append(i.updatedAt()).append(' ');
              }
            }
          }
          String now = waiting.toString();
          if (!first && mergeWaiting != null && !now.equals(mergeWaiting)) {
            changed.add(ColonyResources.INBOX);
          }
          mergeWaiting = now;
        } catch (RuntimeException e) {
          // the next round asks again
        }
      }
    }

    /** The subscribed ants' new turns (a short long poll each; the first only learns where they are). */
    private void turns(Set<String> changed) throws InterruptedException {
      List<String> ants = followed();
      cursors.keySet().retainAll(ants);
      for (String ant : ants) {
        if (stopped) {
          return;
        }
        String cursor = cursors.get(ant);
        ColonySource.TurnBatch b;
        try {
          // A short long poll: the store answers at once when there are new events (a zero wait
          // would expire before the store reads anything).
          b = source.waitTurns(ant, cursor, Duration.ofMillis(Math.min(FOLLOW_WAIT_MILLIS,
              Math.max(1, every.toMillis()))));
        } catch (NoSuchElementException | ColonySource.SourceException gone) {
          continue;
        }
        if (cursor != null && (b.reset() || !b.turns().isEmpty())) {
          changed.add(ColonyResources.liveUri(ant));
        }
        cursors.put(ant, b.cursor());
      }
    }
  }
}
