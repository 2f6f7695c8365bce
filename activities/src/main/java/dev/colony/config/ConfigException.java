package dev.colony.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * All the problems found in a colony directory, reported together. The message follows the
 * reference format: {@code Validation failed: Invalid colony.yaml:} and then one
 * {@code field.path: what is wrong} line per problem, grouped by file.
 */
public final class ConfigException extends Exception {
  private final List<Problem> problems;

  public ConfigException(List<Problem> problems) {
    super(format(problems));
    this.problems = List.copyOf(problems);
  }

  public List<Problem> problems() {
    return problems;
  }

  static String format(List<Problem> problems) {
    Map<String, List<Problem>> byFile = new LinkedHashMap<>();
    for (Problem p : problems) {
      byFile.computeIfAbsent(p.file(), f -> new ArrayList<>()).add(p);
    }
    StringBuilder sb = new StringBuilder("Validation failed:");
    boolean first = true;
    for (Map.Entry<String, List<Problem>> e : byFile.entrySet()) {
      sb.append(first ? " " : "\n").append("Invalid ").append(e.getKey()).append(':');
      first = false;
      for (Problem p : e.getValue()) {
        sb.append("\n  ").append(p);
      }
    }
    return sb.toString();
  }
}
