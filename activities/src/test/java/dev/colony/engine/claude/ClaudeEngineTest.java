package dev.colony.engine.claude;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.autonomy.ConfirmationDecision;
import dev.colony.autonomy.ConfirmationRequest;
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
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The Claude engine against a fake claude process replaying recorded stream-json. */
@Timeout(30)
class ClaudeEngineTest {
  @TempDir
  Path tmp;

  private Path fake;
  private Path bin;
  private final List<String> posts = new CopyOnWriteArrayList<>();
  private final List<String> beats = new CopyOnWriteArrayList<>();
  private final List<ConfirmationRequest> asked = new CopyOnWriteArrayList<>();
  private final ByteArrayOutputStream console = new ByteArrayOutputStream();
  private volatile String previousConversation;
  private volatile boolean humanApproves = true;
  private volatile String humanNote;

  static final String INIT = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"sess-42\",\"model\":\"claude-x\",\"tools\":[\"Bash\",\"Read\"]}";

  static String result(String subtype, boolean isError, String extra) {
    return "{\"type\":\"result\",\"subtype\":\"" + subtype + "\",\"is_error\":" + isError
        + ",\"num_turns\":3,\"total_cost_usd\":0.25,\"usage\":{\"input_tokens\":1200,\"output_tokens\":340},"
        + "\"result\":\"all done\",\"session_id\":\"sess-42\"" + extra + "}";
  }

  static String assistantText(String text) {
    return "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}}";
  }

  static String assistantError(String error) {
    return "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"API Error\"}]},\"error\":\"" + error + "\"}";
  }

  @BeforeEach
  void setUp() throws Exception {
    fake = Files.createDirectories(tmp.resolve("fake"));
    bin = FakeClaude.install(tmp);
  }

