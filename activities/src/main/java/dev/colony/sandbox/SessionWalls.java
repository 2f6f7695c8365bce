package dev.colony.sandbox;

import dev.colony.engine.Processes;
import dev.colony.spec.AntSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.SandboxSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one session gets: its walls ({@link Confinement}) and its environment, decided on the
 * worker from the ant's {@code sandbox:} settings. With the sandbox on, the environment is built
 * from nothing: the session's {@code COLONY_*} variables, the engine's own key, and the secrets
 * the ant's file names; none of the worker's variables, tokens or Temporal address.
 */
public final class SessionWalls implements AutoCloseable {
  /** The variables an engine's CLI needs from the worker (its key, its API host), by engine. */
  static final Map<EngineKind, List<String>> ENGINE_VARIABLES = Map.of(
      EngineKind.CLAUDE, List.of("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
          "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL", "COLONY_CLAUDE_BIN",
          // Off: the CLI's calls to its own hosts besides the API (with an allow list, each would be refused).
          "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"),
      EngineKind.GEMINI, List.of(),
      EngineKind.COMMAND, List.of());
  /** Session variables that would hand an agent the worker's powers: never passed in. */
  static final Set<String> WORKER_ONLY = Set.of("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "COLONY_BIN",
      "TEMPORAL_API_KEY", "TEMPORAL_TLS_CERT", "TEMPORAL_TLS_KEY", "TEMPORAL_TLS_CA");
  static final String PATH = "/usr/local/bin:/usr/bin:/bin";

  private final Confinement confinement;
  private final Map<String, String> env;
  private final SessionLimits limits;
  private final String refusal;

  private SessionWalls(Confinement confinement, Map<String, String> env, SessionLimits limits, String refusal) {
    this.confinement = confinement;
    this.env = env;
    this.limits = limits;
    this.refusal = refusal;
  }

  /** The walls the session runs in. */
  public Confinement confinement() {
    return confinement;
  }

  /** The environment a sandboxed session is granted (empty without a sandbox). */
  public Map<String, String> granted() {
    return env;
  }

  /** Why no session may run (the sandbox could not be made: fail closed), or null. */
  public String refusal() {
    return refusal;
  }

  @Override
  public void close() {
    if (limits != null) {
      limits.close();
    }
  }

