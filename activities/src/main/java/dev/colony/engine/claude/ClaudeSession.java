package dev.colony.engine.claude;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colony.engine.Processes;
import dev.colony.engine.SessionCancelledException;
import dev.colony.engine.SessionContext;
import dev.colony.errorpolicy.Outcome;
import dev.colony.toolgate.ToolGate;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Claude Code CLI process and what it has told us so far: it reads the stream-json
 * output, keeps the transcript, narrates the turns, answers permission requests through the
 * session's confirmer, and stops the process on an interrupt.
 */
final class ClaudeSession {
  private static final Logger log = LoggerFactory.getLogger(ClaudeSession.class);
  final SessionContext ctx;
  final Process process;
  final OutputStream stdin;
  final ClaudeOutcome.Observed observed = new ClaudeOutcome.Observed();
  final StringBuilder stderr = new StringBuilder();
  final Map<String, JsonNode> toolUses = new HashMap<>();
  final ExecutorService permissions = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "claude-permission");
    t.setDaemon(true);
    return t;
  });
  volatile String sessionId;
  private boolean stdinOpen = true;
  /**
   * Each assistant message's token usage and model, by message id: the stream repeats a message's
   * usage with each of its content blocks, so the last one of an id counts.
   */
  private final Map<String, JsonNode> usage = new java.util.LinkedHashMap<>();
  private final Map<String, String> models = new HashMap<>();

  ClaudeSession(SessionContext ctx, Process process) {
    this.ctx = ctx;
    this.process = process;
    this.stdin = process.getOutputStream();
  }

  synchronized void send(String line) {
    if (!stdinOpen) {
      return;
    }
    try {
      stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      stdinOpen = false;
    }
  }

  synchronized void closeInput() {
    if (stdinOpen) {
      stdinOpen = false;
      try {
        stdin.close();
      } catch (IOException ignored) {
        // already gone
      }
    }
  }

  void kill() {
    Processes.killTree(process);
  }

  /**
   * Asks the CLI to stop the way its SDKs do (an {@code interrupt} control request), closes its
   * input so it exits, then kills it if it is still there after the grace period.
   */
  void interrupt() {
    ObjectNode request = StreamJson.JSON.createObjectNode();
    request.put("type", "control_request");
    request.put("request_id", "colony-interrupt");
    request.putObject("request").put("subtype", "interrupt");
    send(request.toString());
    closeInput();
    Processes.stopGracefully(process, ctx.guard().grace());
  }

  void readErrors() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        synchronized (stderr) {
          if (stderr.length() < 64_000) {
            stderr.append(line).append('\n');
          }
        }
      }
    } catch (IOException ignored) {
      // process gone
    }
  }

  void readAll() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
         Writer transcript = Files.newBufferedWriter(ctx.transcript())) {
      String line;
      while ((line = r.readLine()) != null) {
        ctx.guard().touch();
        ctx.overseer().activity();
        transcript.write(line);
        transcript.write('\n');
        transcript.flush();
        handle(line);
      }
    } catch (IOException e) {
      log.debug("claude output ended: {}", e.toString());
    } finally {
      closeInput();
    }
  }

  void handle(String line) {
    JsonNode m;
    try {
      m = StreamJson.JSON.readTree(line);
    } catch (IOException e) {
      return; // not JSON (a warning line): kept in the transcript only
    }
    if (m == null || !m.isObject()) {
      return;
    }
    String type = m.path("type").asText();
    switch (type) {
      case "system" -> {
        String sub = m.path("subtype").asText();
        if ("init".equals(sub) && m.hasNonNull("session_id")) {
          sessionId = m.get("session_id").asText();
          try {
            ctx.progress().beat(sessionId); // record it now: a retry resumes this conversation
          } catch (SessionCancelledException e) {
            kill();
          }
        } else if ("api_retry".equals(sub)) {
          apiRetry(m);
        }
      }
      case "api_retry" -> apiRetry(m);
      case "assistant" -> assistant(m);
      case "user" -> toolResults(m);
      case "rate_limit_event" -> {
        JsonNode info = m.path("rate_limit_info");
        if ("rejected".equals(info.path("status").asText())) {
          observed.rateLimitRejected = true;
          if (info.path("resetsAt").canConvertToLong()) {
            observed.rateLimitResetsAtMillis = info.path("resetsAt").asLong() * 1000;
          }
        }
      }
      case "result" -> {
        observed.result = m;
        if (m.hasNonNull("session_id")) {
          sessionId = m.get("session_id").asText();
        }
        ctx.overseer().spent(spentSoFar());
        closeInput();
      }
      case "control_request" -> controlRequest(m);
      default -> { }
    }
  }

  /**
   * What the session has spent so far: the CLI's {@code total_cost_usd} once its {@code result}
   * came, else an estimate from the usage of the assistant messages so far at the model's list
   * price ({@link dev.colony.engine.ModelPrices}).
   */
  double spentSoFar() {
    JsonNode r = observed.result;
    if (r != null && r.path("total_cost_usd").isNumber()) {
      return r.path("total_cost_usd").asDouble(0);
    }
    return estimatedUsd();
  }

  /** Whether {@link #spentSoFar} is an estimate from tokens (no result with its cost came). */
  boolean estimated() {
    JsonNode r = observed.result;
    return r == null || !r.path("total_cost_usd").isNumber();
  }

  /** The cost of the usage reported so far, at list prices. */
  double estimatedUsd() {
    double usd = 0;
    synchronized (usage) {
      for (Map.Entry<String, JsonNode> e : usage.entrySet()) {
        JsonNode u = e.getValue();
        usd += dev.colony.engine.ModelPrices.claudeUsd(models.getOrDefault(e.getKey(), ""),
            u.path("input_tokens").asLong(0), u.path("cache_creation_input_tokens").asLong(0),
            u.path("cache_read_input_tokens").asLong(0), u.path("output_tokens").asLong(0));
      }
    }
    return usd;
  }

  /** Input tokens (cache writes and reads included) and output tokens reported so far. */
  long[] tokensSoFar() {
    long in = 0;
    long out = 0;
    synchronized (usage) {
      for (JsonNode u : usage.values()) {
        in += u.path("input_tokens").asLong(0) + u.path("cache_creation_input_tokens").asLong(0)
            + u.path("cache_read_input_tokens").asLong(0);
        out += u.path("output_tokens").asLong(0);
      }
    }
    return new long[] {in, out};
  }

  void apiRetry(JsonNode m) {
    observed.apiRetries++;
    log.info("{}: API retry {} ({})", ctx.spec().name(), m.path("attempt").asText("?"),
        m.path("error").asText(m.path("error_status").asText("")));
    Outcome blocking = ClaudeOutcome.blockingRetry(m);
    if (blocking != null && observed.blockingRetry == null) {
      // The CLI would retry a bad key or an empty account for minutes; only a human can fix
      // either, so stop here and pause the ant now.
      observed.blockingRetry = blocking;
      observed.blockingRetryDetail = "API error " + m.path("error_status").asText("?")
          + (m.hasNonNull("error") ? " (" + m.get("error").asText() + ")" : "") + " on the first attempt; not waiting for the CLI's retries";
      kill();
    }
  }

  void assistant(JsonNode m) {
    if (m.hasNonNull("error")) {
      observed.lastAssistantError = m.get("error").asText();
    }
    JsonNode message = m.path("message");
    if (message.path("usage").isObject()) {
      String id = message.path("id").asText("");
      synchronized (usage) {
        String key = id.isEmpty() ? "#" + usage.size() : id;
        usage.put(key, message.get("usage"));
        models.put(key, message.path("model").asText(""));
      }
      ctx.overseer().spent(spentSoFar());
    }
    for (JsonNode block : m.path("message").path("content")) {
      String kind = block.path("type").asText();
      if ("text".equals(kind)) {
        observed.lastText = block.path("text").asText();
        ctx.narrator().text(observed.lastText);
        ctx.overseer().turn(dev.colony.overseer.Turn.text(observed.lastText));
      } else if ("tool_use".equals(kind)) {
        if (toolUses.put(block.path("id").asText(), block) == null) {
          ctx.guard().hold(); // a running tool is activity, however quiet
        }
      }
    }
  }

  void toolResults(JsonNode m) {
    JsonNode content = m.path("message").path("content");
    if (!content.isArray()) {
      return;
    }
    for (JsonNode block : content) {
      if (!"tool_result".equals(block.path("type").asText())) {
        continue;
      }
      JsonNode use = toolUses.remove(block.path("tool_use_id").asText());
      if (use != null) {
        ctx.guard().release();
      }
      String tool = use == null ? "tool" : use.path("name").asText("tool");
      String input = use == null ? null : StreamJson.describe(use.path("input"));
      String output = StreamJson.text(block.path("content"));
      boolean failed = block.path("is_error").asBoolean(false);
      ctx.narrator().toolUsed(tool, input, output, failed);
      ctx.overseer().turn(dev.colony.overseer.Turn.tool(tool, input, output, failed));
      whisper(ctx.overseer().take());
    }
  }

  /**
   * The overseer's whispers go in as user messages on the stream-json input: the CLI takes
   * them at the agent's next turn, and nothing is posted anywhere.
   */
  void whisper(List<String> whispers) {
    for (String w : whispers) {
      send(StreamJson.userMessage(w));
    }
  }

  void controlRequest(JsonNode m) {
    String requestId = m.path("request_id").asText();
    JsonNode req = m.path("request");
    if (!"can_use_tool".equals(req.path("subtype").asText())) {
      send(StreamJson.controlError(requestId, "unsupported control request " + req.path("subtype").asText()));
      return;
    }
    String tool = req.path("tool_name").asText();
    JsonNode input = req.path("input");
    permissions.submit(() -> {
      String response;
      String note = null;
      try {
        @SuppressWarnings("unchecked")
        Map<String, Object> map = StreamJson.JSON.convertValue(input, Map.class);
        ToolGate.Verdict v = ctx.gate().check(tool, map);
        response = v.allowed() ? StreamJson.allow(requestId, input) : StreamJson.deny(requestId, v.message());
        note = v.allowed() ? v.message() : null;
      } catch (RuntimeException e) {
        log.warn("{}: permission check for {} failed: {}", ctx.spec().name(), tool, e.toString());
        response = StreamJson.deny(requestId, "Colony could not get this call approved (" + e.getMessage() + "); do not retry it.");
      }
      send(response);
      if (note != null) {
        // An allow carries no message: the approver's note goes in as a user message, which the
        // CLI takes at the agent's next turn (as a whisper).
        send(StreamJson.userMessage(note));
      }
    });
  }
}
