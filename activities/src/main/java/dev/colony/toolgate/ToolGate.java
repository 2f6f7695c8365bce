package dev.colony.toolgate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.secrets.Secrets;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Applies an ant's autonomy to one tool call, the same way for every engine: {@code full}
 * allows everything (engines do not even ask), {@code strict} denies flagged calls and tells the
 * agent why, {@code human} asks a human and waits.
 */
public final class ToolGate {
  public static final int SUMMARY_LIMIT = 800;
  private static final ObjectMapper JSON = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  /**
   * The outcome for the agent: run it, or don't and here is why.
   *
   * @param message for a call not allowed, why (the agent is told); for an allowed one, the note
   *     the human who approved it wrote, for the agent to read, or null when there is none
   */
  public record Verdict(boolean allowed, String message) {
    static Verdict allow() {
      return new Verdict(true, null);
    }
  }

  private final AntSpec spec;
  private final int session;
  private final DangerDetector detector;
  private final Confirmer confirmer;
  private final Secrets redactor;

  public ToolGate(AntSpec spec, int session, Confirmer confirmer) {
    this(spec, session, confirmer, new Secrets());
  }

  /** @param redactor keeps secret values out of the request, which goes into workflow history */
  public ToolGate(AntSpec spec, int session, Confirmer confirmer, Secrets redactor) {
    this.spec = spec;
    this.session = session;
    this.detector = new DangerDetector(spec.confirmation());
    this.confirmer = confirmer;
    this.redactor = redactor;
  }

  /** False for {@code autonomy: full}: engines register no interception at all. */
  public boolean intercepts() {
    return spec.autonomy() != Autonomy.FULL;
  }

  public Verdict check(String tool, Map<String, ?> input) {
    if (!intercepts()) {
      return Verdict.allow();
    }
    Optional<String> reason = detector.check(tool, input);
    if (reason.isEmpty()) {
      return Verdict.allow();
    }
    if (spec.autonomy() == Autonomy.STRICT) {
      return new Verdict(false, "Colony blocked this " + tool + " call: it " + reason.get()
          + ". This ant runs with autonomy: strict, so flagged actions are never run. Do not retry it;"
          + " finish what you can without it and say what a human needs to do.");
    }
    ConfirmationRequest request = new ConfirmationRequest(session, key(tool, input), tool,
        redactor.redact(summary(tool, input)), reason.get());
    ConfirmationDecision d = confirmer.confirm(request);
    if (d.approved()) {
      return d.note() == null || d.note().isBlank() ? Verdict.allow()
          : new Verdict(true, "This " + tool + " call was approved by " + d.by() + ", with a note: " + d.note());
    }
    String why = "timeout".equals(d.by()) ? "nobody approved it in time" : "denied by " + d.by();
    return new Verdict(false, "This " + tool + " call was not approved: " + why
        + (d.note() == null || d.note().isBlank() ? "" : " (" + d.note() + ")")
        + ". Do not retry it; continue without it or explain what you need.");
  }

  /** Same call in the same session, same key. */
  String key(String tool, Map<String, ?> input) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(
          (tool + "\n" + JSON.writeValueAsString(input == null ? Map.of() : new TreeMap<>(input)))
              .getBytes(StandardCharsets.UTF_8));
      return "s" + session + "-" + HexFormat.of().formatHex(digest, 0, 12);
    } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static String summary(String tool, Map<String, ?> input) {
    String text;
    if (input != null && input.get("command") instanceof String c) {
      text = "`" + c + "`";
    } else {
      try {
        text = JSON.writeValueAsString(input == null ? Map.of() : new TreeMap<>(input));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        text = String.valueOf(input);
      }
    }
    return text.length() <= SUMMARY_LIMIT ? text
        : text.substring(0, SUMMARY_LIMIT) + "… [truncated, " + (text.length() - SUMMARY_LIMIT) + " more characters]";
  }
}
