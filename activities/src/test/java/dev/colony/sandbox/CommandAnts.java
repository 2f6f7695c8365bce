package dev.colony.sandbox;

import dev.colony.engine.OverseerFeed;
import dev.colony.engine.Progress;
import dev.colony.engine.SessionContext;
import dev.colony.engine.SessionGuard;
import dev.colony.engine.Transcripts;
import dev.colony.engine.command.CommandEngine;
import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The sandbox tests' ants: a {@code command} ant of colony {@code c}, and one session of it run the
 * way the worker runs one ({@link SessionWalls}, then the command engine in its walls).
 */
public final class CommandAnts {
  private CommandAnts() {}

  /** A {@code command} ant running {@code argv}, its workspaces under the colony's {@code .colony/workspaces}. */
  public static AntSpec.Builder ant(Path colony, String name, List<String> argv) {
    return AntSpec.builder().colony("c").name(name).description("d").instructions("i")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS)
        .command(new CommandSpec(argv, Map.of(), List.of()))
        .autonomy(Autonomy.HUMAN).confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL)
        .lmOutput(LmOutput.DISCORD).recovery(RecoveryPolicy.RESUME).sessionTimeoutSeconds(3600)
        .heartbeatTimeoutSeconds(30).continueAsNewEvery(100)
        .workspace(new WorkspaceSpec(colony.resolve(".colony/workspaces").toString(), null, null))
        .colonyDir(colony.toString()).sourceFile("ants/" + name + ".yaml");
  }

  /** A session's result and its whole output (its transcript). */
  public record Ran(SessionResult result, String output) {}

  /**
   * Runs session {@code session} of {@code spec} in {@code workspace}: its walls from
   * {@code SessionWalls.of} (with {@code channel}, which may be null), the command engine, and its
   * transcript under the colony's {@code .colony/transcripts/<ant>}. The walls must be made.
   */
  public static Ran run(AntSpec spec, int session, Path workspace, Map<String, String> worker,
      Map<String, String> sessionVars, Duration timeout, SessionWalls.ChannelOpener channel) throws Exception {
    return run(spec, session, workspace, worker, sessionVars, timeout, channel, dev.colony.engine.SessionMetrics.NONE);
  }

  /** {@link #run(AntSpec, int, Path, Map, Map, Duration, SessionWalls.ChannelOpener)}, counting on {@code metrics}. */
  public static Ran run(AntSpec spec, int session, Path workspace, Map<String, String> worker,
      Map<String, String> sessionVars, Duration timeout, SessionWalls.ChannelOpener channel,
      dev.colony.engine.SessionMetrics metrics) throws Exception {
    Path transcript = Path.of(spec.colonyDir(), ".colony", "transcripts", spec.name(),
        String.format("session-%05d.log", session));
    Transcripts.prepare(transcript);
    try (SessionWalls walls = SessionWalls.of(spec, workspace, worker, sessionVars, List.of(transcript.getParent()),
        spec.name() + "-" + System.nanoTime(), channel, metrics)) {
      if (walls.refusal() != null) {
        throw new AssertionError("the walls were refused: " + walls.refusal());
      }
      SessionResult r = new CommandEngine().run(new SessionContext(spec, session, "p", workspace, worker, transcript,
          timeout, Duration.ofMillis(100), Progress.NONE, null, null, SessionGuard.of(spec), OverseerFeed.NONE,
          walls.confinement()));
      return new Ran(r, Files.readString(transcript));
    }
  }
}
