package dev.colony.engine.command;

import dev.colony.engine.Engine;
import dev.colony.engine.Processes;
import dev.colony.engine.SessionCancelledException;
import dev.colony.engine.SessionContext;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.OutcomeRule;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code command} engine: any CLI agent. Runs {@code command.argv} in the workspace with the
 * prompt on stdin, in the file {@code COLONY_PROMPT_FILE} and (up to 32 KiB) in {@code COLONY_PROMPT}; exit 0 is success; {@code command.outcomes} rules
 * map exit codes and output patterns to the error policy's outcomes.
 */
public final class CommandEngine implements Engine {
  /** Output kept in memory for rule matching; the transcript file has all of it. */
  static final int TAIL_BYTES = 256 * 1024;

  private final Clock clock;

  public CommandEngine(Clock clock) {
    this.clock = clock;
  }

  public CommandEngine() {
    this(Clock.systemUTC());
  }

  @Override
  public SessionResult run(SessionContext ctx) throws InterruptedException {
    AntSpec spec = ctx.spec();
    CommandSpec command = spec.command();
    if (command == null || command.argv().isEmpty()) {
      return SessionResult.of(Outcome.PERMANENT, "engine \"command\" needs command.argv in " + spec.sourceFile());
    }
    // The spec arrives with its references resolved (SpecReferences, on this worker).
    List<String> argv = new ArrayList<>(command.argv());
    String program = argv.get(0);
    if (program.contains("/") && !Path.of(program).isAbsolute()) {
      // Relative programs are written relative to the colony directory, like every other path.
      argv.set(0, Path.of(spec.colonyDir()).resolve(program).normalize().toString());
    }
    if (Processes.findExecutable(argv.get(0), ctx.env()) == null) {
      return SessionResult.of(Outcome.PERMANENT, "cannot start " + argv.get(0) + ": no such executable file");
    }
    // The engine's own variables, on top of what the session sees (ctx.env() unconfined; in the
    // sandbox only what it was granted).
    Map<String, String> env = new java.util.LinkedHashMap<>(command.env());
    // The prompt goes on stdin and in a file. The environment copy is only for small prompts:
    // the kernel refuses a single value over 128 KiB (E2BIG) and any value with a NUL, and one
    // long message must never stop the ant from starting at all.
    Path promptFile;
    try {
      promptFile = writePromptFile(ctx.transcript(), ctx.prompt());
    } catch (IOException e) {
      return SessionResult.of(Outcome.TRANSIENT, "cannot write the prompt file: " + e.getMessage());
    }
    env.put("COLONY_PROMPT_FILE", promptFile.toString());
    String inEnv = envSafe(ctx.prompt());
    // Too big for the environment: the prompt is in the file only (an empty value hides any
    // COLONY_PROMPT the worker's own environment has).
    env.put("COLONY_PROMPT", inEnv != null ? inEnv : "");
    env.put("COLONY_ANT", spec.name());
    env.put("COLONY_COLONY", spec.colony());
    env.put("COLONY_SESSION", Integer.toString(ctx.session()));
    env.put("COLONY_WORKSPACE", ctx.workspace().toString());
    Path whisperFile = ctx.transcript().toAbsolutePath().resolveSibling(
        ctx.transcript().getFileName().toString().replaceFirst("\\.log$", "") + ".whispers");
    try {
      Files.deleteIfExists(whisperFile);
      Files.createFile(whisperFile);
    } catch (IOException e) {
      return SessionResult.of(Outcome.TRANSIENT, "cannot create the whisper file: " + e.getMessage());
    }
    env.put("COLONY_WHISPER_FILE", whisperFile.toString());
    String previous = ctx.progress().previousConversationId();
    if (previous != null) {
      env.put("COLONY_RETRY_OF", previous);
    }

    ProcessBuilder pb = ctx.confinement().processFor(argv, ctx.env(), env, ctx.workspace()).redirectErrorStream(true);
    long started = clock.millis();
    Process process;
    try {
      Files.createDirectories(ctx.transcript().getParent());
      process = Processes.start(pb);
    } catch (IOException e) {
      return SessionResult.of(Outcome.PERMANENT, "cannot start " + argv.get(0) + ": " + e.getMessage());
    }
    String conversation = "pid-" + process.pid();
    OutputPump pump = new OutputPump(process.getInputStream(), ctx.transcript(), ctx.guard(), ctx.overseer(),
        whisperFile);
    pump.listen();
    pump.start();
    writePrompt(process, ctx.prompt());
    try {
      // Record the conversation at once, so an attempt retried after a crash knows it.
      ctx.progress().beat(conversation);
      long deadline = started + ctx.timeout().toMillis();
      while (!process.waitFor(ctx.heartbeatInterval().toMillis(), TimeUnit.MILLISECONDS)) {
        ctx.progress().beat(conversation);
        if (clock.millis() >= deadline) {
          Processes.killTree(process);
          pump.join(2000);
          return new SessionResult(Outcome.TRANSIENT,
              "session timed out after " + ctx.timeout().toSeconds() + "s and was stopped",
              null, pump.turns(), pump.spent(), 0, 0, clock.millis() - started, conversation, ctx.transcript().toString());
        }
        if (ctx.guard().idle()) {
          // Hung: no output for the idle timeout. Interrupted like an urgent message (grace, then kill).
          Processes.stopGracefully(process, ctx.guard().grace());
          pump.join(2000);
          return new SessionResult(Outcome.TRANSIENT, ctx.guard().interrupted(), null, pump.turns(), pump.spent(), 0, 0,
              clock.millis() - started, conversation, ctx.transcript().toString());
        }
      }
    } catch (SessionCancelledException e) {
      // Interrupted (urgent message, stop): SIGTERM, interrupt_grace to finish, then kill.
      Processes.stopGracefully(process, ctx.guard().grace());
      pump.join(2000); // what the agent said while it stopped belongs in the transcript
      throw e;
    } catch (InterruptedException e) {
      // The worker is shutting down: record where we were, then stop the agent. The session is
      // retried elsewhere once the heartbeat times out.
      try {
        ctx.progress().beat(conversation);
      } catch (RuntimeException ignored) {
        // best effort
      }
      Processes.killTree(process);
      throw e;
    }
    pump.join(5000);
    int exit = process.exitValue();
    SessionResult r = classify(command, exit, pump.tail(), clock.millis() - started, conversation,
        ctx.transcript().toString());
    // The turns the agent reported with COLONY_TURN lines are its turns; its last cost line counts,
    // even when it scrolled out of the output's tail.
    double cost = pump.cost >= 0 ? pump.cost : r.costUsd();
    return pump.turns() == 0 && cost == r.costUsd() ? r : new SessionResult(r.outcome(), r.detail(),
        r.resetAtEpochMillis(), pump.turns() == 0 ? r.turns() : pump.turns(), cost, r.inputTokens(), r.outputTokens(),
        r.durationMillis(), r.sessionId(), r.transcript());
  }

