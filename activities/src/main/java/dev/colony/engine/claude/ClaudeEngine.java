package dev.colony.engine.claude;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colony.autonomy.ToolGate;
import dev.colony.engine.Engine;
import dev.colony.engine.Processes;
import dev.colony.engine.SessionCancelledException;
import dev.colony.engine.SessionContext;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.supervisor.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code engine: claude}: the Claude Code CLI in headless stream-json mode. The prompt goes in as
 * a stream-json user message; every line that comes out is parsed (system init, assistant, user,
 * result, rate_limit_event, api_retry, control_request). Tool permission requests arrive as
 * {@code can_use_tool} control requests and are answered by the ant's {@link ToolGate}.
 */
public final class ClaudeEngine implements Engine {
  private static final Logger log = LoggerFactory.getLogger(ClaudeEngine.class);
  static final ObjectMapper JSON = new ObjectMapper();
  public static final String INSTALL_HINT =
      "install it with `npm install -g @anthropic-ai/claude-code` (Node.js 18+), or point COLONY_CLAUDE_BIN at it";

  private final Clock clock;

  public ClaudeEngine() {
    this(Clock.systemUTC());
  }

  ClaudeEngine(Clock clock) {
    this.clock = clock;
  }

  static String binary(Map<String, String> env) {
    String configured = env.get("COLONY_CLAUDE_BIN");
    return configured == null || configured.isBlank() ? "claude" : configured;
  }

  List<String> argv(SessionContext ctx, String resumeId) {
    AntSpec spec = ctx.spec();
    ClaudeSpec c = spec.claude() == null ? ClaudeSpec.DEFAULTS : spec.claude();
    List<String> argv = new ArrayList<>(List.of(binary(ctx.env()), "-p", "--output-format", "stream-json",
        "--verbose", "--input-format", "stream-json"));
    if (c.model() != null) {
      argv.addAll(List.of("--model", c.model()));
    }
    if (c.maxTurns() != null) {
      argv.addAll(List.of("--max-turns", c.maxTurns().toString()));
    }
    if (c.maxBudgetUsd() != null) {
      argv.addAll(List.of("--max-budget-usd", String.format(Locale.ROOT, "%.2f", c.maxBudgetUsd())));
    }
    // Every autonomy goes through the permission channel (full approves every call there):
    // --dangerously-skip-permissions is refused when the CLI runs as root, as in most containers.
    argv.addAll(List.of("--permission-prompt-tool", "stdio"));
    if (resumeId != null) {
      argv.addAll(List.of("--resume", resumeId));
    }
    return argv;
  }

  @Override
  public SessionResult run(SessionContext ctx) throws InterruptedException {
    String resumeId = ctx.progress().previousConversationId();
    List<String> argv = argv(ctx, resumeId);
    if (Processes.findExecutable(argv.get(0), ctx.env()) == null) {
      return SessionResult.of(Outcome.PERMANENT, "the claude CLI was not found (" + argv.get(0) + "); " + INSTALL_HINT);
    }
    ProcessBuilder pb = new ProcessBuilder(Processes.tiedToWorker(argv)).directory(ctx.workspace().toFile());
    // The agent sees the worker's environment plus the colony's .env (ANTHROPIC_API_KEY,
    // GITHUB_TOKEN for gh, ...): resolved here on the worker, never sent through Temporal.
    pb.environment().putAll(ctx.env());
    pb.redirectError(ProcessBuilder.Redirect.PIPE);
    long started = clock.millis();
    Process process;
    try {
      Files.createDirectories(ctx.transcript().getParent());
      process = pb.start();
    } catch (IOException e) {
      return SessionResult.of(Outcome.PERMANENT, "the claude CLI could not be started (" + argv.get(0) + ": "
          + e.getMessage() + "); " + INSTALL_HINT);
    }
    Session session = new Session(ctx, process);
    String prompt = resumeId == null ? ctx.prompt()
        : "The worker running this session restarted. Continue the task where you left off.\n\n" + ctx.prompt();
    session.send(userMessage(prompt));
    Thread reader = new Thread(session::readAll, "claude-reader-" + ctx.spec().name());
    reader.setDaemon(true);
    reader.start();
    Thread errReader = new Thread(session::readErrors, "claude-stderr-" + ctx.spec().name());
    errReader.setDaemon(true);
    errReader.start();
    try {
      long deadline = started + ctx.timeout().toMillis();
      while (!process.waitFor(ctx.heartbeatInterval().toMillis(), TimeUnit.MILLISECONDS)) {
        // Heartbeats are throttled and only the first goes out at once: keep it for the
        // conversation id (sent by the reader on system/init) unless init is slow to come.
        if (session.sessionId != null || clock.millis() - started > 2 * ctx.heartbeatInterval().toMillis()) {
          ctx.progress().beat(session.sessionId);
        }
        if (clock.millis() >= deadline) {
          session.kill();
          return new SessionResult(Outcome.TRANSIENT, "session timed out after " + ctx.timeout().toSeconds()
              + "s and was stopped", null, 0, 0, 0, 0, clock.millis() - started, session.sessionId,
              ctx.transcript().toString());
        }
        if (ctx.guard().idle()) {
          session.interrupt();
          return new SessionResult(Outcome.TRANSIENT, ctx.guard().idleDetail(), null, 0, 0, 0, 0,
              clock.millis() - started, session.sessionId, ctx.transcript().toString());
        }
      }
    } catch (SessionCancelledException e) {
      session.interrupt();
      throw e;
    } catch (InterruptedException e) {
      try {
        ctx.progress().beat(session.sessionId);
      } catch (RuntimeException ignored) {
        // best effort
      }
      session.kill();
      throw e;
    } finally {
      session.permissions.shutdownNow();
    }
    reader.join(5000);
    errReader.join(2000);
    ClaudeOutcome.Classified c = ClaudeOutcome.classify(session.observed, process.exitValue(), session.stderr.toString());
    JsonNode r = session.observed.result;
    int turns = r == null ? 0 : r.path("num_turns").asInt(0);
    double cost = r == null ? 0 : r.path("total_cost_usd").asDouble(0);
    long in = r == null ? 0 : r.path("usage").path("input_tokens").asLong(0);
    long out = r == null ? 0 : r.path("usage").path("output_tokens").asLong(0);
    return new SessionResult(c.outcome(), c.detail(), c.resetAtMillis(), turns, cost, in, out,
        clock.millis() - started, session.sessionId, ctx.transcript().toString());
  }

