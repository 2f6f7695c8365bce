package dev.colony.ant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.Outcome;
import dev.colony.spec.EngineKind;
import dev.colony.supervision.AntFailure;
import dev.colony.testing.RecordingMetrics;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The closed label sets of {@link AntMetrics}, for tests that read what workflow code counted. */
public final class MetricLabels {
  private MetricLabels() {}

  /** The colony the test specs and merge queues belong to. */
  static final String COLONY = "test";

  /**
   * Every label of every colony_ series is one of its closed set: the colony's and the ants' names,
   * the enums; Temporal's own namespace, task_queue and workflow_type besides. No text of a session,
   * a confirmation or a decision is a label.
   */
  public static void assertClosed(RecordingMetrics metrics, Set<String> ants, Set<String> repos) {
    Map<String, Set<String>> allowed = new TreeMap<>();
    allowed.put("colony", Set.of(COLONY));
    allowed.put("ant", ants);
    allowed.put("repo", repos);
    allowed.put("engine", names(Stream.of(EngineKind.values()).map(EngineKind::configName)));
    allowed.put("outcome", names(Stream.concat(Stream.of(Outcome.values()).map(Outcome::configName),
        Stream.of(AntMetrics.Unfinished.values()).map(AntMetrics.Unfinished::label))));
    allowed.put("type", Set.of("input", "output"));
    allowed.put("kind", names(Stream.concat(Stream.of(AntMetrics.Wait.values()).map(AntMetrics.Wait::label),
        Stream.of(AntFailure.PARKED, AntFailure.UNRESPONSIVE, AntFailure.BUDGET, AntFailure.ESCALATED,
            AntFailure.RESUMED, AntFailure.ABORTED, "other"))));
    allowed.put("window", Set.of("daily", "monthly"));
    allowed.put("reason", names(Stream.concat(Stream.of(AntMetrics.Park.values()).map(AntMetrics.Park::label),
        Stream.of(AntMetrics.Rework.values()).map(AntMetrics.Rework::label))));
    allowed.put("decision", names(Stream.of(AntMetrics.Decision.values()).map(AntMetrics.Decision::label)));
    allowed.put("result", names(Stream.of(AntMetrics.TestResult.values()).map(AntMetrics.TestResult::label)));
    assertEquals(new TreeSet<>(AntMetrics.LABELS), new TreeSet<>(allowed.keySet()), "every label has its closed set");
    List<RecordingMetrics.Point> points = metrics.named("colony_");
    assertFalse(points.isEmpty(), "nothing was counted");
    // Prometheus' registry takes one set of label names per metric name (a meter with other keys is refused).
    Map<String, Set<String>> keys = new TreeMap<>();
    for (RecordingMetrics.Point p : points) {
      Set<String> before = keys.putIfAbsent(p.name(), p.tags().keySet());
      assertTrue(before == null || before.equals(p.tags().keySet()), p.name() + " has labels " + p.tags().keySet()
          + " and " + before);
    }
    for (RecordingMetrics.Point p : points) {
      p.tags().forEach((key, value) -> {
        if (TEMPORAL.containsKey(key)) {
          // Temporal's own (its default tags read "none" so every series of a name has the same labels)
          assertTrue(TEMPORAL.get(key).contains(value) || "none".equals(value), p.name() + ": " + key + "=" + value);
          return;
        }
        assertTrue(allowed.containsKey(key), p.name() + ": label " + key + " is not one of AntMetrics.LABELS: " + p.tags());
        assertTrue(allowed.get(key).contains(value), p.name() + ": " + key + "=" + value + " is not in its closed set");
        assertFalse(value.contains("sk-live") || value.contains("\"") || value.contains("\n"), p.name() + ": " + value);
      });
    }
  }

  /** The labels Temporal's worker puts on a workflow's scope, and the values they may take besides "none". */
  private static final Map<String, Set<String>> TEMPORAL = new TreeMap<>();

  static {
    TEMPORAL.put(io.temporal.serviceclient.MetricsTag.NAMESPACE, Set.of("default"));
    TEMPORAL.put(io.temporal.serviceclient.MetricsTag.TASK_QUEUE, Set.of("metrics", "merge-metrics"));
    TEMPORAL.put(io.temporal.serviceclient.MetricsTag.WORKFLOW_TYPE, Set.of("AntWorkflow", "MergeQueue"));
    for (String none : List.of(io.temporal.serviceclient.MetricsTag.ACTIVITY_TYPE,
        io.temporal.serviceclient.MetricsTag.EXCEPTION, io.temporal.serviceclient.MetricsTag.OPERATION_NAME,
        io.temporal.serviceclient.MetricsTag.QUERY_TYPE, io.temporal.serviceclient.MetricsTag.SIGNAL_NAME,
        io.temporal.serviceclient.MetricsTag.STATUS_CODE, io.temporal.serviceclient.MetricsTag.WORKER_TYPE)) {
      TEMPORAL.put(none, Set.of());
    }
  }

  private static Set<String> names(Stream<String> s) {
    return new TreeSet<>(s.toList());
  }
}
