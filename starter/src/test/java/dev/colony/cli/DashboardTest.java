package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Colony's Grafana dashboard is importable as is (Grafana's Classic JSON model, no {@code __inputs}
 * step): it parses, its ids are unique, every panel and query reads the data source chosen in the
 * {@code datasource} variable, and every query has PromQL whose variables are defined. That each
 * query runs and finds data on a real Prometheus is ObservabilityIT's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DashboardTest {
  private static final Set<String> PANEL_TYPES = Set.of("timeseries", "stat", "table", "bargauge");
  /** Grafana's own variables a query may use. */
  private static final Set<String> BUILT_IN = Set.of("__rate_interval", "__interval", "__range");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)");

  @Test
  void isAClassicDashboardImportableAsIs() throws Exception {
    JsonNode d = DashboardJson.read();
    assertTrue(d.has("id") && d.get("id").isNull(), "id must be null for an import");
    assertEquals("colony-overview", d.path("uid").asText());
    assertEquals(39, d.path("schemaVersion").asInt());
    assertTrue(!d.has("__inputs"), "no __inputs: the data source is a variable");
    JsonNode first = d.path("templating").path("list").path(0);
    assertEquals("datasource", first.path("name").asText());
    assertEquals("datasource", first.path("type").asText());
    assertEquals("prometheus", first.path("query").asText());
  }

  @Test
  void idsAreUniqueAndEveryPanelReadsTheChosenDataSource() throws Exception {
    JsonNode d = DashboardJson.read();
    List<String> wrong = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    Set<String> titles = new HashSet<>();
    int panels = 0;
    for (JsonNode p : d.path("panels")) {
      panels++;
      String title = p.path("title").asText();
      if (!p.path("id").isInt() || !ids.add(p.path("id").asInt())) {
        wrong.add(title + ": id " + p.path("id") + " missing or repeated");
      }
      if (title.isBlank() || !titles.add(title)) {
        wrong.add("panel " + p.path("id") + ": title '" + title + "' blank or repeated");
      }
      if (!PANEL_TYPES.contains(p.path("type").asText())) {
        wrong.add(title + ": type " + p.path("type") + " (keep to " + PANEL_TYPES + ")");
      }
      for (String k : List.of("x", "y", "w", "h")) {
        if (!p.path("gridPos").path(k).isInt()) {
          wrong.add(title + ": gridPos." + k + " missing");
        }
      }
      checkDatasource(wrong, title, p.path("datasource"));
      Set<String> refIds = new HashSet<>();
      if (p.path("targets").isEmpty()) {
        wrong.add(title + ": no query");
      }
      for (JsonNode t : p.path("targets")) {
        if (!refIds.add(t.path("refId").asText())) {
          wrong.add(title + ": refId " + t.path("refId") + " repeated");
        }
        checkDatasource(wrong, title + " " + t.path("refId").asText(), t.path("datasource"));
      }
    }
    Set<String> names = new HashSet<>();
    for (JsonNode v : d.path("templating").path("list")) {
      if (!names.add(v.path("name").asText())) {
        wrong.add("variable " + v.path("name") + " repeated");
      }
      if (v.path("type").asText().equals("query")) {
        checkDatasource(wrong, "variable " + v.path("name").asText(), v.path("datasource"));
      }
    }
    assertTrue(panels >= 15, "too few panels read: " + panels);
    assertEquals(List.of(), wrong);
  }

  @Test
  void everyQueryHasPromqlWhoseVariablesAreDefined() throws Exception {
    JsonNode d = DashboardJson.read();
    Set<String> defined = new HashSet<>(BUILT_IN);
    d.path("templating").path("list").forEach(v -> defined.add(v.path("name").asText()));
    List<String> wrong = new ArrayList<>();
    List<DashboardJson.Query> queries = DashboardJson.queries(d);
    for (DashboardJson.Query q : queries) {
      if (q.expr().isBlank()) {
        wrong.add(q.panel() + " " + q.refId() + ": empty expr");
      }
      Matcher m = VARIABLE.matcher(q.expr());
      while (m.find()) {
        if (!defined.contains(m.group(1))) {
          wrong.add(q.panel() + " " + q.refId() + ": $" + m.group(1) + " is not a variable");
        }
      }
    }
    assertTrue(queries.size() >= 20, "too few queries read: " + queries.size());
    assertEquals(List.of(), wrong);
  }

  private static void checkDatasource(List<String> wrong, String where, JsonNode ds) {
    if (!"prometheus".equals(ds.path("type").asText()) || !"${datasource}".equals(ds.path("uid").asText())) {
      wrong.add(where + ": datasource " + ds + ", not {\"type\":\"prometheus\",\"uid\":\"${datasource}\"}");
    }
  }
}
