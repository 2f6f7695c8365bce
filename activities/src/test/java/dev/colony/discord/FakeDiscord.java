package dev.colony.discord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * Discord on loopback, speaking enough of its REST API (v10) and gateway protocol for the real
 * JDA client and Colony's REST poster: login, gateway HELLO / IDENTIFY / READY / GUILD_CREATE /
 * heartbeats, guild, channel and role lookup, message create (nonce with enforce_nonce), fetch
 * and edit (content and components), reactions, application commands, interaction callbacks and
 * follow-ups, and 429s on demand. Tests inject what humans do (messages, reactions, slash
 * commands, button presses, modal submits) as gateway dispatches.
 */
public final class FakeDiscord implements Closeable {
  static final ObjectMapper JSON = new ObjectMapper();
  public static final String GUILD_ID = "900000000000000001";
  public static final String GUILD_NAME = "Colony Test";
  public static final String BOT_ID = "900000000000000002";
  public static final String APP_ID = "900000000000000003";
  public static final String ADMIN_ROLE_ID = "900000000000000004";
  public static final String OPS_ROLE_ID = "900000000000000005";

  /** A message as the fake stores it. */
  public record Message(String id, String channelId, String authorId, String content, String nonce,
      JsonNode allowedMentions, JsonNode components) {
    Message(String id, String channelId, String authorId, String content, String nonce, JsonNode allowedMentions) {
      this(id, channelId, authorId, content, nonce, allowedMentions, null);
    }

    /** The custom ids of its buttons, in order. */
    public List<String> buttons() {
      List<String> out = new ArrayList<>();
      if (components != null) {
        components.forEach(row -> row.path("components").forEach(c -> out.add(c.path("custom_id").asText())));
      }
      return out;
    }
  }

  private final MockWebServer server = new MockWebServer();
  private final AtomicLong ids = new AtomicLong(910000000000000000L);
  private final Map<String, String> channels = Collections.synchronizedMap(new LinkedHashMap<>());
  private final Map<String, Message> messages = Collections.synchronizedMap(new LinkedHashMap<>());
  private final Map<String, String> nonces = Collections.synchronizedMap(new LinkedHashMap<>());
  private final List<WebSocket> sessions = new CopyOnWriteArrayList<>();
  private final AtomicInteger sequence = new AtomicInteger();
  private final AtomicInteger rateLimitsToSend = new AtomicInteger();
  private final AtomicInteger rateLimitsSent = new AtomicInteger();
  public final AtomicInteger identifies = new AtomicInteger();
  public final List<JsonNode> interactionCallbacks = new CopyOnWriteArrayList<>();
  /** Follow-up messages of interactions (what a deferred reply finally says). */
  public final List<JsonNode> followups = new CopyOnWriteArrayList<>();
  public final List<JsonNode> registeredCommands = new CopyOnWriteArrayList<>();
  public final List<String> requests = new CopyOnWriteArrayList<>();

