package dev.colony.sandbox;

import dev.colony.engine.Processes;
import dev.colony.sandbox.channel.ColonyChannel;
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
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SessionWalls.class);
  private static final java.util.concurrent.atomic.AtomicBoolean LIMITS_WARNED = new java.util.concurrent.atomic.AtomicBoolean();

  private final Confinement confinement;
  private final Map<String, String> env;
  private final SessionLimits limits;
  private final String refusal;
  private ColonyChannel channel;
  private final EgressProxy.Door egress;

  private SessionWalls(Confinement confinement, Map<String, String> env, SessionLimits limits, String refusal) {
    this(confinement, env, limits, refusal, null);
  }

  private SessionWalls(Confinement confinement, Map<String, String> env, SessionLimits limits, String refusal,
      EgressProxy.Door egress) {
    this.confinement = confinement;
    this.env = env;
    this.limits = limits;
    this.refusal = refusal;
    this.egress = egress;
  }

  /** The session's door in the worker's egress proxy, or null (network open, sandbox off). */
  public EgressProxy.Door egress() {
    return egress;
  }

  /** Opens a session's channel to its colony, when its walls are built (and only then). */
  @FunctionalInterface
  public interface ChannelOpener {
    ColonyChannel open() throws IOException;
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
    if (egress != null) {
      egress.close();
    }
    if (limits != null) {
      limits.close();
    }
    if (channel != null) {
      channel.close();
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
    return of(spec, workspace, workerEnv, session, readOnly, unique, null);
  }

  /**
   * Decides a session's walls, with its channel to the colony: inside, {@code $COLONY_BIN} is a
   * {@code colony} command that speaks it ({@code send --from} itself, its own {@code status}) and
   * {@code $COLONY_CHANNEL} its socket. The walls own the channel: it closes with them.
   *
   * @param channel opens the session's channel when the sandbox is on; null for none
   */
  public static SessionWalls of(AntSpec spec, Path workspace, Map<String, String> workerEnv,
      Map<String, String> session, List<Path> readOnly, String unique, ChannelOpener channel) {
    return of(spec, workspace, workerEnv, session, readOnly, unique, channel, dev.colony.engine.SessionMetrics.NONE);
  }

  /**
   * Decides a session's walls, counting on {@code metrics} what they refuse: a grant of the colony's
   * own files ({@code colony_sandbox_refusals_total{kind="path"}}), and the connections its door in
   * the egress proxy refuses ({@code colony_sandbox_refused_connections_total}, the proxy's count).
   */
  public static SessionWalls of(AntSpec spec, Path workspace, Map<String, String> workerEnv,
      Map<String, String> session, List<Path> readOnly, String unique, ChannelOpener channel,
      dev.colony.engine.SessionMetrics metrics) {
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
          metrics.refused(spec.colony(), spec.name(), dev.colony.engine.SessionMetrics.Refusal.PATH);
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
    gitDirs(spec, workspace, ro, rw);
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
        // Limits keep the worker and the other ants available; the walls keep secrets and files.
        // Without a control group the walls still stand: the session runs, unlimited, and the
        // worker says so once (a worker that is not root and has no delegated group).
        if (LIMITS_WARNED.compareAndSet(false, true)) {
          LOG.warn("sandbox: sessions run without memory and process limits on this worker: {}", r.reason());
        }
      } else {
        limits = (SessionLimits) made;
      }
    }
    EgressProxy.Door egress = null;
    if (!s.networkOpen()) {
      if (!Files.isExecutable(Bubblewrap.SOCAT)) {
        if (limits != null) {
          limits.close();
        }
        return refused("socat is not installed (the sandbox's bridge to the egress proxy): run "
            + "`sudo apt-get install socat` (or bin/sandbox.sh), or set sandbox: network: open (docs/security.md)");
      }
      List<String> allow = allowList(spec, s, workerEnv);
      try {
        EgressProxy proxy = EgressProxy.shared();
        proxy.export(metrics, spec.colony(), spec.name());
        egress = proxy.open(spec.colony(), spec.name(), allow);
      } catch (IOException | RuntimeException e) {
        if (limits != null) {
          limits.close();
        }
        return refused("the egress proxy could not open a socket for the session: " + e.getMessage());
      }
      env.putAll(proxyVariables(allow));
    }
    ColonyChannel opened = null;
    List<Bubblewrap.Bind> binds = new ArrayList<>(GitWalls.maskedConfigs(sharedGitDirs(spec)));
    if (channel != null) {
      try {
        opened = channel.open();
      } catch (IOException | RuntimeException e) {
        if (egress != null) {
          egress.close();
        }
        if (limits != null) {
          limits.close();
        }
        return refused("cannot open the session's channel to the colony: " + e.getMessage());
      }
      env.put("COLONY_CHANNEL", ColonyChannel.SOCKET);
      env.put("COLONY_BIN", ColonyChannel.BIN);
      binds.addAll(channelBinds(opened));
    }
    Path home = homeOf(spec);
    try {
      Bubblewrap walls = new Bubblewrap(new Bubblewrap.Walls(spec.name(), workspace, home, ro, rw, s.networkOpen(), limits,
          egress == null ? null : egress.socket()), env, binds);
      SessionWalls made = new SessionWalls(walls, env, limits, null, egress);
      made.channel = opened;
      return made;
    } catch (IOException e) {
      if (egress != null) {
        egress.close();
      }
      if (limits != null) {
        limits.close();
      }
      if (opened != null) {
        opened.close();
      }
      return refused("cannot prepare the sandbox's home " + home + ": " + e.getMessage());
    }
  }

  /**
   * The channel inside: its socket, its client and the client's code under {@code /run/colony}
   * (after bwrap's {@code --tmpfs /run}), and the worker's JDK read-only when it is not under
   * {@code /usr} already.
   */
  static List<Bubblewrap.Bind> channelBinds(ColonyChannel channel) {
    List<Bubblewrap.Bind> binds = new ArrayList<>();
    binds.add(new Bubblewrap.Bind(channel.socket(), ColonyChannel.SOCKET, true));
    binds.add(new Bubblewrap.Bind(channel.client(), ColonyChannel.BIN, false));
    binds.add(new Bubblewrap.Bind(channel.code(), channel.codeInside(), false));
    Path javaHome = Path.of(System.getProperty("java.home")).toAbsolutePath().normalize();
    if (!javaHome.startsWith("/usr")) {
      binds.add(new Bubblewrap.Bind(javaHome, javaHome.toString(), false));
    }
    return binds;
  }

  /** The Anthropic API's host when ANTHROPIC_BASE_URL is not set. */
  static final String ANTHROPIC_API = "api.anthropic.com:443";

  /**
   * Where the session may connect through the egress proxy: its {@code network: allow:} list and
   * its engine's API host (Claude Code: the host and port of {@code ANTHROPIC_BASE_URL}, else
   * {@code api.anthropic.com}; Gemini calls its model from the worker, {@code command} has none).
   */
  static List<String> allowList(AntSpec spec, SandboxSpec s, Map<String, String> workerEnv) {
    List<String> allow = new ArrayList<>(s.allow());
    if (spec.engine() == EngineKind.CLAUDE) {
      String api = apiHost(workerEnv.get("ANTHROPIC_BASE_URL"));
      if (!allow.contains(api)) {
        allow.add(api);
      }
      // Claude Code's own telemetry, when the ant turns it on: the collector the worker names.
      for (String endpoint : dev.colony.engine.claude.ClaudeTelemetry.endpoints(spec, workerEnv)) {
        String host = endpointHost(endpoint);
        if (host != null && !allow.contains(host)) {
          allow.add(host);
        }
      }
    }
    return allow;
  }

  /** {@code host:port} of an endpoint URL (scheme's port when none is written), or null. */
  static String endpointHost(String url) {
    try {
      java.net.URI u = java.net.URI.create(url.strip());
      if (u.getHost() == null) {
        return null;
      }
      int port = u.getPort() > 0 ? u.getPort() : "http".equalsIgnoreCase(u.getScheme()) ? 80 : 443;
      return EgressPolicy.normalHost(u.getHost()) + ":" + port;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** {@code host:port} of an API base URL (scheme's port when none is written), or the default. */
  static String apiHost(String baseUrl) {
    if (baseUrl == null || baseUrl.isBlank()) {
      return ANTHROPIC_API;
    }
    try {
      java.net.URI u = java.net.URI.create(baseUrl.strip());
      if (u.getHost() == null) {
        return ANTHROPIC_API;
      }
      int port = u.getPort() > 0 ? u.getPort() : "http".equalsIgnoreCase(u.getScheme()) ? 80 : 443;
      return EgressPolicy.normalHost(u.getHost()) + ":" + port;
    } catch (IllegalArgumentException e) {
      return ANTHROPIC_API;
    }
  }

  /**
   * The proxy variables programs inside read (curl, git, pip, npm, Node's and Python's clients,
   * Claude Code): everything through the bridge on the sandbox's loopback. {@code NO_PROXY} names
   * the sandbox's own loopback (its own servers, its own network namespace), except a loopback
   * name the allow list sends to the worker (a fake API on the worker's 127.0.0.1).
   */
  static Map<String, String> proxyVariables(List<String> allow) {
    String url = "http://127.0.0.1:" + Bubblewrap.PROXY_PORT;
    Map<String, String> v = new LinkedHashMap<>();
    for (String name : List.of("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")) {
      v.put(name, url);
    }
    List<String> own = new ArrayList<>();
    for (String local : List.of("localhost", "127.0.0.1", "::1")) {
      boolean toWorker = allow.stream().map(EgressPolicy::parse).anyMatch(e -> e != null && e.host().equals(local));
      if (!toWorker) {
        own.add(local);
      }
    }
    String noProxy = String.join(",", own);
    v.put("NO_PROXY", noProxy);
    v.put("no_proxy", noProxy);
    return v;
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
    Path d = dir.toAbsolutePath().normalize();
    Path home = Path.of(System.getProperty("user.home", "/root")).toAbsolutePath().normalize();
    // A home (the worker's, /root, /home/<user>) is never bound whole: its dotfiles are secrets.
    boolean aHome = d.equals(home) || home.startsWith(d) || d.equals(Path.of("/root"))
        || (d.getNameCount() <= 2 && d.startsWith("/home"));
    return aHome || Files.exists(dir.resolve("colony.yaml")) || Files.exists(dir.resolve(".env"))
        || Files.exists(dir.resolve(".colony")) || Files.isDirectory(dir.resolve("ants"));
  }

  /**
   * The git directories the ant's git needs besides its workspace, decided from its spec, never
   * from a file in the workspace (the ant writes those: a {@code .git} file or an alternate it
   * pointed at another ant's repository would be mounted otherwise). For a local repository the
   * ant's workspace is a repository of its own (its refs, its objects) borrowing the shared
   * repository's objects: the shared git directory is read-only inside (it reads and fetches the
   * target, it cannot move it or any other ant's branch). A URL repository's ant borrows the
   * objects of the worker's mirror of the remote: its {@code objects/} only, read-only (the mirror's
   * config holds the URL and its credentials).
   */
  /** The shared repository's git directory of a local repository's ant (its config masked inside); none else. */
  static List<Path> sharedGitDirs(AntSpec spec) {
    if (spec.workspace() == null || spec.workspace().repo() == null || spec.workspace().repo().contains("://")
        || spec.workspace().repo().startsWith("git@")) {
      return List.of();
    }
    return List.of(GitWalls.sharedGitDir(Path.of(spec.workspace().repo()).toAbsolutePath().normalize()));
  }

  static void gitDirs(AntSpec spec, Path workspace, List<Path> readOnly, List<Path> writable) {
    if (spec.workspace() == null || spec.workspace().repo() == null) {
      return;
    }
    String repo = spec.workspace().repo();
    if (repo.contains("://") || repo.startsWith("git@")) {
      Path root = workspace.getParent();
      Path objects = root == null ? null : root.resolve(".publish").resolve(spec.name() + ".git").resolve("objects");
      if (objects != null && Files.isDirectory(objects)) {
        readOnly.add(objects);
      }
      return;
    }
    Path shared = Path.of(repo).toAbsolutePath().normalize();
    readOnly.add(GitWalls.sharedGitDir(shared));
  }
}
