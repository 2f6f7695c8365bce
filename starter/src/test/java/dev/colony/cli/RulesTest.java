package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.yaml.snakeyaml.Yaml;

/**
 * Colony's Prometheus rules ({@code observability/prometheus/}) under Debian's promtool: the rules
 * and the example configuration check, the rules' unit tests pass, and every alert carries what an
 * operator needs (a severity, a summary, a runbook that is a section of docs/observability.md) and
 * is tested both ways (a series that fires it, one that must not).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RulesTest {
  private static final Path DIR = GeneratedDocsTest.repo().resolve("observability/prometheus");

  @Test
  void promtoolChecksTheRulesAndTheExampleConfiguration() throws Exception {
    PrometheusForTests.Run rules = PrometheusForTests.promtool(DIR, "check", "rules", "colony-rules.yml");
    assertEquals(0, rules.code(), rules.out());
    assertTrue(rules.out().contains("SUCCESS: " + ruleNames().size() + " rules found"), rules.out());
    PrometheusForTests.Run config = PrometheusForTests.promtool(DIR, "check", "config", "prometheus.yml");
    assertEquals(0, config.code(), config.out());
    assertTrue(config.out().contains("SUCCESS: 1 rule files found"), config.out());
  }

  @Test
  void theRulesUnitTestsPass() throws Exception {
    PrometheusForTests.Run run = PrometheusForTests.promtool(DIR, "test", "rules", "colony-rules.test.yml");
    assertEquals(0, run.code(), run.out());
    assertTrue(run.out().contains("SUCCESS") && !run.out().contains("FAILED"), run.out());
  }

  @Test
  void everyAlertHasASeveritySummaryAndARunbookSection() throws Exception {
    Set<String> anchors = DocPathsTest.anchors(Files.readString(GeneratedDocsTest.repo().resolve("docs/observability.md")));
    List<String> wrong = new ArrayList<>();
    Map<String, Map<String, Object>> alerts = alerts();
    assertTrue(alerts.size() >= 10, "too few alerts read: " + alerts.keySet());
    for (Map.Entry<String, Map<String, Object>> a : alerts.entrySet()) {
      String name = a.getKey();
      Map<String, Object> labels = map(a.getValue().get("labels"));
      Map<String, Object> annotations = map(a.getValue().get("annotations"));
      if (!Set.of("page", "warning").contains(String.valueOf(labels.get("severity")))) {
        wrong.add(name + ": severity is " + labels.get("severity") + ", not page or warning");
      }
      if (String.valueOf(annotations.getOrDefault("summary", "")).isBlank()) {
        wrong.add(name + ": no summary");
      }
      String anchor = name.toLowerCase(java.util.Locale.ROOT);
      if (!("docs/observability.md#" + anchor).equals(annotations.get("runbook"))) {
        wrong.add(name + ": runbook is " + annotations.get("runbook") + ", not docs/observability.md#" + anchor);
      } else if (!anchors.contains(anchor)) {
        wrong.add(name + ": docs/observability.md has no section #" + anchor);
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void everyAlertIsTestedFiringAndNotFiring() throws Exception {
    Map<String, Object> tests = new Yaml().load(Files.readString(DIR.resolve("colony-rules.test.yml")));
    Set<String> fires = new TreeSet<>();
    Set<String> quiet = new TreeSet<>();
    for (Object t : (List<?>) tests.get("tests")) {
      Object cases = map(t).get("alert_rule_test");
      for (Object c : cases == null ? List.of() : (List<?>) cases) {
        Map<String, Object> m = map(c);
        String name = String.valueOf(m.get("alertname"));
        boolean none = m.get("exp_alerts") == null || ((List<?>) m.get("exp_alerts")).isEmpty();
        (none ? quiet : fires).add(name);
      }
    }
    Set<String> all = new TreeSet<>(alerts().keySet());
    assertEquals(all, fires, "alerts without a case where they fire");
    assertEquals(all, quiet, "alerts without a case where they must not fire");
  }

  /** Every alerting rule by name, with its fields. */
  private static Map<String, Map<String, Object>> alerts() throws Exception {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> rule : rules()) {
      if (rule.containsKey("alert")) {
        out.put(String.valueOf(rule.get("alert")), rule);
      }
    }
    return out;
  }

  private static List<String> ruleNames() throws Exception {
    return rules().stream().map(r -> String.valueOf(r.containsKey("alert") ? r.get("alert") : r.get("record"))).toList();
  }

  private static List<Map<String, Object>> rules() throws Exception {
    Map<String, Object> doc = new Yaml().load(Files.readString(DIR.resolve("colony-rules.yml")));
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object g : (List<?>) doc.get("groups")) {
      for (Object r : (List<?>) map(g).get("rules")) {
        out.add(map(r));
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o == null ? Map.of() : (Map<String, Object>) o;
  }
}
