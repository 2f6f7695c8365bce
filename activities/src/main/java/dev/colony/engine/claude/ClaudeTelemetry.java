package dev.colony.engine.claude;

import dev.colony.spec.AntSpec;
import dev.colony.spec.EngineKind;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Claude Code's own telemetry (its OpenTelemetry metrics and events), when the ant turns it on
 * ({@code claude.telemetry: true}; off by default): the session's agent is given
 * {@code CLAUDE_CODE_ENABLE_TELEMETRY=1}, the worker's OTLP exporter settings (endpoint, protocol,
 * intervals; {@code otlp} exporters unless the worker says otherwise) and
 * {@code OTEL_RESOURCE_ATTRIBUTES} naming the colony, the ant, the session and the run, so its
 * data lines up with the session's trace.
 *
 * <p>Never the worker's {@code OTEL_EXPORTER_OTLP_HEADERS} (a collector's token): a sandboxed
 * session gets it only when the ant's {@code sandbox.secrets} names it, as any secret.
 */
public final class ClaudeTelemetry {
  private ClaudeTelemetry() {}

  /** The worker's settings handed on as they are (never the headers). */
  static final List<String> PASSED = List.of("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
      "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
      "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
      "OTEL_METRIC_EXPORT_INTERVAL", "OTEL_LOGS_EXPORT_INTERVAL");
  // Not OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER: on the worker they say whether Colony pushes its
  // own metrics (none stops that); the agent always exports over OTLP once its ant turns telemetry on.

  /** Whether {@code spec}'s sessions export Claude Code's telemetry. */
  public static boolean on(AntSpec spec) {
    return spec.engine() == EngineKind.CLAUDE && spec.claude() != null && spec.claude().telemetryOn();
  }

  /** The variables for session {@code session} of {@code spec} (empty when its telemetry is off). */
  public static Map<String, String> variables(AntSpec spec, int session, String runId, Map<String, String> worker) {
    Map<String, String> env = new LinkedHashMap<>();
    if (!on(spec)) {
      return env;
    }
    env.put("CLAUDE_CODE_ENABLE_TELEMETRY", "1");
    env.put("OTEL_METRICS_EXPORTER", "otlp");
    env.put("OTEL_LOGS_EXPORTER", "otlp");
    for (String name : PASSED) {
      String v = worker.get(name);
      if (v != null && !v.isBlank()) {
        env.put(name, v);
      }
    }
    String own = "colony.name=" + encode(spec.colony()) + ",colony.ant=" + encode(spec.name())
        + ",colony.session=" + session + ",colony.run_id=" + encode(runId == null ? "" : runId);
    String theirs = worker.get("OTEL_RESOURCE_ATTRIBUTES");
    env.put("OTEL_RESOURCE_ATTRIBUTES", theirs == null || theirs.isBlank() ? own : theirs.strip() + "," + own);
    return env;
  }

  /** The endpoints the agent sends to (for its sandbox's allow list): the URLs it was given. */
  public static List<String> endpoints(AntSpec spec, Map<String, String> worker) {
    if (!on(spec)) {
      return List.of();
    }
    return PASSED.stream().filter(n -> n.endsWith("_ENDPOINT")).map(worker::get)
        .filter(v -> v != null && !v.isBlank()).toList();
  }

  /** W3C Baggage's encoding of a value (what OTEL_RESOURCE_ATTRIBUTES is read with). */
  private static String encode(String v) {
    return URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
