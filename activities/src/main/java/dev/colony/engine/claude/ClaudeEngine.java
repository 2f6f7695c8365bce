package dev.colony.engine.claude;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.engine.Engine;
import dev.colony.engine.Processes;
import dev.colony.engine.SessionCancelledException;
import dev.colony.engine.SessionContext;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.ClaudeSpec;
import dev.colony.toolgate.ToolGate;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
  public static final String INSTALL_HINT =
      "install it with `npm install -g @anthropic-ai/claude-code` (Node.js 22+ with npm), or point COLONY_CLAUDE_BIN at it";

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
    // The agent sees what its session was granted (its sandbox: the engine's key and the secrets
    // its file names; with sandbox: off, the worker's environment plus the colony's .env),
    // resolved here on the worker, never sent through Temporal.
    ProcessBuilder pb = ctx.confinement().processFor(argv, ctx.env(), Map.of(), ctx.workspace());
    pb.redirectError(ProcessBuilder.Redirect.PIPE);
    long started = clock.millis();
    Process process;
    try {
      Files.createDirectories(ctx.transcript().getParent());
      process = Processes.start(pb);
    } catch (IOException e) {
      return SessionResult.of(Outcome.PERMANENT, "the claude CLI could not be started (" + argv.get(0) + ": "
          + e.getMessage() + "); " + INSTALL_HINT);
    }
    ClaudeSession session = new ClaudeSession(ctx, process);
    String prompt = resumeId == null ? ctx.prompt()
        : "The worker running this session restarted. Continue the task where you left off.\n\n" + ctx.prompt();
    session.send(StreamJson.userMessage(prompt));
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
          return stopped(session, "session timed out after " + ctx.timeout().toSeconds() + "s and was stopped",
              started, ctx);
        }
        if (ctx.guard().idle()) {
          session.interrupt();
          return stopped(session, ctx.guard().interrupted(), started, ctx);
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
    if (r == null || !r.path("total_cost_usd").isNumber()) {
      // No result with its cost (killed, crashed, cut off): what the usage so far says it spent.
      cost = session.spentSoFar();
      long[] tokens = session.tokensSoFar();
      in = Math.max(in, tokens[0]);
      out = Math.max(out, tokens[1]);
    }
    return new SessionResult(c.outcome(), c.detail(), c.resetAtMillis(), turns, cost, in, out,
        clock.millis() - started, session.sessionId, ctx.transcript().toString());
  }

  /**
   * A session Colony stopped (its time bound, the idle watchdog): no result came, so its cost is
   * estimated from the token usage of its assistant messages so far, and the detail says so.
   */
  private SessionResult stopped(ClaudeSession session, String detail, long started, SessionContext ctx) {
    double cost = session.spentSoFar();
    long[] tokens = session.tokensSoFar();
    String said = cost > 0 && session.estimated()
        ? detail + String.format(Locale.ROOT, " (about $%.2f spent, estimated from its token usage)", cost) : detail;
    ctx.overseer().spent(cost);
    return new SessionResult(Outcome.TRANSIENT, said, null, 0, cost, tokens[0], tokens[1], clock.millis() - started,
        session.sessionId, ctx.transcript().toString());
  }

}
