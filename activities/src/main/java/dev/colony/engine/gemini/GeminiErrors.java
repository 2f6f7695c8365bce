package dev.colony.engine.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Classifies a Gemini API error from its HTTP status and the {@code error} body Google returns
 * ({@code status}, {@code message}, {@code details} with {@code RetryInfo} and {@code ErrorInfo}).
 */
final class GeminiErrors {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern DELAY = Pattern.compile("(\\d+(?:\\.\\d+)?)s");

  private GeminiErrors() {}

  static SessionResult classify(int code, String body, long nowMillis) {
    JsonNode error = parse(body).path("error");
    String status = error.path("status").asText("");
    String message = error.path("message").asText(body == null ? "" : body).strip();
    String reason = "";
    Long retryDelayMillis = null;
    for (JsonNode d : error.path("details")) {
      String type = d.path("@type").asText("");
      if (type.endsWith("google.rpc.RetryInfo")) {
        Matcher m = DELAY.matcher(d.path("retryDelay").asText(""));
        if (m.matches()) {
          retryDelayMillis = Math.round(Double.parseDouble(m.group(1)) * 1000);
        }
      } else if (type.endsWith("google.rpc.ErrorInfo")) {
        reason = d.path("reason").asText("");
      }
    }
    String lower = (message + " " + reason + " " + status).toLowerCase(Locale.ROOT);
    String detail = "Gemini API " + code + (status.isEmpty() ? "" : " " + status) + ": " + firstLine(message);
    // A project spend cap is the Gemini counterpart of Claude's per-session USD budget.
    if (lower.contains("spend cap") || lower.contains("spending cap") || lower.contains("spending limit")
        || lower.contains("budget")) {
      return SessionResult.of(Outcome.BUDGET, detail);
    }
    if (code == 429 || "RESOURCE_EXHAUSTED".equals(status)) {
      if (lower.contains("billing") || lower.contains("prepayment") || lower.contains("credits")) {
        return SessionResult.of(Outcome.BILLING, detail);
      }
      return SessionResult.rateLimited(detail, retryDelayMillis == null ? null : nowMillis + retryDelayMillis);
    }
    if (code == 401 || "UNAUTHENTICATED".equals(status) || lower.contains("api_key_invalid")
        || lower.contains("api key not valid") || lower.contains("api key expired")) {
      return SessionResult.of(Outcome.AUTH, detail);
    }
    if (code == 402 || lower.contains("billing")) {
      return SessionResult.of(Outcome.BILLING, detail);
    }
    if (code == 403 || "PERMISSION_DENIED".equals(status)) {
      return SessionResult.of(Outcome.AUTH, detail);
    }
    if (code >= 500) {
      return SessionResult.of(Outcome.TRANSIENT, detail);
    }
    if (code >= 400) {
      return SessionResult.of(Outcome.PERMANENT, detail);
    }
    return SessionResult.of(Outcome.TRANSIENT, detail);
  }

  private static JsonNode parse(String body) {
    try {
      JsonNode n = body == null ? null : JSON.readTree(body);
      return n == null ? JSON.createObjectNode() : n;
    } catch (Exception e) {
      return JSON.createObjectNode();
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
