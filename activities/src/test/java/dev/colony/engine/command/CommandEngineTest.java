package dev.colony.engine.command;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import org.junit.jupiter.api.Timeout;
import java.util.concurrent.TimeUnit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.engine.Progress;
import dev.colony.engine.SessionCancelledException;
import dev.colony.engine.SessionContext;
import dev.colony.errorpolicy.Outcome;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.OutcomeRule;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CommandEngineTest {
  @TempDir
  Path tmp;

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  private AntSpec spec(String script, List<OutcomeRule> rules, Map<String, String> env) {
    return AntSpec.builder().colony("c").name("a").description("desc").instructions("instr")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS)
        .command(new CommandSpec(List.of("/bin/sh", "-c", script), env, rules)).autonomy(Autonomy.HUMAN)
        .confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL).lmOutput(LmOutput.DISCORD)
        .recovery(RecoveryPolicy.RESUME).pollIntervalSeconds(0).confirmationTimeoutSeconds(1800)
        .sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(30).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec(tmp.toString(), null, null)).colonyDir(tmp.toString())
        .sourceFile("ants/a.yaml").build();
  }

  private SessionResult run(String script, List<OutcomeRule> rules) throws Exception {
    return run(spec(script, rules, Map.of()), Duration.ofSeconds(30), Progress.NONE, new CommandEngine(CLOCK));
  }

  private SessionResult run(AntSpec spec, Duration timeout, Progress progress, CommandEngine engine) throws Exception {
    return engine.run(new SessionContext(spec, 4, "the prompt\nline two", tmp, Map.of("SECRET", "s3cret"),
        tmp.resolve("t/session.log"), timeout, Duration.ofMillis(50), progress, null, null));
  }

  @Test
  void exitZeroIsSuccessWithTheLastLineAsDetail() throws Exception {
    SessionResult r = run("echo working; echo done here", List.of());
    assertEquals(Outcome.SUCCESS, r.outcome());
    assertEquals("done here", r.detail());
    assertTrue(Files.readString(tmp.resolve("t/session.log")).contains("working"));
  }

  @Test
  void nonZeroWithoutARuleIsTransient() throws Exception {
    SessionResult r = run("echo oops >&2; exit 4", List.of());
    assertEquals(Outcome.TRANSIENT, r.outcome());
    assertEquals("exit code 4: oops", r.detail());
  }

  @Test
  void theFirstMatchingRuleWinsAndCarriesTheResetTime() throws Exception {
    List<OutcomeRule> rules = List.of(
        new OutcomeRule(9, null, Outcome.PERMANENT),
        new OutcomeRule(null, "resets at (?<resetsAt>\\d+)", Outcome.RATE_LIMIT),
        new OutcomeRule(null, "retry in (?<retryAfter>\\d+)s", Outcome.RATE_LIMIT),
        new OutcomeRule(1, "billing", Outcome.BILLING));
    SessionResult at = run("echo 'limited; resets at 1767225700'; exit 1", rules);
    assertEquals(Outcome.RATE_LIMIT, at.outcome());
    assertEquals(1767225700_000L, at.resetAtEpochMillis());
    SessionResult after = run("echo 'retry in 42s'; exit 1", rules);
    assertEquals(CLOCK.millis() + 42_000, after.resetAtEpochMillis());
    SessionResult billing = run("echo 'billing problem'; exit 1", rules);
    assertEquals(Outcome.BILLING, billing.outcome());
    assertNull(billing.resetAtEpochMillis());
    // exit code 2 with "billing": the rule requires exit 1, so no rule matches
    assertEquals(Outcome.TRANSIENT, run("echo billing; exit 2", rules).outcome());
    assertEquals(Outcome.PERMANENT, run("exit 9", rules).outcome());
  }

  @Test
  void promptArrivesOnStdinAndInTheEnvironmentAndVariablesResolveOnTheWorker() throws Exception {
    AntSpec spec = spec("read first; echo \"stdin=$first env=$(echo \"$COLONY_PROMPT\" | tail -1) "
        + "session=$COLONY_SESSION key=$KEY\"", List.of(), Map.of("KEY", "${SECRET}"));
    spec = dev.colony.config.SpecReferences.resolve(spec, Map.of("SECRET", "s3cret"), new dev.colony.secrets.Secrets());
    SessionResult r = run(spec, Duration.ofSeconds(30), Progress.NONE, new CommandEngine(CLOCK));
    assertEquals("stdin=the prompt env=line two session=4 key=s3cret", r.detail());
  }

  @Test
  void aMissingProgramIsAPermanentError() throws Exception {
    AntSpec spec = spec("x", List.of(), Map.of());
    AntSpec missing = AntSpec.builder().colony(spec.colony()).name(spec.name()).description(spec.description())
        .instructions(spec.instructions()).engine(spec.engine()).claude(spec.claude()).gemini(spec.gemini())
        .command(new CommandSpec(List.of("./no-such-agent"), Map.of(), List.of())).autonomy(spec.autonomy())
        .confirmation(spec.confirmation()).toolCalls(spec.toolCalls()).lmOutput(spec.lmOutput())
        .recovery(spec.recovery()).pollIntervalSeconds(0).confirmationTimeoutSeconds(1800)
        .sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(30).continueAsNewEvery(100)
        .workspace(spec.workspace()).colonyDir(spec.colonyDir()).sourceFile(spec.sourceFile()).build();
    SessionResult r = run(missing, Duration.ofSeconds(30), Progress.NONE, new CommandEngine(CLOCK));
    assertEquals(Outcome.PERMANENT, r.outcome());
    assertTrue(r.detail().startsWith("cannot start " + tmp.resolve("no-such-agent")), r.detail());
  }

  @Test
  void aSessionOverItsBoundIsStoppedAndCountsAsTransient() throws Exception {
    AtomicInteger beats = new AtomicInteger();
    Progress counting = new Progress() {
      @Override
      public void beat(String id) {
        beats.incrementAndGet();
      }

      @Override
      public String previousConversationId() {
        return null;
      }
    };
    SessionResult r = run(spec("sleep 30", List.of(), Map.of()), Duration.ofMillis(300), counting,
        new CommandEngine());
    assertEquals(Outcome.TRANSIENT, r.outcome());
    assertTrue(r.detail().startsWith("session timed out"), r.detail());
    assertTrue(beats.get() >= 2, "heartbeats while running: " + beats.get());
  }

  @Test
  void cancellationKillsTheProcess() throws Exception {
    Path marker = tmp.resolve("finished");
    Progress cancelling = new Progress() {
      @Override
      public void beat(String id) {
        throw new SessionCancelledException(new RuntimeException("cancelled"));
      }

      @Override
      public String previousConversationId() {
        return null;
      }
    };
    assertThrows(SessionCancelledException.class, () -> run(
        spec("sleep 2; touch " + marker, List.of(), Map.of()), Duration.ofMinutes(1), cancelling, new CommandEngine()));
    // the script would touch the marker 2 s after it started: it must not, as it was killed
    throughout(Duration.ofMillis(2500), () -> Files.notExists(marker),
        () -> "the killed session must not finish its work: " + marker + " exists");
  }

  @Test
  void aHugePromptOrOneWithANulStillStartsTheAgentAndReachesItWhole() throws Exception {
    String huge = "x".repeat(200_000) + "\0tail";
    AntSpec spec = spec("echo \"stdin=$(wc -c | tr -d ' ') file=$(wc -c < \"$COLONY_PROMPT_FILE\" | tr -d ' ') "
        + "env=${#COLONY_PROMPT} perms=$(stat -c %a \"$COLONY_PROMPT_FILE\")\"", List.of(), Map.of());
    SessionResult r = new CommandEngine(CLOCK).run(new SessionContext(spec, 5, huge, tmp, Map.of(),
        tmp.resolve("t/session-00005.log"), Duration.ofSeconds(30), Duration.ofMillis(50), Progress.NONE, null, null));
    assertEquals(Outcome.SUCCESS, r.outcome(), r.detail());
    assertEquals("stdin=200005 file=200005 env=0 perms=600", r.detail());
  }

  @Test
  void aSmallPromptIsAlsoInTheEnvironmentWithoutNuls() {
    assertEquals("ab", CommandEngine.envSafe("a\0b"));
    assertEquals(null, CommandEngine.envSafe("y".repeat(CommandEngine.MAX_ENV_PROMPT_BYTES + 1)));
  }

  // ---- interrupts (urgent message, stop) and the hung-session watchdog ----

  private SessionResult runGuarded(String script, Progress progress, Duration idle, Duration grace) throws Exception {
    return new CommandEngine().run(new SessionContext(spec(script, List.of(), Map.of()), 4, "p", tmp, Map.of(),
        tmp.resolve("t/session.log"), Duration.ofMinutes(5), Duration.ofMillis(50), progress, null, null,
        new dev.colony.engine.SessionGuard(idle, grace)));
  }

  /** Beats normally a few times (the agent gets going), then reports the workflow's cancellation. */
  private static Progress cancelledAfter(int beats) {
    AtomicInteger n = new AtomicInteger();
    return new Progress() {
      @Override
      public void beat(String id) {
        if (n.incrementAndGet() > beats) {
          throw new SessionCancelledException(new RuntimeException("cancelled"));
        }
      }

      @Override
      public String previousConversationId() {
        return null;
      }
    };
  }

  @Test
  void anInterruptedAgentGetsToStopByItselfWithinTheGrace() throws Exception {
    Path ready = tmp.resolve("ready");
    String script = "trap 'echo wrapping up; exit 0' TERM; touch " + ready + "; while true; do sleep 0.05; done";
    Progress progress = new Progress() {
      @Override
      public void beat(String id) {
        if (Files.exists(ready)) {
          throw new SessionCancelledException(new RuntimeException("cancelled"));
        }
      }

      @Override
      public String previousConversationId() {
        return null;
      }
    };
    assertThrows(SessionCancelledException.class,
        () -> runGuarded(script, progress, Duration.ofMinutes(5), Duration.ofSeconds(20)));
    String transcript = Files.readString(tmp.resolve("t/session.log"));
    assertTrue(transcript.contains("wrapping up"),
        "the agent received SIGTERM and finished on its own; transcript: " + transcript);
  }

  @Test
  void anAgentThatIgnoresTheInterruptIsKilledWhenTheGraceRunsOut() throws Exception {
    Path pidFile = tmp.resolve("pid");
    String script = "trap '' TERM; echo $$ > " + pidFile + "; while true; do sleep 0.05; done";
    assertThrows(SessionCancelledException.class,
        () -> runGuarded(script, cancelledAfter(10), Duration.ofMinutes(5), Duration.ofSeconds(1)));
    long pid = Long.parseLong(Files.readString(pidFile).strip());
    // Killed when the grace ran out; the kernel may take a moment to reap it on a busy machine.
    eventually(Duration.ofSeconds(3), () -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true),
        "force-stopped after the grace");
  }

  @Test
  void aSilentSessionIsInterruptedByTheWatchdogAsATransientError() throws Exception {
    var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    var spec = spec("echo started; exec sleep 60", List.of(), Map.of());
    var guard = new dev.colony.engine.SessionGuard(Duration.ofSeconds(1), Duration.ofSeconds(2),
        new dev.colony.engine.SessionMetrics(registry).watchdog(spec));
    SessionResult r = new CommandEngine().run(new SessionContext(spec, 4, "p", tmp, Map.of(),
        tmp.resolve("t/session.log"), Duration.ofMinutes(5), Duration.ofMillis(50), Progress.NONE, null, null, guard));
    assertEquals(Outcome.TRANSIENT, r.outcome());
    assertEquals("no output for 1s; the session was interrupted", r.detail());
    // colony_watchdog_interruptions_total{colony,ant,engine="command"}: this one interruption
    assertEquals(1.0, registry.get(dev.colony.engine.SessionMetrics.WATCHDOG_INTERRUPTIONS)
        .tags("colony", spec.colony(), "ant", spec.name(), "engine", "command").counter().count());
  }

  /** A session the watchdog stops still cost what its agent said so far ({@code COLONY_COST_USD=}, the last line). */
  @Test
  void aSessionStoppedByTheWatchdogCostsWhatItsAgentSaidSoFar() throws Exception {
    SessionResult r = runGuarded("echo COLONY_COST_USD=0.40; echo COLONY_COST_USD=1.25; echo working; exec sleep 60",
        Progress.NONE, Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertEquals(Outcome.TRANSIENT, r.outcome());
    assertEquals(1.25, r.costUsd(), 1e-9, r.detail());
  }

  @Test
  void aLongButChattySessionIsNeverCutByTheWatchdog() throws Exception {
    SessionResult r = runGuarded("for i in $(seq 1 12); do echo step $i; sleep 0.25; done; echo all done",
        Progress.NONE, Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertEquals(Outcome.SUCCESS, r.outcome());
    assertEquals("all done", r.detail());
  }

  @Test
  void theAgentReportsItsCostOnALineOfItsOwn() throws Exception {
    SessionResult r = run("echo 'COLONY_COST_USD=0.25'; echo 'COLONY_COST_USD=1.5'; echo COLONY_COST_USD=nonsense; echo ok",
        List.of());
    assertEquals(1.5, r.costUsd(), 1e-9, "the last valid line counts");
    assertEquals(0, run("echo no cost here", List.of()).costUsd());
  }

  @Test
  void colonyTurnLinesAreTurnsAndWhispersLandInTheWhisperFile() throws Exception {
    var rec = new dev.colony.engine.RecordingOverseerFeed(2, "[CORRECTION] Stop rerunning make.");
    String script = String.join("\n",
        "echo 'COLONY_TURN {\"tool\":\"Bash\",\"input\":\"make\",\"result\":\"error 2\",\"error\":true}'",
        "echo 'COLONY_TURN just thinking'",
        "echo \"COLONY_TURN $(head -c 9000 /dev/zero | tr '\\000' x)\"",
        "echo 'not a turn'",
        "for i in 1 2 3 4 5 6 7 8 9 10; do [ -s \"$COLONY_WHISPER_FILE\" ] && break; sleep 0.2; done",
        "cat \"$COLONY_WHISPER_FILE\" > seen.txt");
    AntSpec spec = spec(script, List.of(), Map.of());
    SessionResult r = new CommandEngine(CLOCK).run(new SessionContext(spec, 4, "p", tmp, Map.of(),
        tmp.resolve("t/session.log"), Duration.ofSeconds(30), Duration.ofMillis(50), Progress.NONE, null, null,
        new dev.colony.engine.SessionGuard(Duration.ofMinutes(5), Duration.ofSeconds(5)), rec));
    assertEquals(Outcome.SUCCESS, r.outcome(), r.detail());
    assertEquals(2, rec.turns.size(), "the over-long line is no turn: " + rec.turns);
    assertEquals("Bash", rec.turns.get(0).name());
    assertTrue(rec.turns.get(0).error());
    assertEquals("just thinking", rec.turns.get(1).input());
    assertEquals("[CORRECTION] Stop rerunning make.\n", Files.readString(tmp.resolve("seen.txt")));
    assertTrue(rec.activity > 0);
  }

  @Test
  void parseTurnReadsJsonOrText() {
    assertEquals("Edit", CommandEngine.parseTurn("{\"tool\":\"Edit\",\"input\":\"a.java\"}").name());
    assertEquals("hello", CommandEngine.parseTurn("{\"text\":\"hello\"}").input());
    assertEquals("{broken", CommandEngine.parseTurn("{broken").input());
    assertEquals("plain words", CommandEngine.parseTurn("  plain words ").input());
  }

  /** Half an emoji in a prompt never fails the session before the agent starts: it is written as '?'. */
  @org.junit.jupiter.api.Test
  void aLoneSurrogateInThePromptCannotFailThePromptFile() throws Exception {
    Path file = CommandEngine.writePromptFile(tmp.resolve("s1.log"), "look at this \ud83d and \ud83d\udc1c");
    assertEquals("look at this ? and \ud83d\udc1c", Files.readString(file));
  }
}
