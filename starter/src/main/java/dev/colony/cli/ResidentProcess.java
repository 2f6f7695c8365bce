package dev.colony.cli;

import dev.colony.secrets.Invocation;
import dev.colony.worker.RedactingPrintStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The resident process: one warm JVM per user and build tree that runs the one-shot commands
 * ({@link Resident#COMMANDS}) thin clients send it, each on a thread of its own with the caller's
 * environment, directory, standard streams and secrets ({@link Invocation}), over connections to
 * Temporal it keeps open ({@link ConnectionPool}). A command costs the caller a socket round trip
 * and the command's own calls, not a JVM's start.
 *
 * <p>It stops by itself when idle for {@code idle}, when its jar changes (a rebuild, a deploy:
 * it never answers with an old build), when the sources of its build tree change (the next
 * command then goes through the launcher, which builds), and on {@code colony daemon stop}. It
 * keeps nothing a crash could lose: killed, the next command runs in a JVM of its own and starts
 * another.
 */
final class ResidentProcess {
  /** How long a caller has to send its request once connected. */
  static final Duration REQUEST_WITHIN = Duration.ofSeconds(10);
  /** How long commands running when it stops may take to end. */
  static final Duration DRAIN = Duration.ofMinutes(10);
  /** A connection to Temporal no command used for this long is closed (with the credentials it holds). */
  static final Duration KEEP_CONNECTIONS = Duration.ofMinutes(10);
  /** Callers served at once; more are closed at once and run in JVMs of their own. */
  static final int SLOTS = 256;
  private final java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(SLOTS);
  private volatile Object socketId;
  /** After this long without a command, it collects once (and shrinks its heap). */
  static final Duration SETTLE = Duration.ofSeconds(20);
  private volatile boolean collected;
  private final Path jar;
  private final String build;
  private final Path socket;
  private final Duration idle;
  private final PrintStream log;
  private final long started = System.nanoTime();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicLong answered = new AtomicLong();
  private final AtomicLong lastActivity = new AtomicLong(System.nanoTime());
  private final ConnectionPool pool = new ConnectionPool();
  private final ExecutorService commands = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "colony-command");
    t.setDaemon(true);
    return t;
  });
  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "colony-resident-timer");
    t.setDaemon(true);
    return t;
  });
  private final java.nio.file.attribute.UserPrincipal owner;
  private volatile boolean stopping;
  private volatile String why = "";
  private ServerSocketChannel server;

  private ResidentProcess(Path jar, String build, Path socket, Duration idle, PrintStream log) throws IOException {
    this.jar = jar;
    this.build = build;
    this.socket = socket;
    this.idle = idle;
    this.log = log;
    this.owner = Files.getOwner(socket.getParent());
  }

  /**
   * Runs the resident process for {@code jar} until it stops; returns the exit code. Returns 0 at
   * once when another one already runs for this build tree.
   */
  static int serve(Path jar, Duration idle, PrintStream err) throws Exception {
    Path real = jar.toRealPath();
    long uid = Resident.uid();
    Path dir = Resident.runtimeDir(Invocation.env(), uid);
    String unsafe = Resident.secureDir(dir, uid);
    if (unsafe != null) {
      err.println("colony: the resident process will not listen there: " + unsafe);
      return 1;
    }
    String name = Resident.name(real);
    Path lockFile = dir.resolve(name + ".lock");
    try (FileChannel lockChannel = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
      FileLock lock = lockChannel.tryLock();
      if (lock == null) {
        return 0; // one already runs (or is starting) for this build tree
      }
      // The build of the jar this JVM opened, not of whatever is at its path by now (a rebuild
      // while this JVM started would otherwise be answered by the classes it loaded before).
      String build = Resident.openedBuild(real);
      if (build == null) {
        err.println("colony: cannot read " + real);
        return 1;
      }
      Path socket = dir.resolve(name + ".sock");
      Path logFile = dir.resolve(name + ".log");
      Files.deleteIfExists(logFile);
      try (PrintStream log = new PrintStream(Files.newOutputStream(Files.createFile(logFile,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))), true, StandardCharsets.UTF_8)) {
        return new ResidentProcess(real, build, socket, idle, log).run(root(real));
      }
    }
  }

  /** The build tree of {@code jar} (ROOT/starter/target/colony.jar), or null when it is not in one. */
  private static Path root(Path jar) {
    Path target = jar.getParent();
    Path starter = target == null ? null : target.getParent();
    Path root = starter == null ? null : starter.getParent();
    return root != null && Files.isRegularFile(root.resolve("pom.xml")) ? root : null;
  }

  private int run(Path root) throws Exception {
    // Output a command makes outside its own streams (a library's log line) goes to its caller;
    // the rest (a network thread's) to this process's log.
    RoutedStream.install(log);
    Logging.init();
    Temporal.pool = pool;
    // Watching before listening: a source changed since the launcher's check is seen too.
    SourceWatch watch = root == null ? null : SourceWatch.start(root, jar, () -> stop("the sources changed"));
    try {
      Files.deleteIfExists(socket);
      server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      server.bind(UnixDomainSocketAddress.of(socket), 64);
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
      socketId = Files.getAttribute(socket, "unix:ino", java.nio.file.LinkOption.NOFOLLOW_LINKS);
      log.println(java.time.Instant.now() + " listening on " + socket + " for " + jar + " (build " + build + ")");
      timers.scheduleWithFixedDelay(this::checkIdleAndBuild, 2, 2, TimeUnit.SECONDS);
      while (!stopping) {
        SocketChannel ch;
        try {
          ch = server.accept();
        } catch (IOException e) {
          if (stopping) {
            break;
          }
          // Out of file descriptors, or the like: the callers it could not take run in JVMs of
          // their own meanwhile; this process goes on.
          log.println(java.time.Instant.now() + " accept failed: " + e);
          Thread.sleep(100);
          continue;
        }
        if (!slots.tryAcquire()) {
          ch.close(); // too many callers at once: that one runs in a JVM of its own
          continue;
        }
        commands.execute(() -> {
          try {
            serveConnection(ch);
          } finally {
            slots.release();
          }
        });
      }
    } finally {
      if (watch != null) {
        watch.close();
      }
      drain();
    }
    log.println(java.time.Instant.now() + " stopped: " + why);
    return 0;
  }

  private void checkIdleAndBuild() {
    pool.closeIdle(KEEP_CONNECTIONS.toNanos());
    if (running.get() == 0 && !collected && System.nanoTime() - lastActivity.get() > SETTLE.toNanos()) {
      // Quiet for a while: give back the memory the last commands took (a status of 10,000 ants
      // grows the heap; with the flags bin/colony-jvm starts it with, one full collection returns it).
      collected = true;
      System.gc();
    }
    if (!build.equals(Resident.build(jar))) {
      stop("its jar changed (a rebuild or a new release)");
    } else if (!ours()) {
      stop("its socket is gone (its runtime directory was removed)");
    } else if (running.get() == 0 && System.nanoTime() - lastActivity.get() > idle.toNanos()) {
      stop("idle for " + idle.toSeconds() + " s");
    }
  }

  /** Whether the socket at its path is still the one this process bound. */
  private boolean ours() {
    try {
      return socketId != null && socketId.equals(Files.getAttribute(socket, "unix:ino", java.nio.file.LinkOption.NOFOLLOW_LINKS));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Stops taking commands; the ones running end first (within {@link #DRAIN}). */
  void stop(String reason) {
    synchronized (this) {
      if (stopping) {
        return;
      }
      stopping = true;
      why = reason;
    }
    try {
      if (ours()) {
        Files.deleteIfExists(socket); // never another process's (after its directory was made again)
      }
    } catch (IOException e) {
      log.println("cannot delete " + socket + ": " + e);
    }
    try {
      if (server != null) {
        server.close();
      }
    } catch (IOException e) {
      // closing: nothing to do
    }
  }

  private void drain() throws InterruptedException {
    commands.shutdown();
    if (!commands.awaitTermination(DRAIN.toSeconds(), TimeUnit.SECONDS)) {
      log.println(java.time.Instant.now() + " commands still running after " + DRAIN.toMinutes() + " min: stopped with this process");
    }
    pool.close();
    timers.shutdownNow();
  }

  private void serveConnection(SocketChannel ch) {
    try (ch) {
      var peer = ch.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED);
      if (!owner.equals(peer.user())) { // by user id (a principal's equality), not by name
        log.println(java.time.Instant.now() + " refused a connection from user " + peer.user().getName());
        return;
      }
      DataInputStream in = new DataInputStream(Channels.newInputStream(ch));
      Resident.Wire wire = new Resident.Wire(ch);
      // A caller that connects and says nothing does not hold a thread for long.
      var deadline = timers.schedule(() -> {
        try {
          ch.close();
        } catch (IOException e) {
          // closed already
        }
      }, REQUEST_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
      Resident.Frame first;
      try {
        first = Resident.read(in, Resident.MAX_REQUEST);
      } finally {
        deadline.cancel(false);
      }
      if (first == null) {
        return;
      }
      if (first.type() == Resident.CONTROL) {
        control(new String(first.payload(), StandardCharsets.UTF_8), wire);
        return;
      }
      if (first.type() != Resident.REQUEST) {
        return;
      }
      running.incrementAndGet();
      lastActivity.set(System.nanoTime());
      collected = false;
      try {
        request(first.payload(), in, wire);
      } finally {
        running.decrementAndGet();
        lastActivity.set(System.nanoTime());
        Thread.interrupted(); // a cancelled command's interrupt ends with it
      }
    } catch (IOException e) {
      // the caller went away (Ctrl-C, a broken pipe) or spoke nonsense: its command alone ends
    } catch (RuntimeException e) {
      log.println(java.time.Instant.now() + " a connection failed: " + e);
    }
  }

  private void control(String word, Resident.Wire wire) throws IOException {
    switch (word) {
      case "status" -> wire.send(Resident.ANSWER, status().getBytes(StandardCharsets.UTF_8));
      case "stop" -> {
        wire.send(Resident.ANSWER, ("stopping the resident process (pid " + ProcessHandle.current().pid() + ")")
            .getBytes(StandardCharsets.UTF_8));
        stop("colony daemon stop");
      }
      default -> wire.send(Resident.ANSWER, ("unknown control '" + word + "'").getBytes(StandardCharsets.UTF_8));
    }
  }

  private String status() {
    long up = (System.nanoTime() - started) / 1_000_000_000L;
    long idleFor = (System.nanoTime() - lastActivity.get()) / 1_000_000_000L;
    return String.format("resident process: pid %d, build %s%n  jar %s%n  socket %s%n"
            + "  up %ds, %d command%s answered, %d running, idle %ds (stops after %ds idle)%n"
            + "  %d connection%s to Temporal kept, memory %s resident (heap %d MB used of %d MB)",
        ProcessHandle.current().pid(), build, jar, socket, up, answered.get(), answered.get() == 1 ? "" : "s",
        running.get(), idleFor, idle.toSeconds(), pool.size(), pool.size() == 1 ? "" : "s", rss(),
        (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20, Runtime.getRuntime().totalMemory() >> 20);
  }

  /** VmRSS from /proc/self/status ("123456 kB" as "121 MB"). */
  static String rss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
          return (kb >> 10) + " MB";
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: say nothing
    }
    return "? MB";
  }

  private void request(byte[] payload, DataInputStream in, Resident.Wire wire) throws IOException {
    Resident.Reader r = new Resident.Reader(payload);
    int version = r.integer();
    if (version != Resident.VERSION) {
      wire.send(Resident.STALE, ("this resident process speaks version " + Resident.VERSION).getBytes(StandardCharsets.UTF_8));
      return;
    }
    String theirBuild = r.string();
    if (!build.equals(theirBuild) || stopping) {
      wire.send(Resident.STALE, ("this resident process runs build " + build).getBytes(StandardCharsets.UTF_8));
      if (!build.equals(Resident.build(jar))) {
        stop("its jar changed (a rebuild or a new release)"); // and not when the caller's is the older one
      }
      return;
    }
    Path cwd = Path.of(r.string());
    String codeset = r.string();
    int ttys = r.integer();
    int argc = r.integer();
    if (argc < 0 || argc > 100_000) {
      return;
    }
    List<byte[]> rawArgs = new ArrayList<>();
    for (int i = 0; i < argc; i++) {
      rawArgs.add(r.bytes());
    }
    int envc = r.integer();
    if (envc < 0 || envc > 100_000) {
      return;
    }
    Map<String, String> env = new HashMap<>();
    for (int i = 0; i < envc; i++) {
      env.put(r.string(), r.string());
    }
    String[] args = decline(rawArgs, codeset, ttys) || differs(env, codeset, System.getenv()) ? null : decode(rawArgs);
    if (args == null || !cwd.isAbsolute()) {
      wire.send(Resident.OWN_PROCESS, new byte[0]);
      return;
    }
    run(args, new Invocation(env, cwd), ttys, in, wire);
  }

  /**
   * Whether a JVM of the caller's own would read these arguments or write to its terminal otherwise
   * than this process: outside a UTF-8 locale, a JVM reads a non-ASCII argument with the locale's
   * charset and writes a terminal in it. Those callers are sent to a JVM of their own.
   */
  static boolean decline(List<byte[]> args, String codeset, int ttys) {
    if ("UTF-8".equalsIgnoreCase(codeset) || "utf8".equalsIgnoreCase(codeset)) {
      return false;
    }
    if ((ttys & 0b110) != 0) {
      return true;
    }
    for (byte[] a : args) {
      for (byte b : a) {
        if (b < 0) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The caller's variables a JVM reads when it starts, which this process read once with its own:
   * a caller whose differ gets a JVM of its own (its JVM options, its time zone).
   */
  static final List<String> JVM_VARIABLES = List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS",
      "COLONY_JAVA_OPTS", "TZ");

  /**
   * Whether a JVM of the caller's own would differ from this process in what its commands print:
   * another locale for messages, numbers or times (this process formats as the C locale does;
   * {@code en_US} formats the same), its JVM variables ({@link #JVM_VARIABLES}), or outside a UTF-8
   * codeset a variable that is not ASCII (which such a JVM reads in the locale's charset).
   */
  static boolean differs(Map<String, String> env, String codeset, Map<String, String> own) {
    for (String category : List.of("LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LC_CTYPE")) {
      String all = env.get("LC_ALL");
      String one = env.get(category);
      String lang = env.get("LANG");
      String locale = all != null && !all.isEmpty() ? all : one != null && !one.isEmpty() ? one : lang;
      if (locale != null && !locale.isEmpty() && !SAME_LOCALE.matcher(locale).matches()) {
        return true;
      }
    }
    for (String v : JVM_VARIABLES) {
      if (!java.util.Objects.equals(emptyAsNull(env.get(v)), emptyAsNull(own.get(v)))) {
        return true;
      }
    }
    if (!"UTF-8".equalsIgnoreCase(codeset) && !"utf8".equalsIgnoreCase(codeset)) {
      for (Map.Entry<String, String> e : env.entrySet()) {
        if (!e.getKey().chars().allMatch(c -> c < 128) || !e.getValue().chars().allMatch(c -> c < 128)) {
          return true;
        }
      }
    }
    return false;
  }

  private static final java.util.regex.Pattern SAME_LOCALE =
      java.util.regex.Pattern.compile("C|POSIX|C\\.(UTF-8|utf8)|en_US(\\.(UTF-8|utf8))?");

  private static String emptyAsNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  /**
   * The arguments as the caller's JVM would read them (UTF-8, a malformed byte as U+FFFD); null when
   * the command is not one this process runs or needs the verbose logging of a process of its own.
   */
  static String[] decode(List<byte[]> raw) {
    String[] args = new String[raw.size()];
    for (int i = 0; i < args.length; i++) {
      args[i] = new String(raw.get(i), StandardCharsets.UTF_8);
    }
    if (args.length > 0 && !Resident.COMMANDS.contains(args[0])) {
      return null;
    }
    for (String a : args) {
      if (a.equals("--")) {
        break;
      }
      // verbose logging is the whole process's switch (-v, -hv, --verbose, --verbose=true, -v=true)
      if (a.startsWith("--verbose") || a.matches("-[a-zA-Z]*v[a-zA-Z]*(=.*)?")) {
        return null;
      }
    }
    return args;
  }

  private void run(String[] args, Invocation invocation, int ttys, DataInputStream in, Resident.Wire wire) throws IOException {
    answered.incrementAndGet();
    Resident.FrameStream rawOut = new Resident.FrameStream(wire, Resident.STDOUT);
    Resident.FrameStream rawErr = new Resident.FrameStream(wire, Resident.STDERR);
    PrintStream out = new RedactingPrintStream(rawOut, invocation.registry());
    PrintStream err = new RedactingPrintStream(rawErr, invocation.registry());
    Resident.CallerInput stdin = new Resident.CallerInput(wire);
    Thread command = Thread.currentThread();
    Object lock = new Object();
    boolean[] over = {false};
    // The caller's side after its request: standard input when asked for, or its going away.
    Thread reader = Thread.ofVirtual().name("colony-caller").start(() -> {
      try {
        while (true) {
          Resident.Frame f = Resident.read(in, Resident.MAX_FRAME);
          if (f == null) {
            break;
          }
          try {
            if (f.type() == Resident.STDIN) {
              stdin.feed(f.payload());
            } else if (f.type() == Resident.STDIN_END) {
              stdin.end();
            }
          } catch (IOException closed) {
            // the command read what it wanted and closed its input: the rest is dropped (the
            // caller is still there: only its going away stops the command)
          }
        }
      } catch (IOException e) {
        // gone
      }
      try {
        stdin.end();
      } catch (IOException e) {
        // already ended
      }
      synchronized (lock) {
        if (!over[0]) {
          command.interrupt(); // Ctrl-C: this command stops, and only it
        }
      }
    });
    boolean ansi = ansi(invocation.environment(), ttys);
    CliContext context = CliContext.standard().withStdin(() -> stdin);
    // From here on the command may act: a caller that loses this process now must not run it again.
    wire.send(Resident.BEGIN, new byte[0]);
    int code;
    try {
      RoutedStream.route(out, err);
      code = Invocation.call(invocation, () -> ColonyCli.run(args, context, out, err, ansi));
    } catch (Throwable e) {
      // Whatever broke, the caller hears of it, once: never a silent close (it would look like
      // "nothing was done").
      err.println("colony: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      code = 1;
    } finally {
      RoutedStream.unroute();
      Temporal.forgetAddress();
      try {
        stdin.close();
      } catch (IOException e) {
        // nothing left to let go
      }
      synchronized (lock) {
        over[0] = true; // no interrupt after this: the thread goes on to other callers' commands
      }
    }
    out.flush();
    err.flush();
    if (code == ColonyCli.OWN_PROCESS) {
      if (!rawOut.sent() && !rawErr.sent()) {
        wire.send(Resident.OWN_PROCESS, new byte[0]);
      } else {
        wire.sendInt(Resident.EXIT, 1);
      }
    } else {
      wire.sendInt(Resident.EXIT, code);
    }
  }

  /**
   * Whether picocli would colour the caller's help and errors: its rule (NO_COLOR,
   * CLICOLOR_FORCE, CLICOLOR=0, a terminal on both standard input and output), read from the
   * caller's environment and terminals instead of this process's.
   */
  static boolean ansi(Map<String, String> env, int ttys) {
    if (env.get("NO_COLOR") != null) {
      return false;
    }
    String force = env.get("CLICOLOR_FORCE");
    if (force != null && !"0".equals(force)) {
      return true;
    }
    if ("0".equals(env.get("CLICOLOR")) || "OFF".equals(env.get("ConEmuANSI"))) {
      return false;
    }
    return (ttys & 0b011) == 0b011;
  }
}
