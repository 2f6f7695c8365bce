package dev.colony.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.claude.ClaudeTelemetry;
import dev.colony.spec.AntSpec;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.SandboxSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Claude Code's own telemetry: off unless the ant turns it on; then the worker's collector, never its token. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ClaudeTelemetryTest {
  static final Map<String, String> WORKER = Map.of(
      "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector.internal:4318",
      "OTEL_EXPORTER_OTLP_PROTOCOL", "http/json",
      "OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer collector-token-123",
      "OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod");

  private static AntSpec claude(Boolean telemetry) {
    return CommandAnts.ant(Path.of("/tmp/c"), "a b", List.of("/bin/true")).engine(EngineKind.CLAUDE)
        .claude(new ClaudeSpec(null, null, null, telemetry)).build();
  }

  @Test
  void offByDefault() {
    assertEquals(Map.of(), ClaudeTelemetry.variables(claude(null), 1, "run", WORKER));
    assertEquals(Map.of(), ClaudeTelemetry.variables(claude(false), 1, "run", WORKER));
    // another engine's ant has no Claude Code telemetry whatever its spec says
    AntSpec command = claude(true).toBuilder().engine(EngineKind.COMMAND).build();
    assertEquals(Map.of(), ClaudeTelemetry.variables(command, 1, "run", WORKER));
    SandboxSpec none = new SandboxSpec(false, false, List.of(), List.of(), 0, 0, List.of(), List.of());
    assertEquals(List.of("api.anthropic.com:443"), SessionWalls.allowList(claude(null), none, WORKER));
  }

  @Test
  void onTheAgentExportsToTheWorkersCollectorWithTheSessionsNames() {
    Map<String, String> v = ClaudeTelemetry.variables(claude(true), 4, "run-9", WORKER);
    assertEquals("1", v.get("CLAUDE_CODE_ENABLE_TELEMETRY"));
    assertEquals("otlp", v.get("OTEL_METRICS_EXPORTER"));
    assertEquals("otlp", v.get("OTEL_LOGS_EXPORTER"));
    assertEquals("http://collector.internal:4318", v.get("OTEL_EXPORTER_OTLP_ENDPOINT"));
    assertEquals("http/json", v.get("OTEL_EXPORTER_OTLP_PROTOCOL"));
    assertEquals("deployment.environment=prod,colony.name=c,colony.ant=a%20b,colony.session=4,colony.run_id=run-9",
        v.get("OTEL_RESOURCE_ATTRIBUTES"));
    assertFalse(v.containsKey("OTEL_EXPORTER_OTLP_HEADERS"), "the collector's token only through sandbox.secrets");
    assertFalse(v.values().stream().anyMatch(x -> x.contains("collector-token-123")));
    // the sandbox lets the agent reach that collector (and its API host)
    SandboxSpec none = new SandboxSpec(false, false, List.of(), List.of(), 0, 0, List.of(), List.of());
    assertEquals(List.of("api.anthropic.com:443", "collector.internal:4318"), SessionWalls.allowList(claude(true), none, WORKER));
  }

  @Test
  void theTokenReachesASandboxedAgentOnlyWhenTheAntDeclaresIt() throws Exception {
    Bubblewrap.Probe probe = Bubblewrap.probe();
    org.junit.jupiter.api.Assumptions.assumeTrue(probe.works(), "bubblewrap: " + probe.problem());
    Path ws = java.nio.file.Files.createTempDirectory("telemetry-ws");
    Map<String, String> session = ClaudeTelemetry.variables(claude(true), 1, "r", WORKER);
    SandboxSpec undeclared = new SandboxSpec(false, false, List.of(), List.of(), 0, 0, List.of(), List.of());
    try (SessionWalls walls = SessionWalls.of(claude(true).toBuilder().sandbox(undeclared).build(), ws, WORKER, session,
        List.of(), "telemetry-" + System.nanoTime())) {
      assertTrue(walls.granted().containsKey("CLAUDE_CODE_ENABLE_TELEMETRY"), walls.granted().toString());
      assertFalse(walls.granted().containsKey("OTEL_EXPORTER_OTLP_HEADERS"));
    }
    SandboxSpec declared = new SandboxSpec(false, false, List.of(), List.of("OTEL_EXPORTER_OTLP_HEADERS"), 0, 0, List.of(), List.of());
    try (SessionWalls walls = SessionWalls.of(claude(true).toBuilder().sandbox(declared).build(), ws, WORKER, session,
        List.of(), "telemetry-" + System.nanoTime())) {
      assertEquals(WORKER.get("OTEL_EXPORTER_OTLP_HEADERS"), walls.granted().get("OTEL_EXPORTER_OTLP_HEADERS"));
    }
  }
}
