package dev.colony.engine.claude;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.errorpolicy.Outcome;

/**
 * Reduces what a Claude Code session printed to one outcome (what the error policy classifies). Order of authority:
 * a result's non-success subtype; a result's {@code is_error} (an API failure can arrive as
 * {@code subtype: success} with {@code is_error: true}), explained by a rejected rate-limit event,
 * the last assistant {@code error} value, or {@code api_error_status}; and with no result at all,
 * whatever the stream said before the process died.
 */
final class ClaudeOutcome {
  /** What the CLI prints when it refuses its command line (commander.js and its own checks). */
  static final java.util.regex.Pattern USAGE_ERROR = java.util.regex.Pattern.compile(
      "(?im)^error: (unknown option|option '|missing required argument|too many arguments)|cannot be used with root/sudo privileges");

  private ClaudeOutcome() {}

  /** What the session stream told us, accumulated by {@link ClaudeEngine}. */
  static final class Observed {
    JsonNode result;
    String lastAssistantError;
    boolean rateLimitRejected;
    Long rateLimitResetsAtMillis;
    int apiRetries;
    String lastText;
    /** Auth or billing, seen in an {@code api_retry} event: decided without waiting for the result. */
    Outcome blockingRetry;
    String blockingRetryDetail;
  }

  /** AUTH or BILLING when an {@code api_retry} event says so (401/403, 402, or the error name); else null. */
  static Outcome blockingRetry(JsonNode m) {
    int status = m.path("error_status").asInt(0);
    String error = m.path("error").asText("");
    if (status == 401 || status == 403 || "authentication_failed".equals(error)) {
      return Outcome.AUTH;
    }
    if (status == 402 || "billing_error".equals(error)) {
      return Outcome.BILLING;
    }
    return null;
  }

  record Classified(Outcome outcome, String detail, Long resetAtMillis) {}

  static Classified classify(Observed o, int exitCode, String stderrTail) {
    JsonNode r = o.result;
    if (o.blockingRetry != null) {
      return new Classified(o.blockingRetry, o.blockingRetryDetail, null);
    }
    if (r == null) {
      if (o.rateLimitRejected) {
        return new Classified(Outcome.RATE_LIMIT, "rate limited (claude exited without a result)", o.rateLimitResetsAtMillis);
      }
      if (o.lastAssistantError != null) {
        return fromAssistantError(o, "claude exited with code " + exitCode + " after error " + o.lastAssistantError);
      }
      String tail = stderrTail == null || stderrTail.isBlank() ? "" : ": " + lastLine(stderrTail);
      if (stderrTail != null && USAGE_ERROR.matcher(stderrTail).find()) {
        // The CLI refused its command line: no retry can fix that, so it is not transient.
        return new Classified(Outcome.PERMANENT, "claude refused its arguments (exit code " + exitCode + ")" + tail, null);
      }
      return new Classified(Outcome.TRANSIENT, "claude exited with code " + exitCode + " without a result" + tail, null);
    }
    String subtype = r.path("subtype").asText("success");
    String text = firstLine(r.path("result").asText(""));
    if (!"success".equals(subtype)) {
      String errors = r.path("errors").isArray() && !r.path("errors").isEmpty()
          ? r.path("errors").get(0).asText() : subtype;
      Outcome outcome = Outcome.fromSdkValue(subtype);
      if (outcome == Outcome.RATE_LIMIT || o.rateLimitRejected && outcome == Outcome.TRANSIENT) {
        return new Classified(Outcome.RATE_LIMIT, errors, o.rateLimitResetsAtMillis);
      }
      return new Classified(outcome, subtype.equals(errors) ? subtype : subtype + ": " + errors, null);
    }
    if (!r.path("is_error").asBoolean(false)) {
      return new Classified(Outcome.SUCCESS, text, null);
    }
    String detail = text.isEmpty() ? "API error" : text;
    if (o.rateLimitRejected) {
      return new Classified(Outcome.RATE_LIMIT, detail, o.rateLimitResetsAtMillis);
    }
    if (o.lastAssistantError != null) {
      return fromAssistantError(o, detail);
    }
    int status = r.path("api_error_status").asInt(0);
    Outcome byStatus = switch (status) {
      case 429 -> Outcome.RATE_LIMIT;
      case 401, 403 -> Outcome.AUTH;
      case 402 -> Outcome.BILLING;
      case 400, 404, 413, 422 -> Outcome.PERMANENT;
      default -> Outcome.TRANSIENT;
    };
    return new Classified(byStatus, status == 0 ? detail : "API error " + status + ": " + detail, null);
  }

  private static Classified fromAssistantError(Observed o, String detail) {
    Outcome outcome = Outcome.fromSdkValue(o.lastAssistantError);
    return new Classified(outcome, detail, outcome == Outcome.RATE_LIMIT ? o.rateLimitResetsAtMillis : null);
  }

  static String firstLine(String s) {
    String t = s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl);
  }

  static String lastLine(String s) {
    String[] lines = s.strip().split("\\R");
    return lines[lines.length - 1];
  }
}
