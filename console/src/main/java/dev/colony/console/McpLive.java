package dev.colony.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.mcp.Subscriptions;
import dev.colony.task.TaskState;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscriptions of the console's {@code /mcp} (docs/mcp.md, Subscriptions), told from the
 * console's one live stream ({@link LiveHub}), not from a poll of their own: while any MCP session
 * is subscribed to {@code colony://ant/{name}/live} or {@code colony://inbox}, this is a watcher of
 * the hub as an open page is, and with no subscription it is none (so with no page open either,
 * the console makes no call to Temporal). It holds at most one viewer per role, whatever the number
 * of sessions and servers: the colony's rows (every subscription), the tasks and merge queues (while
 * the inbox is subscribed), and one per subscribed ant for its turns (at most
 * {@value #MAX_FOLLOWED} ants, the last subscribed; the others hear of their card's changes only).
 * What a viewer is sent becomes the URIs that changed; one notifier thread tells both servers (each
 * sends {@code notifications/resources/updated} only to its sessions subscribed to the URI), so a
 * slow client never holds the hub.
 */
final class McpLive implements Subscriptions.Listener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(McpLive.class);
  /** Subscribed ants whose turns are followed at most (one history long poll each, as a page of that ant). */
  static final int MAX_FOLLOWED = 16;
  private static final String INBOX = Subscriptions.INBOX;

  private final LiveHub hub;
  private final List<McpSyncServer> servers = new ArrayList<>();
  /** Each watched URI and how many servers have a subscriber of it. */
  private final Map<String, Integer> watched = new LinkedHashMap<>();
  private Role rows;
  private Role inbox;
  private final Map<String, Role> followers = new LinkedHashMap<>();
  /** Each followed ant's last row (a row pushed twice, by the poll and by its follower, is told once). */
  private final Map<String, String> lastRow = new HashMap<>();
  /** Whether each ant seen needed a human (its next change may take it out of the inbox); an ant not seen may have. */
  private final Map<String, Boolean> needing = new HashMap<>();
  /** The merge items awaiting review or a human, as last seen; null: none seen yet. */
  private String mergeWaiting;
  /** URIs changed and not told yet, in order (a burst of changes to one URI is told once). */
  private final Set<String> pending = new LinkedHashSet<>();
  private Thread notifier;
  private boolean closed;

  McpLive(LiveHub hub) {
    this.hub = hub;
  }

  /** The servers to tell; before, nothing is attached. */
  synchronized void tell(List<McpSyncServer> all) {
    servers.addAll(all);
    arrange();
  }

  @Override
  public synchronized void watched(String uri) {
    watched.merge(uri, 1, Integer::sum);
    arrange();
  }

  @Override
  public synchronized void unwatched(String uri) {
    Integer n = watched.get(uri);
    if (n != null && n > 1) {
      watched.put(uri, n - 1);
    } else {
      watched.remove(uri);
    }
    arrange();
  }

  /** Attaches the viewers the subscriptions need, detaches the others. */
  private void arrange() {
    boolean any = !watched.isEmpty() && !servers.isEmpty() && !closed;
    if (any && rows == null) {
      rows = new Role(null, Role.ROWS);
    } else if (!any && rows != null) {
      rows.detach();
      rows = null;
    }
    boolean wantInbox = any && watched.containsKey(INBOX);
    if (wantInbox && inbox == null) {
      inbox = new Role(null, Role.INBOX);
    } else if (!wantInbox && inbox != null) {
      inbox.detach();
      inbox = null;
      mergeWaiting = null;
    }
    List<String> subscribed = new ArrayList<>();
    if (any) {
      for (String uri : watched.keySet()) { // in the order first subscribed
        String ant = Subscriptions.liveAnt(uri);
        if (ant != null && ConsoleServer.ANT_NAME.matcher(ant).matches()) {
          subscribed.add(ant);
        }
      }
    }
    Set<String> ants = new LinkedHashSet<>(subscribed.subList(Math.max(0, subscribed.size() - MAX_FOLLOWED),
        subscribed.size()));
    for (var it = followers.entrySet().iterator(); it.hasNext();) {
      var e = it.next();
      if (!ants.contains(e.getKey())) {
        e.getValue().detach();
        it.remove();
      }
    }
    for (String ant : ants) {
      if (!followers.containsKey(ant)) {
        followers.put(ant, new Role(ant, Role.TURNS));
      }
    }
    if (any && notifier == null) {
      notifier = Thread.ofVirtual().name("console-mcp-notifier").start(this::notifyLoop);
    } else if (!any && notifier != null) {
      notifier.interrupt();
      notifier = null;
      pending.clear();
    }
    lastRow.keySet().removeIf(ant -> !watched.containsKey("colony://ant/" + ant + "/live"));
    if (!any) {
      needing.clear();
    }
  }

  /** A changed URI, told by the notifier when a session still listens to it. */
  private void changed(String uri) {
    if (watched.containsKey(uri) && pending.add(uri)) {
      notifyAll();
    }
  }

  private void notifyLoop() {
    Thread me = Thread.currentThread();
    while (true) {
      List<String> uris;
      List<McpSyncServer> to;
      synchronized (this) {
        while (pending.isEmpty() && notifier == me) {
          try {
            wait();
          } catch (InterruptedException stop) {
            return;
          }
        }
        if (notifier != me) {
          return;
        }
        uris = List.copyOf(pending);
        pending.clear();
        to = List.copyOf(servers);
      }
      for (String uri : uris) {
        for (McpSyncServer s : to) {
          try {
            s.notifyResourcesUpdated(new McpSchema.ResourcesUpdatedNotification(uri));
          } catch (RuntimeException e) {
            log.debug("console: an MCP notification failed: {}", e.getMessage());
          }
        }
      }
    }
  }

  // ---- what the hub sends ----

  /** A changed ant's row: from the rows' viewer (every ant), or a follower's (its own ant, refreshed when its history moves). */
  private synchronized void row(JsonNode r, Role from) {
    String name = r.path("name").asText(null);
    if (name == null || from.kind == Role.TURNS && !name.equals(from.ant)) {
      return; // a follower's copy of another ant's row: the rows' viewer has it
    }
    String uri = "colony://ant/" + name + "/live";
    if (watched.containsKey(uri) && !r.toString().equals(lastRow.put(name, r.toString()))) {
      changed(uri);
    }
    if (from.kind == Role.ROWS) {
      boolean needs = r.path("needsHuman").asBoolean(false);
      Boolean was = needing.put(name, needs);
      if (needing.size() > 50_000) {
        needing.clear(); // bounded: at worst an ant leaving the inbox is not told
      }
      // An ant not seen yet may have needed one before (a confirmation answered): told too.
      if (needs || !Boolean.FALSE.equals(was)) {
        changed(INBOX);
      }
    }
  }

  private synchronized void turns(JsonNode t, Role from) {
    if (from.ant != null && from.ant.equals(t.path("ant").asText(null))
        && (t.path("reset").asBoolean(false) || t.path("turns").size() > 0)) {
      changed("colony://ant/" + from.ant + "/live");
    }
  }

  /**
   * A changed task: the inbox changed when the task is In Review, or when the change moved it (a
   * move out of In Review is one; the event carries only the new state, so every move is told).
   */
  private synchronized void task(JsonNode t) {
    boolean inReview = TaskState.IN_REVIEW.word().equals(t.path("state").asText(null));
    boolean moved = t.path("stateSince").asLong(-1) == t.path("updatedAt").asLong(-2);
    if (inReview || moved) {
      changed(INBOX);
    }
  }

  private synchronized void merge(JsonNode answer) {
    StringBuilder waiting = new StringBuilder();
    for (JsonNode q : answer.path("queues")) {
      for (JsonNode i : q.path("items")) {
        String state = i.path("state").asText("");
        if (state.equals("AWAITING_REVIEW") || state.equals("NEEDS_HUMAN")) {
          waiting.append(q.path("repo").asText()).append('/').append(i.path("id").asText()).append('/').append(state)
              .append('@').append(i.path("updatedAt").asLong()).append(' ');
        }
      }
    }
    String now = waiting.toString();
    // The first answer seen may be the first read, or a change: told when anything waits.
    if (mergeWaiting == null ? !now.isEmpty() : !now.equals(mergeWaiting)) {
      changed(INBOX);
    }
    mergeWaiting = now;
  }

  /** One viewer of the hub, for one role. */
  private final class Role implements LiveHub.Sink {
    static final int ROWS = 0;
    static final int INBOX = 1;
    static final int TURNS = 2;
    final String ant;
    final int kind;
    final LiveHub.Viewer viewer;
    volatile boolean gone;

    Role(String ant, int kind) {
      this.ant = ant;
      this.kind = kind;
      this.viewer = hub.attach(this, ant, kind == INBOX, kind == INBOX);
    }

    void detach() {
      gone = true;
      hub.detach(viewer);
    }

    @Override
    public boolean send(String event, String data) {
      if (gone) {
        return false;
      }
      try {
        switch (event) {
          case "ant" -> {
            if (kind != INBOX) {
              row(Views.MAPPER.readTree(data), this);
            }
          }
          case "ants" -> {
            if (kind == ROWS) {
              for (JsonNode r : Views.MAPPER.readTree(data).path("rows")) {
                row(r, this);
              }
            }
          }
          case "turns" -> {
            if (kind == TURNS) {
              turns(Views.MAPPER.readTree(data), this);
            }
          }
          case "task" -> {
            if (kind == INBOX) {
              task(Views.MAPPER.readTree(data));
            }
          }
          case "tasks" -> {
            if (kind == INBOX) {
              synchronized (McpLive.this) {
                changed(McpLive.INBOX);
              }
            }
          }
          case "merge" -> {
            if (kind == INBOX) {
              merge(Views.MAPPER.readTree(data));
            }
          }
          default -> {
            // the counts and the ants' inbox: their rows said what changed
          }
        }
      } catch (java.io.IOException | RuntimeException e) {
        log.debug("console: an event for MCP could not be read: {}", e.getMessage());
      }
      return !gone;
    }

    @Override
    public boolean comment(String text) {
      return !gone;
    }

    @Override
    public void close() {
      // Detached: by this class, or by the hub closing (its sink only queues, so never for being slow).
      gone = true;
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    arrange();
  }
}
