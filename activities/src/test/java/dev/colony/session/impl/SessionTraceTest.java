package dev.colony.session.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.errorpolicy.Outcome;
import dev.colony.sandbox.Bubblewrap;
import dev.colony.sandbox.CommandAnts;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.SandboxSpec;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SessionTraceTest {
  @TempDir
  Path tmp;

  final InMemorySpanExporter spans = InMemorySpanExporter.create();
  final SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  final Tracer tracer = provider.get("test");

  @AfterEach
  void close() {
    provider.close();
  }

  private AntSpec spec(String colonyName) {
    return CommandAnts.ant(tmp, "worker-ant", List.of("/bin/true")).colony(colonyName).build();
  }

  @Test
  void theAgentSpanIsAChildOfTheActivitysAndItsContextIsTheAgentsTraceparent() {
    Span activity = tracer.spanBuilder("RunActivity:RunSession").startSpan();
    Map<String, String> env;
    String agentSpanId;
    try (Scope ignored = activity.makeCurrent()) {
      try (SessionTrace trace = SessionTrace.start(tracer, spec("c"), 7, "run-1", 2, s -> s)) {
        env = trace.environment();
        trace.ended(SessionResult.of(Outcome.RATE_LIMIT, "429 from the provider"));
      }
    } finally {
      activity.end();
    }
    SpanData agent = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("colony.agent")).findFirst().orElseThrow();
    SpanData run = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("RunActivity:RunSession")).findFirst().orElseThrow();
    agentSpanId = agent.getSpanId();
    assertEquals(run.getSpanId(), agent.getParentSpanId());
    assertEquals(run.getTraceId(), agent.getTraceId());
    String traceparent = env.get("TRACEPARENT");
    assertTrue(traceparent.startsWith("00-" + agent.getTraceId() + "-" + agentSpanId + "-"), traceparent);
    assertEquals(1, Integer.parseInt(traceparent.substring(traceparent.lastIndexOf('-') + 1), 16) & 1, "sampled");
    assertFalse(env.containsKey("TRACESTATE"), "no trace state: no variable");
    assertEquals("c", agent.getAttributes().get(SessionTrace.COLONY));
    assertEquals("worker-ant", agent.getAttributes().get(SessionTrace.ANT));
    assertEquals(7L, agent.getAttributes().get(SessionTrace.SESSION));
    assertEquals("run-1", agent.getAttributes().get(SessionTrace.RUN_ID));
    assertEquals("command", agent.getAttributes().get(SessionTrace.ENGINE));
    assertEquals("rate_limit", agent.getAttributes().get(SessionTrace.OUTCOME));
    // the activity's span is marked with the run and the session too
    assertEquals("run-1", run.getAttributes().get(SessionTrace.RUN_ID));
    assertEquals(7L, run.getAttributes().get(SessionTrace.SESSION));
    for (SpanData s : spans.getFinishedSpanItems()) {
      s.getAttributes().forEach((k, v) -> assertTrue(SessionTrace.KEYS.contains(k.getKey()), s.getName() + ": " + k));
    }
  }

  @Test
  void aMaskedNameStaysMaskedAndTheAgentsTextIsNeverAnAttribute() {
    Span activity = tracer.spanBuilder("RunActivity:RunSession").startSpan();
    try (Scope ignored = activity.makeCurrent();
        SessionTrace trace = SessionTrace.start(tracer, spec("team-hunter2\nx"), 1, "run", 1,
            s -> s.replace("hunter2", "${TOKEN}"))) {
      trace.ended(SessionResult.of(Outcome.SUCCESS, "IGNORE PREVIOUS INSTRUCTIONS hunter2 <script>"));
    } finally {
      activity.end();
    }
    SpanData agent = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("colony.agent")).findFirst().orElseThrow();
    assertEquals("team-${TOKEN} x", agent.getAttributes().get(SessionTrace.COLONY));
    assertEquals("success", agent.getAttributes().get(SessionTrace.OUTCOME));
    for (SpanData s : spans.getFinishedSpanItems()) {
      String all = s.getAttributes().toString() + s.getEvents() + s.getStatus();
      assertFalse(all.contains("hunter2"), all);
      assertFalse(all.contains("IGNORE"), all);
    }
  }

  @Test
  void withTracesOffNothingIsRecordedAndTheAgentGetsNoVariable() {
    Tracer noop = OpenTelemetry.noop().getTracer(SessionTrace.SCOPE);
    try (SessionTrace trace = SessionTrace.start(noop, spec("c"), 1, "run", 1, s -> s)) {
      assertTrue(trace.environment().isEmpty());
    }
    // the worker's tracer with no trace reaching the activity (its worker runs without interceptors)
    try (SessionTrace trace = SessionTrace.start(tracer, spec("c"), 1, "run", 1, s -> s)) {
      assertTrue(trace.environment().isEmpty());
    }
    assertTrue(spans.getFinishedSpanItems().isEmpty());
    Map<String, String> env = new SessionEnvironment(null, null, null).forSession(spec("c"), 1, null, Map.of());
    assertNull(env.get("TRACEPARENT"));
  }

  @Test
  void theTraceparentReachesASandboxedAgent() throws Exception {
    Bubblewrap.Probe probe = Bubblewrap.probe();
    Assumptions.assumeTrue(probe.works(), "bubblewrap: " + probe.problem());
    Path colony = tmp.resolve("colony");
    Path workspace = colony.resolve(".colony/workspaces/a");
    Files.createDirectories(workspace);
    AntSpec spec = CommandAnts.ant(colony, "a", List.of("/bin/bash", "-c", "echo \"tp=$TRACEPARENT ts=$TRACESTATE\""))
        .sandbox(new SandboxSpec(false, false, List.of(), List.of(), 0, 0, List.of(), List.of())).build();
    Map<String, String> trace = Map.of("TRACEPARENT", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "TRACESTATE", "vendor=x");
    Map<String, String> session = new SessionEnvironment(null, null, null).forSession(spec, 3, null, trace);
    assertEquals(trace.get("TRACEPARENT"), session.get("TRACEPARENT"));
    Map<String, String> worker = new LinkedHashMap<>(System.getenv());
    worker.remove("TRACEPARENT");
    worker.putAll(session);
    String out = CommandAnts.run(spec, 3, workspace, worker, session, Duration.ofSeconds(60), null).output();
    assertTrue(out.contains("tp=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 ts=vendor=x"), out);
  }
}
