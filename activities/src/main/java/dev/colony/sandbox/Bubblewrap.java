package dev.colony.sandbox;

import dev.colony.engine.Processes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A session's walls, built with bubblewrap ({@code bwrap}, Debian's {@code bubblewrap}: the tool
 * Flatpak and Claude Code's own sandbox use). Each process the engine starts gets:
 * <ul>
 *   <li>an empty root: the system's programs and libraries ({@code /usr}) read-only, a short list
 *       of {@code /etc} files (name resolution, certificates, time zone; no {@code shadow}), a
 *       private {@code /tmp}, a private home, its workspace read-write, and the paths it is granted;
 *   <li>new user, PID, IPC, UTS, cgroup and network namespaces: it runs as an unprivileged user
 *       with no capabilities, sees only its own processes, and has no network but its own loopback
 *       (with {@code network: open}, the host's network);
 *   <li>exactly the environment it is given, nothing inherited from the worker;
 *   <li>{@code --die-with-parent}: when the worker or the session ends, the kernel ends its PID
 *       namespace and every process in it.
 * </ul>
 */
public final class Bubblewrap implements Confinement {
  /** Where Debian installs it. */
  public static final Path BWRAP = Path.of("/usr/bin/bwrap");
  /** The user inside: unprivileged whatever the worker runs as. */
  static final int UID = 1000;
  /** The home inside. */
  public static final String HOME = "/home/ant";

  /** The few files of /etc a program needs: users, name resolution, TLS roots, time zone, locale. */
  static final List<String> ETC = List.of("/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/host.conf",
      "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates", "/etc/ca-certificates.conf", "/etc/pki",
      "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
      "/etc/timezone", "/etc/mime.types", "/etc/os-release", "/etc/debian_version", "/etc/locale.alias",
      "/etc/gitconfig", "/etc/inputrc", "/etc/bash.bashrc", "/etc/profile", "/etc/java-17-openjdk",
      "/etc/java-21-openjdk", "/etc/java-25-openjdk", "/etc/magic", "/etc/magic.mime");

  /** The top-level system directories beside {@code /usr}: bound read-only, or their symlinks made. */
  static final List<String> SYSTEM = List.of("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32");

  /**
   * Whether every sandbox shows {@code path} of the worker's disk at the same place, read-only:
   * under {@code /usr}, a top-level system directory ({@link #SYSTEM}) or one of the {@link #ETC}
   * files. (The channel's client runs a program only when all it loads is so.)
   */
  public static boolean shows(Path path) {
    Path p = path.toAbsolutePath().normalize();
    if (p.startsWith("/usr")) {
      return true;
    }
    for (String top : SYSTEM) {
      if (p.startsWith(top)) {
        return true;
      }
    }
    for (String e : ETC) {
      if (p.startsWith(e)) {
        return true;
      }
    }
    return false;
  }

  /**
   * What the walls let in.
   *
   * @param ant the ant's name (the host name inside)
   * @param workspace its workspace, read-write, at the same path
   * @param home its private home on the worker's disk, mounted at {@link #HOME}
   * @param readOnly more paths it reads (the engine's program, the session's prompt), same path inside
   * @param writable more paths it writes (its repository's git directory, granted paths)
   * @param networkOpen the host's network (trusted setups only) instead of none
   * @param limits its cgroup, or null for none
   * @param proxySocket the worker's egress proxy socket for this session ({@link EgressProxy}), or
   *     null for none; bridged to {@link #PROXY_PORT} on the sandbox's own loopback
   */
  public record Walls(String ant, Path workspace, Path home, List<Path> readOnly, List<Path> writable,
      boolean networkOpen, SessionLimits limits, Path proxySocket) {
    public Walls {
      readOnly = List.copyOf(readOnly);
      writable = List.copyOf(writable);
    }

    public Walls(String ant, Path workspace, Path home, List<Path> readOnly, List<Path> writable,
        boolean networkOpen, SessionLimits limits) {
      this(ant, workspace, home, readOnly, writable, networkOpen, limits, null);
    }
  }

  /**
   * A path of the worker's disk mounted at another path inside (the session's channel to the
   * colony: its socket and its client under {@code /run/colony}).
   */
  public record Bind(Path source, String target, boolean writable) {}

  /** Where the proxy's socket is inside. */
  public static final String PROXY_SOCKET = "/run/colony/proxy.sock";
  /** The proxy's port on the sandbox's own loopback (its own network namespace: no clash). */
  public static final int PROXY_PORT = 3128;
  /** Debian's socat: the bridge from the loopback port to the proxy's socket. */
  public static final Path SOCAT = Path.of("/usr/bin/socat");

  /**
   * Runs before the agent's program, inside: starts the bridge from {@code 127.0.0.1:3128} to the
   * proxy's socket in the background (its stdin, stdout and stderr away from the agent's), waits
   * until it listens (at most 2 s), then becomes the agent's program ({@code exec}: same process,
   * same exit code, same streams). The bridge dies with the sandbox's PID namespace.
   */
  static final String EGRESS_BRIDGE = SOCAT + " TCP-LISTEN:" + PROXY_PORT + ",bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"
      + PROXY_SOCKET + " </dev/null >/dev/null 2>&1 &\n"
      // Listening yet? Read with the shell's own builtins (no process per try): a few tries
      // usually; after 20 it sleeps 5 ms between tries, and gives up after about 2 s.
      + "l() { while read -r x; do case \"$x\" in *': 0100007F:" + String.format("%04X", PROXY_PORT)
      + " 00000000:0000 0A '*) return 0;; esac; done </proc/net/tcp; return 1; }\n"
      + "i=0; until l; do i=$((i+1)); [ $i -gt 420 ] && break; [ $i -gt 20 ] && sleep 0.005; done\n"
      + "unset -f l; unset i x\n"
      + "exec \"$@\"";

  private final Walls walls;
  private final Map<String, String> granted;
  private final List<Bind> binds;
  private final Path passwd;

  /** @param granted the session's whole environment, besides what the engine adds per process */
  public Bubblewrap(Walls walls, Map<String, String> granted) throws IOException {
    this(walls, granted, List.of());
  }

  /** @param binds paths mounted at other paths inside, after {@code /run} is made */
  public Bubblewrap(Walls walls, Map<String, String> granted, List<Bind> binds) throws IOException {
    this.walls = walls;
    this.granted = Map.copyOf(granted);
    this.binds = List.copyOf(binds);
    Files.createDirectories(walls.home());
    // A user the programs inside can name (git and ssh ask who they are), and nobody else.
    this.passwd = walls.home().resolveSibling(walls.home().getFileName() + ".passwd");
    Files.writeString(passwd, "ant:x:" + UID + ":" + UID + ":" + walls.ant() + ":" + HOME + ":/bin/sh\n"
        + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n", StandardCharsets.UTF_8);
  }

  @Override
  public ProcessBuilder processFor(List<String> argv, Map<String, String> workerEnv, Map<String, String> engineEnv,
      Path cwd) {
    List<String> cmd = new ArrayList<>();
    if (walls.limits() != null) {
      cmd.addAll(walls.limits().joinPrefix());
    }
    cmd.addAll(arguments(cwd));
    if (walls.proxySocket() != null && !walls.networkOpen()) {
      cmd.addAll(List.of("/bin/sh", "-c", EGRESS_BRIDGE, "colony-egress"));
    }
    cmd.addAll(argv);
    ProcessBuilder pb = new ProcessBuilder(Processes.tiedToWorker(cmd)).directory(cwd.toFile());
    // bwrap hands its own environment to the program: exactly what the session is granted, never
    // the worker's (its values stay off bwrap's command line, which other processes can read).
    pb.environment().clear();
    Confinement.putAllClean(pb.environment(), granted);
    Confinement.putAllClean(pb.environment(), engineEnv);
    return pb;
  }

  @Override
  public String describe() {
    return walls.networkOpen() ? "sandbox (network open)" : "sandbox";
  }

  /** bwrap's arguments, up to and including the {@code --} before the program. */
  List<String> arguments(Path cwd) {
    List<String> a = new ArrayList<>(List.of(BWRAP.toString(), "--unshare-all", "--die-with-parent", "--new-session",
        "--uid", Integer.toString(UID), "--gid", Integer.toString(UID), "--cap-drop", "ALL",
        "--hostname", hostname(walls.ant())));
    if (walls.networkOpen()) {
      a.add("--share-net");
    }
    a.addAll(List.of("--ro-bind", "/usr", "/usr"));
    for (String top : SYSTEM) {
      Path p = Path.of(top);
      if (Files.isSymbolicLink(p)) {
        try {
          a.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), top));
        } catch (IOException e) {
          // unreadable link: leave it out
        }
      } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
        a.addAll(List.of("--ro-bind", top, top));
      }
    }
    for (String e : ETC) {
      if (Files.exists(Path.of(e))) {
        a.addAll(List.of("--ro-bind", e, e));
      }
    }
    a.addAll(List.of("--ro-bind", passwd.toString(), "/etc/passwd"));
    a.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run", "--tmpfs", "/var/tmp"));
    if (walls.proxySocket() != null && !walls.networkOpen()) {
      a.addAll(List.of("--ro-bind", walls.proxySocket().toString(), PROXY_SOCKET));
    }
    a.addAll(List.of("--bind", walls.home().toString(), HOME));
    // Granted paths, parents before what is inside them (a later bind covers an earlier one); a
    // path granted both ways is writable.
    java.util.TreeMap<Path, Boolean> binds = new java.util.TreeMap<>(
        java.util.Comparator.comparingInt(Path::getNameCount).thenComparing(Path::toString));
    for (Path p : walls.readOnly()) {
      binds.putIfAbsent(p.toAbsolutePath().normalize(), false);
    }
    for (Path p : walls.writable()) {
      binds.put(p.toAbsolutePath().normalize(), true);
    }
    Path ws = walls.workspace().toAbsolutePath().normalize();
    binds.forEach((p, rw) -> {
      if (Files.exists(p) && !p.startsWith(ws)) {
        a.addAll(List.of(rw ? "--bind" : "--ro-bind", p.toString(), p.toString()));
      }
    });
    a.addAll(List.of("--bind", walls.workspace().toString(), walls.workspace().toString()));
    // A path inside the workspace is bound over it (a test run's .git read-only in its scratch).
    binds.forEach((p, rw) -> {
      if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && p.startsWith(ws) && !p.equals(ws)) {
        a.addAll(List.of(rw ? "--bind" : "--ro-bind", p.toString(), p.toString()));
      }
    });
    for (Bind b : this.binds) {
      if (Files.exists(b.source())) {
        a.addAll(List.of(b.writable() ? "--bind" : "--ro-bind", b.source().toString(), b.target()));
      }
    }
    // The root itself (where bwrap made /etc, /home and the mount points) is read-only too: only
    // the workspace, the home, the temp directories and granted paths take writes.
    a.addAll(List.of("--remount-ro", "/", "--chdir", cwd.toString(), "--"));
    return a;
  }

  static String hostname(String ant) {
    String h = ant.replaceAll("[^A-Za-z0-9-]", "-");
    return h.length() > 63 ? h.substring(0, 63) : h.isEmpty() ? "ant" : h;
  }

  // ------------------------------------------------------------------ is it there, does it work

  /** Whether bwrap can build walls on this machine, and if not why (one line, with the fix). */
  public record Probe(boolean works, String problem) {}

  private static volatile Probe probe;

  /** Tried once per worker: bwrap present, and able to make the namespaces (user namespaces on). */
  public static Probe probe() {
    Probe p = probe;
    if (p == null) {
      p = tryIt();
      probe = p;
    }
    return p;
  }

  private static Probe tryIt() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return new Probe(false, "the sandbox needs Linux (bubblewrap); on this system set sandbox: off (docs/security.md)");
    }
    if (!Files.isExecutable(BWRAP)) {
      return new Probe(false, "bubblewrap is not installed: run `sudo apt-get install bubblewrap` (or bin/sandbox.sh), "
          + "or set sandbox: off (docs/security.md)");
    }
    try {
      Process pr = new ProcessBuilder(BWRAP.toString(), "--unshare-all", "--die-with-parent", "--uid",
          Integer.toString(UID), "--gid", Integer.toString(UID), "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr",
          "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
          "--proc", "/proc", "--dev", "/dev", "--", "/usr/bin/true").redirectErrorStream(true).start();
      pr.getOutputStream().close();
      String out = new String(pr.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
      if (!pr.waitFor(20, TimeUnit.SECONDS)) {
        pr.destroyForcibly();
        return new Probe(false, "bubblewrap did not start a sandbox within 20 s");
      }
      if (pr.exitValue() == 0) {
        return new Probe(true, null);
      }
      String why = out.isEmpty() ? "exit " + pr.exitValue() : out.lines().findFirst().orElse(out);
      return new Probe(false, "bubblewrap cannot make a sandbox here (" + why + "): a worker that is not root "
          + "needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or "
          + "kernel.apparmor_restrict_unprivileged_userns=0); see docs/security.md");
    } catch (IOException e) {
      return new Probe(false, "bubblewrap could not be run (" + e.getMessage() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Probe(false, "interrupted while trying bubblewrap");
    }
  }
}