  private AntSpec spec(Autonomy autonomy, RecoveryPolicy recovery, ToolCallLogging tools, LmOutput lm) {
    return AntSpec.builder().colony("c").name("coder").description("writes code").instructions("do it")
        .engine(EngineKind.CLAUDE).claude(new ClaudeSpec("claude-sonnet-4-5", 40, 2.5))
        .gemini(GeminiSpec.DEFAULTS).discordChannel("dev").autonomy(autonomy)
        .confirmation(ConfirmationSpec.NONE).toolCalls(tools).lmOutput(lm).recovery(recovery)
        .pollIntervalSeconds(0).confirmationTimeoutSeconds(1800).sessionTimeoutSeconds(3600)
        .heartbeatTimeoutSeconds(30).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec(tmp.toString(), null, null)).colonyDir(tmp.toString())
        .sourceFile("ants/coder.yaml").build();
  }

  private dev.colony.engine.OverseerFeed overseer = dev.colony.engine.OverseerFeed.NONE;
  private dev.colony.engine.SessionGuard guard;

  static String assistantUsage(String id, long in, long cacheWrite, long cacheRead, long out) {
    return "{\"type\":\"assistant\",\"message\":{\"id\":\"" + id + "\",\"model\":\"claude-sonnet-4-5\","
        + "\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"working\"}],\"usage\":{"
        + "\"input_tokens\":" + in + ",\"cache_creation_input_tokens\":" + cacheWrite
        + ",\"cache_read_input_tokens\":" + cacheRead + ",\"output_tokens\":" + out + "}}}";
  }

  /**
   * A session the idle watchdog stops never sends its result (the only message with the cost):
   * what it spent is estimated from its assistant messages' usage at the model's list price, each
   * message counted once however many content blocks repeat it, and the feed hears it as it goes.
   */
  @Test
  void aSessionStoppedBeforeItsResultCostsItsTokensSoFar() throws Exception {
    List<Double> spent = new CopyOnWriteArrayList<>();
    overseer = new dev.colony.engine.OverseerFeed() {
      @Override
      public void turn(dev.colony.overseer.Turn turn) {}

      @Override
      public List<String> take() {
        return List.of();
      }

      @Override
      public void activity() {}

      @Override
      public void close() {}

      @Override
      public void spent(double usd) {
        spent.add(usd);
      }
    };
    guard = new dev.colony.engine.SessionGuard(Duration.ofMillis(700), Duration.ofMillis(300));
    SessionResult r = run(INIT,
        assistantUsage("msg_1", 1000, 2000, 10000, 500),
        assistantUsage("msg_1", 1000, 2000, 10000, 500), // the same message's next content block
        assistantUsage("msg_2", 0, 0, 0, 1000),
        "#sleep 20000");
    assertEquals(Outcome.TRANSIENT, r.outcome());
    // Sonnet: $3 in, $3.75 cache write, $0.30 cache read, $15 out per million tokens
    double expected = (1000 * 3 + 2000 * 3.75 + 10000 * 0.30 + 500 * 15 + 1000 * 15) / 1_000_000.0;
    assertEquals(expected, r.costUsd(), 1e-9, r.detail());
    assertTrue(r.detail().contains("estimated from its token usage"), r.detail());
    assertEquals(13000, r.inputTokens());
    assertEquals(1500, r.outputTokens());
    assertEquals(expected, spent.get(spent.size() - 1), 1e-9, "the feed heard the spend: " + spent);
  }

  /** Once the result came, its total_cost_usd is the figure, not the estimate. */
  @Test
  void theResultsCostReplacesTheEstimate() throws Exception {
    List<Double> spent = new CopyOnWriteArrayList<>();
    overseer = new dev.colony.engine.OverseerFeed() {
      @Override
      public void turn(dev.colony.overseer.Turn turn) {}

      @Override
      public List<String> take() {
        return List.of();
      }

      @Override
      public void activity() {}

      @Override
      public void close() {}

      @Override
      public void spent(double usd) {
        spent.add(usd);
      }
    };
    SessionResult r = run(INIT, assistantUsage("msg_1", 1000, 0, 0, 500), result("success", false, ""));
    assertEquals(0.25, r.costUsd(), 1e-9);
    assertEquals(0.25, spent.get(spent.size() - 1), 1e-9, String.valueOf(spent));
  }

  private SessionResult run(AntSpec spec, String... script) throws Exception {
    Files.write(fake.resolve("script.jsonl"), List.of(script));
    Progress progress = new Progress() {
      @Override
      public void beat(String id) {
        beats.add(String.valueOf(id));
      }

      @Override
      public String previousConversationId() {
        return previousConversation;
      }
    };
    ToolGate gate = new ToolGate(spec, 1, request -> {
      asked.add(request);
      return new ConfirmationDecision(asked.size(), humanApproves, "tester", humanNote);
    });
    Narrator narrator = new Narrator(spec, (ChatPost p) -> posts.add(p.text()), new PrintStream(console, true), "k");
    SessionContext ctx = new SessionContext(spec, 1, "Do the task", tmp,
        Map.of("COLONY_CLAUDE_BIN", bin.toString(), "FAKE_CLAUDE_DIR", fake.toString()),
        tmp.resolve("t/session.log"), Duration.ofMinutes(2), Duration.ofMillis(200), progress, gate, narrator,
        guard != null ? guard : dev.colony.engine.SessionGuard.of(spec), overseer);
    return new ClaudeEngine().run(ctx);
  }

  private SessionResult run(String... script) throws Exception {
    return run(spec(Autonomy.HUMAN, RecoveryPolicy.RESUME, ToolCallLogging.IMPACTFUL, LmOutput.DISCORD), script);
  }

  private List<String> args() throws Exception {
    return Files.readAllLines(fake.resolve("args.txt"));
  }

  @Test
  void successCarriesStatsNarrationAndTheSessionId() throws Exception {
    SessionResult r = run(INIT, assistantText("Looking at the failing test."), "#sleep 500",
        result("success", false, ""));
    assertEquals(Outcome.SUCCESS, r.outcome());
    assertEquals("all done", r.detail());
    assertEquals(3, r.turns());
    assertEquals(0.25, r.costUsd());
    assertEquals(1200, r.inputTokens());
    assertEquals(340, r.outputTokens());
    assertEquals("sess-42", r.sessionId());
    assertTrue(beats.contains("sess-42"), "the conversation id is heartbeated: " + beats);
    assertTrue(posts.contains("Looking at the failing test."), posts.toString());
    List<String> a = args();
    assertEquals(List.of("-p", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
        "--model", "claude-sonnet-4-5", "--max-turns", "40", "--max-budget-usd", "2.50",
        "--permission-prompt-tool", "stdio"), a);
    String prompt = Files.readString(fake.resolve("prompt.json"));
    assertTrue(prompt.startsWith("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"Do the task"), prompt);
    assertTrue(Files.readString(tmp.resolve("t/session.log")).contains("\"subtype\":\"init\""));
  }

  @ParameterizedTest
  @CsvSource({
      "rate_limit, RATE_LIMIT",
      "billing_error, BILLING",
      "authentication_failed, AUTH",
      "invalid_request, PERMANENT",
      "server_error, TRANSIENT",
      "max_output_tokens, TRANSIENT",
      "unknown, TRANSIENT",
      "some_value_added_next_year, TRANSIENT"})
  void assistantErrorValuesMapToCategories(String error, Outcome expected) throws Exception {
    SessionResult r = run(INIT, assistantError(error), result("success", true, ""));
    assertEquals(expected, r.outcome(), error);
  }

  @ParameterizedTest
  @CsvSource({
      "error_max_turns, MAX_TURNS",
      "error_max_budget_usd, BUDGET",
      "error_during_execution, TRANSIENT",
      "error_max_structured_output_retries, PERMANENT"})
  void resultSubtypesMapToCategories(String subtype, Outcome expected) throws Exception {
    // error subtypes count even when is_error is false, as recorded from the real CLI
    assertEquals(expected, run(INIT, result(subtype, false, "")).outcome());
  }

  @Test
  void isErrorIsAuthoritativeOverASuccessSubtype() throws Exception {
    SessionResult r = run(INIT, result("success", true, ",\"api_error_status\":529"));
    assertEquals(Outcome.TRANSIENT, r.outcome());
    assertEquals("API error 529: all done", r.detail());
    assertEquals(Outcome.AUTH, run(INIT, result("success", true, ",\"api_error_status\":401")).outcome());
    assertEquals(Outcome.BILLING, run(INIT, result("success", true, ",\"api_error_status\":402")).outcome());
  }

  @Test
  void aRejectedRateLimitEventWaitsExactlyUntilItsReset() throws Exception {
    SessionResult r = run(INIT,
        "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"allowed\",\"resetsAt\":1700000000}}",
        "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":1,\"error_status\":429}",
        "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":1893456000,\"rateLimitType\":\"five_hour\"}}",
        assistantError("rate_limit"), result("success", true, ""));
    assertEquals(Outcome.RATE_LIMIT, r.outcome());
    assertEquals(1893456000_000L, r.resetAtEpochMillis());
  }

  @Test
  void aBadKeyOrAnEmptyAccountPausesAtTheFirstApiRetryNotAfterTheCliGivesUp() throws Exception {
    // The real CLI retries a 401 about ten times (minutes) before its result; here the session
    // would otherwise run on for a minute and end in success.
    SessionResult auth = run(INIT,
        "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":1,\"max_retries\":10,\"retry_delay_ms\":600,\"error_status\":401,\"error\":\"authentication_failed\"}",
        "#sleep 60000", result("success", false, ""));
    assertEquals(Outcome.AUTH, auth.outcome(), auth.detail());
    assertTrue(auth.detail().contains("API error 401 (authentication_failed) on the first attempt"), auth.detail());
    SessionResult billing = run(INIT,
        "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":1,\"error_status\":402}",
        "#sleep 60000", result("success", false, ""));
    assertEquals(Outcome.BILLING, billing.outcome(), billing.detail());
    // an overloaded API is still left to the CLI's own retries
    assertEquals(Outcome.SUCCESS, run(INIT,
        "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":1,\"error_status\":529}",
        result("success", false, "")).outcome());
  }

  @Test
  void aCrashWithoutAResultIsTransient() throws Exception {
    SessionResult r = run(INIT, assistantText("working"), "#stderr Error: segfault in the agent", "#exit 3");
    assertEquals(Outcome.TRANSIENT, r.outcome());
    assertEquals("claude exited with code 3 without a result: Error: segfault in the agent", r.detail());
  }

  @Test
  void aMissingCliIsAPermanentErrorThatSaysHowToInstall() throws Exception {
    bin = tmp.resolve("no-such-claude");
    SessionResult r = run(INIT);
    assertEquals(Outcome.PERMANENT, r.outcome());
    assertTrue(r.detail().contains("npm install -g @anthropic-ai/claude-code"), r.detail());
  }

  private static String canUseTool(String id, String command) {
    return "{\"type\":\"control_request\",\"request_id\":\"" + id + "\",\"request\":{\"subtype\":\"can_use_tool\","
        + "\"tool_name\":\"Bash\",\"input\":{\"command\":\"" + command + "\"},\"tool_use_id\":\"tu-" + id + "\"}}";
  }

  @Test
  void permissionRequestsGoThroughTheGate() throws Exception {
    SessionResult r = run(INIT, canUseTool("r1", "ls -la"), canUseTool("r2", "git -C repo push"),
        result("success", false, ""));
    assertEquals(Outcome.SUCCESS, r.outcome());
    List<String> decisions = Files.readAllLines(fake.resolve("decisions.txt"));
    assertTrue(decisions.get(0).contains("\"request_id\":\"r1\"") && decisions.get(0).contains("\"behavior\":\"allow\""), decisions.get(0));
    assertTrue(decisions.get(0).contains("\"updatedInput\":{\"command\":\"ls -la\"}"), decisions.get(0));
    assertTrue(decisions.get(1).contains("\"request_id\":\"r2\"") && decisions.get(1).contains("\"behavior\":\"allow\""), decisions.get(1));
    assertEquals(1, asked.size(), "only the flagged call asks a human");
    assertEquals("Bash", asked.get(0).tool());
    assertEquals("`git -C repo push`", asked.get(0).summary());
  }

  @Test
  void aHumanDenialReachesTheAgent() throws Exception {
    humanApproves = false;
    run(INIT, canUseTool("r1", "sudo rm -rf /"), result("success", false, ""));
    String d = Files.readString(fake.resolve("decisions.txt"));
    assertTrue(d.contains("\"behavior\":\"deny\"") && d.contains("denied by tester"), d);
  }

  @Test
  void aHumanApprovalsNoteReachesTheAgent() throws Exception {
    humanNote = "only origin main, once";
    SessionResult r = run(INIT, canUseTool("r1", "git push origin main"), "#await-user", result("success", false, ""));
    assertEquals(Outcome.SUCCESS, r.outcome(), r.detail());
    String d = Files.readString(fake.resolve("decisions.txt"));
    assertTrue(d.contains("\"behavior\":\"allow\""), d);
    String told = Files.readString(fake.resolve("user-messages.jsonl"));
    assertTrue(told.contains("This Bash call was approved by tester, with a note: only origin main, once"), told);
  }

  @Test
  void strictDeniesWithoutAskingAndFullDoesNotIntercept() throws Exception {
    run(spec(Autonomy.STRICT, RecoveryPolicy.RESUME, ToolCallLogging.IMPACTFUL, LmOutput.DISCORD),
        INIT, canUseTool("r1", "curl -s x | sh"), result("success", false, ""));
    String d = Files.readString(fake.resolve("decisions.txt"));
    assertTrue(d.contains("\"behavior\":\"deny\"") && d.contains("autonomy: strict"), d);
    assertTrue(asked.isEmpty());
    Files.deleteIfExists(fake.resolve("decisions.txt"));
    SessionResult full = run(spec(Autonomy.FULL, RecoveryPolicy.RESUME, ToolCallLogging.IMPACTFUL, LmOutput.DISCORD),
        INIT, canUseTool("f1", "git push origin main"), result("success", false, ""));
    // full approves through the same channel, which works as root (the skip flag does not)
    assertEquals(Outcome.SUCCESS, full.outcome(), full.detail());
    assertFalse(args().contains("--dangerously-skip-permissions"));
    assertTrue(args().contains("--permission-prompt-tool"));
    String fd = Files.readString(fake.resolve("decisions.txt"));
    assertTrue(fd.contains("\"behavior\":\"allow\""), fd);
    assertTrue(asked.isEmpty(), "full asked a human");
  }

  @Test
  void aCliThatRefusesItsArgumentsIsAPermanentErrorNotACrashLoop() throws Exception {
    SessionResult r = run("#stderr error: unknown option '--frobnicate'", "#exit 1");
    assertEquals(Outcome.PERMANENT, r.outcome(), r.detail());
    SessionResult root = run("#stderr --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons", "#exit 1");
    assertEquals(Outcome.PERMANENT, root.outcome(), root.detail());
  }

  @Test
  void aRetriedAttemptResumesTheConversationUnlessRecoveryIsClean() throws Exception {
    previousConversation = "sess-41";
    run(INIT, result("success", false, ""));
    List<String> a = args();
    assertEquals("sess-41", a.get(a.indexOf("--resume") + 1));
    assertTrue(Files.readString(fake.resolve("prompt.json")).contains("restarted"));
    // With recovery: clean the activity never hands a previous conversation to the engine.
    previousConversation = null;
    run(spec(Autonomy.HUMAN, RecoveryPolicy.CLEAN, ToolCallLogging.IMPACTFUL, LmOutput.DISCORD), INIT, result("success", false, ""));
    assertFalse(args().contains("--resume"));
  }

  @Test
  void toolCallsAndNarrationAreRoutedAsConfigured() throws Exception {
    String useRead = "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Read\",\"input\":{\"file_path\":\"a.txt\"}}]}}";
    String readResult = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"hello\"}]}}";
    String useBash = "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"Bash\",\"input\":{\"command\":\"make test\"}}]}}";
    String bashResult = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":[{\"type\":\"text\",\"text\":\"" + "x".repeat(5000) + "\"}]}]}}";
    run(INIT, assistantText("Checking."), useRead, readResult, useBash, bashResult, result("success", false, ""));
    assertTrue(posts.stream().noneMatch(p -> p.startsWith("🔧 Read")), "read-only tools are not logged under impactful");
    String bash = posts.stream().filter(p -> p.startsWith("🔧 Bash: `make test`")).findFirst().orElseThrow();
    assertTrue(bash.contains("[truncated, "), "long output is cut with a marker");
    assertTrue(bash.length() <= Narrator.POST_LIMIT + 60);

    posts.clear();
    run(spec(Autonomy.HUMAN, RecoveryPolicy.RESUME, ToolCallLogging.ALL, LmOutput.CONSOLE),
        INIT, assistantText("Thinking aloud."), useRead, readResult, result("success", false, ""));
    assertTrue(posts.stream().anyMatch(p -> p.startsWith("🔧 Read: a.txt")), posts.toString());
    assertTrue(posts.stream().noneMatch(p -> p.contains("Thinking aloud.")), "console narration stays off the channel");
    assertTrue(console.toString().contains("[coder] Thinking aloud."));

    posts.clear();
    run(spec(Autonomy.HUMAN, RecoveryPolicy.RESUME, ToolCallLogging.OFF, LmOutput.BOTH),
        INIT, assistantText("Both places."), useBash, bashResult, result("success", false, ""));
    assertTrue(posts.contains("Both places."));
    assertTrue(posts.stream().noneMatch(p -> p.startsWith("🔧")), "tool_calls: off logs nothing");
  }

  @Test
  void turnsGoToTheOverseerAndItsWhisperComesInOnStdinAtTheNextTurn() throws Exception {
    var rec = new dev.colony.engine.RecordingOverseerFeed(1, "[CORRECTION] Read the first error before rerunning.");
    overseer = rec;
    String useBash = "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{\"command\":\"make test\"}}]}}";
    String bashResult = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"FAILED: 3 tests\",\"is_error\":true}]}}";
    SessionResult r = run(INIT, useBash, bashResult, "#await-user", assistantText("Reading the error now."),
        result("success", false, ""));
    assertEquals(Outcome.SUCCESS, r.outcome(), r.detail());
    assertEquals(2, rec.turns.size(), rec.turns.toString());
    assertEquals(dev.colony.overseer.Turn.tool("Bash", "`make test`", "FAILED: 3 tests", true).name(), rec.turns.get(0).name());
    assertTrue(rec.turns.get(0).error());
    assertEquals("FAILED: 3 tests", rec.turns.get(0).result());
    assertEquals("Reading the error now.", rec.turns.get(1).input());
    String whispered = Files.readString(fake.resolve("user-messages.jsonl"));
    assertTrue(whispered.contains("\"content\":\"[CORRECTION] Read the first error before rerunning.\""), whispered);
    assertTrue(posts.stream().noneMatch(p -> p.contains("CORRECTION")), "a whisper is private: " + posts);
  }
}
