package dev.colony.fakes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;

/**
 * Slack on loopback, speaking enough of its Web API and of Socket Mode for the real Slack SDK and
 * Bolt: {@code auth.test}, {@code apps.connections.open} and the Socket Mode WebSocket (hello,
 * envelopes, acknowledgements, disconnect), channel listing, posting with blocks and metadata,
 * updates, ephemeral messages, modals ({@code views.open}, submitted as {@code view_submission}),
 * permalinks, history, user groups and users; scopes, tokens and
 * channel membership are checked as Slack does, and 429s come on demand. Tests (and
 * {@code colony fakes}, for examples that run offline) inject what humans do (messages,
 * reactions, the slash command, button presses) as Socket Mode envelopes.
 */
public final class FakeSlack implements Closeable {
  static final ObjectMapper JSON = new ObjectMapper();
  public static final String BOT_TOKEN = "xoxb-fake-bot-token-0123456789";
  public static final String APP_TOKEN = "xapp-fake-app-token-0123456789";
  public static final String BOT_USER = "UBOT00001";
  public static final String BOT_ID = "BBOT00001";
  public static final String TEAM = "T0COLONY1";

  /** A message as the fake stores it. */
  public record Message(String channel, String ts, String user, String botId, String text, JsonNode blocks,
      JsonNode metadata) {}

  private record Channel(String id, String name, boolean member) {}

  private final MockWebServer server = new MockWebServer();
  private final AtomicLong clock = new AtomicLong(1_790_000_000_000_100L);
  private final AtomicInteger envelopes = new AtomicInteger();
  private final Map<String, Channel> channels = Collections.synchronizedMap(new LinkedHashMap<>());
  private final List<Message> messages = new CopyOnWriteArrayList<>();
  private final Map<String, ObjectNode> users = new ConcurrentHashMap<>();
  private final Map<String, List<String>> groups = new ConcurrentHashMap<>();
  private final Map<String, JsonNode> acks = new ConcurrentHashMap<>();
  private final List<WebSocket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicInteger rateLimitsToSend = new AtomicInteger();
  public final Set<String> scopes = ConcurrentHashMap.newKeySet();
  public final AtomicInteger connectionsOpened = new AtomicInteger();
  public final List<String> requests = new CopyOnWriteArrayList<>();
  public final List<JsonNode> ephemerals = new CopyOnWriteArrayList<>();
  /** Modals the app opened ({@code views.open}): the view, with the trigger id it used as {@code trigger_id}. */
  public final List<JsonNode> views = new CopyOnWriteArrayList<>();
  private volatile java.util.function.Consumer<Message> onPost = m -> { };

  public FakeSlack() throws IOException {
    this(0);
  }

