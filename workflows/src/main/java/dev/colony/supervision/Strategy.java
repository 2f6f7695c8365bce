package dev.colony.supervision;

import java.util.List;
import java.util.Locale;

/** Supervision's restart strategies: which ants of a group restart when one of them fails. */
public enum Strategy {
  /** Only the ant that failed. */
  ONE_FOR_ONE,
  /** Every ant of the group. */
  ONE_FOR_ALL,
  /** The ant that failed and every ant declared after it in the group. */
  REST_FOR_ONE;

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code one_for_one}, ...; null when it is none of them. */
  public static Strategy parse(String s) {
    for (Strategy v : values()) {
      if (v.configName().equals(s)) {
        return v;
      }
    }
    return null;
  }

  /** The ants to restart, in declaration order, when {@code failed} fails in a group of {@code ants}. */
  public List<String> toRestart(List<String> ants, String failed) {
    int at = ants.indexOf(failed);
    if (at < 0) {
      return List.of(failed);
    }
    return switch (this) {
      case ONE_FOR_ONE -> List.of(failed);
      case ONE_FOR_ALL -> List.copyOf(ants);
      case REST_FOR_ONE -> List.copyOf(ants.subList(at, ants.size()));
    };
  }
}
