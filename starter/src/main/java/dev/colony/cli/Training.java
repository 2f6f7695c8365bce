package dev.colony.cli;

import dev.colony.engine.Processes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The training run behind the one-shot commands' start-up archive. The launcher runs this main
 * once per build, in a JVM that writes what it loaded (and, on JDK 25, how it ran) to the
 * archive: {@code -XX:AOTCacheOutput} or {@code -XX:ArchiveClassesAtExit}. So the archive no
 * longer depends on which command a user happened to type first after a build.
 *
 * <p>It runs the calls operators make, in this process, against a real server with a real ant:
 * a private Temporal dev server (the in-memory one when no Temporal CLI is here), a worker and
 * {@code colony start} as child processes, so their classes stay out of the archive. Then
 * status (list, one ant, JSON), pause, resume, send and {@code --help}, each a few times.
 */
public final class Training {
  private static final Duration READY_WITHIN = Duration.ofSeconds(90);

  private Training() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(Training.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    String java = ProcessHandle.current().info().command().orElse("java");
    Path dir = Files.createTempDirectory("colony-training");
    List<Process> children = new ArrayList<>();
    StringWriter log = new StringWriter();
    int code = 0;
    try {
      int port = freePort();
      children.add(server(java, jar, port, dir));
      String address = "127.0.0.1:" + port;
      awaitPort(port, children.get(0), dir);
      Path colony = colonyDir(dir);
      children.add(child(List.of(java, "-jar", jar.toString(), "worker", colony.toString(), "--address", address),
          dir.resolve("worker.log")));
      run(List.of(java, "-jar", jar.toString(), "start", colony.toString(), "--address", address),
          dir.resolve("start.log"));
      // The worker answers once it has run the ant's first workflow task.
      long end = System.nanoTime() + READY_WITHIN.toNanos();
      while (command(log, "status", "training/scout", "--address", address).contains("from visibility")) {
        if (System.nanoTime() > end) {
          throw new IllegalStateException("no worker answered the status query");
        }
        Thread.sleep(200);
      }
      for (int round = 0; round < 3; round++) {
        command(log, "status", "--address", address);
        command(log, "status", "--json", "--address", address);
        command(log, "status", "scout", "--address", address);
        command(log, "status", "training/scout", "--json", "--address", address);
        command(log, "pause", "scout", "--address", address);
        command(log, "resume", "training/scout", "--address", address);
        command(log, "send", "scout", "training message " + round, "--address", address);
        command(log, "--help");
        command(log, "pause", "--help");
      }
    } catch (Exception e) {
      System.err.println("colony: the start-up training run failed (" + e.getMessage() + "); commands start "
          + "without its archive. Logs: " + dir);
      System.err.print(log);
      code = 1;
    } finally {
      for (int i = children.size() - 1; i >= 0; i--) {
        Processes.stopGracefully(children.get(i), Duration.ofSeconds(5));
      }
      if (code == 0) {
        delete(dir);
      }
    }
    if (code != 0) {
      System.exit(code);
    }
  }

  /** Runs one command in this process, as {@code ./colony} would; fails on a non-zero exit. */
  private static String command(StringWriter log, String... args) {
    StringWriter out = new StringWriter();
    var cl = ColonyCli.commandLine(args);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(out, true));
    int code = cl.execute(args);
    log.append("$ colony ").append(String.join(" ", args)).append(" -> ").append(Integer.toString(code))
        .append('\n').append(out.toString());
    if (code != 0) {
      throw new IllegalStateException("colony " + String.join(" ", args) + " exited " + code);
    }
    return out.toString();
  }

  private static Path colonyDir(Path dir) throws IOException {
    Path colony = dir.resolve("colony");
    Files.createDirectories(colony.resolve("ants"));
    Files.writeString(colony.resolve("colony.yaml"), "name: training\n");
    // One session that ends at once, then an hour's wait: the ant is idle while it is asked.
    Files.writeString(colony.resolve("ants/scout.yaml"), """
        name: scout
        description: stands still while the training run asks it things
        instructions: nothing to do
        engine: command
        poll_interval: 1h
        command:
          argv: ["true"]
        """);
    return colony;
  }

  /** The Temporal dev server with its state in memory, else the SDK's in-memory server. */
  private static Process server(String java, Path jar, int port, Path dir) throws IOException {
    TemporalCli cli = TemporalCli.find();
    List<String> argv = cli == null
        ? List.of(java, "-cp", jar.toString(), "io.temporal.testserver.TestServer", Integer.toString(port))
        : DevServer.argv(cli, port, freePort(), null);
    return child(argv, dir.resolve("server.log"));
  }

  private static Process child(List<String> argv, Path log) throws IOException {
    return Processes.start(new ProcessBuilder(Processes.tiedToWorker(argv)).redirectErrorStream(true)
        .redirectOutput(log.toFile()));
  }

  private static void run(List<String> argv, Path log) throws Exception {
    Process p = child(argv, log);
    if (!p.waitFor(READY_WITHIN.toSeconds(), java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", argv.subList(3, 5)) + " failed: "
          + Files.readString(log).strip());
    }
  }

  private static void awaitPort(int port, Process server, Path dir) throws Exception {
    long end = System.nanoTime() + READY_WITHIN.toNanos();
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return;
      } catch (IOException notYet) {
        if (!server.isAlive() || System.nanoTime() > end) {
          throw new IllegalStateException("the server did not start: " + Files.readString(dir.resolve("server.log")).strip());
        }
        Thread.sleep(100);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
