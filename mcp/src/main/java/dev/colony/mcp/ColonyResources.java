package dev.colony.mcp;

import dev.colony.board.TaskBoard;
import dev.colony.client.ColonySource;
import dev.colony.client.MergeSource;
import dev.colony.merge.ItemState;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeItem;
import dev.colony.client.ColonySource.Row;
import dev.colony.overseer.Turn;
import dev.colony.secrets.Secrets;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskState;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceTemplateSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The colony as MCP resources (docs/mcp.md): {@code colony://inbox}, and the templates
 * {@code colony://ant/{name}/live} (the turns of the ant's current or last session),
 * {@code colony://ant/{name}/config} (its spec as its run loaded it) and {@code colony://task/{id}}
 * (a task's card), each read through the same {@link Answer} rules as the tools (redacted, inert,
 * text from ants marked untrusted). One {@link Watcher} per server tells subscribed clients when an
 * ant's state or turns, or the inbox, change; the SDK sends {@code notifications/resources/updated}
 * only to the sessions subscribed to that URI.
 */
final class ColonyResources {
  static final String INBOX = "colony://inbox";
  static final Pattern ANT_URI = Pattern.compile("colony://ant/(" + ColonyMcp.NAME_PART.pattern() + ")/(live|config)");
  static final Pattern TASK_URI = Pattern.compile("colony://task/([a-z0-9][a-z0-9_.-]{0,99})");
  /** Ants whose turns the watcher follows at most (the ones whose live view was read last). */
  static final int MAX_FOLLOWED = 16;

  private final ColonyMcp mcp;
  private final ColonySource source;
  private final TaskBoard board;
  private final MergeSource merges;
  private final Secrets secrets;
  final Watcher watcher;

  ColonyResources(ColonyMcp mcp, ColonySource source, TaskBoard board, MergeSource merges, Secrets secrets) {
    this.mcp = mcp;
    this.source = source;
    this.board = board;
    this.merges = merges;
    this.secrets = secrets;
    this.watcher = new Watcher();
  }

  List<SyncResourceSpecification> resources() {
    McpSchema.Resource inbox = McpSchema.Resource.builder().uri(INBOX).name("inbox").title("Inbox")
        .description("What waits for a human in colony '" + mcp.colony() + "' (as colony_inbox answers); "
            + "subscribe to hear when it changes.")
        .mimeType("text/plain").build();
    return List.of(new SyncResourceSpecification(inbox, (ex, req) -> read(req.uri())));
  }

  List<SyncResourceTemplateSpecification> templates() {
    return List.of(
        template("colony://ant/{name}/live", "ant-live", "An ant's session",
            "The turns of the ant's running (or last) session, as the console shows them, with its state; "
                + "subscribe to hear of new turns and state changes."),
        template("colony://ant/{name}/config", "ant-config", "An ant's config",
            "The ant's spec as its run loaded it, redacted."),
        template("colony://task/{id}", "task", "A task",
            "A task's card: its text, comments, log, sessions and work (as task_show answers)."));
  }

  private SyncResourceTemplateSpecification template(String uri, String name, String title, String description) {
    McpSchema.ResourceTemplate t = McpSchema.ResourceTemplate.builder().uriTemplate(uri).name(name).title(title)
        .description(description).mimeType("text/plain").build();
    return new SyncResourceTemplateSpecification(t, (ex, req) -> read(req.uri()));
  }

  /** The contents at {@code uri}; an unknown or refused one is the protocol's "resource not found". */
  McpSchema.ReadResourceResult read(String uri) {
    String u = uri == null ? "" : uri;
    try {
      return answer(u).resource(u, secrets);
    } catch (Args.Refused | NoSuchElementException | IllegalArgumentException e) {
      throw McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND).message(Answer.line(e.getMessage(), secrets))
          .data(Map.of("uri", Answer.line(u, secrets))).build();
    }
  }

  private Answer answer(String uri) {
    if (uri.equals(INBOX)) {
      return mcp.answer("colony_inbox", Map.of());
    }
    Matcher t = TASK_URI.matcher(uri);
    if (t.matches()) {
      return mcp.answer("task_show", Map.of("id", t.group(1)));
    }
    Matcher a = ANT_URI.matcher(uri);
    if (!a.matches()) {
      throw new Args.Refused("no resource '" + uri + "' (colony://inbox, colony://ant/{name}/live, "
          + "colony://ant/{name}/config, colony://task/{id})");
    }
    String ant = a.group(1);
    return a.group(2).equals("live") ? live(ant) : config(ant);
  }

  private Answer live(String ant) {
    ColonySource.Detail d = source.ant(ant);
    if (d == null) {
      throw new Args.Refused("no ant '" + ant + "' in colony '" + mcp.colony() + "'");
    }
    ColonySource.Live live = source.live(ant, d);
    watcher.follow(ant);
    List<Turn> turns = live.turns();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ant", ant);
    Row r = d.row();
    m.put("state", r == null ? null : r.state());
    m.put("paused", r != null && r.paused());
    m.put("needs_human", r != null && r.needsHuman());
    m.put("doing", r == null || r.card() == null ? null : r.card().doing());
    m.put("session", live.session());
    m.put("running", live.running());
    m.put("turns_total", turns.size());
    m.put("turns", turns.subList(Math.max(0, turns.size() - ColonyMcp.MAX_TURNS), turns.size()).stream()
        .map(ColonyMcp::turn).toList());
    return Answer.of("session " + live.session() + " of ant '" + ant + "' in colony '" + mcp.colony() + "' ("
        + (live.running() ? "running" : "ended") + ", " + turns.size() + " turn(s))", m).untrusted("ant '" + ant + "'");
  }

  private Answer config(String ant) {
    Object config = source.config(ant);
    if (config == null) {
      throw new Args.Refused("no config of ant '" + ant + "' in colony '" + mcp.colony() + "'");
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ant", ant);
    m.put("config", config);
    return Answer.of("the config of ant '" + ant + "' in colony '" + mcp.colony() + "' as its run loaded it", m)
        .untrusted("the config of ant '" + ant + "' (a person's, with the ant's prompt)");
  }

  /** {@code server} with the watcher running until it is closed. */
  McpSyncServer watched(McpSyncServer server, Duration every) {
    McpSyncServer closing = new McpSyncServer(server.getAsyncServer()) {
      @Override
      public void close() {
        watcher.stop();
        super.close();
      }

      @Override
      public void closeGracefully() {
        watcher.stop();
        super.closeGracefully();
      }
    };
    watcher.start(closing, every);
    return closing;
  }

  static String liveUri(String ant) {
    return "colony://ant/" + ant + "/live";
  }

  /**
   * The server's one watcher, on a virtual thread: each round it asks the colony once which ants
   * changed ({@link ColonySource#changedSince}), and the ants whose live view a client read last
   * (at most {@value #MAX_FOLLOWED}) for new turns ({@link ColonySource#waitTurns}, a short wait
   * each), then tells the server which URIs changed; the SDK notifies the sessions subscribed.
   * With a board and merge queues, it reads the tasks In Review and the merge items awaiting review
   * or a human too (the inbox shows them). However many clients
   * subscribe, the colony is asked the same.
   */
  final class Watcher {
    /** Visibility's lag: a window starts this much before the last round began. */
    static final long SLACK_MILLIS = 5_000;
    /** The longest a round waits on one followed ant's turns. */
    static final long FOLLOW_WAIT_MILLIS = 250;
    private final Object lock = new Object();
    private final Map<String, String> seen = new HashMap<>();
    private final Map<String, Boolean> needing = new HashMap<>();
    /** Followed ants and their turn cursor (null until the first round), the last read last. */
    private final LinkedHashMap<String, String> followed = new LinkedHashMap<>(16, 0.75f, true);
    private volatile boolean stopped;
    private boolean failing;
    /** The tasks In Review the round before (id@updated, newest change first). */
    private String inReview;
    /** The merge items awaiting review or a human the round before. */
    private String mergeWaiting;
    private Thread thread;
    /** Rounds done (tests wait on it). */
    volatile long rounds;

    void follow(String ant) {
      synchronized (followed) {
        followed.putIfAbsent(ant, null);
        followed.get(ant); // the last read last
        while (followed.size() > MAX_FOLLOWED) {
          followed.remove(followed.keySet().iterator().next());
        }
      }
    }

    void start(McpSyncServer server, Duration every) {
      thread = Thread.ofVirtual().name("colony-mcp-watcher").start(() -> loop(server, every));
    }

    void stop() {
      stopped = true;
      synchronized (lock) {
        lock.notifyAll();
      }
      if (thread != null) {
        thread.interrupt();
      }
    }

    boolean running() {
      return thread != null && thread.isAlive();
    }

    private void loop(McpSyncServer server, Duration every) {
      long since = System.currentTimeMillis() - SLACK_MILLIS;
      boolean first = true;
      while (!stopped) {
        long began = System.currentTimeMillis();
        java.util.Set<String> changed = new java.util.LinkedHashSet<>();
        try {
          round(since, first, every, changed);
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
    private void round(long since, boolean first, Duration every, java.util.Set<String> changed)
        throws InterruptedException {
      String token = null;
      do {
        ColonySource.Changes page = source.changedSince(since, token);
        for (Row r : page.rows()) {
          String old = seen.put(r.name(), r.fingerprint());
          Boolean wasNeeding = needing.put(r.name(), r.needsHuman());
          if (!first && !r.fingerprint().equals(old)) {
            changed.add(liveUri(r.name()));
            if (r.needsHuman() || Boolean.TRUE.equals(wasNeeding)) {
              changed.add(INBOX);
            }
          }
        }
        token = page.next();
      } while (token != null && !stopped);
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
            changed.add(INBOX);
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
            changed.add(INBOX);
          }
          mergeWaiting = now;
        } catch (RuntimeException e) {
          // the next round asks again
        }
      }
      List<Map.Entry<String, String>> ants;
      synchronized (followed) {
        ants = List.copyOf(followed.entrySet().stream().map(e -> new java.util.AbstractMap.SimpleEntry<>(e.getKey(),
            e.getValue())).toList());
      }
      for (Map.Entry<String, String> e : ants) {
        ColonySource.TurnBatch b;
        try {
          // A short long poll: the store answers at once when there are new events (a zero wait
          // would expire before the store reads anything).
          b = source.waitTurns(e.getKey(), e.getValue(), Duration.ofMillis(Math.min(FOLLOW_WAIT_MILLIS,
              Math.max(1, every.toMillis()))));
        } catch (NoSuchElementException | ColonySource.SourceException gone) {
          continue;
        }
        if (e.getValue() != null && (b.reset() || !b.turns().isEmpty())) {
          changed.add(liveUri(e.getKey()));
        }
        synchronized (followed) {
          if (followed.containsKey(e.getKey())) {
            followed.replace(e.getKey(), b.cursor());
          }
        }
      }
    }
  }
}
