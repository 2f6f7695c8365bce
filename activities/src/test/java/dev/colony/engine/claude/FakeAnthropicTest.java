package dev.colony.engine.claude;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.UnauthorizedException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolUseBlock;
import dev.colony.fakes.FakeAnthropic;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fake Anthropic API read by Anthropic's own Java SDK: its streamed events accumulate into
 * the message it scripted (text, a tool call with its input), its plain answers parse, its usage
 * and stop reasons are Anthropic's, and a wrong key is the API's 401.
 */
@Timeout(60)
class FakeAnthropicTest {
  private static final Tool BASH = Tool.builder().name("Bash").inputSchema(Tool.InputSchema.builder().build()).build();

  private static AnthropicClient client(FakeAnthropic api, String key) {
    return AnthropicOkHttpClient.builder().apiKey(key).baseUrl(api.url()).maxRetries(0).build();
  }

  private static MessageCreateParams params(boolean tools) {
    MessageCreateParams.Builder b = MessageCreateParams.builder().model("claude-sonnet-4-5").maxTokens(1024)
        .addUserMessage("write hi to hi.txt");
    if (tools) {
      b.addTool(BASH);
    }
    return b.build();
  }

  private static Message streamed(AnthropicClient client, MessageCreateParams params) {
    MessageAccumulator acc = MessageAccumulator.create();
    try (StreamResponse<RawMessageStreamEvent> events = client.messages().createStreaming(params)) {
      events.stream().forEach(acc::accumulate);
    }
    return acc.message();
  }

  @Test
  void scriptedTurnsStreamAsAnthropicsEventsAndAnswerPlainRequestsToo() throws Exception {
    try (FakeAnthropic api = new FakeAnthropic().requireKey("sk-test")) {
      api.then(FakeAnthropic.Turn.toolUse("Bash", Map.of("command", "echo hi > hi.txt")),
          FakeAnthropic.Turn.text("Wrote hi.txt, as asked."), FakeAnthropic.Turn.text("And again."));
      AnthropicClient client = client(api, "sk-test");

      Message call = streamed(client, params(true));
      assertEquals(StopReason.TOOL_USE, call.stopReason().orElseThrow());
      ToolUseBlock use = call.content().get(0).toolUse().orElseThrow();
      assertEquals("Bash", use.name());
      assertTrue(use._input().toString().contains("echo hi > hi.txt"), use._input().toString());
      assertEquals(100, call.usage().inputTokens());
      assertEquals(30, call.usage().outputTokens());

      Message text = streamed(client, params(true));
      assertEquals(StopReason.END_TURN, text.stopReason().orElseThrow());
      assertEquals("Wrote hi.txt, as asked.", text.content().get(0).text().orElseThrow().text());

      // A side request (no tools: a title, a probe) takes nothing from the queue.
      Message side = client.messages().create(params(false));
      assertTrue(side.content().get(0).text().isPresent());
      assertEquals(1, api.pending());

      Message plain = client.messages().create(params(true));
      assertEquals("And again.", plain.content().get(0).text().orElseThrow().text());
      assertEquals(20, plain.usage().outputTokens());

      // Once the queue is empty: the closing text.
      assertEquals("Done.", streamed(client, params(true)).content().get(0).text().orElseThrow().text());
      assertEquals(5, api.requests.size());
      assertEquals(4, api.agentTurns().size());
      assertTrue(api.requests.get(0).allText().contains("write hi to hi.txt"));
      assertTrue(api.requests.stream().allMatch(r -> "sk-test".equals(r.apiKey())));

      assertThrows(UnauthorizedException.class, () -> client(api, "sk-wrong").messages().create(params(true)));
      assertEquals(0, api.pending());
    }
  }
}
