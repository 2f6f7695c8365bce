package dev.colony.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who is asking. Without tokens (loopback only) everyone is an operator. With them, a request
 * carries {@code Authorization: Bearer TOKEN} or the cookie {@link #COOKIE} that {@code POST /login}
 * set: {@code base64(role|name|expiry).hmac}, signed with a key drawn at start, so the console keeps
 * no session state (a restart signs everyone out).
 */
final class Auth {
  static final String COOKIE = "colony_console";
  static final Duration COOKIE_LIFE = Duration.ofHours(12);

  /** A signed-in person: an operator may act, a reader only read. */
  record Principal(String name, boolean operator) {}

  private final String operatorToken;
  private final String readToken;
  private final byte[] key = new byte[32];

  Auth(String operatorToken, String readToken) {
    this.operatorToken = blankToNull(operatorToken);
    this.readToken = blankToNull(readToken);
    new SecureRandom().nextBytes(key);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  boolean required() {
    return operatorToken != null;
  }

  /** The principal of a token, null when it is neither token. */
  Principal byToken(String token, String name) {
    if (token == null) {
      return null;
    }
    if (equal(token, operatorToken)) {
      return new Principal(name(name, "operator"), true);
    }
    if (equal(token, readToken)) {
      return new Principal(name(name, "reader"), false);
    }
    return null;
  }

  /** Constant time; false when {@code expected} is null. */
  private static boolean equal(String given, String expected) {
    return expected != null && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
        expected.getBytes(StandardCharsets.UTF_8));
  }

  /** A name fit for an identity and a history: printable, short; {@code fallback} when none. */
  static String name(String s, String fallback) {
    if (s == null) {
      return fallback;
    }
    String clean = s.replaceAll("[^A-Za-z0-9 ._@+-]", "").strip();
    if (clean.length() > 40) {
      clean = clean.substring(0, 40);
    }
    return clean.isEmpty() ? fallback : clean;
  }

  String cookie(Principal p, long nowMillis) {
    String body = (p.operator() ? "o" : "r") + "|" + p.name() + "|" + (nowMillis + COOKIE_LIFE.toMillis());
    String b = Base64.getUrlEncoder().withoutPadding().encodeToString(body.getBytes(StandardCharsets.UTF_8));
    return b + "." + sign(b);
  }

  Principal fromCookie(String value, long nowMillis) {
    if (value == null) {
      return null;
    }
    int dot = value.lastIndexOf('.');
    if (dot <= 0) {
      return null;
    }
    String b = value.substring(0, dot);
    if (!MessageDigest.isEqual(sign(b).getBytes(StandardCharsets.US_ASCII),
        value.substring(dot + 1).getBytes(StandardCharsets.US_ASCII))) {
      return null;
    }
    try {
      String[] parts = new String(Base64.getUrlDecoder().decode(b), StandardCharsets.UTF_8).split("\\|", 3);
      if (parts.length != 3 || Long.parseLong(parts[2]) < nowMillis) {
        return null;
      }
      boolean operator = parts[0].equals("o");
      if (!operator && (readToken == null || !parts[0].equals("r"))) {
        return null; // a reader's cookie is good only while a read token is configured
      }
      return new Principal(parts[1], operator);
    } catch (IllegalArgumentException bad) {
      return null;
    }
  }

  private String sign(String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
