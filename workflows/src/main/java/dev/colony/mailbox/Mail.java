package dev.colony.mailbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One message for an ant: the payload of the {@code message} signal. A plain JSON string is a
 * human's non-urgent message, so {@code temporal workflow signal --name message --input '"fix
 * the build"'} keeps working; an object carries the rest.
 *
 * @param text the instruction
 * @param urgent interrupt the running session and start the next one with this message first
 * @param from the sending ant, or null for a human
 * @param id an idempotency key: a message whose id was already received is dropped, so a sender
 *     that retries (or a session retried after a worker crash) never delivers twice; null: none
 */
public record Mail(String text, boolean urgent, String from, String id) {
  @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
  public Mail(@JsonProperty("text") String text, @JsonProperty("urgent") boolean urgent,
      @JsonProperty("from") String from, @JsonProperty("id") String id) {
    this.text = text;
    this.urgent = urgent;
    this.from = from;
    this.id = id;
  }

  /** A human's plain message (also what a JSON string reads as). */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static Mail of(String text) {
    return new Mail(text, false, null, null);
  }

  public static Mail urgent(String text) {
    return new Mail(text, true, null, null);
  }

  /**
   * The id of a message an ant sends from inside a session: the same sender, session, recipient
   * and text give the same id, so a session retried after a worker crash does not deliver twice.
   * (Not for workflow code: it hashes.)
   */
  public static String derivedId(String from, String session, String to, String text) {
    try {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      byte[] d = sha.digest((from + "\u0000" + session + "\u0000" + to + "\u0000" + text)
          .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return "ant:" + java.util.HexFormat.of().formatHex(d, 0, 16);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A name as it may be shown back in an error: controls removed, bounded. */
  public static String printable(String s) {
    String clean = dev.colony.text.SafeText.clean(s.replaceAll("\\p{Cntrl}", "?"));
    return clean.length() <= 64 ? clean : dev.colony.text.SafeText.cut(clean, 64) + "…";
  }
}
