package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Colony's Grafana dashboard is importable as is (Grafana's Classic JSON model, no {@code __inputs}
 * step): it parses, its ids are unique, every panel and query reads the data source chosen in the
 * {@code datasource} variable, and every query has PromQL whose variables are defined; every query
 * of a Colony counter (or histogram) sees a series born at its first event (Colony's counters
 * first appear at 1, never at 0), under Debian's promtool. That each query runs and finds data on
 * a real Prometheus is ObservabilityIT's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DashboardTest {
  private static final Set<String> PANEL_TYPES = Set.of("timeseries", "stat", "table", "bargauge");
  /** Grafana's own variables a query may use. */
  private static final Set<String> BUILT_IN = Set.of("__rate_interval", "__interval", "__range");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)");
  /** A Colony counter or histogram a query reads. */
  private static final Pattern COUNTER = Pattern.compile("\\bcolony_[a-z_]+_(total|bucket)\\b");
  /** Labels every born series carries: each query's selectors and groupings find them. */
  private static final String LABELS = "colony=\"c\",ant=\"a\",engine=\"claude\",instance=\"w1\",job=\"colony\","
      + "outcome=\"failure\",kind=\"rate_limit\",reason=\"errors\",window=\"day\",type=\"input\","
      + "decision=\"approved\",repo=\"r\",result=\"passed\"";

  @TempDir
  Path tmp;

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
  void everyCounterQuerySeesASeriesBornAtItsFirstEvent() throws Exception {
    // Every counter series born at minute 10 at 1 (no leading 0), evaluated at minute 12: within
    // every panel's window, so each query must show that first event (increase() alone sees 0).
    Map<String, String> variables = Map.of("colony", ".*", "ant", ".*", "__rate_interval", "4m");
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    StringBuilder tests = new StringBuilder("rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n");
    Set<String> series = new TreeSet<>();
    StringBuilder cases = new StringBuilder();
    int n = 0;
    for (DashboardJson.Query q : DashboardJson.queries(DashboardJson.read())) {
      Matcher m = COUNTER.matcher(q.expr());
      boolean reads = false;
      while (m.find()) {
        reads = true;
        if (m.group(1).equals("bucket")) {
          series.add(m.group() + "{" + LABELS + ",le=\"1\"}");
          series.add(m.group() + "{" + LABELS + ",le=\"+Inf\"}");
        } else {
          series.add(m.group() + "{" + LABELS + "}");
        }
      }
      if (!reads) {
        continue;
      }
      String record = "q" + n++;
      rules.append("      - record: ").append(record).append("\n        expr: ")
          .append(json(DashboardJson.substitute(q.expr(), variables))).append('\n');
      cases.append("      - expr: 'count(").append(record).append(" > 0)'\n        eval_time: 12m\n")
          .append("        exp_samples: [{labels: '{}', value: 1}]  # ").append(q.panel()).append(' ').append(q.refId()).append('\n');
    }
    assertTrue(n >= 15, "too few counter queries read: " + n);
    tests.append("  - interval: 1m\n    input_series:\n");
    for (String s : series) {
      tests.append("      - series: '").append(s).append("'\n        values: '_x10 1x10'\n");
    }
    tests.append("    promql_expr_test:\n").append(cases);
    Files.writeString(tmp.resolve("rules.yml"), rules);
    Files.writeString(tmp.resolve("test.yml"), tests);
    PrometheusForTests.Run run = PrometheusForTests.promtool(tmp, "test", "rules", "test.yml");
    assertEquals(0, run.code(), run.out() + "\n" + tests);
  }

  private static String json(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
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
