package dev.colony.engine.gemini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.chat.ChatPost;
import dev.colony.engine.Narrator;
import dev.colony.engine.Progress;
import dev.colony.engine.SessionContext;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.toolgate.ToolGate;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The real Google Gen AI SDK against a local fake of the Gemini REST API. */
@Timeout(30)
class GeminiEngineTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-06-01T10:00:00Z"), ZoneOffset.UTC);

  @TempDir
  Path workspace;

  private FakeGeminiServer api;
  private final List<String> posts = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    api = new FakeGeminiServer();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private AntSpec spec(Autonomy autonomy, int maxTurns) {
    return AntSpec.builder().colony("c").name("researcher").description("d").instructions("i")
        .engine(EngineKind.GEMINI).claude(ClaudeSpec.DEFAULTS)
        .gemini(new GeminiSpec("gemini-2.5-pro", maxTurns)).discordChannel("research").autonomy(autonomy)
        .confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL).lmOutput(LmOutput.DISCORD)
        .recovery(RecoveryPolicy.RESUME).pollIntervalSeconds(0).confirmationTimeoutSeconds(1800)
        .sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(30).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec(workspace.toString(), null, null)).colonyDir(workspace.toString())
        .sourceFile("ants/r.yaml").build();
  }

  private dev.colony.engine.OverseerFeed overseer = dev.colony.engine.OverseerFeed.NONE;

  private SessionResult run(AntSpec spec, Map<String, String> env) throws Exception {
    Map<String, String> e = new HashMap<>(env);
    e.putIfAbsent("GEMINI_BASE_URL", api.baseUrl());
    ToolGate gate = new ToolGate(spec, 1, r -> new ConfirmationDecision(1, false, "tester", null));
    Narrator narrator = new Narrator(spec, (ChatPost p) -> posts.add(p.text()), new PrintStream(PrintStream.nullOutputStream()), "k");
    SessionContext ctx = new SessionContext(spec, 1, "Write hello.txt", workspace, e,
        workspace.resolve(".t/session.log"), Duration.ofMinutes(2), Duration.ofMillis(200), Progress.NONE, gate, narrator,
        dev.colony.engine.SessionGuard.of(spec), overseer);
    return new GeminiEngine(CLOCK).run(ctx);
  }

  private SessionResult run(AntSpec spec) throws Exception {
    return run(spec, Map.of("GEMINI_API_KEY", "test-key"));
  }

  @Test
  void aShortToolUsingConversation() throws Exception {
    api.reply(200, FakeGeminiServer.call("write_file", "{\"path\":\"hello.txt\",\"content\":\"hi there\"}"))
        .reply(200, FakeGeminiServer.call("run_shell", "{\"command\":\"cat hello.txt\"}"))
        .reply(200, FakeGeminiServer.text("Wrote hello.txt and checked it."));
    SessionResult r = run(spec(Autonomy.HUMAN, 100));
    assertEquals(Outcome.SUCCESS, r.outcome(), r.detail());
    assertEquals("Wrote hello.txt and checked it.", r.detail());
    assertEquals("hi there", Files.readString(workspace.resolve("hello.txt")));
    assertEquals(3, r.turns());
    assertEquals(400, r.inputTokens());
    assertEquals(50, r.outputTokens());
    assertEquals(3, api.requests.size());
    FakeGeminiServer.Request first = api.requests.get(0);
    assertTrue(first.path().endsWith("/models/gemini-2.5-pro:generateContent"), first.path());
    assertEquals("test-key", first.apiKey());
    assertTrue(first.body().contains("\"run_shell\"") && first.body().contains("Write hello.txt"), first.body());
    assertTrue(api.requests.get(2).body().contains("hi there"), "the shell output went back to the model");
    assertTrue(posts.contains("Wrote hello.txt and checked it."), posts.toString());
    assertTrue(posts.stream().anyMatch(p -> p.startsWith("🔧 run_shell: `cat hello.txt`")), posts.toString());
  }

  /** A Gemini session costs its tokens at the model's list price (2.5 Pro: $1.25 in, $10 out per million). */
  @Test
  void aSessionCostsItsTokensAtTheModelsPrice() throws Exception {
    api.reply(200, FakeGeminiServer.call("write_file", "{\"path\":\"hello.txt\",\"content\":\"hi there\"}"))
        .reply(200, FakeGeminiServer.call("run_shell", "{\"command\":\"cat hello.txt\"}"))
        .reply(200, FakeGeminiServer.text("Wrote hello.txt and checked it."));
    SessionResult r = run(spec(Autonomy.HUMAN, 100));
    assertEquals(Outcome.SUCCESS, r.outcome(), r.detail());
    assertEquals((400 * 1.25 + 50 * 10) / 1_000_000.0, r.costUsd(), 1e-12);
  }

  /** {@code gemini.price} overrides the table; a session cut short (a rate limit) still costs the calls it made. */
  @Test
  void theAntsPriceOverridesTheTableAndACutSessionCostsItsCalls() throws Exception {
    api.reply(200, FakeGeminiServer.call("write_file", "{\"path\":\"hello.txt\",\"content\":\"hi there\"}"))
        .reply(429, FakeGeminiServer.error(429, "RESOURCE_EXHAUSTED", "Too many requests", null));
    AntSpec spec = spec(Autonomy.HUMAN, 100).toBuilder().gemini(new GeminiSpec("gemini-2.5-pro", 100, 2.0, 20.0)).build();
    SessionResult r = run(spec);
    assertEquals(Outcome.RATE_LIMIT, r.outcome(), r.detail());
    assertEquals((100 * 2.0 + 10 * 20.0) / 1_000_000.0, r.costUsd(), 1e-12);
  }

  @Test
  void a429WithRetryInfoIsARateLimitUntilThatDelay() throws Exception {
    api.reply(429, FakeGeminiServer.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for metric generate_content_requests",
        "[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[]},"
            + "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"37s\"}]"));
    SessionResult r = run(spec(Autonomy.HUMAN, 100));
    assertEquals(Outcome.RATE_LIMIT, r.outcome());
    assertEquals(CLOCK.millis() + 37_000, r.resetAtEpochMillis());
    assertEquals(1, api.requests.size(), "no hidden SDK retries: the supervisor owns the wait");
  }

  @Test
  void errorShapesMapToCategories() throws Exception {
    record Case(int code, String status, String message, String details, Outcome expected) {}
    List<Case> cases = List.of(
        new Case(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
            "[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"API_KEY_INVALID\"}]", Outcome.AUTH),
        new Case(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", null, Outcome.AUTH),
        new Case(403, "PERMISSION_DENIED", "The caller does not have permission", null, Outcome.AUTH),
        new Case(403, "PERMISSION_DENIED", "Billing account for project is disabled",
            "[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"BILLING_DISABLED\"}]", Outcome.BILLING),
        new Case(429, "RESOURCE_EXHAUSTED", "Your prepayment credits are depleted.", null, Outcome.BILLING),
        new Case(429, "RESOURCE_EXHAUSTED", "Too many requests", null, Outcome.RATE_LIMIT),
        new Case(429, "RESOURCE_EXHAUSTED", "Your project has reached its monthly spend cap.", null, Outcome.BUDGET),
        new Case(500, "INTERNAL", "An internal error has occurred.", null, Outcome.TRANSIENT),
        new Case(503, "UNAVAILABLE", "The model is overloaded.", null, Outcome.TRANSIENT),
        new Case(400, "INVALID_ARGUMENT", "* GenerateContentRequest.model: unexpected model name format", null, Outcome.PERMANENT),
        new Case(404, "NOT_FOUND", "models/gemini-9 is not found", null, Outcome.PERMANENT));
    for (Case c : cases) {
      api.requests.clear();
      api.reply(c.code(), FakeGeminiServer.error(c.code(), c.status(), c.message(), c.details()));
      SessionResult r = run(spec(Autonomy.HUMAN, 100));
      assertEquals(c.expected(), r.outcome(), c.code() + " " + c.message() + " -> " + r.detail());
      assertTrue(r.detail().startsWith("Gemini API " + c.code()), r.detail());
    }
  }

  @Test
  void reachingMaxTurnsIsMaxTurns() throws Exception {
    for (int i = 0; i < 3; i++) {
      api.reply(200, FakeGeminiServer.call("list_files", "{\"path\":\".\"}"));
    }
    SessionResult r = run(spec(Autonomy.HUMAN, 2));
    assertEquals(Outcome.MAX_TURNS, r.outcome());
    assertEquals(2, api.requests.size());
  }

  @Test
  void aMissingKeyIsAnAuthErrorWithoutACall() throws Exception {
    SessionResult r = run(spec(Autonomy.HUMAN, 100), Map.of());
    assertEquals(Outcome.AUTH, r.outcome());
    assertTrue(r.detail().contains("GEMINI_API_KEY"));
    assertTrue(api.requests.isEmpty());
  }

  @Test
  void dangerousCallsAreInterceptedAndPathsStayInTheWorkspace() throws Exception {
    api.reply(200, FakeGeminiServer.call("run_shell", "{\"command\":\"touch pushed && git push origin main\"}"))
        .reply(200, FakeGeminiServer.call("read_file", "{\"path\":\"../../etc/passwd\"}"))
        .reply(200, FakeGeminiServer.text("I could not push."));
    SessionResult r = run(spec(Autonomy.STRICT, 100));
    assertEquals(Outcome.SUCCESS, r.outcome());
    assertFalse(Files.exists(workspace.resolve("pushed")), "a denied command must not run at all");
    assertTrue(api.requests.get(1).body().contains("autonomy: strict"), api.requests.get(1).body());
    assertTrue(api.requests.get(2).body().contains("outside the workspace"), api.requests.get(2).body());
  }

  @Test
  void humanDenialIsReportedToTheModel() throws Exception {
    api.reply(200, FakeGeminiServer.call("run_shell", "{\"command\":\"sudo reboot\"}"))
        .reply(200, FakeGeminiServer.text("OK, not rebooting."));
    SessionResult r = run(spec(Autonomy.HUMAN, 100));
    assertEquals(Outcome.SUCCESS, r.outcome());
    assertTrue(api.requests.get(1).body().contains("denied by tester"), api.requests.get(1).body());
  }

  @Test
  void aWhisperRidesWithTheNextToolResults() throws Exception {
    var rec = new dev.colony.engine.RecordingOverseerFeed(1, "[THINK_DEEPER] Plan before writing.");
    overseer = rec;
    api.reply(200, FakeGeminiServer.call("write_file", "{\"path\":\"a.txt\",\"content\":\"one\"}"))
        .reply(200, FakeGeminiServer.call("run_shell", "{\"command\":\"cat a.txt\"}"))
        .reply(200, FakeGeminiServer.text("Done."));
    SessionResult r = run(spec(Autonomy.FULL, 100));
    assertEquals(Outcome.SUCCESS, r.outcome(), r.detail());
    assertEquals(3, rec.turns.size(), rec.turns.toString());
    assertEquals("write_file", rec.turns.get(0).name());
    assertEquals("Done.", rec.turns.get(2).input());
    String second = api.requests.get(1).body();
    assertTrue(second.contains("[THINK_DEEPER] Plan before writing."), "with the first tool's result: " + second);
    assertEquals(1, count(api.requests.get(2).body(), "[THINK_DEEPER]"), "delivered once, then kept in the conversation");
    assertTrue(posts.stream().noneMatch(p -> p.contains("THINK_DEEPER")), "a whisper is private");
  }

  private static int count(String s, String part) {
    int n = 0;
    for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }
}
