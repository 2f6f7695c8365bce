package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.ant.AntMetrics;
import dev.colony.ant.Lifecycle;
import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
import dev.colony.cli.DashboardJson;
import dev.colony.cli.PrometheusForTests;
import dev.colony.errorpolicy.Outcome;
import dev.colony.merge.ItemState;
import dev.colony.supervision.AntFailure;
import dev.colony.task.TaskState;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowUpdateStage;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's, started by the test on loopback) scrapes real workers of three
 * colonies on the real dev server, and reads them with the repository's rules: every query of the
 * Grafana dashboard finds data, every rule evaluates, and what the workers export holds only
 * closed label values and no secret.
 *
 * <p>The colonies are copies of examples whose ants do, offline, what the panels show:
 * {@code examples/hello} (sessions, costs, a rate limit every third session of {@code flaky}; its
 * {@code greeter} is asked a confirmation by the test, through the ant's {@code confirm} update as
 * the tool gate does, and approved with {@code colony approve}), {@code examples/guardrails} (an ant
 * that fails and parks, a watchdog, a daily budget reached) and {@code examples/merge} (landings,
 * a rework for a conflict, test runs).
 */
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class ObservabilityIT {
  private static final Path EXAMPLES = Path.of("../examples").toAbsolutePath().normalize();
  private static final Path RULES = Path.of("../observability/prometheus/colony-rules.yml").toAbsolutePath().normalize();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> COLONIES = List.of("hello", "guardrails", "merge");

  /**
   * Series these colonies never have: none of their ants names a path the sandbox refuses or asks
   * its channel for what it may not (SandboxIT's mallory does both), so the refusals' query must run
   * but finds nothing here.
   */
  static final List<String> NOT_IN_THESE_COLONIES = List.of("colony_sandbox_refusals_total");
  /**
   * Series no offline colony can have: the command engine reports no tokens (only Claude and Gemini
   * do), so the tokens panel's query must run but finds nothing here.
   */
  static final List<String> NEVER_OFFLINE = List.of("colony_tokens_total");

  @TempDir
  Path tmp;

  private final Map<String, Cluster> colonies = new LinkedHashMap<>();
  private final Map<String, Integer> metricsPorts = new LinkedHashMap<>();
  private Process prometheus;
  private Path prometheusLog;
  private int prometheusPort;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @AfterEach
  void tearDown() throws Exception {
    if (prometheus != null) {
      prometheus.destroyForcibly();
      prometheus.waitFor(10, TimeUnit.SECONDS);
    }
    Cluster.closeAll(colonies.values().stream().toList().reversed().toArray(AutoCloseable[]::new));
  }

  @Test
  void everyDashboardQueryFindsDataEveryRuleEvaluatesAndTheScrapeHoldsOnlyClosedLabelsAndNoSecret() throws Exception {
    String promBin = PrometheusForTests.prometheus(); // fails (never skips) without Debian's prometheus
    // One Temporal dev server (hello's), a worker per colony, each with its own metrics port.
    Cluster hello = new Cluster(tmp.resolve("hello"), EXAMPLES.resolve("hello")).startServer("dev");
    hello.colonyName = "hello";
    colonies.put("hello", hello);
    colonies.put("guardrails", new Cluster(tmp.resolve("guardrails"), EXAMPLES.resolve("guardrails")));
    colonies.put("merge", new Cluster(tmp.resolve("merge"), EXAMPLES.resolve("merge")));
    Map<String, String> secrets = plantSecrets(hello.dir);
    try {
      for (Map.Entry<String, Cluster> c : colonies.entrySet()) {
        int port = Cluster.freePort();
        metricsPorts.put(c.getKey(), port);
        // The figures of state every 2 s instead of 30 s (a hidden option for the tests).
        c.getValue().startWorker(c.getKey(), hello.address, "--metrics-port", Integer.toString(port),
            "--metrics-state-every", "2s");
        cli(hello, "start", c.getValue().dir.toString());
      }
      startPrometheus(promBin);
      eventually(Duration.ofSeconds(60), () -> targetsUp() == COLONIES.size(),
          () -> "not every worker's /metrics is up in Prometheus: " + get("/api/v1/targets"));

      // A confirmation for greeter, paused so that no session's end decides it first.
      cli(hello, "pause", "hello/greeter");
      hello.awaitSettledPaused("greeter");
      hello.client.newUntypedWorkflowStub("ant/hello/greeter").startUpdate(
          UpdateOptions.newBuilder(ConfirmationDecision.class).setUpdateName("confirm").setUpdateId("confirm/obs-it")
              .setWaitForStage(WorkflowUpdateStage.ACCEPTED).build(),
          new ConfirmationRequest(1, "obs-it", "Bash", "git push origin main", "pushes to a remote"));
      String approved = cli(hello, "approve", "hello/greeter");
      assertTrue(approved.toLowerCase(Locale.ROOT).contains("approv"), approved);

      // Every query of the dashboard, as Grafana sends it with every colony and every ant chosen.
      JsonNode dashboard = DashboardJson.read();
      Map<String, String> variables = Map.of("colony", "(" + String.join("|", COLONIES) + ")", "ant", ".*",
          "__rate_interval", "1m", "datasource", "prometheus");
      List<DashboardJson.Query> queries = DashboardJson.queries(dashboard);
      Map<String, String> lastAnswer = new TreeMap<>();
      eventually(Duration.ofSeconds(300), () -> {
        lastAnswer.clear();
        for (DashboardJson.Query q : queries) {
          String expr = DashboardJson.substitute(q.expr(), variables);
          JsonNode r = query(expr);
          boolean mustHaveData = needsData(q.expr());
          if (!"success".equals(r.path("status").asText())) {
            lastAnswer.put(q.panel() + " " + q.refId(), "status " + r.path("status").asText() + ": " + r + " for " + expr);
          } else if (mustHaveData && r.path("data").path("result").isEmpty()) {
            lastAnswer.put(q.panel() + " " + q.refId(), "no data for " + expr);
          }
        }
        return lastAnswer.isEmpty();
      }, () -> "dashboard queries without an answer or data:\n  " + String.join("\n  ",
          lastAnswer.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList()) + "\n" + diagnostics());
      Files.writeString(Path.of("target/observability-queries.txt"), report(queries, variables));

      // The variables' own queries list the colonies and their ants.
      JsonNode colonyValues = query("group by (colony) (colony_sessions_started_total)");
      Set<String> seen = new TreeSet<>();
      colonyValues.path("data").path("result").forEach(s -> seen.add(s.path("metric").path("colony").asText()));
      assertEquals(new TreeSet<>(COLONIES), seen, "the colony variable's values");

      // Every rule evaluates on the real series (health ok, no error).
      Map<String, String> unhealthy = new TreeMap<>();
      eventually(Duration.ofSeconds(60), () -> {
        unhealthy.clear();
        JsonNode groups = json(get("/api/v1/rules")).path("data").path("groups");
        int rules = 0;
        for (JsonNode g : groups) {
          for (JsonNode r : g.path("rules")) {
            rules++;
            if (!"ok".equals(r.path("health").asText())) {
              unhealthy.put(r.path("name").asText(), r.path("health").asText() + " " + r.path("lastError").asText());
            }
          }
        }
        return rules >= 13 && unhealthy.isEmpty();
      }, () -> "rules not healthy: " + unhealthy);

      // Label hygiene: each worker's own scrape.
      Closed closed = new Closed(colonies);
      List<String> leaks = new ArrayList<>();
      for (Map.Entry<String, Integer> m : metricsPorts.entrySet()) {
        String body = scrape(m.getValue());
        for (Map.Entry<String, String> s : secrets.entrySet()) {
          if (body.contains(s.getValue())) {
            leaks.add(m.getKey() + "'s /metrics holds the value of " + s.getKey());
          }
        }
        leaks.addAll(closed.check(m.getKey(), body));
      }
      assertEquals(List.of(), leaks);
      // The check can fail: the scrapes do carry the labels it reads.
      String all = metricsPorts.values().stream().map(this::scrape).reduce("", String::concat);
      for (String must : List.of("colony_sessions_total{", "outcome=\"rate_limit\"", "ant=\"greeter\"",
          "decision=\"approved\"", "colony_merge_landings_total{", "colony_parks_total{", "colony_ants{",
          "reason=\"parked\"", "colony_ant_budget_daily_usd{")) {
        assertTrue(all.contains(must), "no " + must + " in the scrapes");
      }
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + diagnostics(), e);
    }
  }

  /** {@code colony ARGS}: its output; a failure fails the test. */
  private static String cli(Cluster c, String... args) throws Exception {
    Cluster.CliRun r = c.cliRun(args);
    if (r.code() != 0) {
      throw new AssertionError("colony " + String.join(" ", args) + " failed: " + r.out());
    }
    return r.out();
  }

  /**
   * Whether the query must find data here: all but those of {@link #NOT_IN_THESE_COLONIES} and
   * {@link #NEVER_OFFLINE}, which must only run.
   */
  static boolean needsData(String expr) {
    Predicate<String> reads = name -> Pattern.compile("\\b" + name + "\\b").matcher(expr).find();
    return NEVER_OFFLINE.stream().noneMatch(reads) && NOT_IN_THESE_COLONIES.stream().noneMatch(reads);
  }

  /** A .env with secret values, used by greeter's file (its description and its agent's environment). */
  private static Map<String, String> plantSecrets(Path dir) throws IOException {
    String run = Long.toHexString(System.nanoTime());
    Map<String, String> secrets = Map.of("S_OBS_TOKEN", "sv-obs-token-" + run, "S_OBS_DESC", "sv-obs-desc-" + run);
    StringBuilder env = new StringBuilder();
    secrets.forEach((k, v) -> env.append(k).append('=').append(v).append('\n'));
    Files.writeString(dir.resolve(".env"), env);
    Path greeter = dir.resolve("ants/greeter.yaml");
    String yaml = Files.readString(greeter)
        .replaceFirst("(?m)^description: (.*)$", "description: \"\\$1 (\\${S_OBS_DESC})\"")
        .replaceFirst("(?m)^(  argv: .*)$", "$1\n  env:\n    GREETER_TOKEN: \"\\${S_OBS_TOKEN}\"");
    assertTrue(yaml.contains("${S_OBS_TOKEN}") && yaml.contains("${S_OBS_DESC}"), yaml);
    Files.writeString(greeter, yaml);
    return secrets;
  }

  private void startPrometheus(String bin) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("prometheus"));
    prometheusPort = Cluster.freePort();
    StringBuilder targets = new StringBuilder();
    for (int port : metricsPorts.values()) {
      targets.append(targets.isEmpty() ? "" : ", ").append("'127.0.0.1:").append(port).append('\'');
    }
    Files.writeString(dir.resolve("prometheus.yml"), """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files:
          - '%s'
        scrape_configs:
          - job_name: colony
            static_configs:
              - targets: [%s]
        """.formatted(RULES, targets));
    prometheusLog = dir.resolve("prometheus.log");
    prometheus = new ProcessBuilder(bin, "--config.file=" + dir.resolve("prometheus.yml"),
        "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + prometheusPort)
        .redirectErrorStream(true).redirectOutput(prometheusLog.toFile()).start();
    eventually(Duration.ofSeconds(60), () -> {
      if (!prometheus.isAlive()) {
        throw new AssertionError("prometheus exited: " + Cluster.read(prometheusLog));
      }
      try {
        return http.send(HttpRequest.newBuilder(URI.create(base() + "/-/ready")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
      } catch (IOException e) {
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }, "prometheus ready");
  }

  private String base() {
    return "http://127.0.0.1:" + prometheusPort;
  }

  private String get(String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(20)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new AssertionError("GET " + path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private JsonNode query(String expr) {
    return json(get("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8)));
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  private int targetsUp() {
    try {
      int up = 0;
      for (JsonNode t : JSON.readTree(get("/api/v1/targets")).path("data").path("activeTargets")) {
        up += "up".equals(t.path("health").asText()) ? 1 : 0;
      }
      return up;
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private String scrape(int port) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new AssertionError("scrape of " + port + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Each query, and how many series it found (written to target/ for the record). */
  private String report(List<DashboardJson.Query> queries, Map<String, String> variables) {
    StringBuilder sb = new StringBuilder();
    for (DashboardJson.Query q : queries) {
      JsonNode r = query(DashboardJson.substitute(q.expr(), variables));
      sb.append(r.path("data").path("result").size()).append(" series\t").append(q.panel()).append(' ')
          .append(q.refId()).append('\t').append(q.expr()).append('\n');
    }
    return sb.toString();
  }

  private String diagnostics() {
    StringBuilder sb = new StringBuilder();
    if (prometheusLog != null) {
      String log = Cluster.read(prometheusLog);
      sb.append("==== prometheus.log\n").append(log.length() > 3000 ? log.substring(log.length() - 3000) : log).append('\n');
    }
    for (Map.Entry<String, Cluster> c : colonies.entrySet()) {
      sb.append("==== colony ").append(c.getKey()).append('\n').append(c.getValue().diagnostics());
    }
    return sb.toString();
  }

  /** The closed sets each label of a colony_* series may take its values from. */
  static final class Closed {
    private final Map<String, Set<String>> values = new TreeMap<>();
    private final Set<String> queues = new TreeSet<>();
    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? \\S+.*$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    Closed(Map<String, Cluster> colonies) throws IOException {
      values.put("colony", new TreeSet<>(colonies.keySet()));
      Set<String> ants = new TreeSet<>();
      for (Cluster c : colonies.values()) {
        try (Stream<Path> s = Files.list(c.dir.resolve("ants"))) {
          s.map(p -> p.getFileName().toString().replaceFirst("\\.ya?ml$", "")).forEach(ants::add);
        }
        Matcher polling = Pattern.compile(" polling '([^']+)'").matcher(logs(c));
        while (polling.find()) {
          queues.add(polling.group(1));
        }
      }
      values.put("ant", ants);
      values.put("engine", Set.of("claude", "gemini", "command", "none"));
      Set<String> outcomes = new TreeSet<>();
      Arrays.stream(Outcome.values()).map(Outcome::configName).forEach(outcomes::add);
      Arrays.stream(AntMetrics.Unfinished.values()).map(AntMetrics.Unfinished::label).forEach(outcomes::add);
      values.put("outcome", outcomes);
      values.put("type", Set.of("input", "output"));
      Set<String> kinds = new TreeSet<>(Set.of("path", "channel", "other", AntFailure.PARKED, AntFailure.UNRESPONSIVE,
          AntFailure.BUDGET, AntFailure.ESCALATED, AntFailure.RESUMED, AntFailure.ABORTED));
      Arrays.stream(AntMetrics.Wait.values()).map(AntMetrics.Wait::label).forEach(kinds::add);
      values.put("kind", kinds);
      values.put("window", Set.of("daily", "monthly"));
      Set<String> reasons = new TreeSet<>(Set.of("confirmation", "parked", "escalated", "billing", "auth", "budget",
          "sandbox", "other"));
      Arrays.stream(AntMetrics.Park.values()).map(AntMetrics.Park::label).forEach(reasons::add);
      Arrays.stream(AntMetrics.Rework.values()).map(AntMetrics.Rework::label).forEach(reasons::add);
      values.put("reason", reasons);
      values.put("decision", Arrays.stream(AntMetrics.Decision.values()).map(AntMetrics.Decision::label)
          .collect(java.util.stream.Collectors.toCollection(TreeSet::new)));
      values.put("repo", Set.of("app"));
      values.put("result", Arrays.stream(AntMetrics.TestResult.values()).map(AntMetrics.TestResult::label)
          .collect(java.util.stream.Collectors.toCollection(TreeSet::new)));
      Set<String> states = new TreeSet<>();
      Arrays.stream(Lifecycle.values()).map(Lifecycle::configName).forEach(states::add);
      Arrays.stream(TaskState.values()).map(TaskState::word).forEach(states::add);
      Arrays.stream(ItemState.values()).map(s -> s.name().toLowerCase(Locale.ROOT)).forEach(states::add);
      values.put("state", states);
      values.put("namespace", Set.of("default"));
      // The Temporal SDK's own tag keys, on every series of its scope (workflow code's too): "none"
      // where they do not apply, which is everywhere on colony_* series (docs/observability.md).
      for (String temporal : List.of("activity_type", "exception", "operation", "query_type", "signal_name",
          "status_code", "worker_type")) {
        values.put(temporal, Set.of("none"));
      }
      // The workflow types Colony registers: each interface's @WorkflowMethod name.
      Set<String> types = new TreeSet<>();
      for (Class<?> w : List.of(dev.colony.ant.AntWorkflow.class, dev.colony.supervision.ColonyWorkflow.class,
          dev.colony.merge.MergeQueueWorkflow.class, dev.colony.task.TaskWorkflow.class,
          dev.colony.lease.LeaseWorkflow.class, dev.colony.trigger.RepoWatcher.class)) {
        types.add(io.temporal.common.metadata.POJOWorkflowInterfaceMetadata.newInstance(w).getWorkflowType().orElseThrow());
      }
      values.put("workflow_type", types);
    }

    private static String logs(Cluster c) {
      StringBuilder sb = new StringBuilder();
      try (Stream<Path> s = Files.list(c.logs)) {
        s.sorted().forEach(p -> sb.append(Cluster.read(p)));
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return sb.toString();
    }

    /** Every colony_* label value of {@code body} outside its closed set, one line each. */
    List<String> check(String who, String body) {
      Set<String> wrong = new TreeSet<>();
      int checked = 0;
      for (String line : body.split("\n")) {
        if (line.startsWith("#") || !line.startsWith("colony_")) {
          continue;
        }
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
          wrong.add(who + ": unreadable line " + line);
          continue;
        }
        checked++;
        Matcher l = LABEL.matcher(m.group(2) == null ? "" : m.group(2));
        while (l.find()) {
          String key = l.group(1);
          String value = l.group(2);
          boolean ok = switch (key) {
            case "le" -> value.equals("+Inf") || value.matches("[0-9.eE+-]+");
            case "task_queue" -> queues.contains(value) || queues.stream().anyMatch(q -> value.startsWith(q + "@"));
            default -> values.containsKey(key) && values.get(key).contains(value);
          };
          if (!ok) {
            wrong.add(who + ": " + m.group(1).replaceFirst("_(bucket|count|sum|max)$", "") + " has " + key + "=\"" + value + "\""
                + (values.containsKey(key) || key.equals("le") || key.equals("task_queue")
                    ? ", not in " + (key.equals("task_queue") ? queues : values.get(key)) : " (a label key outside the closed set)"));
          }
        }
      }
      if (checked == 0) {
        wrong.add(who + ": no colony_* series in its scrape");
      }
      return List.copyOf(wrong);
    }
  }
}
