package dev.colony.webhook.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colony.config.Environment;
import dev.colony.secrets.Interpolation;
import dev.colony.supervision.ColonyEvent;
import dev.colony.webhook.WebhookActivities;
import dev.colony.webhook.WebhookDelivery;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * POSTs a colony event as JSON to the colony's webhook. The body is signed with HMAC-SHA256 of the
 * shared secret, in {@code X-Colony-Signature-256: sha256=<hex>} (GitHub's scheme, so the same
 * verification code works); {@code X-Colony-Delivery} is stable across retries, for the receiver
 * to drop duplicates. A non-2xx answer is an error, and Temporal retries the activity.
 */
public final class WebhookActivitiesImpl implements WebhookActivities {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType JSON_TYPE = MediaType.get("application/json");

  private final OkHttpClient http;

  public WebhookActivitiesImpl(OkHttpClient http) {
    this.http = http;
  }

  @Override
  public void deliver(WebhookDelivery d) {
    Map<String, String> env = Environment.forColony(Path.of(d.colonyDir()));
    Request request;
    try {
      request = signedPost(d.url(), d.secretVar(), env, d.event().type(), d.colony() + "/" + d.event().seq(),
          body(d.colony(), d.event()));
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "WebhookConfig");
    } catch (IllegalStateException e) {
      throw ApplicationFailure.newFailure(e.getMessage(), "WebhookConfig");
    }
    try (Response r = http.newCall(request).execute()) {
      if (!r.isSuccessful()) {
        // The status only: the URL may carry a token.
        throw ApplicationFailure.newFailure("the webhook answered " + r.code(), "WebhookRefused");
      }
    } catch (IOException e) {
      throw ApplicationFailure.newFailure("the webhook cannot be reached: " + e.getClass().getSimpleName(), "WebhookUnreachable");
    }
  }

  /**
   * A POST of {@code body} to the colony webhook: its URL and secret as written in colony.yaml,
   * resolved from {@code env} here on the worker; {@code X-Colony-Event} and the stable
   * {@code X-Colony-Delivery}; signed when there is a secret. Throws, with a line to show (never
   * holding the URL or the secret), {@link IllegalArgumentException} when the URL cannot be
   * resolved, {@link IllegalStateException} when the secret is not set on this worker.
   */
  public static Request signedPost(String url, String secretVar, Map<String, String> env, String event,
      String delivery, byte[] body) {
    okhttp3.HttpUrl target;
    try {
      target = okhttp3.HttpUrl.parse(Interpolation.resolve(url, env).strip());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("the webhook URL cannot be resolved: " + e.getMessage());
    }
    if (target == null) {
      throw new IllegalArgumentException("the webhook URL is not an http(s) URL");
    }
    String secret = secretVar == null ? null : env.get(secretVar);
    if (secretVar != null && (secret == null || secret.isEmpty())) {
      throw new IllegalStateException("${" + secretVar + "} is not set on this worker");
    }
    Request.Builder rb = new Request.Builder().url(target).post(RequestBody.create(body, JSON_TYPE))
        .header("User-Agent", "colony")
        .header("X-Colony-Event", event)
        .header("X-Colony-Delivery", delivery);
    if (secret != null) {
      rb.header("X-Colony-Signature-256", "sha256=" + sign(secret, body));
    }
    return rb.build();
  }

  static byte[] body(String colony, ColonyEvent e) {
    ObjectNode root = JSON.createObjectNode();
    root.put("colony", colony);
    ObjectNode ev = root.putObject("event");
    ev.put("seq", e.seq());
    ev.put("at", Instant.ofEpochMilli(e.atMillis()).toString());
    ev.put("type", e.type());
    ev.put("ant", e.ant());
    ev.put("group", e.group());
    ev.put("strategy", e.strategy());
    ev.put("reason", e.reason());
    try {
      return JSON.writeValueAsBytes(root);
    } catch (IOException ex) {
      throw new IllegalStateException(ex);
    }
  }

  /** Hex HMAC-SHA256 of {@code body} under {@code secret}. */
  public static String sign(String secret, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException(e);
    }
  }
}
