package dev.colony.mcp;

import dev.colony.board.TaskBoard;
import dev.colony.client.ColonySource;
import dev.colony.client.MergeSource;
import dev.colony.client.ColonySource.Row;
import dev.colony.overseer.Turn;
import dev.colony.secrets.Secrets;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceTemplateSpecification;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The colony as MCP resources (docs/mcp.md): {@code colony://inbox}, and the templates
 * {@code colony://ant/{name}/live} (the turns of the ant's current or last session),
 * {@code colony://ant/{name}/config} (its spec as its run loaded it), {@code colony://task/{id}}
 * (a task's card) and {@code colony://ant/{name}/session/{n}} (a session's transcript, read from the
 * worker's disk by {@link SessionTranscripts} where this server has the colony directory), each
 * read through the same {@link Answer} rules as the tools (redacted, inert, text from ants marked
 * untrusted). Who is subscribed is {@link Subscriptions}'; what changed is told by
 * {@link ResourceWatcher} ({@code colony mcp}) or the console's live stream ({@code /mcp}); the SDK
 * sends {@code notifications/resources/updated} only to the sessions subscribed to that URI.
 */
final class ColonyResources {
  static final String INBOX = "colony://inbox";
  static final Pattern ANT_URI = Pattern.compile("colony://ant/(" + ColonyMcp.NAME_PART.pattern() + ")/(live|config)");
  static final Pattern TASK_URI = Pattern.compile("colony://task/([a-z0-9][a-z0-9_.-]{0,99})");

  private final ColonyMcp mcp;
  private final ColonySource source;
  private final TaskBoard board;
  private final MergeSource merges;
  private final Secrets secrets;

  ColonyResources(ColonyMcp mcp, ColonySource source, TaskBoard board, MergeSource merges, Secrets secrets) {
    this.mcp = mcp;
    this.source = source;
    this.board = board;
    this.merges = merges;
    this.secrets = secrets;
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
            "A task's card: its text, comments, log, sessions and work (as task_show answers)."),
        template(SessionTranscripts.TEMPLATE, "ant-session", "A session's transcript",
            "The transcript of the ant's session {n} (from 1) as its worker wrote it, redacted, in pages of "
                + SessionTranscripts.PAGE_BYTES / 1024 + " KB: the last unless ?page=K asks for another. Served "
                + "only by a server that has the colony directory on the worker's machine (colony mcp --dir)."));
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
      if (SessionTranscripts.isTranscript(u)) {
        return mcp.transcripts().read(u, source, secrets);
      }
      return answer(u).resource(u, secrets);
    } catch (Args.Refused | NoSuchElementException | IllegalArgumentException e) {
      throw McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND).message(Answer.line(e.getMessage(), secrets))
          .data(Map.of("uri", Answer.line(u, secrets))).build();
    } catch (McpError e) {
      throw e;
    } catch (RuntimeException e) {
      // Temporal not answering, a board that failed: one redacted line, as a tool's error says it.
      System.err.println("colony mcp: reading " + Answer.line(u, secrets) + " failed: " + Answer.line(e.toString(), secrets));
      throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR)
          .message(Answer.line("reading the resource failed: " + e.getMessage(), secrets))
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
          + "colony://ant/{name}/config, " + SessionTranscripts.TEMPLATE + ", colony://task/{id})");
    }
    String ant = a.group(1);
    return a.group(2).equals("live") ? live(ant) : config(ant);
  }

  private Answer live(String ant) {
    ColonySource.Detail d = source.ant(ant);
    if (d == null) {
      throw new Args.Refused("no ant '" + ant + "' in colony '" + mcp.colony() + "'");
    }
    ColonySource.Live live = source.live(ant);
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
    m.put("transcripts", mcp.transcripts().listed(ant, r == null ? null : r.card()));
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

  static String liveUri(String ant) {
    return "colony://ant/" + ant + "/live";
  }
}
