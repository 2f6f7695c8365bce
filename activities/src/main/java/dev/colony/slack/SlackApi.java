package dev.colony.slack;

import com.slack.api.Slack;
import com.slack.api.SlackConfig;
import com.slack.api.methods.MethodsClient;
import com.slack.api.methods.SlackApiException;
import com.slack.api.methods.SlackApiTextResponse;
import com.slack.api.model.Conversation;
import com.slack.api.model.Message;
import com.slack.api.model.User;
import com.slack.api.model.block.LayoutBlock;
import com.slack.api.util.http.SlackHttpClient;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.OkHttpClient;

/**
 * The Slack Web API calls Colony makes, on the Slack SDK's client with the bot token (which stays
 * in this object). Every refusal becomes a {@link SlackException} that says in one line what is
 * wrong and how to fix it (a refused token, a missing scope, a channel the app cannot see).
 * Channel names, user groups and users are looked up once and cached. A worker has one: its
 * poster and every attempt of its bridge share the caches and {@link #reportOnce}.
 */
public final class SlackApi {
  /** Slack's own API. Tests and proxies use another prefix ({@code COLONY_SLACK_API_URL}). */
  public static final String SLACK = "https://slack.com/api/";
  /** Metadata event type on every post Colony makes: it carries the post's idempotency key. */
  public static final String EVENT_TYPE = "colony_post";
  private static final long GROUP_TTL_MILLIS = 60_000;
  private static final long USER_TTL_MILLIS = 300_000;

  private final Slack slack;
  private final MethodsClient methods;
  private final Map<String, String> channelIds = new ConcurrentHashMap<>();
  private final Map<String, Cached<Set<String>>> groups = new ConcurrentHashMap<>();
  private final Map<String, Cached<User>> users = new ConcurrentHashMap<>();
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  private record Cached<T>(T value, long at) {}

  /** A refusal by Slack, or Slack unreachable; {@code retryable} when trying again may help. */
  public static final class SlackException extends Exception {
    public final String error;
    public final boolean retryable;
    /** For a 429: how long Slack asked to wait. */
    long retryAfterMillis;

    SlackException(String error, String message, boolean retryable) {
      super(message);
      this.error = error;
      this.retryable = retryable;
    }
  }

  public SlackApi(OkHttpClient http, String apiUrl, String botToken) {
    this.slack = slack(http, apiUrl);
    this.methods = slack.methods(botToken);
  }

  /** A Slack SDK instance on {@code http} (the worker's one OkHttp client), calling {@code apiUrl}. */
  public static Slack slack(OkHttpClient http, String apiUrl) {
    SlackConfig config = new SlackConfig();
    config.setMethodsEndpointUrlPrefix(apiUrl.endsWith("/") ? apiUrl : apiUrl + "/");
    config.setPrettyResponseLoggingEnabled(false);
    config.setStatsEnabled(false); // no background thread counting calls per method
    return Slack.getInstance(config, new SlackHttpClient(http));
  }

  public Slack sdk() {
    return slack;
  }

  /** What {@code auth.test} says of the bot token: the bot's user id and its workspace. */
  public record Identity(String userId, String botId, String team) {}

  public Identity whoAmI() throws SlackException, InterruptedException {
    var r = call("auth.test", () -> methods.authTest(q -> q));
    return new Identity(r.getUserId(), r.getBotId(), r.getTeam());
  }

  /** The id of a channel given by id or by name (with or without '#'), among those the app can see. */
  public String channelId(String channel) throws SlackException, InterruptedException {
    if (SlackSettings.CHANNEL_ID.matcher(channel).matches()) {
      return channel;
    }
    String name = (channel.startsWith("#") ? channel.substring(1) : channel).toLowerCase(Locale.ROOT);
    String id = channelIds.get(name);
    if (id != null) {
      return id;
    }
    String cursor = null;
    do {
      String c = cursor;
      var r = call("conversations.list", () -> methods.conversationsList(q -> q
          .types(List.of(com.slack.api.model.ConversationType.PUBLIC_CHANNEL,
              com.slack.api.model.ConversationType.PRIVATE_CHANNEL))
          .excludeArchived(true).limit(1000).cursor(c)));
      for (Conversation conv : r.getChannels()) {
        channelIds.put(conv.getName().toLowerCase(Locale.ROOT), conv.getId());
      }
      cursor = r.getResponseMetadata() == null ? null : r.getResponseMetadata().getNextCursor();
    } while (cursor != null && !cursor.isEmpty());
    id = channelIds.get(name);
    if (id == null) {
      throw new SlackException("channel_not_found", "no channel '#" + name + "' that the app can see (check the "
          + "name; a private channel must have the app invited: /invite @<app> in it)", false);
    }
    return id;
  }

