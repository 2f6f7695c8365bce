package dev.colony.overseer.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.secrets.Secrets;
import dev.colony.overseer.EvaluationRequest;
import dev.colony.overseer.OverseerSpec;
import dev.colony.overseer.Pattern;
import dev.colony.overseer.Turn;
import dev.colony.overseer.Verdict;
import io.temporal.failure.ApplicationFailure;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The evaluation activity with the real Anthropic and Gen AI SDKs against a loopback fake of each API. */
@Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class OverseerActivitiesImplTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String KEY = "sk-ant-test-0123456789abcdef";

  private FakeLlmServer api;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void start() throws Exception {
    api = new FakeLlmServer();
    env.put("ANTHROPIC_API_KEY", KEY);
    env.put("ANTHROPIC_BASE_URL", api.baseUrl());
    env.put("GEMINI_API_KEY", "gemini-test-key-0123456789");
    env.put("GEMINI_BASE_URL", api.baseUrl() + "/");
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private Verdict evaluate(OverseerSpec spec) {
    return new OverseerActivitiesImpl(dir -> env, new Secrets()).evaluate(request(spec));
  }

  static EvaluationRequest request(OverseerSpec spec) {
    return new EvaluationRequest("builder", "/tmp/colony", spec, "Standing instructions:\nFix the build.",
        List.of(Turn.tool("Bash", "mvn test", "BUILD FAILURE", true), Turn.tool("Bash", "mvn test", "BUILD FAILURE", true),
            Turn.text("Let me try again.")), 1, Pattern.SPIRALING);
  }

  @Test
  void claudeVerdictThroughTheAnthropicSdk() throws Exception {
    api.reply(200, FakeLlmServer.claude("Here is my verdict:\n" + FakeLlmServer.verdict("SPIRALING",
        "You ran mvn test three times; read the first compiler error.", "same command 3 times")));
    Verdict v = evaluate(OverseerSpec.DEFAULTS);
    assertEquals(Pattern.SPIRALING, v.pattern());
    assertEquals("You ran mvn test three times; read the first compiler error.", v.whisper());
    assertEquals("same command 3 times", v.reason());
    // The fake's usage, 321 tokens in and 45 out, at Sonnet's list price ($3 and $15 a million).
    assertEquals((321 * 3.0 + 45 * 15.0) / 1e6, v.costUsd(), 1e-12, "the call's cost");

    assertEquals(1, api.requests.size());
    FakeLlmServer.Request r = api.requests.get(0);
    assertEquals("/v1/messages", r.path());
    assertEquals(KEY, r.apiKey());
    JsonNode body = JSON.readTree(r.body());
    assertEquals("claude-sonnet-4-6", body.path("model").asText());
    assertEquals("enabled", body.path("thinking").path("type").asText(), "medium thinking by default");
    assertEquals(4096, body.path("thinking").path("budget_tokens").asInt());
    assertTrue(body.path("max_tokens").asInt() > 4096);
    assertTrue(body.toString().contains("SPIRALING: the same approach retried three or more times"), "the system prompt");
    String user = body.path("messages").get(0).path("content").toString();
    assertTrue(user.contains("1. tool FAILED Bash mvn test -> BUILD FAILURE"), user);
    assertTrue(user.contains("3. said: Let me try again."), user);
    assertTrue(user.contains("flagged SPIRALING"), "the model knows the ladder's step: " + user);
    assertFalse(r.body().contains(KEY), "the key travels in a header only");
  }

  @Test
  void okAndThinkingOff() throws Exception {
    api.reply(200, FakeLlmServer.claude(FakeLlmServer.verdict("ok", "", "")));
    Verdict v = evaluate(new OverseerSpec(null, "claude-haiku-test", "off", 20, 5, 3, 600));
    assertEquals(Pattern.OK, v.pattern());
    JsonNode body = JSON.readTree(api.requests.get(0).body());
    assertTrue(body.path("thinking").isMissingNode(), body.toString());
    assertEquals("claude-haiku-test", body.path("model").asText());
  }

  @Test
  void geminiVerdictThroughTheGenAiSdk() throws Exception {
    api.reply(200, FakeLlmServer.gemini(FakeLlmServer.verdict("DRIFT", "Back to the build.", "editing the README")));
    Verdict v = evaluate(new OverseerSpec(null, "gemini-2.5-flash", "low", 20, 5, 3, 600));
    assertEquals(Pattern.DRIFT, v.pattern());
    assertEquals("Back to the build.", v.whisper());
    // 100 prompt and 10 answer tokens at Gemini 2.5 Flash's list price ($0.30 and $2.50 a million).
    assertEquals((100 * 0.30 + 10 * 2.50) / 1e6, v.costUsd(), 1e-12, "the call's cost");
    FakeLlmServer.Request r = api.requests.get(0);
    assertTrue(r.path().endsWith("/models/gemini-2.5-flash:generateContent"), r.path());
    assertEquals("gemini-test-key-0123456789", r.apiKey());
    JsonNode body = JSON.readTree(r.body());
    assertEquals("application/json", body.path("generationConfig").path("responseMimeType").asText(), body.toString());
    assertEquals(1024, body.path("generationConfig").path("thinkingConfig").path("thinkingBudget").asInt());
  }

  @Test
  void failuresAreTypedForTheRetryPolicy() {
    record Case(int status, String type, boolean retryable) {}
    for (Case c : List.of(new Case(401, "authentication_error", false), new Case(403, "permission_error", false),
        new Case(400, "invalid_request_error", false), new Case(429, "rate_limit_error", true),
        new Case(529, "overloaded_error", true), new Case(500, "api_error", true))) {
      api.requests.clear();
      api.reply(c.status(), FakeLlmServer.claudeError(c.type(), "scripted " + c.type()));
      ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> evaluate(OverseerSpec.DEFAULTS));
      assertEquals(!c.retryable(), f.isNonRetryable(), c + ": " + f.getOriginalMessage());
      assertTrue(f.getOriginalMessage().startsWith("Anthropic API answered " + c.status()), f.getOriginalMessage());
      assertEquals(1, api.requests.size(), "no hidden SDK retries: the activity's policy owns them");
    }
  }

  @Test
  void anUnreadableAnswerOrAMissingKeyIsNotRetried() {
    api.reply(200, FakeLlmServer.claude("I think the agent is doing fine."));
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> evaluate(OverseerSpec.DEFAULTS));
    assertTrue(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().contains("without a verdict"), f.getOriginalMessage());
    assertEquals((321 * 3.0 + 45 * 15.0) / 1e6, f.getDetails().get(Double.class), 1e-12,
        "an answer that is no verdict was paid for all the same: its cost travels in the failure");

    api.reply(200, FakeLlmServer.claude("{\"verdict\": \"PANIC\"}"));
    f = assertThrows(ApplicationFailure.class, () -> evaluate(OverseerSpec.DEFAULTS));
    assertTrue(f.getOriginalMessage().contains("unknown verdict 'PANIC'"), f.getOriginalMessage());

    env.remove("ANTHROPIC_API_KEY");
    int before = api.requests.size();
    f = assertThrows(ApplicationFailure.class, () -> evaluate(OverseerSpec.DEFAULTS));
    assertTrue(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().startsWith("ANTHROPIC_API_KEY is not set"), f.getOriginalMessage());
    assertEquals(before, api.requests.size(), "no call without a key");
  }

  @Test
  void aHostileAnswerIsBounded() {
    api.reply(200, FakeLlmServer.claude(FakeLlmServer.verdict("SHALLOW", "w".repeat(50_000), "r".repeat(50_000))));
    Verdict v = evaluate(OverseerSpec.DEFAULTS);
    assertEquals(Pattern.SHALLOW, v.pattern());
    assertTrue(v.whisper().length() <= 1001 && v.reason().length() <= 301, "whisper and reason are bounded");
  }

  @Test
  void listPricesByModelFamilyWithUnknownModelsPricedAsTheFamilysMiddleTier() {
    assertEquals(3.0 + 15.0, OverseerPrices.costUsd("claude-sonnet-4-6", 1_000_000, 1_000_000), 1e-9);
    assertEquals(1.0 + 5.0, OverseerPrices.costUsd("claude-haiku-4-5", 1_000_000, 1_000_000), 1e-9);
    assertEquals(5.0 + 25.0, OverseerPrices.costUsd("claude-opus-4-5", 1_000_000, 1_000_000), 1e-9);
    assertEquals(15.0 + 75.0, OverseerPrices.costUsd("claude-opus-4-1", 1_000_000, 1_000_000), 1e-9);
    assertEquals(1.25 + 10.0, OverseerPrices.costUsd("gemini-2.5-pro", 1_000_000, 1_000_000), 1e-9);
    assertEquals(3.0 + 15.0, OverseerPrices.costUsd("claude-something-new", 1_000_000, 1_000_000), 1e-9);
    assertEquals(1.25 + 10.0, OverseerPrices.costUsd("gemini-9-ultra", 1_000_000, 1_000_000), 1e-9);
    assertEquals(0, OverseerPrices.costUsd("claude-sonnet-4-6", -5, 0), 1e-12);
  }
}