  public FakeDiscord() throws IOException {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest r) {
        try {
          return handle(r);
        } catch (Exception e) {
          return json(500, JSON.createObjectNode().put("message", String.valueOf(e)));
        }
      }
    });
    server.start();
  }

  public String apiUrl() {
    return "http://127.0.0.1:" + server.getPort() + "/api/v10/";
  }

  public String gatewayUrl() {
    return "ws://127.0.0.1:" + server.getPort() + "/gateway";
  }

  /** Adds a text channel; returns its id. */
  public String addChannel(String name) {
    String id = Long.toString(ids.incrementAndGet());
    channels.put(id, name);
    return id;
  }

  /** The next {@code n} message creates are answered 429 with {@code retry_after}. */
  public void rateLimitNextPosts(int n) {
    rateLimitsToSend.set(n);
  }

  public int rateLimitsSent() {
    return rateLimitsSent.get();
  }

  public int connectedSessions() {
    return sessions.size();
  }

  public List<Message> messagesIn(String channelId) {
    synchronized (messages) {
      return messages.values().stream().filter(m -> m.channelId().equals(channelId)).toList();
    }
  }

  public List<Message> botMessagesIn(String channelId) {
    return messagesIn(channelId).stream().filter(m -> m.authorId().equals(BOT_ID)).toList();
  }

  public Message message(String id) {
    return messages.get(id);
  }

  // ---- what humans do ----

  /** A human writes in a channel; returns the message id. */
  public String humanWrites(String channelId, String userId, String name, List<String> roles, String content) {
    String id = Long.toString(ids.incrementAndGet());
    messages.put(id, new Message(id, channelId, userId, content, null, null));
    ObjectNode m = messageJson(id, channelId, user(userId, name, false), content, null);
    m.set("member", member(roles, null));
    dispatch("MESSAGE_CREATE", m);
    return id;
  }

  /** A human (or bot) reacts with {@code emoji} to a message. */
  public void reacts(String messageId, String userId, String name, List<String> roles, String emoji, boolean bot) {
    Message target = messages.get(messageId);
    ObjectNode d = JSON.createObjectNode();
    d.put("user_id", userId).put("channel_id", target.channelId()).put("message_id", messageId)
        .put("guild_id", GUILD_ID).put("burst", false).put("type", 0).put("message_author_id", target.authorId());
    d.set("member", member(roles, user(userId, name, bot)));
    d.putObject("emoji").putNull("id").put("name", emoji);
    dispatch("MESSAGE_REACTION_ADD", d);
  }

  /** A human runs a slash command in a channel (INTERACTION_CREATE); the reply lands in interactionCallbacks. */
  public String slashCommand(String channelId, String userId, String name, List<String> roles, String command,
      Map<String, String> options) {
    String id = Long.toString(ids.incrementAndGet());
    ObjectNode d = JSON.createObjectNode().put("id", id).put("application_id", APP_ID).put("type", 2)
        .put("token", "itoken-" + id).put("version", 1).put("guild_id", GUILD_ID).put("channel_id", channelId)
        .put("locale", "en-US").put("guild_locale", "en-US").put("app_permissions", "2147568704")
        .put("context", 0).put("attachment_size_limit", 10485760);
    d.set("channel", channel(channelId, channels.get(channelId)));
    d.putObject("guild").put("id", GUILD_ID).put("locale", "en-US").putArray("features");
    ObjectNode member = member(roles, user(userId, name, false));
    member.put("permissions", "2147568704");
    d.set("member", member);
    ObjectNode data = d.putObject("data").put("id", "920000000000000001").put("name", command).put("type", 1)
        .put("guild_id", GUILD_ID);
    ArrayNode opts = data.putArray("options");
    options.forEach((k, v) -> opts.addObject().put("name", k).put("type", 3).put("value", v));
    d.putArray("entitlements");
    d.putObject("authorizing_integration_owners").put("0", GUILD_ID);
    dispatch("INTERACTION_CREATE", d);
    return id;
  }

  /** A human presses a button (custom id {@code customId}) under message {@code messageId}: a MESSAGE_COMPONENT interaction. */
  public String pressButton(String messageId, String userId, String name, List<String> roles, String customId) {
    Message m = messages.get(messageId);
    ObjectNode data = JSON.createObjectNode().put("custom_id", customId).put("component_type", 2);
    return interaction(3, m.channelId(), userId, name, roles, data, m);
  }

  /** A human submits a modal (custom id {@code modalId}) opened from message {@code messageId}, with text inputs by custom id. */
  public String submitModal(String messageId, String userId, String name, List<String> roles, String modalId,
      Map<String, String> inputs) {
    Message m = messages.get(messageId);
    ObjectNode data = JSON.createObjectNode().put("custom_id", modalId);
    ArrayNode comps = data.putArray("components");
    int uid = 1;
    for (Map.Entry<String, String> in : inputs.entrySet()) {
      ObjectNode label = comps.addObject().put("type", 18).put("id", uid++);
      label.putObject("component").put("type", 4).put("id", uid++).put("custom_id", in.getKey()).put("value", in.getValue());
    }
    return interaction(5, m.channelId(), userId, name, roles, data, m);
  }

  private String interaction(int type, String channelId, String userId, String name, List<String> roles, ObjectNode data,
      Message on) {
    // A snowflake of now: JDA reads an interaction's age from its id (a hook expires after 15 minutes).
    String id = Long.toString(((System.currentTimeMillis() - 1_420_070_400_000L) << 22) | (ids.incrementAndGet() & 0xFFF));
    ObjectNode d = JSON.createObjectNode().put("id", id).put("application_id", APP_ID).put("type", type)
        .put("token", "itoken-" + id).put("version", 1).put("guild_id", GUILD_ID).put("channel_id", channelId)
        .put("locale", "en-US").put("guild_locale", "en-US").put("app_permissions", "2147568704")
        .put("context", 0).put("attachment_size_limit", 10485760);
    d.set("channel", channel(channelId, channels.get(channelId)));
    d.putObject("guild").put("id", GUILD_ID).put("locale", "en-US").putArray("features");
    ObjectNode member = member(roles, user(userId, name, false));
    member.put("permissions", roles.contains(ADMIN_ROLE_ID) ? "8" : "2147568704");
    d.set("member", member);
    d.set("data", data);
    if (on != null) {
      ObjectNode msg = messageJson(on.id(), on.channelId(), user(on.authorId(), on.authorId().equals(BOT_ID) ? "colony-bot" : "x",
          on.authorId().equals(BOT_ID)), on.content(), on.nonce());
      if (on.components() != null) {
        msg.set("components", on.components());
      }
      d.set("message", msg);
    }
    d.putArray("entitlements");
    d.putObject("authorizing_integration_owners").put("0", GUILD_ID);
    dispatch("INTERACTION_CREATE", d);
    return id;
  }

  // ---- gateway ----

  private void dispatch(String type, JsonNode data) {
    ObjectNode frame = JSON.createObjectNode().put("op", 0).put("t", type).put("s", sequence.incrementAndGet());
    frame.set("d", data);
    for (WebSocket ws : sessions) {
      ws.send(frame.toString());
    }
  }

  private final class Gateway extends WebSocketListener {
    @Override
    public void onOpen(WebSocket ws, Response response) {
      ObjectNode hello = JSON.createObjectNode().put("op", 10);
      hello.putObject("d").put("heartbeat_interval", 5000);
      ws.send(hello.toString());
    }

    @Override
    public void onMessage(WebSocket ws, String text) {
      try {
        JsonNode f = JSON.readTree(text);
        switch (f.path("op").asInt()) {
          case 1 -> ws.send("{\"op\":11}");
          case 2 -> {
            identifies.incrementAndGet();
            sessions.add(ws);
            ws.send(frame("READY", ready()).toString());
            ws.send(frame("GUILD_CREATE", guild()).toString());
          }
          case 6 -> ws.send("{\"op\":9,\"d\":false}"); // cannot resume: identify again
          default -> { }
        }
      } catch (IOException e) {
        ws.close(4000, "bad frame");
      }
    }

    @Override
    public void onClosing(WebSocket ws, int code, String reason) {
      sessions.remove(ws);
      ws.close(1000, null);
    }

    @Override
    public void onFailure(WebSocket ws, Throwable t, Response response) {
      sessions.remove(ws);
    }

    @Override
    public void onClosed(WebSocket ws, int code, String reason) {
      sessions.remove(ws);
    }
  }

  private ObjectNode frame(String type, JsonNode data) {
    ObjectNode frame = JSON.createObjectNode().put("op", 0).put("t", type).put("s", sequence.incrementAndGet());
    frame.set("d", data);
    return frame;
  }

  private ObjectNode ready() {
    ObjectNode d = JSON.createObjectNode().put("v", 10).put("session_id", "fake-session")
        .put("resume_gateway_url", gatewayUrl());
    ObjectNode me = user(BOT_ID, "colony-bot", true).put("verified", true).put("mfa_enabled", false).put("flags", 0);
    d.set("user", me);
    d.putArray("guilds").addObject().put("id", GUILD_ID).put("unavailable", true);
    d.putArray("shard").add(0).add(1);
    d.putObject("application").put("id", APP_ID).put("flags", 0);
    d.putArray("private_channels");
    d.putArray("relationships");
    d.putArray("presences");
    d.putArray("guild_join_requests");
    d.putArray("geo_ordered_rtc_regions");
    d.putObject("user_settings");
    return d;
  }

  private ObjectNode guild() {
    ObjectNode g = guildBase();
    g.put("joined_at", "2026-01-01T00:00:00.000000+00:00").put("large", false).put("unavailable", false)
        .put("member_count", 2);
    g.putArray("voice_states");
    g.putArray("members").add(member(List.of(), user(BOT_ID, "colony-bot", true)));
    ArrayNode chans = g.putArray("channels");
    synchronized (channels) {
      channels.forEach((id, name) -> chans.add(channel(id, name)));
    }
    g.putArray("threads");
    g.putArray("presences");
    g.putArray("stage_instances");
    g.putArray("guild_scheduled_events");
    g.putArray("soundboard_sounds");
    return g;
  }

  private ObjectNode guildBase() {
    ObjectNode g = JSON.createObjectNode().put("id", GUILD_ID).put("name", GUILD_NAME).putNull("icon")
        .put("owner_id", "900000000000000099").put("afk_timeout", 300).putNull("afk_channel_id")
        .put("verification_level", 0).put("default_message_notifications", 0).put("explicit_content_filter", 0)
        .put("mfa_level", 0).putNull("system_channel_id").put("system_channel_flags", 0).putNull("rules_channel_id")
        .putNull("vanity_url_code").putNull("description").putNull("banner").putNull("splash")
        .putNull("discovery_splash").put("premium_tier", 0).put("premium_subscription_count", 0)
        .put("preferred_locale", "en-US").putNull("public_updates_channel_id").put("nsfw_level", 0)
        .put("premium_progress_bar_enabled", false).putNull("safety_alerts_channel_id")
        .put("max_members", 500000).put("max_video_channel_users", 25).putNull("application_id")
        .put("widget_enabled", false).put("nsfw", false);
    g.set("roles", roles());
    g.putArray("emojis");
    g.putArray("stickers");
    g.putArray("features");
    return g;
  }

  private ArrayNode roles() {
    ArrayNode roles = JSON.createArrayNode();
    // @everyone: view, send, add reactions, read history, embed links, use application commands
    roles.add(role(GUILD_ID, "@everyone", 0, "2147568704"));
    roles.add(role(ADMIN_ROLE_ID, "Admins", 2, "8"));
    roles.add(role(OPS_ROLE_ID, "Colony Ops", 1, "0"));
    return roles;
  }

  private static ObjectNode role(String id, String name, int position, String permissions) {
    ObjectNode r = JSON.createObjectNode().put("id", id).put("name", name).put("color", 0).put("hoist", false)
        .put("position", position).put("permissions", permissions).put("managed", false)
        .put("mentionable", true).put("flags", 0).putNull("icon").putNull("unicode_emoji");
    r.putObject("colors").put("primary_color", 0).putNull("secondary_color").putNull("tertiary_color");
    return r;
  }

  private static ObjectNode channel(String id, String name) {
    ObjectNode c = JSON.createObjectNode().put("id", id).put("type", 0).put("guild_id", GUILD_ID).put("name", name)
        .put("position", 0).put("nsfw", false).putNull("parent_id").putNull("topic").putNull("last_message_id")
        .put("rate_limit_per_user", 0).put("flags", 0);
    c.putArray("permission_overwrites");
    return c;
  }

  static ObjectNode user(String id, String name, boolean bot) {
    return JSON.createObjectNode().put("id", id).put("username", name).put("discriminator", "0")
        .putNull("global_name").putNull("avatar").put("bot", bot).put("public_flags", 0);
  }

  private static ObjectNode member(List<String> roles, ObjectNode user) {
    ObjectNode m = JSON.createObjectNode();
    if (user != null) {
      m.set("user", user);
    }
    ArrayNode r = m.putArray("roles");
    roles.forEach(r::add);
    m.put("joined_at", "2026-01-01T00:00:00.000000+00:00").put("deaf", false).put("mute", false).put("flags", 0)
        .putNull("nick").putNull("avatar").putNull("premium_since").put("pending", false)
        .putNull("communication_disabled_until");
    return m;
  }

  private static ObjectNode messageJson(String id, String channelId, ObjectNode author, String content, String nonce) {
    ObjectNode m = JSON.createObjectNode().put("id", id).put("channel_id", channelId).put("guild_id", GUILD_ID)
        .put("content", content).put("timestamp", "2026-11-22T00:00:00.000000+00:00").putNull("edited_timestamp")
        .put("tts", false).put("mention_everyone", false).put("pinned", false).put("type", 0).put("flags", 0);
    m.set("author", author);
    m.putArray("mentions");
    m.putArray("mention_roles");
    m.putArray("attachments");
    m.putArray("embeds");
    m.putArray("components");
    if (nonce != null) {
      m.put("nonce", nonce);
    }
    return m;
  }

  // ---- REST ----

  private MockResponse handle(RecordedRequest r) throws IOException {
    String path = r.getUrl().encodedPath();
    String method = r.getMethod();
    if (path.equals("/gateway")) {
      return new MockResponse.Builder().webSocketUpgrade(new Gateway()).build();
    }
    requests.add(method + " " + path);
    if (!("Bot fake-token".equals(r.getHeaders().get("Authorization")))) {
      return json(401, JSON.createObjectNode().put("message", "401: Unauthorized").put("code", 0));
    }
    String p = path.replaceFirst("^/api/v\\d+/", "");
    String[] s = p.split("/");
    JsonNode body = r.getBody() == null || r.getBody().size() == 0 ? null : JSON.readTree(r.getBody().utf8());
    if (method.equals("GET") && p.equals("users/@me")) {
      return json(200, user(BOT_ID, "colony-bot", true));
    }
    if (method.equals("GET") && p.equals("users/@me/guilds")) {
      ArrayNode a = JSON.createArrayNode();
      a.addObject().put("id", GUILD_ID).put("name", GUILD_NAME);
      return json(200, a);
    }
    if (method.equals("GET") && (p.equals("gateway/bot") || p.equals("gateway"))) {
      ObjectNode g = JSON.createObjectNode().put("url", gatewayUrl()).put("shards", 1);
      g.putObject("session_start_limit").put("total", 1000).put("remaining", 1000).put("reset_after", 0)
          .put("max_concurrency", 1);
      return json(200, g);
    }
    if (method.equals("GET") && p.equals("applications/@me")) {
      return json(200, JSON.createObjectNode().put("id", APP_ID).put("name", "colony").put("flags", 0)
          .put("bot_public", false).put("bot_require_code_grant", false).put("description", "")
          .putNull("icon").put("verify_key", "x").set("owner", user("900000000000000099", "owner", false)));
    }
    if (s.length == 3 && s[0].equals("guilds") && s[2].equals("channels") && method.equals("GET")) {
      ArrayNode a = JSON.createArrayNode();
      synchronized (channels) {
        channels.forEach((id, name) -> a.add(channel(id, name)));
      }
      return json(200, a);
    }
    if (s.length == 3 && s[0].equals("guilds") && s[2].equals("roles") && method.equals("GET")) {
      return json(200, roles());
    }
    if (s.length == 3 && s[0].equals("channels") && s[2].equals("messages") && method.equals("POST")) {
      return createMessage(s[1], body);
    }
    if (s.length == 4 && s[0].equals("channels") && s[2].equals("messages")) {
      Message m = messages.get(s[3]);
      if (m == null) {
        return json(404, JSON.createObjectNode().put("message", "Unknown Message").put("code", 10008));
      }
      if (method.equals("PATCH") && body != null && (body.has("content") || body.has("components"))) {
        m = new Message(m.id(), m.channelId(), m.authorId(), body.has("content") ? body.get("content").asText() : m.content(),
            m.nonce(), m.allowedMentions(), body.has("components") ? withIds(body.get("components")) : m.components());
        messages.put(m.id(), m);
      }
      ObjectNode out = messageJson(m.id(), m.channelId(), user(m.authorId(), "x", m.authorId().equals(BOT_ID)),
          m.content(), m.nonce());
      if (m.components() != null) {
        out.set("components", m.components());
      }
      return json(200, out);
    }
    if (s.length >= 6 && s[0].equals("channels") && s[4].equals("reactions")) {
      return new MockResponse.Builder().code(204).build();
    }
    if (s[0].equals("applications") && p.endsWith("/commands") && method.equals("PUT")) {
      ArrayNode out = JSON.createArrayNode();
      if (body != null) {
        for (JsonNode c : body) {
          registeredCommands.add(c);
          ObjectNode copy = c.deepCopy();
          copy.put("id", Long.toString(ids.incrementAndGet())).put("application_id", APP_ID).put("version", "1")
              .put("type", 1).put("guild_id", GUILD_ID).put("default_member_permissions", (String) null)
              .put("nsfw", false);
          if (!copy.has("options")) {
            copy.putArray("options");
          }
          out.add(copy);
        }
      }
      return json(200, out);
    }
    if (s[0].equals("webhooks") && s.length >= 3 && method.equals("POST")) {
      followups.add(body);
      String id = Long.toString(ids.incrementAndGet());
      ObjectNode m = messageJson(id, "0", user(BOT_ID, "colony-bot", true), body == null ? "" : body.path("content").asText(""), null);
      m.put("flags", body == null ? 0 : body.path("flags").asInt(0)).put("webhook_id", APP_ID).put("application_id", APP_ID);
      return json(200, m);
    }
    if (s[0].equals("interactions") && p.endsWith("/callback")) {
      interactionCallbacks.add(body);
      if ("true".equals(r.getUrl().queryParameter("with_response"))) {
        ObjectNode resp = JSON.createObjectNode();
        resp.putObject("interaction").put("id", s[1]).put("type", 2).put("activity_instance_id", (String) null)
            .put("response_message_id", Long.toString(ids.incrementAndGet())).put("response_message_loading", false)
            .put("response_message_ephemeral", false);
        return json(200, resp);
      }
      return new MockResponse.Builder().code(204).build();
    }
    return json(404, JSON.createObjectNode().put("message", "404: Not Found (fake: " + method + " " + p + ")").put("code", 0));
  }

  private MockResponse createMessage(String channelId, JsonNode body) {
    if (!channels.containsKey(channelId)) {
      return json(404, JSON.createObjectNode().put("message", "Unknown Channel").put("code", 10003));
    }
    if (rateLimitsToSend.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      rateLimitsSent.incrementAndGet();
      return new MockResponse.Builder().code(429).setHeader("Content-Type", "application/json")
          .setHeader("Retry-After", "1").setHeader("X-RateLimit-Scope", "user")
          .body(JSON.createObjectNode().put("message", "You are being rate limited.").put("retry_after", 0.3)
              .put("global", false).toString()).build();
    }
    String nonce = body.path("nonce").isMissingNode() || body.path("nonce").isNull() ? null : body.path("nonce").asText();
    if (nonce != null && body.path("enforce_nonce").asBoolean(false)) {
      String existing = nonces.get(channelId + "/" + nonce);
      if (existing != null) {
        Message m = messages.get(existing);
        return json(200, messageJson(m.id(), m.channelId(), user(BOT_ID, "colony-bot", true), m.content(), m.nonce()));
      }
    }
    String id = Long.toString(ids.incrementAndGet());
    String content = body.path("content").asText("");
    JsonNode components = body.has("components") ? withIds(body.get("components")) : null;
    Message m = new Message(id, channelId, BOT_ID, content, nonce, body.get("allowed_mentions"), components);
    messages.put(id, m);
    if (nonce != null) {
      nonces.put(channelId + "/" + nonce, id);
    }
    ObjectNode json = messageJson(id, channelId, user(BOT_ID, "colony-bot", true), content, nonce);
    if (components != null) {
      json.set("components", components);
    }
    dispatch("MESSAGE_CREATE", json);
    return json(200, json);
  }

  /** Components as Discord stores them: each with its numeric id (Discord numbers them when the app does not). */
  private static JsonNode withIds(JsonNode components) {
    JsonNode copy = components.deepCopy();
    int[] next = {1};
    java.util.function.Consumer<JsonNode> number = new java.util.function.Consumer<>() {
      @Override
      public void accept(JsonNode n) {
        if (n instanceof ObjectNode o && !o.has("id")) {
          o.put("id", next[0]++);
        }
        n.path("components").forEach(this);
      }
    };
    copy.forEach(number);
    return copy;
  }

  private static MockResponse json(int code, JsonNode body) {
    return new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json")
        .body(body.toString()).build();
  }

  /** All REST requests seen, for diagnostics. */
  public List<String> requestLog() {
    return new ArrayList<>(requests);
  }

  @Override
  public void close() throws IOException {
    for (WebSocket ws : sessions) {
      try {
        ws.close(1001, "fake Discord stopping");
      } catch (RuntimeException ignored) {
        // already gone
      }
    }
    sessions.clear();
    server.close();
  }
}
