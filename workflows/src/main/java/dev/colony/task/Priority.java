package dev.colony.task;

import java.util.Locale;

/** A task's priority; ants take higher first, and age raises a waiting task (see {@link TaskOrder}). */
public enum Priority {
  HIGH(2),
  NORMAL(1),
  LOW(0);

  private final int weight;

  Priority(int weight) {
    this.weight = weight;
  }

  public int weight() {
    return weight;
  }

  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code high}, {@code normal}, {@code low} (any case); null when it names none. */
  public static Priority parse(String s) {
    if (s == null) {
      return null;
    }
    return switch (s.strip().toLowerCase(Locale.ROOT)) {
      case "high", "h", "urgent" -> HIGH;
      case "normal", "n", "medium" -> NORMAL;
      case "low", "l" -> LOW;
      default -> null;
    };
  }
}