  /**
   * Logs {@code line} at WARN the first time {@code key} comes up in this worker: a broken channel
   * or token is one line, not one per post or per connection attempt.
   */
  public void reportOnce(org.slf4j.Logger log, String key, String line) {
    if (reported.add(key)) {
      log.warn("slack: {}", line);
    }
  }

  /** Forget looked-up channel ids (a channel was renamed or deleted). */
  public void forgetChannels() {
    channelIds.clear();
  }

  /**
   * Posts a message; returns its timestamp (Slack's id of a message in its channel). The metadata
   * carries {@code key} and, on a confirmation request, {@code request} ("ant#id").
   */
  public String post(String channel, String text, List<LayoutBlock> blocks, String key, String request)
      throws SlackException, InterruptedException {
    Map<String, Object> payload = request == null ? Map.of("key", key) : Map.of("key", key, "request", request);
    var r = call("chat.postMessage", () -> methods.chatPostMessage(q -> q.channel(channel).text(text).blocks(blocks)
        .unfurlLinks(false).unfurlMedia(false)
        .metadata(Message.Metadata.builder().eventType(EVENT_TYPE).eventPayload(payload).build())));
    return r.getTs();
  }

  /** A message only {@code user} sees. */
  public void ephemeral(String channel, String user, String text) throws SlackException, InterruptedException {
    call("chat.postEphemeral", () -> methods.chatPostEphemeral(q -> q.channel(channel).user(user).text(text)));
  }

  public void update(String channel, String ts, String text, List<LayoutBlock> blocks)
      throws SlackException, InterruptedException {
    call("chat.update", () -> methods.chatUpdate(q -> q.channel(channel).ts(ts).text(text).blocks(blocks)));
  }

  /** Opens a modal for the user whose action carried {@code triggerId} (valid for 3 seconds). */
  public void openView(String triggerId, com.slack.api.model.view.View view) throws SlackException, InterruptedException {
    call("views.open", () -> methods.viewsOpen(q -> q.triggerId(triggerId).view(view)));
  }

  public String permalink(String channel, String ts) throws SlackException, InterruptedException {
    return call("chat.getPermalink", () -> methods.chatGetPermalink(q -> q.channel(channel).messageTs(ts)))
        .getPermalink();
  }

  /**
   * The idempotency keys of Colony's posts in {@code channel} since {@code sinceEpochSeconds}
   * (newest 200): how a retried post finds out that its first attempt got through.
   */
  public Set<String> recentKeys(String channel, long sinceEpochSeconds) throws SlackException, InterruptedException {
    var r = call("conversations.history", () -> methods.conversationsHistory(q -> q.channel(channel)
        .oldest(Long.toString(sinceEpochSeconds)).limit(200).includeAllMetadata(true)));
    Set<String> keys = new HashSet<>();
    for (Message m : r.getMessages()) {
      Message.Metadata md = m.getMetadata();
      if (md != null && EVENT_TYPE.equals(md.getEventType()) && md.getEventPayload() != null
          && md.getEventPayload().get("key") instanceof String k) {
        keys.add(k);
      }
    }
    return keys;
  }

  /** One message of {@code channel}, by its timestamp; null when it is gone. */
  public Message message(String channel, String ts) throws SlackException, InterruptedException {
    var r = call("conversations.history", () -> methods.conversationsHistory(q -> q.channel(channel).latest(ts)
        .inclusive(true).limit(1).includeAllMetadata(true)));
    return r.getMessages().stream().filter(m -> ts.equals(m.getTs())).findFirst().orElse(null);
  }

