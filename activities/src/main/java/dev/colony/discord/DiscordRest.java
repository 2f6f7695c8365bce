package dev.colony.discord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Discord's REST API for what any worker does without a gateway session: find the guild and
 * channels by name or id, and create messages. Honours 429s ({@code retry_after}) and each
 * route's bucket ({@code X-RateLimit-Remaining} / {@code X-RateLimit-Reset-After}), so a burst
 * of posts waits instead of losing any: in place for a few seconds, then by Temporal retrying the
 * post. Every message carries a nonce derived from the post's
 * idempotency key with {@code enforce_nonce}, so a retried post is not shown twice, whichever
 * worker or host retries it.
 */
public final class DiscordRest {
  /** Discord's limit on one message. */
  public static final int MAX_MESSAGE = 2000;
  private static final MediaType JSON_TYPE = MediaType.get("application/json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_ATTEMPTS = 8;
  /** How long one call waits in place, all told: well under a post's 10 s (see {@link #call}). */
  static final long WAIT_BUDGET_MILLIS = 5_000;

  private final OkHttpClient http;
  private final String api;
  private final String token;
  private final Map<String, Long> routeResumesAt = new ConcurrentHashMap<>();
  private final Map<String, String> channelIds = new ConcurrentHashMap<>();
  private volatile String guildId;
  private final java.util.function.LongSupplier clock;
  private final Pause pause;

  /** How a call waits: {@link Thread#sleep}; tests pass one that counts instead. */
  interface Pause {
    void sleep(long millis) throws InterruptedException;
  }

  /** @param api base URL ending in {@code /}, e.g. {@code https://discord.com/api/v10/} */
  public DiscordRest(OkHttpClient http, String api, String token) {
    this(http, api, token, System::currentTimeMillis, Thread::sleep);
  }

  DiscordRest(OkHttpClient http, String api, String token, java.util.function.LongSupplier clock, Pause pause) {
    this.http = http;
    this.api = api.endsWith("/") ? api : api + "/";
    this.token = token;
    this.clock = clock;
    this.pause = pause;
  }

  /** A failure no retry can fix (unknown channel, missing permission, bad token). */
  public static final class DiscordException extends Exception {
    public final int status;

    DiscordException(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  public static boolean isSnowflake(String s) {
    return s != null && s.matches("\\d{15,21}");
  }

  /** The guild's id, given its id or its name. */
  public String guild(String guild) throws IOException, DiscordException, InterruptedException {
    String known = guildId;
    if (known != null) {
      return known;
    }
    if (isSnowflake(guild)) {
      return guildId = guild;
    }
    JsonNode guilds = call("GET", "users/@me/guilds", "users/@me/guilds", null);
    for (JsonNode g : guilds) {
      if (g.path("name").asText().equalsIgnoreCase(guild)) {
        return guildId = g.path("id").asText();
      }
    }
    throw new DiscordException(404, "the bot is not a member of a guild named '" + guild + "'");
  }

  /** The text channel's id in the guild, given its id or its name (with or without #). */
  public String channel(String guild, String channel) throws IOException, DiscordException, InterruptedException {
    String cached = channelIds.get(channel);
    if (cached != null) {
      return cached;
    }
    if (isSnowflake(channel)) {
      channelIds.put(channel, channel);
      return channel;
    }
    String gid = guild(guild);
    String name = channel.startsWith("#") ? channel.substring(1) : channel;
    JsonNode channels = call("GET", "guilds/" + gid + "/channels", "guilds/channels", null);
    for (JsonNode c : channels) {
      int type = c.path("type").asInt(-1);
      if ((type == 0 || type == 5) && c.path("name").asText().equalsIgnoreCase(name)) {
        String id = c.path("id").asText();
        channelIds.put(channel, id);
        return id;
      }
    }
    throw new DiscordException(404, "no text channel '" + channel + "' in the guild");
  }

  /** The guild's roles: id to name. */
  public Map<String, String> roles(String guild) throws IOException, DiscordException, InterruptedException {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (JsonNode r : call("GET", "guilds/" + guild(guild) + "/roles", "guilds/roles", null)) {
      out.put(r.path("id").asText(), r.path("name").asText());
    }
    return out;
  }

  /** Forgets looked-up channels (after a 404, say): they are looked up again. */
  public void forgetChannels() {
    channelIds.clear();
  }

  /**
   * Creates a message; returns its id. With the same {@code nonce} as a message created in the
   * last minutes, Discord returns that message instead of creating another.
   */
  public String post(String channelId, String content, String nonce, Collection<String> mentionUsers,
      Collection<String> mentionRoles) throws IOException, DiscordException, InterruptedException {
    return post(channelId, content, nonce, mentionUsers, mentionRoles, null);
  }

  /** The same, with message {@code components} (action rows of buttons), or null for none. */
  public String post(String channelId, String content, String nonce, Collection<String> mentionUsers,
      Collection<String> mentionRoles, JsonNode components) throws IOException, DiscordException, InterruptedException {
    ObjectNode body = JSON.createObjectNode();
    if (components != null) {
      body.set("components", components);
    }
    body.put("content", content);
    if (nonce != null) {
      body.put("nonce", nonce);
      body.put("enforce_nonce", true);
    }
    ObjectNode allowed = body.putObject("allowed_mentions");
    allowed.putArray("parse"); // no @everyone, @here or mention an agent wrote
    mentionUsers.forEach(allowed.withArray("users")::add);
    mentionRoles.forEach(allowed.withArray("roles")::add);
    JsonNode msg = call("POST", "channels/" + channelId + "/messages", "channels/" + channelId + "/messages", body);
    return msg.path("id").asText();
  }

  /** Prefix of the custom id of a task's buttons: {@code colony_task:approve:ID}, {@code colony_task:requeue:ID}. */
  public static final String TASK_BUTTON = "colony_task";
  /** Discord's limit on a component's custom id. */
  static final int MAX_CUSTOM_ID = 100;

  /**
   * The Approve and Re-queue buttons of a post about task {@code taskId}, as one action row; null
   * when the id does not fit a custom id (the post then goes without them: {@code /task} still works).
   */
  public static JsonNode taskButtons(String taskId) {
    String approve = TASK_BUTTON + ":approve:" + taskId;
    if (taskId == null || (TASK_BUTTON + ":requeue:" + taskId).length() > MAX_CUSTOM_ID) {
      return null;
    }
    com.fasterxml.jackson.databind.node.ArrayNode rows = JSON.createArrayNode();
    com.fasterxml.jackson.databind.node.ArrayNode buttons = rows.addObject().put("type", 1).putArray("components");
    buttons.addObject().put("type", 2).put("style", 3).put("label", "Approve").put("custom_id", approve);
    buttons.addObject().put("type", 2).put("style", 2).put("label", "Re-queue")
        .put("custom_id", TASK_BUTTON + ":requeue:" + taskId);
    return rows;
  }

  /** A nonce for Discord (at most 25 characters) derived from an idempotency key. */
  public static String nonce(String key) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(d).substring(0, 25);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A call: a route's bucket, a 429's {@code retry_after} and a 5xx are waited out in place for
   * at most {@link #WAIT_BUDGET_MILLIS} in all. A post runs in a local activity with a 10 s
   * timeout: past the budget the call fails with an {@link IOException}, the activity fails, and
   * Temporal's retry policy owns the longer backoff (the nonce keeps a retried post single).
   */
  private JsonNode call(String method, String path, String route, JsonNode body)
      throws IOException, DiscordException, InterruptedException {
    long waited = 0;
    for (int attempt = 1; ; attempt++) {
      Long resume = routeResumesAt.get(route);
      long wait = resume == null ? 0 : resume - clock.getAsLong();
      if (wait > 0) {
        if (waited + wait > WAIT_BUDGET_MILLIS) {
          throw new IOException(method + " " + route + ": rate limited by Discord (retry after "
              + inSeconds(wait) + " s; waited " + inSeconds(waited) + " s of this call's " + inSeconds(WAIT_BUDGET_MILLIS)
              + " s): the post is retried later");
        }
        pause.sleep(wait);
        waited += wait;
      }
      Request.Builder rb = new Request.Builder().url(api + path)
          .header("Authorization", "Bot " + token)
          .header("User-Agent", "DiscordBot (https://github.com/colony, 1) Colony");
      rb.method(method, body == null ? null : RequestBody.create(JSON.writeValueAsBytes(body), JSON_TYPE));
      try (Response r = http.newCall(rb.build()).execute()) {
        String text = r.body().string();
        String remaining = r.header("X-RateLimit-Remaining");
        String resetAfter = r.header("X-RateLimit-Reset-After");
        if ("0".equals(remaining) && resetAfter != null) {
          routeResumesAt.put(route, clock.getAsLong() + seconds(resetAfter));
        }
        if (r.code() == 429) {
          double retry = JSON.readTree(text.isEmpty() ? "{}" : text).path("retry_after").asDouble(1.0);
          String header = r.header("Retry-After");
          long millis = Math.max((long) (retry * 1000), header == null ? 0 : seconds(header));
          routeResumesAt.put(route, clock.getAsLong() + Math.max(millis, 50));
          continue; // waited out above while the budget lasts: a 429 is never a lost post
        }
        if (r.code() >= 500) {
          long backoff = Math.min(2000, 250L << attempt);
          if (attempt >= MAX_ATTEMPTS || waited + backoff > WAIT_BUDGET_MILLIS) {
            throw new IOException(method + " " + route + ": Discord answered HTTP " + r.code() + " " + attempt
                + " time(s) in a row: the post is retried later");
          }
          pause.sleep(backoff);
          waited += backoff;
          continue;
        }
        if (!r.isSuccessful()) {
          String why = JSON.readTree(text.isEmpty() ? "{}" : text).path("message").asText(r.message());
          throw new DiscordException(r.code(), method + " " + route + ": HTTP " + r.code() + " " + why);
        }
        return text.isEmpty() ? JSON.createObjectNode() : JSON.readTree(text);
      }
    }
  }

  /** Milliseconds as seconds for a message: 2, 1.5. */
  private static String inSeconds(long millis) {
    return millis % 1000 == 0 ? String.valueOf(millis / 1000) : String.valueOf(millis / 1000.0);
  }

  private static long seconds(String s) {
    try {
      return (long) (Double.parseDouble(s) * 1000);
    } catch (NumberFormatException e) {
      return 1000;
    }
  }
}