  SessionResult classify(CommandSpec command, int exit, String output, long durationMillis,
      String conversation, String transcript) {
    for (OutcomeRule rule : command.outcomes()) {
      if (rule.exitCode() != null && rule.exitCode() != exit) {
        continue;
      }
      Matcher m = null;
      if (rule.pattern() != null) {
        m = Pattern.compile(rule.pattern(), Pattern.MULTILINE).matcher(output);
        if (!m.find()) {
          continue;
        }
      }
      Long resetAt = m == null ? null : resetTime(m);
      String detail = m == null ? lastLine(output, exit) : m.group().strip();
      return new SessionResult(rule.outcome(), detail, resetAt, 0, cost(output), 0, 0, durationMillis,
          conversation, transcript);
    }
    Outcome outcome = exit == 0 ? Outcome.SUCCESS : Outcome.TRANSIENT;
    return new SessionResult(outcome, lastLine(output, exit), null, 0, cost(output), 0, 0, durationMillis,
        conversation, transcript);
  }

  /** What the agent said the session cost: its last {@code COLONY_COST_USD=<amount>} line; 0 when none. */
  static double cost(String output) {
    Matcher m = COST.matcher(output);
    double cost = 0;
    while (m.find()) {
      try {
        double v = Double.parseDouble(m.group(1));
        cost = Double.isFinite(v) && v >= 0 && v < 1_000_000 ? v : cost;
      } catch (NumberFormatException ignored) {
        // not a number: ignored
      }
    }
    return cost;
  }