  /**
   * Decides a session's walls.
   *
   * @param workerEnv the worker's environment with the colony's .env (values resolved here only)
   * @param session the session's own variables ({@code COLONY_ANT}, the task, the peers, ...)
   * @param readOnly files the session reads besides its workspace (its prompt, its task file)
   * @param unique a name no other session on this worker has now (ant, session, attempt)
   */
  public static SessionWalls of(AntSpec spec, Path workspace, Map<String, String> workerEnv,
      Map<String, String> session, List<Path> readOnly, String unique) {
    SandboxSpec s = SandboxSpec.of(spec);
    if (s.off()) {
      return new SessionWalls(Confinement.NONE, Map.of(), null, null);
    }
    Bubblewrap.Probe probe = Bubblewrap.probe();
    if (!probe.works()) {
      return refusedFor(probe);
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", PATH);
    env.put("HOME", Bubblewrap.HOME);
    env.put("USER", "ant");
    env.put("LOGNAME", "ant");
    env.put("TMPDIR", "/tmp");
    env.put("TERM", "dumb");
    env.put("LANG", workerEnv.getOrDefault("LANG", "C.UTF-8"));
    if (workerEnv.containsKey("TZ")) {
      env.put("TZ", workerEnv.get("TZ"));
    }
    for (String name : ENGINE_VARIABLES.getOrDefault(spec.engine(), List.of())) {
      if (workerEnv.containsKey(name)) {
        env.put(name, workerEnv.get(name));
      }
    }
    for (String name : s.secrets()) {
      if (workerEnv.containsKey(name)) {
        env.put(name, workerEnv.get(name));
      }
    }
    session.forEach((k, v) -> {
      if (!WORKER_ONLY.contains(k)) {
        env.put(k, v);
      }
    });
    List<Path> ro = new ArrayList<>(readOnly);
    List<Path> rw = new ArrayList<>();
    Path colony = spec.colonyDir() == null ? null : Path.of(spec.colonyDir()).toAbsolutePath().normalize();
    for (boolean write : new boolean[] {false, true}) {
      for (String p : write ? s.write() : s.read()) {
        Path path = colony == null ? Path.of(p) : colony.resolve(p).normalize();
        String bad = grantRefused(path, colony);
        if (bad != null) {
          return refused("sandbox." + (write ? "write" : "read") + " names " + path + ": " + bad);
        }
        if (write && !Path.of(p).isAbsolute()) {
          try {
            Files.createDirectories(path); // a colony's own directory for its ants' shared files
          } catch (IOException e) {
            return refused("cannot create " + path + " for sandbox.write: " + e.getMessage());
          }
        }
        (write ? rw : ro).add(path);
      }
    }
    rw.addAll(gitDirs(workspace));
    List<String> path = new ArrayList<>(List.of(PATH.split(":")));
    for (Path program : programs(spec, workerEnv)) {
      Path dir = program.getParent();
      if (dir != null && !dir.startsWith("/usr") && !dir.startsWith("/bin")) {
        // Its directory (a CLI's package, a colony's scripts/), unless that directory holds the
        // colony itself (its config, .env or state): then the program's file alone.
        ro.add(holdsAColony(dir) ? program : dir);
        if (!path.contains(dir.toString())) {
          path.add(0, dir.toString());
        }
      }
    }
    env.put("PATH", String.join(":", path));
    SessionLimits limits = null;
    if (s.memoryBytes() > 0 || s.processes() > 0) {
      Object made = SessionLimits.create(unique, s.memoryBytes(), s.processes());
      if (made instanceof SessionLimits.Refusal r) {
        return refused(r.reason());
      }
      limits = (SessionLimits) made;
    }
    Path home = homeOf(spec);
    try {
      Bubblewrap walls = new Bubblewrap(new Bubblewrap.Walls(spec.name(), workspace, home, ro, rw, s.networkOpen(), limits), env);
      return new SessionWalls(walls, env, limits, null);
    } catch (IOException e) {
      if (limits != null) {
        limits.close();
      }
      return refused("cannot prepare the sandbox's home " + home + ": " + e.getMessage());
    }
  }

  /** The session's walls when bubblewrap cannot make them: none, and the reason with its fix. */
  static SessionWalls refusedFor(Bubblewrap.Probe probe) {
    return refused(probe.problem());
  }

  private static SessionWalls refused(String why) {
    return new SessionWalls(Confinement.NONE, Map.of(), null, "sandbox: " + why);
  }

  /** The ant's private home on the worker's disk: its own, kept from session to session. */
  static Path homeOf(AntSpec spec) {
    return Path.of(spec.colonyDir(), ".colony", "sandbox", "homes", spec.name());
  }

  /**
   * The engine's program and what it runs from (its real file, when a link points elsewhere): read-only
   * inside, so a CLI installed outside {@code /usr} (npm's global prefix, a colony's own script) runs.
   */
  static List<Path> programs(AntSpec spec, Map<String, String> workerEnv) {
    List<Path> out = new ArrayList<>();
    String program = switch (spec.engine()) {
      case COMMAND -> spec.command() == null || spec.command().argv().isEmpty() ? null : spec.command().argv().get(0);
      case CLAUDE -> workerEnv.getOrDefault("COLONY_CLAUDE_BIN", "claude");
      case GEMINI -> null;
    };
    if (program == null) {
      return out;
    }
    if (program.contains("/") && !Path.of(program).isAbsolute() && spec.colonyDir() != null) {
      program = Path.of(spec.colonyDir()).resolve(program).normalize().toString();
    }
    Path found = Processes.findExecutable(program, workerEnv);
    if (found == null) {
      return out;
    }
    out.add(found.toAbsolutePath());
    // Each hop of its link chain as the link names it (npm's node_modules/.bin/claude ->
    // ../@anthropic-ai/claude-code/bin/claude.exe), resolved against the path it was reached by:
    // inside, that is the path the kernel follows, which differs from the real path when a
    // directory on the way is itself a link (a symlinked .tools or npm prefix).
    Path hop = found.toAbsolutePath();
    for (int i = 0; i < 8 && Files.isSymbolicLink(hop); i++) {
      try {
        hop = hop.getParent().resolve(Files.readSymbolicLink(hop)).normalize();
      } catch (IOException e) {
        break;
      }
      if (!out.contains(hop)) {
        out.add(hop);
      }
    }
    try {
      Path real = found.toRealPath();
      if (!real.equals(found.toAbsolutePath())) {
        out.add(real);
      }
    } catch (IOException ignored) {
      // a dangling link: the engine reports the missing program itself
    }
    if (spec.engine() == EngineKind.CLAUDE) {
      // The CLI is a Node.js program: node too, wherever it is installed (nvm puts it in a home).
      Path node = Processes.findExecutable("node", workerEnv);
      if (node != null) {
        try {
          out.add(node.toRealPath());
        } catch (IOException ignored) {
          // no node: the CLI says so itself
        }
      }
    }
    return out;
  }

  /**
   * Why a granted path may not be bound (it is, or holds, the colony's directory, its state or
   * its config); null when it may.
   */
  static String grantRefused(Path path, Path colony) {
    if (colony != null) {
      if (colony.startsWith(path)) {
        return "it holds the colony's own directory (config, .env, state)";
      }
      if (path.startsWith(colony) && path.getNameCount() > colony.getNameCount()
          && SandboxSpec.COLONY_OWN.contains(path.getName(colony.getNameCount()).toString())) {
        return "it is the colony's own config, secrets or state";
      }
    }
    return null;
  }

  /** Whether {@code dir} is (or holds) a colony's directory: its files are never bound whole. */
  static boolean holdsAColony(Path dir) {
    return Files.exists(dir.resolve("colony.yaml")) || Files.exists(dir.resolve(".env"))
        || Files.exists(dir.resolve(".colony")) || Files.isDirectory(dir.resolve("ants"));
  }

  /**
   * The git directories a worktree's {@code .git} file points at (its own and the repository's
   * common one), which git needs to work in the workspace.
   */
  static List<Path> gitDirs(Path workspace) {
    Path dotGit = workspace.resolve(".git");
    if (!Files.isRegularFile(dotGit)) {
      return List.of();
    }
    try {
      String line = Files.readString(dotGit).strip();
      if (!line.startsWith("gitdir:")) {
        return List.of();
      }
      Path own = workspace.resolve(line.substring("gitdir:".length()).strip()).normalize();
      Path common = own;
      Path commondir = own.resolve("commondir");
      if (Files.isRegularFile(commondir)) {
        common = own.resolve(Files.readString(commondir).strip()).normalize();
      }
      return common.equals(own) ? List.of(own) : List.of(common);
    } catch (IOException e) {
      return List.of();
    }
  }
}