  static String userMessage(String text) {
    ObjectNode m = JSON.createObjectNode();
    m.put("type", "user");
    ObjectNode message = m.putObject("message");
    message.put("role", "user");
    message.put("content", text);
    return m.toString();
  }

  /** One running CLI process and what it has told us so far. */
  private final class Session {
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

    Session(SessionContext ctx, Process process) {
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
      ObjectNode request = JSON.createObjectNode();
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
          ctx.oversight().activity();
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
        m = JSON.readTree(line);
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
          closeInput();
        }
        case "control_request" -> controlRequest(m);
        default -> { }
      }
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
      for (JsonNode block : m.path("message").path("content")) {
        String kind = block.path("type").asText();
        if ("text".equals(kind)) {
          observed.lastText = block.path("text").asText();
          ctx.narrator().text(observed.lastText);
          ctx.oversight().turn(dev.colony.oversight.Turn.text(observed.lastText));
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
        String input = use == null ? null : describe(use.path("input"));
        String output = text(block.path("content"));
        boolean failed = block.path("is_error").asBoolean(false);
        ctx.narrator().toolUsed(tool, input, output, failed);
        ctx.oversight().turn(dev.colony.oversight.Turn.tool(tool, input, output, failed));
        whisper(ctx.oversight().take());
      }
    }

    /**
     * The supervisor's whispers go in as user messages on the stream-json input: the CLI takes
     * them at the agent's next turn, and nothing is posted anywhere.
     */
    void whisper(List<String> whispers) {
      for (String w : whispers) {
        send(userMessage(w));
      }
    }

    void controlRequest(JsonNode m) {
      String requestId = m.path("request_id").asText();
      JsonNode req = m.path("request");
      if (!"can_use_tool".equals(req.path("subtype").asText())) {
        send(controlError(requestId, "unsupported control request " + req.path("subtype").asText()));
        return;
      }
      String tool = req.path("tool_name").asText();
      JsonNode input = req.path("input");
      permissions.submit(() -> {
        String response;
        try {
          @SuppressWarnings("unchecked")
          Map<String, Object> map = JSON.convertValue(input, Map.class);
          ToolGate.Verdict v = ctx.gate().check(tool, map);
          response = v.allowed() ? allow(requestId, input) : deny(requestId, v.message());
        } catch (RuntimeException e) {
          log.warn("{}: permission check for {} failed: {}", ctx.spec().name(), tool, e.toString());
          response = deny(requestId, "Colony could not get this call approved (" + e.getMessage() + "); do not retry it.");
        }
        send(response);
      });
    }
  }

  static String allow(String requestId, JsonNode input) {
    ObjectNode body = JSON.createObjectNode();
    body.put("behavior", "allow");
    body.set("updatedInput", input == null || input.isMissingNode() ? JSON.createObjectNode() : input);
    return controlResponse(requestId, body);
  }

  static String deny(String requestId, String message) {
    ObjectNode body = JSON.createObjectNode();
    body.put("behavior", "deny");
    body.put("message", message);
    return controlResponse(requestId, body);
  }

  private static String controlResponse(String requestId, ObjectNode body) {
    ObjectNode m = JSON.createObjectNode();
    m.put("type", "control_response");
    ObjectNode response = m.putObject("response");
    response.put("subtype", "success");
    response.put("request_id", requestId);
    response.set("response", body);
    return m.toString();
  }

  private static String controlError(String requestId, String error) {
    ObjectNode m = JSON.createObjectNode();
    m.put("type", "control_response");
    ObjectNode response = m.putObject("response");
    response.put("subtype", "error");
    response.put("request_id", requestId);
    response.put("error", error);
    return m.toString();
  }

  static String describe(JsonNode input) {
    if (input.hasNonNull("command")) {
      return "`" + input.get("command").asText() + "`";
    }
    if (input.hasNonNull("file_path")) {
      return input.get("file_path").asText();
    }
    return input.toString();
  }

  static String text(JsonNode content) {
    if (content.isTextual()) {
      return content.asText();
    }
    StringBuilder sb = new StringBuilder();
    for (JsonNode c : content) {
      if (c.hasNonNull("text")) {
        sb.append(c.get("text").asText());
      }
    }
    return sb.toString();
  }
}