  private static final Pattern COST = Pattern.compile("^COLONY_COST_USD=([0-9]{1,9}(?:\\.[0-9]{1,9})?)\\s*$",
      Pattern.MULTILINE);

  private Long resetTime(Matcher m) {
    String at = group(m, "resetsAt");
    if (at != null) {
      return Long.parseLong(at) * 1000;
    }
    String after = group(m, "retryAfter");
    if (after != null) {
      return clock.millis() + Long.parseLong(after) * 1000;
    }
    return null;
  }

  private static String group(Matcher m, String name) {
    try {
      String v = m.group(name);
      return v != null && v.matches("\\d{1,12}") ? v : null;
    } catch (IllegalArgumentException noSuchGroup) {
      return null;
    }
  }

  static String lastLine(String output, int exit) {
    // A cost report is bookkeeping, not what the session came to.
    String[] lines = COST.matcher(output).replaceAll("").strip().split("\\R");
    String last = lines.length == 0 ? "" : lines[lines.length - 1].strip();
    if (exit == 0) {
      return last;
    }
    return "exit code " + exit + (last.isEmpty() ? "" : ": " + last);
  }

  /** The longest prompt also passed in {@code COLONY_PROMPT} (well under the kernel's 128 KiB). */
  static final int MAX_ENV_PROMPT_BYTES = 32 * 1024;

  /** The prompt as an environment value, or null when it is too big for one. */
  static String envSafe(String prompt) {
    String clean = prompt.replace("\0", "");
    return clean.getBytes(StandardCharsets.UTF_8).length <= MAX_ENV_PROMPT_BYTES ? clean : null;
  }

  /** Writes the prompt beside the transcript, readable by its owner only. */
  static Path writePromptFile(Path transcript, String prompt) throws IOException {
    Path dir = transcript.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    String name = transcript.getFileName().toString().replaceFirst("\\.log$", "") + ".prompt.txt";
    Path file = dir.resolve(name);
    Files.deleteIfExists(file);
    try {
      Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException notPosix) {
      Files.createFile(file);
    }
    // getBytes, not writeString: half an emoji (a lone surrogate) becomes '?' instead of failing
    // the session before the agent starts ("Input length = 1"), whatever reached the prompt.
    Files.write(file, prompt.getBytes(StandardCharsets.UTF_8));
    return file;
  }

  private static void writePrompt(Process process, String prompt) {
    try (OutputStream in = process.getOutputStream()) {
      in.write(prompt.getBytes(StandardCharsets.UTF_8));
    } catch (IOException ignored) {
      // The agent may not read stdin at all; the prompt is also in COLONY_PROMPT_FILE.
    }
  }

  /** A turn a command agent reports to its overseer: a line {@code COLONY_TURN <json or text>}. */
  static final String TURN_PREFIX = "COLONY_TURN ";
  /** Longer lines are not turns (and are not buffered). */
  static final int MAX_TURN_LINE = 8 * 1024;
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  /**
   * Reads a {@code COLONY_TURN} line's payload: a JSON object {@code {"tool", "input", "result",
   * "error"}} (a tool call) or {@code {"text"}}, or plain text (something the agent said).
   */
  static dev.colony.overseer.Turn parseTurn(String payload) {
    String p = payload.strip();
    if (p.startsWith("{")) {
      try {
        com.fasterxml.jackson.databind.JsonNode n = JSON.readTree(p);
        if (n != null && n.isObject()) {
          if (n.hasNonNull("tool")) {
            return dev.colony.overseer.Turn.tool(n.path("tool").asText(), n.path("input").asText(null),
                n.path("result").asText(null), n.path("error").asBoolean(false));
          }
          return dev.colony.overseer.Turn.text(n.path("text").asText(p));
        }
      } catch (IOException notJson) {
        // plain text below
      }
    }
    return dev.colony.overseer.Turn.text(p);
  }

