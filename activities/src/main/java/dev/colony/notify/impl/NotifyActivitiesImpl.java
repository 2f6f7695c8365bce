package dev.colony.notify.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colony.config.Environment;
import dev.colony.secrets.Interpolation;
import dev.colony.notify.Notice;
import dev.colony.notify.NotifyActivities;
import dev.colony.notify.NotifyResult;
import dev.colony.spec.NotifySpec.QuietHours;
import dev.colony.spec.NotifySpec;
import dev.colony.webhook.impl.WebhookActivitiesImpl;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a notice to each ntfy topic of the colony (JSON publishing: title, message, priority,
 * tags, a click-through link to the ant in the Web UI and an "Open" action) and POSTs it, signed,
 * to the colony's webhook. Topics in their quiet hours get only urgent notices; the others are
 * held, and the result says until when. Topic URLs and tokens are resolved here, on the worker,
 * from its environment or the colony's {@code .env}: they never enter Temporal. A target that
 * refuses or cannot be reached is one log line (naming it by its name or host, never its topic
 * or token); the activity fails, to be retried, only when no target could be reached at all.
 */
public final class NotifyActivitiesImpl implements NotifyActivities {
  private static final Logger log = LoggerFactory.getLogger(NotifyActivitiesImpl.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType JSON_TYPE = MediaType.get("application/json");

  private final OkHttpClient http;
  private final String namespace;
  /** Failures already logged (target and kind), so a broken target is one line, not one per notice. */
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  public NotifyActivitiesImpl(OkHttpClient http, String namespace) {
    this.http = http;
    this.namespace = namespace;
  }

  /** A delivery that failed; {@code retryable} when trying later may help. */
  static final class Failed extends Exception {
    final boolean retryable;

    Failed(String message, boolean retryable) {
      super(message);
      this.retryable = retryable;
    }
  }

  @Override
  public NotifyResult notify(Notice n) {
    NotifySpec s = n.spec();
    Map<String, String> env = Environment.forColony(Path.of(n.colonyDir()));
    Instant at = Instant.ofEpochMilli(n.atMillis());
    int sent = 0;
    int tried = 0;
    int unreachable = 0;
    long held = 0;
    for (NotifySpec.Ntfy t : s.ntfy()) {
      QuietHours q = t.quietHours() != null ? t.quietHours() : s.quietHours();
      if (n.previousAtMillis() > 0 && (n.urgent() || !QuietWindow.contains(q, Instant.ofEpochMilli(n.previousAtMillis())))) {
        continue; // a held-back notice: only for the targets that were quiet when it was first due
      }
      if (!n.urgent() && QuietWindow.contains(q, at)) {
        long end = QuietWindow.end(q, at).toEpochMilli();
        held = held == 0 ? end : Math.min(held, end);
        continue;
      }
      tried++;
      try {
        publish(t, n, env);
        sent++;
      } catch (Failed f) {
        unreachable += f.retryable ? 1 : 0;
        report(label(t, env), f.getMessage());
      }
    }
    if (s.webhookUrl() != null && n.previousAtMillis() == 0) {
      tried++;
      try {
        webhook(s, n, env);
        sent++;
      } catch (Failed f) {
        unreachable += f.retryable ? 1 : 0;
        report("the colony webhook", f.getMessage());
      }
    }
    if (tried > 0 && sent == 0 && unreachable == tried) {
      throw ApplicationFailure.newFailure("no notification target could be reached for " + n.ant() + " (" + n.need()
          + "): see the worker's log", "NotifyUnreachable");
    }
    return new NotifyResult(sent, held);
  }

  /** The ant in the Web UI. */
  String link(Notice n) {
    String base = n.spec().webUi() == null ? NotifySpec.DEFAULT_WEB_UI : n.spec().webUi();
    return base.replaceAll("/+$", "") + "/namespaces/" + URLEncoder.encode(namespace, StandardCharsets.UTF_8)
        + "/workflows/" + URLEncoder.encode(n.workflowId(), StandardCharsets.UTF_8);
  }

  static String title(Notice n) {
    String who = n.colony() + "/" + n.ant();
    return (n.round() > 0 ? "Reminder: " : "") + who + (n.urgent() ? " needs a human now" : " needs a human");
  }

  static String message(Notice n) {
    return n.text() + "\nAnswer: " + n.answer();
  }

  private void publish(NotifySpec.Ntfy t, Notice n, Map<String, String> env) throws Failed {
    HttpUrl topic = topicUrl(t, env);
    String topicName = topic.pathSegments().get(topic.pathSize() - 1);
    HttpUrl root = topic.newBuilder().removePathSegment(topic.pathSize() - 1).build();
    ObjectNode body = JSON.createObjectNode();
    body.put("topic", topicName);
    body.put("title", title(n));
    body.put("message", message(n));
    body.put("priority", n.urgent() ? 5 : priority(t.priority()));
    body.putArray("tags").add(n.urgent() ? "rotating_light" : "ant");
    String link = link(n);
    body.put("click", link);
    body.putArray("actions").addObject().put("action", "view").put("label", "Open in Temporal").put("url", link);
    Request.Builder rb = new Request.Builder().url(root).post(RequestBody.create(body.toString(), JSON_TYPE))
        .header("User-Agent", "colony");
    if (t.tokenVar() != null) {
      String token = env.get(t.tokenVar());
      if (token == null || token.isBlank()) {
        throw new Failed("${" + t.tokenVar() + "} is not set on this worker", false);
      }
      rb.header("Authorization", "Bearer " + token.strip());
    }
    send(rb.build(), "ntfy");
  }

  private void webhook(NotifySpec s, Notice n, Map<String, String> env) throws Failed {
    ObjectNode root = JSON.createObjectNode();
    root.put("colony", n.colony());
    ObjectNode notice = root.putObject("notice");
    notice.put("ant", n.ant());
    notice.put("need", n.need());
    notice.put("kind", n.kind());
    notice.put("urgent", n.urgent());
    notice.put("round", n.round());
    notice.put("at", Instant.ofEpochMilli(n.atMillis()).toString());
    notice.put("text", n.text());
    notice.put("answer", n.answer());
    notice.put("link", link(n));
    try {
      send(WebhookActivitiesImpl.signedPost(s.webhookUrl(), s.webhookSecretVar(), env, "needs_human",
          n.workflowId() + "/" + n.need() + "/" + n.round(), root.toString().getBytes(StandardCharsets.UTF_8)),
          "the webhook");
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new Failed(e.getMessage(), false);
    }
  }

  private void send(Request request, String what) throws Failed {
    try (Response r = http.newCall(request).execute()) {
      if (r.isSuccessful()) {
        return;
      }
      int c = r.code();
      String why = switch (c) {
        case 401, 403 -> what + " refused the access token (HTTP " + c + ")";
        case 404 -> what + " has no such topic or path (HTTP 404)";
        case 413 -> what + " refused the notice as too large (HTTP 413)";
        case 429 -> what + " is rate limiting (HTTP 429)";
        default -> what + " answered HTTP " + c;
      };
      throw new Failed(why, c == 429 || c >= 500);
    } catch (IOException e) {
      // The host only: a URL may carry a secret topic.
      throw new Failed("cannot reach " + what + " at " + request.url().host() + ":" + request.url().port() + " ("
          + e.getClass().getSimpleName() + ")", true);
    }
  }

  private static HttpUrl topicUrl(NotifySpec.Ntfy t, Map<String, String> env) throws Failed {
    String url;
    try {
      url = Interpolation.resolve(t.url(), env);
    } catch (RuntimeException e) {
      throw new Failed("its URL cannot be resolved: " + e.getMessage(), false);
    }
    HttpUrl u = HttpUrl.parse(url.strip());
    if (u == null || u.pathSize() == 0 || u.pathSegments().get(u.pathSize() - 1).isEmpty()) {
      throw new Failed("its URL is not an ntfy topic URL (https://host/<topic>)", false);
    }
    return u;
  }

  private static String label(NotifySpec.Ntfy t, Map<String, String> env) {
    if (t.name() != null) {
      return "ntfy topic '" + t.name() + "'";
    }
    try {
      HttpUrl u = HttpUrl.parse(Interpolation.resolve(t.url(), env).strip());
      return "an ntfy topic on " + (u == null ? "?" : u.host());
    } catch (RuntimeException e) {
      return "an ntfy topic";
    }
  }

  static int priority(String p) {
    return switch (p == null ? "high" : p) {
      case "min" -> 1;
      case "low" -> 2;
      case "default" -> 3;
      case "urgent" -> 5;
      default -> 4;
    };
  }

  private void report(String target, String why) {
    if (reported.add(target + "/" + why)) {
      log.warn("notify: {}: {}", target, why);
    }
  }
}