  /** A fake Slack on {@code port} of the loopback interface (0: any free port). */
  public FakeSlack(int port) throws IOException {
    scopes.addAll(List.of("chat:write", "channels:read", "groups:read", "channels:history", "groups:history",
        "reactions:read", "commands", "usergroups:read", "users:read"));
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest r) {
        try {
          return handle(r);
        } catch (Exception e) {
          return json(500, JSON.createObjectNode().put("ok", false).put("error", "fake: " + e));
        }
      }
    });
    server.start(java.net.InetAddress.getLoopbackAddress(), port);
  }

  public String apiUrl() {
    return "http://127.0.0.1:" + server.getPort() + "/api/";
  }

  public FakeSlack channel(String id, String name, boolean member) {
    channels.put(id, new Channel(id, name, member));
    return this;
  }

  public FakeSlack user(String id, String name, boolean admin) {
    users.put(id, JSON.createObjectNode().put("id", id).put("name", name).put("is_admin", admin)
        .put("is_owner", false).put("team_id", TEAM));
    return this;
  }

  public FakeSlack group(String id, String... members) {
    groups.put(id, List.of(members));
    return this;
  }

  /** The next {@code n} calls of {@code chat.postMessage} get a 429 (Slack's tightest limit: a post a second per channel). */
  /** Called with each message the app posts (or updates). */
  public void onPost(java.util.function.Consumer<Message> l) {
    this.onPost = l;
  }

  /** The newest message with Approve/Deny buttons in {@code channel}; null when there is none. */
  public Message newestRequest(String channel) {
    List<Message> in = messages(channel);
    for (int i = in.size() - 1; i >= 0; i--) {
      Message m = in.get(i);
      if (m.metadata() != null && m.metadata().path("event_payload").has("request")) {
        return m;
      }
    }
    return null;
  }

  public void rateLimitNextPosts(int n) {
    rateLimitsToSend.set(n);
  }

  public List<Message> messages(String channel) {
    return messages.stream().filter(m -> m.channel().equals(channel)).toList();
  }

  public List<String> texts(String channel) {
    return messages(channel).stream().map(Message::text).toList();
  }

  /** Open Socket Mode connections. */
  public int openSockets() {
    return sockets.size();
  }

  // ---- what humans do ----

  public void say(String channel, String user, String text) {
    ObjectNode e = JSON.createObjectNode().put("type", "message").put("channel", channel).put("user", user)
        .put("text", text).put("ts", nextTs()).put("channel_type", "channel");
    event(e);
  }

  public void react(String channel, String ts, String user, String reaction) {
    ObjectNode e = JSON.createObjectNode().put("type", "reaction_added").put("user", user).put("reaction", reaction)
        .put("event_ts", nextTs());
    e.putObject("item").put("type", "message").put("channel", channel).put("ts", ts);
    event(e);
  }

  private void event(ObjectNode event) {
    ObjectNode p = JSON.createObjectNode().put("token", "verification").put("team_id", TEAM).put("api_app_id", "A0COLONY")
        .put("type", "event_callback").put("event_id", "Ev" + envelopes.incrementAndGet()).put("event_time", 1_790_000_000);
    p.set("event", event);
    send("events_api", p, false);
  }

  /** Runs {@code /colony text} in {@code channel}; returns the envelope whose acknowledgement carries the reply. */
  public String slash(String channel, String user, String text) {
    ObjectNode p = JSON.createObjectNode().put("token", "verification").put("team_id", TEAM).put("team_domain", "colony")
        .put("channel_id", channel).put("channel_name", channelName(channel)).put("user_id", user)
        .put("user_name", users.containsKey(user) ? users.get(user).path("name").asText() : user)
        .put("command", "/colony").put("text", text).put("api_app_id", "A0COLONY")
        .put("response_url", "http://127.0.0.1:" + server.getPort() + "/response").put("trigger_id", "trigger");
    return send("slash_commands", p, true);
  }

  /** Presses a button ({@code action}: colony_approve, colony_deny, colony_task_approve, ...) on message {@code ts}. */
  public void press(String channel, String ts, String user, String action, String value) {
    Message m = messages.stream().filter(x -> x.ts().equals(ts)).findFirst().orElseThrow();
    ObjectNode p = JSON.createObjectNode().put("type", "block_actions").put("api_app_id", "A0COLONY")
        .put("token", "verification").put("trigger_id", "trigger")
        .put("response_url", "http://127.0.0.1:" + server.getPort() + "/response");
    p.put("trigger_id", "trigger-" + envelopes.incrementAndGet());
    p.putObject("user").put("id", user).put("username", users.containsKey(user) ? users.get(user).path("name").asText() : user)
        .put("team_id", TEAM);
    p.putObject("team").put("id", TEAM).put("domain", "colony");
    p.putObject("channel").put("id", channel).put("name", channelName(channel));
    p.putObject("container").put("type", "message").put("message_ts", ts).put("channel_id", channel);
    p.set("message", messageJson(m, true));
    p.putArray("actions").addObject().put("action_id", action).put("block_id", "colony_request").put("value", value)
        .put("type", "button").put("action_ts", nextTs());
    send("interactive", p, false);
  }

  /**
   * Submits a modal the app opened ({@code view_submission}): {@code values} by block id, each the
   * value of its one plain-text input (whose action id is the block id). Returns the envelope id.
   */
  public String submitView(String user, JsonNode view, Map<String, String> values) {
    ObjectNode p = JSON.createObjectNode().put("type", "view_submission").put("api_app_id", "A0COLONY")
        .put("token", "verification").put("trigger_id", "trigger-" + envelopes.incrementAndGet());
    p.putObject("user").put("id", user).put("username", users.containsKey(user) ? users.get(user).path("name").asText() : user)
        .put("team_id", TEAM);
    p.putObject("team").put("id", TEAM).put("domain", "colony");
    ObjectNode v = ((ObjectNode) view).deepCopy();
    v.put("id", "V0VIEW" + envelopes.incrementAndGet()).put("team_id", TEAM).put("app_id", "A0COLONY")
        .put("hash", "h").put("bot_id", BOT_ID);
    v.remove("trigger_id");
    ObjectNode state = v.putObject("state").putObject("values");
    values.forEach((block, value) -> state.putObject(block).putObject(block).put("type", "plain_text_input").put("value", value));
    p.set("view", v);
    return send("interactive", p, true);
  }

  /** Sends a raw text frame to every connection (hostile or malformed input). */
  public void raw(String frame) {
    sockets.forEach(s -> s.send(frame));
  }

  /** Asks the connected clients to reconnect, as Slack does every few hours. */
  public void disconnect() {
    sockets.forEach(s -> s.send("{\"type\":\"disconnect\",\"reason\":\"refresh_requested\"}"));
  }

  /** The acknowledgement of an envelope (its payload, an empty object when it had none), waiting for it. */
  public JsonNode ack(String envelopeId, Duration within) throws InterruptedException {
    long end = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < end) {
      JsonNode a = acks.get(envelopeId);
      if (a != null) {
        return a;
      }
      Thread.sleep(20);
    }
    return null;
  }

  public int acknowledged() {
    return acks.size();
  }

  private String send(String type, ObjectNode payload, boolean acceptsResponse) {
    String id = "env-" + envelopes.incrementAndGet();
    ObjectNode env = JSON.createObjectNode().put("envelope_id", id).put("type", type)
        .put("accepts_response_payload", acceptsResponse).put("retry_attempt", 0).put("retry_reason", "");
    env.set("payload", payload);
    if (sockets.isEmpty()) {
      throw new IllegalStateException("no Socket Mode connection is open");
    }
    sockets.get(sockets.size() - 1).send(env.toString());
    return id;
  }

  private String channelName(String id) {
    Channel c = channels.get(id);
    return c == null ? id : c.name();
  }

  private String nextTs() {
    long t = clock.addAndGet(100);
    return (t / 1_000_000) + "." + String.format("%06d", t % 1_000_000);
  }

  // ---- Socket Mode ----

  private final class Socket extends WebSocketListener {
    @Override
    public void onOpen(WebSocket ws, Response response) {
      sockets.add(ws);
      ws.send("{\"type\":\"hello\",\"num_connections\":" + sockets.size()
          + ",\"debug_info\":{\"host\":\"fake\",\"approximate_connection_time\":18060},"
          + "\"connection_info\":{\"app_id\":\"A0COLONY\"}}");
    }

    @Override
    public void onMessage(WebSocket ws, String text) {
      try {
        JsonNode f = JSON.readTree(text);
        if (f.hasNonNull("envelope_id")) {
          acks.put(f.get("envelope_id").asText(), f.has("payload") ? f.get("payload") : JSON.createObjectNode());
        }
      } catch (IOException e) {
        // not JSON: ignored, as Slack would close such a client
      }
    }

    @Override
    public void onClosing(WebSocket ws, int code, String reason) {
      sockets.remove(ws);
      ws.close(1000, null);
    }

    @Override
    public void onClosed(WebSocket ws, int code, String reason) {
      sockets.remove(ws);
    }

    @Override
    public void onFailure(WebSocket ws, Throwable t, Response response) {
      sockets.remove(ws);
    }
  }

  // ---- Web API ----

  private MockResponse handle(RecordedRequest r) throws IOException {
    String path = r.getUrl().encodedPath();
    if (path.startsWith("/link")) {
      return new MockResponse.Builder().webSocketUpgrade(new Socket()).build();
    }
    if (path.equals("/response")) {
      return new MockResponse.Builder().code(200).body("ok").build();
    }
    String method = path.startsWith("/api/") ? path.substring("/api/".length()) : path;
    requests.add(method);
    if (method.equals("chat.postMessage") && rateLimitsToSend.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return new MockResponse.Builder().code(429).setHeader("Retry-After", "1")
          .setHeader("Content-Type", "application/json").body("{\"ok\":false,\"error\":\"ratelimited\"}").build();
    }
    Map<String, String> form = form(r);
    String auth = r.getHeaders().get("Authorization");
    String token = auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : form.get("token");
    if (method.equals("apps.connections.open")) {
      if (!APP_TOKEN.equals(token)) {
        return ok(false).put("error", token != null && token.startsWith("xoxb-") ? "not_allowed_token_type" : "invalid_auth")
            .let(this::json200);
      }
      connectionsOpened.incrementAndGet();
      return json200(ok(true).put("url", "ws://127.0.0.1:" + server.getPort() + "/link/?ticket=t"
          + connectionsOpened.get()).node);
    }
    if (!BOT_TOKEN.equals(token)) {
      return json200(ok(false).put("error", token == null ? "not_authed" : "invalid_auth").node);
    }
    String scope = switch (method) {
      case "chat.postMessage", "chat.update", "chat.postEphemeral" -> "chat:write";
      case "conversations.list" -> "channels:read";
      case "conversations.history" -> "channels:history";
      case "usergroups.users.list" -> "usergroups:read";
      case "users.info" -> "users:read";
      default -> null;
    };
    if (scope != null && !scopes.contains(scope)) {
      return json200(ok(false).put("error", "missing_scope").put("needed", scope)
          .put("provided", String.join(",", scopes)).node);
    }
    return switch (method) {
      case "auth.test" -> json200(ok(true).put("url", "https://colony.slack.com/").put("team", "Colony")
          .put("user", "colony").put("team_id", TEAM).put("user_id", BOT_USER).put("bot_id", BOT_ID).node);
      case "conversations.list" -> {
        Ok o = ok(true);
        ArrayNode list = o.node.putArray("channels");
        synchronized (channels) {
          channels.values().forEach(c -> list.addObject().put("id", c.id()).put("name", c.name())
              .put("is_channel", true).put("is_member", c.member()));
        }
        o.node.putObject("response_metadata").put("next_cursor", "");
        yield json200(o.node);
      }
      case "chat.postMessage" -> {
        Channel c = channels.get(form.getOrDefault("channel", ""));
        if (c == null) {
          yield json200(ok(false).put("error", "channel_not_found").node);
        }
        if (!c.member()) {
          yield json200(ok(false).put("error", "not_in_channel").node);
        }
        String text = form.getOrDefault("text", "");
        if (text.length() > 40_000) {
          yield json200(ok(false).put("error", "msg_too_long").node);
        }
        Message m = new Message(c.id(), nextTs(), BOT_USER, BOT_ID, text, tree(form.get("blocks")), tree(form.get("metadata")));
        messages.add(m);
        onPost.accept(m);
        Ok o = ok(true).put("channel", c.id()).put("ts", m.ts());
        o.node.set("message", messageJson(m, false));
        yield json200(o.node);
      }
      case "chat.update" -> {
        String ts = form.getOrDefault("ts", "");
        Message old = messages.stream().filter(x -> x.ts().equals(ts) && x.channel().equals(form.get("channel")))
            .findFirst().orElse(null);
        if (old == null) {
          yield json200(ok(false).put("error", "message_not_found").node);
        }
        JsonNode blocks = tree(form.get("blocks"));
        messages.replaceAll(x -> x == old ? new Message(old.channel(), old.ts(), old.user(), old.botId(),
            form.getOrDefault("text", old.text()), blocks, old.metadata()) : x);
        yield json200(ok(true).put("channel", old.channel()).put("ts", ts).node);
      }
      case "chat.postEphemeral" -> {
        ephemerals.add(JSON.valueToTree(form));
        yield json200(ok(true).put("message_ts", nextTs()).node);
      }
      case "views.open" -> {
        String trigger = form.get("trigger_id");
        JsonNode view = tree(form.get("view"));
        if (trigger == null || trigger.isBlank() || view == null) {
          yield json200(ok(false).put("error", "invalid_arguments").node);
        }
        ((ObjectNode) view).put("trigger_id", trigger);
        views.add(view);
        Ok o = ok(true);
        o.node.set("view", view);
        yield json200(o.node);
      }
      case "chat.getPermalink" -> json200(ok(true).put("channel", form.get("channel"))
          .put("permalink", "https://colony.slack.com/archives/" + form.get("channel") + "/p"
              + form.getOrDefault("message_ts", "").replace(".", "")).node);
      case "conversations.history" -> {
        String ch = form.getOrDefault("channel", "");
        if (!channels.containsKey(ch)) {
          yield json200(ok(false).put("error", "channel_not_found").node);
        }
        double oldest = Double.parseDouble(form.getOrDefault("oldest", "0"));
        double latest = form.containsKey("latest") ? Double.parseDouble(form.get("latest")) : Double.MAX_VALUE;
        boolean inclusive = "true".equals(form.get("inclusive")) || "1".equals(form.get("inclusive"));
        int limit = Integer.parseInt(form.getOrDefault("limit", "100"));
        boolean meta = "true".equals(form.get("include_all_metadata")) || "1".equals(form.get("include_all_metadata"));
        List<Message> found = new ArrayList<>(messages(ch).stream().filter(m -> {
          double t = Double.parseDouble(m.ts());
          return (inclusive ? t >= oldest : t > oldest) && (inclusive ? t <= latest : t < latest);
        }).toList());
        Collections.reverse(found);
        Ok o = ok(true).put("has_more", found.size() > limit);
        ArrayNode list = o.node.putArray("messages");
        found.stream().limit(limit).forEach(m -> list.add(messageJson(m, meta)));
        yield json200(o.node);
      }
      case "usergroups.users.list" -> {
        List<String> members = groups.get(form.getOrDefault("usergroup", ""));
        if (members == null) {
          yield json200(ok(false).put("error", "no_such_subteam").node);
        }
        Ok o = ok(true);
        ArrayNode list = o.node.putArray("users");
        members.forEach(list::add);
        yield json200(o.node);
      }
      case "users.info" -> {
        ObjectNode u = users.get(form.getOrDefault("user", ""));
        if (u == null) {
          yield json200(ok(false).put("error", "user_not_found").node);
        }
        Ok o = ok(true);
        o.node.set("user", u);
        yield json200(o.node);
      }
      default -> json200(ok(false).put("error", "unknown_method").node);
    };
  }

  private JsonNode messageJson(Message m, boolean withMetadata) {
    ObjectNode n = JSON.createObjectNode().put("type", "message").put("ts", m.ts()).put("user", m.user())
        .put("bot_id", m.botId()).put("text", m.text());
    if (m.blocks() != null) {
      n.set("blocks", m.blocks());
    }
    if (withMetadata && m.metadata() != null) {
      n.set("metadata", m.metadata());
    }
    return n;
  }

  private static JsonNode tree(String json) throws IOException {
    return json == null || json.isBlank() ? null : JSON.readTree(json);
  }

  private static Map<String, String> form(RecordedRequest r) {
    Map<String, String> out = new HashMap<>();
    String q = r.getUrl().encodedQuery();
    String body = r.getBody() == null ? "" : r.getBody().utf8();
    for (String part : ((q == null ? "" : q) + "&" + body).split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        out.put(URLDecoder.decode(part.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /** A response body being built. */
  private static final class Ok {
    final ObjectNode node = JSON.createObjectNode();

    Ok put(String k, String v) {
      node.put(k, v);
      return this;
    }

    Ok put(String k, boolean v) {
      node.put(k, v);
      return this;
    }

    MockResponse let(java.util.function.Function<JsonNode, MockResponse> f) {
      return f.apply(node);
    }
  }

  private static Ok ok(boolean ok) {
    return new Ok().put("ok", ok);
  }

  private MockResponse json200(JsonNode body) {
    return json(200, body);
  }

  private static MockResponse json(int code, JsonNode body) {
    return new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json; charset=utf-8")
        .body(body.toString()).build();
  }

  @Override
  public void close() throws IOException {
    sockets.forEach(s -> s.close(1001, "going away"));
    server.close();
  }
}