  /**
   * Copies process output to the transcript and keeps the last {@link #TAIL_BYTES} for rules.
   * With an overseer, {@code COLONY_TURN} lines are reported as turns, and the whispers that
   * come back are appended to the whisper file, one per line.
   */
  private static final class OutputPump extends Thread {
    private final InputStream in;
    private final Path transcript;
    private final dev.colony.engine.SessionGuard guard;
    private final dev.colony.engine.OverseerFeed overseer;
    private final Path whisperFile;
    private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
    private volatile int turns;
    /** The agent's last {@code COLONY_COST_USD=} line so far; -1 before any. */
    private volatile double cost = -1;
    private boolean lineTooLong;
    private final byte[] tail = new byte[TAIL_BYTES];
    private int tailLength;
    private boolean wrapped;

    OutputPump(InputStream in, Path transcript, dev.colony.engine.SessionGuard guard,
        dev.colony.engine.OverseerFeed overseer, Path whisperFile) {
      super("colony-output-pump");
      setDaemon(true);
      this.in = in;
      this.transcript = transcript;
      this.guard = guard;
      this.overseer = overseer;
      this.whisperFile = whisperFile;
    }

    /** Splits output into lines for turn reports; a line over the bound is skipped whole. */
    private void scan(byte[] buf, int n) {
      overseer.activity();
      for (int i = 0; i < n; i++) {
        byte b = buf[i];
        if (b == '\n') {
          if (!lineTooLong) {
            String l = line.toString(StandardCharsets.UTF_8);
            if (l.startsWith(TURN_PREFIX)) {
              turns++;
              overseer.turn(parseTurn(l.substring(TURN_PREFIX.length())));
              giveWhispers();
            } else if (l.startsWith("COLONY_COST_USD=")) {
              double usd = cost(l);
              if (usd > 0 || l.strip().matches("COLONY_COST_USD=0+(\\.0+)?")) {
                cost = usd; // the agent's running total: the last line counts
                overseer.spent(usd);
              }
            }
          }
          line.reset();
          lineTooLong = false;
        } else if (!lineTooLong) {
          if (line.size() >= MAX_TURN_LINE) {
            lineTooLong = true;
            line.reset();
          } else {
            line.write(b);
          }
        }
      }
    }

    /** Gives whispers the moment the overseer's verdict brings them (the agent may be waiting for one). */
    void listen() {
      overseer.onWhisper(this::giveWhispers);
    }

    /** Takes and writes under one lock, so whispers reach the file in the order they were given. */
    private synchronized void giveWhispers() {
      deliver(overseer.take());
    }

    private void deliver(List<String> whispers) {
      if (whispers.isEmpty()) {
        return;
      }
      StringBuilder sb = new StringBuilder();
      for (String w : whispers) {
        sb.append(w.replace('\n', ' ').replace('\r', ' ')).append('\n');
      }
      try {
        Files.writeString(whisperFile, sb.toString(), StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.APPEND);
      } catch (IOException e) {
        // the agent's directory is gone: it is ending anyway
      }
    }

    @Override
    public void run() {
      try (OutputStream out = Files.newOutputStream(transcript)) {
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) >= 0) {
          guard.touch();
          out.write(buf, 0, n);
          out.flush();
          append(buf, n);
          scan(buf, n);
        }
      } catch (IOException ignored) {
        // process gone; what was read is kept
      }
    }

    private synchronized void append(byte[] buf, int n) {
      for (int i = 0; i < n; i++) {
        tail[tailLength] = buf[i];
        tailLength = (tailLength + 1) % TAIL_BYTES;
        if (tailLength == 0) {
          wrapped = true;
        }
      }
    }

    int turns() {
      return turns;
    }

    /** What the agent said it spent so far (its last {@code COLONY_COST_USD=} line); 0 before any. */
    double spent() {
      return Math.max(0, cost);
    }

    synchronized String tail() {
      if (!wrapped) {
        return new String(tail, 0, tailLength, StandardCharsets.UTF_8);
      }
      byte[] ordered = new byte[TAIL_BYTES];
      System.arraycopy(tail, tailLength, ordered, 0, TAIL_BYTES - tailLength);
      System.arraycopy(tail, 0, ordered, TAIL_BYTES - tailLength, tailLength);
      return new String(ordered, StandardCharsets.UTF_8);
    }
  }
}
