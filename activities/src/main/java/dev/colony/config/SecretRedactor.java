package dev.colony.config;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Replaces the values of secret-looking variables ({@code *KEY*}, {@code *TOKEN*},
 * {@code *SECRET*}, {@code *PASSWORD*}, {@code *CREDENTIAL*}) with their {@code ${NAME}}, so text
 * an agent produced (a command it wants to run, its last words) can go into Temporal history
 * without the secrets it may contain.
 */
public final class SecretRedactor {
  private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(key|token|secret|passw|credential|auth).*");
  /** Shorter values are too likely to match ordinary text to be worth replacing. */
  private static final int MIN_LENGTH = 8;

  private final List<Map.Entry<String, String>> secrets;

  public SecretRedactor(Map<String, String> env) {
    this.secrets = env.entrySet().stream()
        .filter(e -> SECRET_NAME.matcher(e.getKey()).matches())
        .filter(e -> e.getValue() != null && e.getValue().length() >= MIN_LENGTH)
        .sorted(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getValue().length()).reversed())
        .toList();
  }

  public String redact(String text) {
    if (text == null || secrets.isEmpty()) {
      return text;
    }
    String out = text;
    for (Map.Entry<String, String> s : secrets) {
      if (out.contains(s.getValue())) {
        out = out.replace(s.getValue(), "${" + s.getKey() + "}");
      }
    }
    return out;
  }
}
