package dev.colony.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Walls for what the worker runs on an ant's work: the git that reads an ant's own repository
 * for the merge queue, and the queue's test command (the repository's tests as the ants left
 * them). An ant controls everything in its repository (its config, hooks, attributes, alternates,
 * links): git run there with the worker's powers would run what the ant wrote. So the worker never
 * does: it fetches from the ant's repository through {@code git upload-pack} (which git documents
 * as safe to run in an untrusted repository: it runs none of the repository's commands), and that
 * upload-pack runs inside bubblewrap too, seeing only the ant's workspace and the shared
 * repository read-only: a link or an alternate the ant points at another ant's work finds nothing.
 */
public final class GitWalls {
  private GitWalls() {}

  /** Settings for every git the worker runs on an ant's work: no hooks, no fsmonitor daemon. */
  public static final List<String> SAFE_CONFIG = List.of(
      "-c", "core.hooksPath=/dev/null",
      "-c", "core.fsmonitor=false");

  /**
   * The git directory of a local repository the ants share (its {@code .git}, or the repository
   * itself when bare): what an ant's repository borrows objects from (its alternates) and fetches
   * the target from, mounted read-only in the ant's walls.
   */
  public static Path sharedGitDir(Path repo) {
    Path dotGit = repo.resolve(".git");
    if (Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS)) {
      return dotGit;
    }
    if (Files.isRegularFile(dotGit, LinkOption.NOFOLLOW_LINKS)) {
      // The shared repository is itself a worktree (a human's): its common git directory.
      try {
        String line = Files.readString(dotGit).strip();
        if (line.startsWith("gitdir:")) {
          Path own = repo.resolve(line.substring("gitdir:".length()).strip()).normalize();
          Path commondir = own.resolve("commondir");
          return Files.isRegularFile(commondir) ? own.resolve(Files.readString(commondir).strip()).normalize() : own;
        }
      } catch (IOException e) {
        return repo;
      }
    }
    return repo;
  }

  /** Whether {@code workspace} is a repository of its own ({@code .git} a real directory, not a link or a worktree's file). */
  public static boolean ownRepository(Path workspace) {
    return Files.isDirectory(workspace.resolve(".git"), LinkOption.NOFOLLOW_LINKS)
        && !Files.isSymbolicLink(workspace);
  }

  /**
   * The {@code --upload-pack} command for a fetch from the ant's repository in {@code workspace}:
   * {@code git upload-pack} inside walls that show it the workspace and {@code readOnly} (the
   * shared git directory its alternates name), no network, no environment but git's protocol
   * version. Without bubblewrap on this machine: plain {@code git upload-pack} (safe by git's own
   * word, but a link in the ant's repository is then followed with the worker's rights).
   */
  public static String uploadPack(String ant, Path workspace, List<Path> readOnly) throws IOException {
    return walled("upload-pack", ant, workspace, readOnly);
  }

  /**
   * The {@code --receive-pack} command for a push into the ant's repository in {@code workspace}
   * (the worker handing it a landed commit): {@code git receive-pack} inside the same walls, so
   * a hook or a config the ant planted runs, if at all, as the ant. {@code readOnly}: what its
   * alternates name (a URL repository's mirror's objects).
   */
  public static String receivePack(String ant, Path workspace, List<Path> readOnly) throws IOException {
    return walled("receive-pack", ant, workspace, readOnly);
  }

  private static String walled(String program, String ant, Path workspace, List<Path> readOnly) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("PATH=" + SessionWalls.PATH));
    Bubblewrap.Probe probe = Bubblewrap.probe();
    if (!probe.works()) {
      // Fail closed: without walls git would run the ant's repository config (its
      // alternateRefsCommand, say) with the worker's powers.
      throw new IOException("git on an ant's repository runs in its walls, and this worker cannot make them: "
          + probe.problem());
    }
    Path home = privateDir().resolve("git-" + Bubblewrap.hostname(ant));
    Bubblewrap walls = new Bubblewrap(new Bubblewrap.Walls(ant, workspace, home, readOnly, List.of(), false, null),
        Map.of());
    cmd.addAll(walls.arguments(workspace));
    cmd.add("git");
    cmd.addAll(SAFE_CONFIG);
    cmd.add(program);
    // git runs this with sh, the repository's path appended. The protocol version git's client
    // asks for is the one variable passed in.
    StringBuilder b = new StringBuilder("env -i \"GIT_PROTOCOL=${GIT_PROTOCOL:-}\"");
    for (String a : cmd) {
      b.append(' ').append(quote(a));
    }
    return b.toString();
  }

  /**
   * Walls for the merge queue's test command in its scratch worktree: the scratch read-write, the
   * repository's git directory read-only, a private home and temp, no network (or the host's with
   * {@code networkOpen}), exactly the environment given, in {@code limits}' control groups (null:
   * unlimited). Null when bubblewrap cannot make walls here.
   */
  public static Confinement forTest(String queue, Path scratch, List<Path> readOnly, boolean networkOpen,
      Map<String, String> env, SessionLimits limits) throws IOException {
    if (!Bubblewrap.probe().works()) {
      return null;
    }
    Path home = scratch.resolveSibling(scratch.getFileName() + ".home");
    return new Bubblewrap(new Bubblewrap.Walls(queue, scratch, home, readOnly, List.of(), networkOpen, limits), env,
        maskedConfigs(readOnly));
  }

  /**
   * For each git directory in {@code gitDirs} that has a config: a read-only bind of a copy that
   * keeps only what git needs to read the repository (its format version, bare, its extensions)
   * over it. A repository's config can hold what an ant must not read (a remote's URL with its
   * token: a URL repository's scratch clone, a shared repository with {@code push: true}), and
   * nothing the ant does there needs the rest.
   */
  public static List<Bubblewrap.Bind> maskedConfigs(List<Path> gitDirs) {
    List<Bubblewrap.Bind> binds = new ArrayList<>();
    for (Path dir : gitDirs) {
      Path config = dir.resolve("config");
      if (!Files.isRegularFile(config, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try {
        binds.add(new Bubblewrap.Bind(masked(config), config.toAbsolutePath().toString(), false));
      } catch (IOException e) {
        // Not readable here: nor inside. Hide it wholly rather than show it.
        binds.add(new Bubblewrap.Bind(Path.of("/dev/null"), config.toAbsolutePath().toString(), false));
      }
    }
    return binds;
  }

  private static final java.util.regex.Pattern KEPT = java.util.regex.Pattern.compile(
      "^(core\\.repositoryformatversion|core\\.bare|extensions\\.[A-Za-z0-9-]+)$");

  /** The masked copy of {@code config}, in a directory of this worker's own (one file per content). */
  private static Path masked(Path config) throws IOException {
    StringBuilder core = new StringBuilder("[core]\n");
    StringBuilder extensions = new StringBuilder();
    // Bounded like every git on a repository's files (a FIFO where the config should be never ends).
    ProcessBuilder pb = new ProcessBuilder(dev.colony.engine.Processes.tiedToWorker(
        List.of("git", "config", "--file", config.toString(), "--null", "--list")))
        .redirectError(ProcessBuilder.Redirect.DISCARD);
    dev.colony.engine.Processes.Captured c;
    try {
      c = dev.colony.engine.Processes.capture(pb, java.time.Duration.ofSeconds(30), 1 << 20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (c.exit() != 0) {
      throw new IOException("git config cannot read " + config);
    }
    String out = c.output();
    for (String entry : out.split("\0")) {
      int nl = entry.indexOf('\n');
      String key = nl < 0 ? entry : entry.substring(0, nl);
      String value = nl < 0 ? "true" : entry.substring(nl + 1);
      if (!KEPT.matcher(key).matches() || !value.matches("[A-Za-z0-9._-]{1,40}")) {
        continue;
      }
      String name = key.substring(key.indexOf('.') + 1);
      (key.startsWith("core.") ? core : extensions).append('\t').append(name).append(" = ").append(value).append('\n');
    }
    String text = core + (extensions.isEmpty() ? "" : "[extensions]\n" + extensions);
    Path dir = privateDir();
    Path file = dir.resolve("config-" + Integer.toHexString(text.hashCode()) + "-" + text.length());
    if (!Files.exists(file) || !Files.readString(file).equals(text)) {
      Path tmp = Files.createTempFile(dir, "config", ".tmp");
      Files.writeString(tmp, text);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
    return file;
  }

  private static Path privateDir;
  private static final String PRIVATE_PREFIX = "colony-walls-";

  /**
   * A directory only this worker's user can read, made once per worker (no name another user can
   * take first), removed when the worker stops; a killed worker's is removed by the next one.
   */
  static synchronized Path privateDir() throws IOException {
    if (privateDir == null || !Files.isDirectory(privateDir)) {
      Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
      sweepStale(tmp);
      Path made = Files.createTempDirectory(tmp, PRIVATE_PREFIX + ProcessHandle.current().pid() + "-",
          java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
              java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(made), "colony-walls-cleanup"));
      privateDir = made;
    }
    return privateDir;
  }

  /** Removes the private directories of workers that are gone (their pid is in the name). */
  static void sweepStale(Path tmp) {
    try (var dirs = Files.list(tmp)) {
      for (Path d : dirs.toList()) {
        String name = d.getFileName().toString();
        if (!name.startsWith(PRIVATE_PREFIX) || Files.isSymbolicLink(d)) {
          continue;
        }
        String[] parts = name.substring(PRIVATE_PREFIX.length()).split("-", 2);
        long pid;
        try {
          pid = Long.parseLong(parts[0]);
        } catch (NumberFormatException e) {
          continue;
        }
        if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty()) {
          deleteTree(d);
        }
      }
    } catch (IOException | RuntimeException e) {
      // nothing to sweep
    }
  }

  private static void deleteTree(Path dir) {
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | RuntimeException e) {
      // what is left goes with the next sweep
    }
  }

  /** Why walls cannot be made on this machine (with the fix), or null when they can. */
  public static String problem() {
    Bubblewrap.Probe p = Bubblewrap.probe();
    return p.works() ? null : p.problem();
  }

  static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /**
   * Before a session of a local repository's ant: its repository fetches the shared repository
   * (its {@code origin}), so its names for the target ({@code main}, {@code origin/main}) are
   * current. Run inside the session's walls: the repository's config is the ant's. A fetch that
   * fails (the ant broke its own repository) is the ant's to see; the session runs anyway.
   */
  public static void refreshOrigin(Confinement walls, Path workspace) {
    if (!ownRepository(workspace)) {
      return;
    }
    List<String> cmd = new ArrayList<>(List.of("git", "-C", workspace.toString()));
    cmd.addAll(SAFE_CONFIG);
    cmd.addAll(List.of("fetch", "--quiet", "--prune", "--no-recurse-submodules", "origin"));
    try {
      ProcessBuilder pb = walls.processFor(cmd, Map.of(), Map.of("GIT_TERMINAL_PROMPT", "0"), workspace)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
      Process p = dev.colony.engine.Processes.start(pb);
      p.getOutputStream().close();
      if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
        dev.colony.engine.Processes.killTree(p);
      }
    } catch (IOException e) {
      // git missing: the session finds out itself
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
