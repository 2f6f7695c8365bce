package dev.colony.engine;

import dev.colony.spec.AntSpec;
import dev.colony.toolgate.ToolGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Everything an engine needs for one session, with {@code ${VAR}} already resolved on this
 * worker: {@code env} holds the values, and never leaves the worker.
 *
 * @param transcript file the engine writes the full session output to
 * @param gate what the ant's autonomy says about each tool call
 * @param narrator where the agent's words and tool calls go
 * @param guard the idle watchdog and the interrupt grace
 * @param overseer where turns go for the overseer, and whispers come from
 * @param confinement the walls the agent's processes run in (the ant's sandbox)
 */
public record SessionContext(
    AntSpec spec,
    int session,
    String prompt,
    Path workspace,
    Map<String, String> env,
    Path transcript,
    Duration timeout,
    Duration heartbeatInterval,
    Progress progress,
    ToolGate gate,
    Narrator narrator,
    SessionGuard guard,
    OverseerFeed overseer,
    dev.colony.sandbox.Confinement confinement) {

  public SessionContext {
    confinement = confinement == null ? dev.colony.sandbox.Confinement.NONE : confinement;
  }

  /** Without walls (engine tests). */
  public SessionContext(AntSpec spec, int session, String prompt, Path workspace, Map<String, String> env,
      Path transcript, Duration timeout, Duration heartbeatInterval, Progress progress, ToolGate gate,
      Narrator narrator, SessionGuard guard, OverseerFeed overseer) {
    this(spec, session, prompt, workspace, env, transcript, timeout, heartbeatInterval, progress, gate, narrator,
        guard, overseer, dev.colony.sandbox.Confinement.NONE);
  }

  /** Without an overseer. */
  public SessionContext(AntSpec spec, int session, String prompt, Path workspace, Map<String, String> env,
      Path transcript, Duration timeout, Duration heartbeatInterval, Progress progress, ToolGate gate,
      Narrator narrator, SessionGuard guard) {
    this(spec, session, prompt, workspace, env, transcript, timeout, heartbeatInterval, progress, gate, narrator,
        guard, OverseerFeed.NONE);
  }

  /** With the ant's own watchdog and grace. */
  public SessionContext(AntSpec spec, int session, String prompt, Path workspace, Map<String, String> env,
      Path transcript, Duration timeout, Duration heartbeatInterval, Progress progress, ToolGate gate,
      Narrator narrator) {
    this(spec, session, prompt, workspace, env, transcript, timeout, heartbeatInterval, progress, gate, narrator,
        SessionGuard.of(spec));
  }
}
