package dev.colony.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads Colony's Grafana dashboard ({@code observability/grafana/colony.json}) for the tests. */
public final class DashboardJson {
  public static final Path FILE = GeneratedDocsTest.repo().resolve("observability/grafana/colony.json");

  private DashboardJson() {}

  /** One query of a panel: the panel's title, the target's refId, its PromQL as written (with variables). */
  public record Query(String panel, String refId, String expr) {}

  public static JsonNode read() throws IOException {
    return new ObjectMapper().readTree(FILE.toFile());
  }

  /** Every panel's every target, in the file's order. */
  public static List<Query> queries(JsonNode dashboard) {
    List<Query> out = new ArrayList<>();
    for (JsonNode p : dashboard.path("panels")) {
      for (JsonNode t : p.path("targets")) {
        out.add(new Query(p.path("title").asText(), t.path("refId").asText(), t.path("expr").asText("")));
      }
    }
    return out;
  }

  /**
   * {@code expr} as Grafana sends it: each {@code $name} of {@code values} replaced (longest names
   * first, so {@code $__rate_interval} is not read as {@code $__rate}).
   */
  public static String substitute(String expr, Map<String, String> values) {
    String out = expr;
    List<String> names = values.keySet().stream().sorted((a, b) -> b.length() - a.length()).toList();
    for (String n : names) {
      out = out.replace("${" + n + "}", values.get(n)).replace("$" + n, values.get(n));
    }
    return out;
  }
}