  /** The members of a user group (cached for a minute). */
  public Set<String> groupMembers(String group) throws SlackException, InterruptedException {
    Cached<Set<String>> c = groups.get(group);
    if (c != null && System.currentTimeMillis() - c.at() < GROUP_TTL_MILLIS) {
      return c.value();
    }
    var r = call("usergroups.users.list", () -> methods.usergroupsUsersList(q -> q.usergroup(group)));
    Set<String> members = Set.copyOf(r.getUsers());
    groups.put(group, new Cached<>(members, System.currentTimeMillis()));
    return members;
  }

  /** A user (cached for five minutes). */
  public User user(String id) throws SlackException, InterruptedException {
    Cached<User> c = users.get(id);
    if (c != null && System.currentTimeMillis() - c.at() < USER_TTL_MILLIS) {
      return c.value();
    }
    var r = call("users.info", () -> methods.usersInfo(q -> q.user(id)));
    users.put(id, new Cached<>(r.getUser(), System.currentTimeMillis()));
    return r.getUser();
  }

  /** A Web API call that may fail. */
  interface Call<R> {
    R run() throws IOException, SlackApiException;
  }

  /**
   * How long a call waits out Slack's 429s in place, all told: under the 10 s a chat post may take
   * (its local activity's timeout), after which Temporal retries the post instead.
   */
  private static final long RATE_LIMIT_WAIT_MILLIS = 5_000;

  /** A call; 429s are waited out (their Retry-After) for up to 5 s in all before one counts as a failure. */
  static <R extends SlackApiTextResponse> R call(String method, Call<R> call) throws SlackException, InterruptedException {
    long waited = 0;
    while (true) {
      try {
        return once(method, call);
      } catch (SlackException e) {
        long wait = Math.max(200, e.retryAfterMillis);
        if (!e.error.equals("ratelimited") || waited + wait > RATE_LIMIT_WAIT_MILLIS) {
          throw e;
        }
        Thread.sleep(wait);
        waited += wait;
      }
    }
  }

  private static <R extends SlackApiTextResponse> R once(String method, Call<R> call) throws SlackException, InterruptedException {
    R r;
    try {
      r = call.run();
    } catch (SlackApiException e) {
      int code = e.getResponse() == null ? 0 : e.getResponse().code();
      if (code == 429) {
        String after = e.getResponse().header("Retry-After");
        SlackException limited = new SlackException("ratelimited", method + ": rate limited by Slack"
            + (after == null ? "" : " (retry after " + after + " s)"), true);
        try {
          limited.retryAfterMillis = after == null ? 1000 : Long.parseLong(after.strip()) * 1000;
        } catch (NumberFormatException ignored) {
          limited.retryAfterMillis = 1000;
        }
        throw limited;
      }
      throw new SlackException("http_" + code, method + ": Slack answered HTTP " + code, code >= 500 || code == 0);
    } catch (java.io.InterruptedIOException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException(method);
      }
      throw new SlackException("timeout", method + ": Slack did not answer in time", true);
    } catch (IOException e) {
      throw new SlackException("unreachable", method + ": cannot reach Slack (" + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", true);
    }
    if (r.isOk()) {
      return r;
    }
    throw refusal(method, r.getError(), r.getNeeded());
  }

  /** Slack's error code, explained for whoever reads the worker's log. */
  static SlackException refusal(String method, String error, String needed) {
    String e = error == null ? "unknown_error" : error;
    String why = switch (e) {
      case "invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive" ->
          "the bot token was refused (" + e + "): check integrations.slack.bot_token and that the app is installed "
              + "in the workspace";
      case "missing_scope" -> "the app lacks the scope " + (needed == null ? "this method needs" : "'" + needed + "'")
          + " (add it under OAuth & Permissions, Bot Token Scopes, then reinstall the app)";
      case "channel_not_found" -> "the channel does not exist or the app cannot see it (a private channel must have "
          + "the app invited: /invite @<app> in it)";
      case "not_in_channel" -> "the app is not in the channel: /invite @<app> in it";
      case "is_archived" -> "the channel is archived";
      case "msg_too_long" -> "the message is too long";
      case "ratelimited" -> "rate limited by Slack";
      default -> "Slack refused it (" + e + ")";
    };
    boolean retryable = e.equals("ratelimited") || e.equals("internal_error") || e.equals("fatal_error")
        || e.equals("service_unavailable") || e.equals("request_timeout");
    return new SlackException(e, method + ": " + why, retryable);
  }
}
