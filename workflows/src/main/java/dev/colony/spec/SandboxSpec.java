package dev.colony.spec;

import java.util.List;

/**
 * The walls around an ant's sessions ({@code sandbox:} in the ant's file or the colony's
 * defaults). Holds names only: a secret is granted by the name of its variable, whose value the
 * worker resolves when a session starts.
 *
 * @param off {@code sandbox: off}: the session runs with the worker's powers (trusted setups only)
 * @param networkOpen {@code network: open}: the host's whole network instead of the allow list
 * @param allow hosts ({@code host} or {@code host:port}) the session may reach through the proxy
 * @param secrets names of variables (from the worker's environment or the colony's .env) the
 *     session sees
 * @param memoryBytes the session's memory limit, 0 for none
 * @param processes the most processes and threads the session runs at once, 0 for none
 * @param read paths the session reads (read-only), besides its workspace
 * @param write paths the session writes, besides its workspace
 */
public record SandboxSpec(boolean off, boolean networkOpen, List<String> allow, List<String> secrets,
    long memoryBytes, int processes, List<String> read, List<String> write) {

  /** What of a colony's directory is never granted: its state, its secrets, its config. */
  public static final List<String> COLONY_OWN = List.of(".colony", ".env", "colony.yaml", "ants", "schema");

  /** 2 GiB: a coding agent, its language server and a test run. */
  public static final long DEFAULT_MEMORY = 2L * 1024 * 1024 * 1024;
  /** Processes and threads at once: builds fork many; a fork bomb stops here. */
  public static final int DEFAULT_PROCESSES = 1024;

  /** On, no network but the engine's own host, default limits. */
  public static final SandboxSpec DEFAULTS = new SandboxSpec(false, false, List.of(), List.of(), DEFAULT_MEMORY,
      DEFAULT_PROCESSES, List.of(), List.of());

  /** {@code sandbox: off}. */
  public static final SandboxSpec OFF = new SandboxSpec(true, true, List.of(), List.of(), 0, 0, List.of(), List.of());

  public SandboxSpec {
    allow = allow == null ? List.of() : List.copyOf(allow);
    secrets = secrets == null ? List.of() : List.copyOf(secrets);
    read = read == null ? List.of() : List.copyOf(read);
    write = write == null ? List.of() : List.copyOf(write);
  }

  /** The spec an ant runs with: its own, else the defaults (an ant from an older history has none). */
  public static SandboxSpec of(AntSpec spec) {
    return spec.sandbox() == null ? DEFAULTS : spec.sandbox();
  }
}
