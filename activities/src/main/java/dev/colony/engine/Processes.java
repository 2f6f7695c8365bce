package dev.colony.engine;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Helpers for the agent processes engines start. */
public final class Processes {
  private static final String SETPRIV = "/usr/bin/setpriv";
  private static final String SETSID = "/usr/bin/setsid";
  private static final List<String> PREFIX = prefix();

  private Processes() {}

  /**
   * The argv to start a child the worker supervises (an agent, a tool it runs, the dev server).
   * On Linux (util-linux):
   * <ul>
   *   <li>{@code setsid}: the child leads a session and process group of its own. A terminal's
   *       Ctrl-C (SIGINT), a {@code timeout} or any {@code kill -- -PGID} signals the whole
   *       foreground group; agents used to share the worker's, died of those signals ("exit code
   *       130") and the stop counted as a crash. Now they reach the worker alone, and what happens
   *       to its agents on a stop is the worker's decision.
   *   <li>{@code setpriv --pdeathsig KILL}: the kernel kills the child when the worker thread that
   *       started it goes away (a {@code kill -9} of the worker included). Without it a killed
   *       worker's agent would keep working in the same workspace as the attempt Temporal retries
   *       elsewhere.
   * </ul>
   * Neither forks (a child of the JVM never leads a process group, so setsid need not), so the
   * agent is the very process the worker started; {@code --wait} only matters should it ever fork.
   */
  public static List<String> tiedToWorker(List<String> argv) {
    if (PREFIX.isEmpty()) {
      return argv;
    }
    List<String> out = new ArrayList<>(PREFIX);
    out.addAll(argv);
    return out;
  }

  /**
   * Starts {@code pb} from a platform thread that lives exactly as long as the child. The kernel's
   * parent-death signal ({@link #tiedToWorker}) follows the thread that started a child, not the
   * process: sessions run on virtual threads, and the JVM retires an idle carrier thread after 30 s,
   * which killed the agents started on it (exit code 137) in the middle of their sessions. The
   * keeper thread waits for the child and then ends; it dies with the worker, so the agent still does.
   */
  public static Process start(ProcessBuilder pb) throws java.io.IOException {
    java.util.concurrent.CompletableFuture<Process> started = new java.util.concurrent.CompletableFuture<>();
    Thread keeper = new Thread(null, () -> {
      Process p;
      try {
        p = pb.start();
      } catch (Throwable e) {
        started.completeExceptionally(e);
        return;
      }
      started.complete(p);
      while (p.isAlive()) {
        try {
          p.waitFor();
        } catch (InterruptedException ignored) {
          // nobody interrupts a keeper; if someone does, it still lives as long as the child
        }
      }
    }, "colony-child-keeper", 128 * 1024);
    keeper.setDaemon(true);
    keeper.start();
    boolean interrupted = false;
    try {
      while (true) {
        try {
          // Not interruptible: a child that has started must be returned, or nobody could stop it.
          return started.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof java.io.IOException io) {
            throw io;
          }
          throw new java.io.IOException(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static List<String> prefix() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (supports(SETSID, "--wait")) {
      out.addAll(List.of(SETSID, "--wait"));
    }
    if (supports(SETPRIV, "--pdeathsig")) {
      out.addAll(List.of(SETPRIV, "--pdeathsig", "KILL", "--"));
    }
    return List.copyOf(out);
  }

  /**
   * Where {@code program} would be found: itself when it names a path, else the first executable
   * of that name on {@code path}; null when there is none.
   */
  public static Path findExecutable(String program, String path) {
    if (program.contains("/")) {
      Path p = Path.of(program);
      return Files.isExecutable(p) && !Files.isDirectory(p) ? p : null;
    }
    if (path == null) {
      return null;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path p = Path.of(dir, program);
        if (Files.isExecutable(p) && !Files.isDirectory(p)) {
          return p;
        }
      }
    }
    return null;
  }

  /** {@link #findExecutable(String, String)} with the PATH of an agent's environment. */
  public static Path findExecutable(String program, java.util.Map<String, String> env) {
    return findExecutable(program, env.getOrDefault("PATH", System.getenv("PATH")));
  }

  /**
   * Asks the agent and what it started to stop (SIGTERM), waits up to {@code grace} for the agent
   * to exit, then kills whatever is left. Returns whether it exited by itself.
   */
  public static boolean stopGracefully(Process process, java.time.Duration grace) {
    List<ProcessHandle> started = process.descendants().toList();
    // Through the handle: Process.destroy() would also close our end of the agent's output, and
    // an agent that writes while it stops would die of SIGPIPE with its last words lost.
    process.toHandle().destroy();
    started.forEach(ProcessHandle::destroy);
    boolean exited;
    try {
      exited = process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exited = false;
    }
    killTree(process);
    started.forEach(ProcessHandle::destroyForcibly);
    return exited;
  }

  /**
   * Kills the child and everything it started (shells, test runners, ...): the one way the worker
   * ends a child it supervises (an agent, the merge queue's test, git). A child that leads a process
   * group of its own ({@link #tiedToWorker}: setsid) loses the whole group first, so a job whose
   * parent exited (an orphan, no descendant any more: {@code (server &)}) goes too; then every
   * descendant. Through the handles: {@code Process.destroyForcibly()} would also close our end of
   * the child's output, and whatever it wrote before it ended that the reader had not read yet (its
   * last words after a SIGTERM, under load) would be lost; its output ends by itself when the
   * processes are gone.
   */
  public static void killTree(Process process) {
    List<ProcessHandle> started = process.descendants().toList();
    killGroup(process);
    started.forEach(ProcessHandle::destroyForcibly);
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.toHandle().destroyForcibly();
  }

  /** SIGKILL to the child's process group when the child is alive and leads it (Linux). */
  private static void killGroup(Process process) {
    if (!process.isAlive() || !leadsGroup(process.pid())) {
      return;
    }
    try {
      Process k = new ProcessBuilder("kill", "-KILL", "--", "-" + process.pid()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      k.waitFor(5, TimeUnit.SECONDS);
    } catch (java.io.IOException e) {
      // the handles still end the child and its descendants
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller is being stopped: the handles still end the tree
    }
  }

  /** Whether {@code pid} leads its process group (its pgrp in /proc/PID/stat is itself). */
  private static boolean leadsGroup(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // "pid (comm) state ppid pgrp ...": comm may hold spaces, so read after its ')'
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      return f.length > 2 && Long.parseLong(f[2]) == pid;
    } catch (java.io.IOException | RuntimeException e) {
      return false;
    }
  }

  /** What {@link #capture} saw: the exit code (-1: killed at its deadline) and the first bytes of output. */
  public record Captured(int exit, String output, boolean timedOut) {}

  /**
   * Starts {@code pb} ({@link #start}), reads at most {@code maxBytes} of its output on a thread of
   * its own (the rest is drained), and waits for it until {@code timeout}; past it, the process and
   * everything it started are killed. A program that never ends its output (a FIFO where git expects
   * a file) cannot hold the caller longer than the timeout.
   */
  public static Captured capture(ProcessBuilder pb, java.time.Duration timeout, int maxBytes)
      throws java.io.IOException, InterruptedException {
    Process p = start(pb);
    p.getOutputStream().close();
    java.util.concurrent.CompletableFuture<byte[]> out = new java.util.concurrent.CompletableFuture<>();
    Thread.ofVirtual().start(() -> {
      try (java.io.InputStream in = p.getInputStream()) {
        byte[] kept = in.readNBytes(maxBytes);
        in.transferTo(java.io.OutputStream.nullOutputStream());
        out.complete(kept);
      } catch (java.io.IOException e) {
        out.complete(new byte[0]);
      }
    });
    boolean done;
    try {
      done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      killTree(p);
      throw e;
    }
    if (!done) {
      killTree(p);
    }
    byte[] kept;
    try {
      kept = out.get(5, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      kept = new byte[0]; // a grandchild kept the pipe open: what was read is lost, the caller goes on
    }
    String text = new String(kept, StandardCharsets.UTF_8);
    return done ? new Captured(p.exitValue(), text, false)
        : new Captured(-1, text + (text.endsWith("\n") || text.isEmpty() ? "" : "\n") + "timed out after "
            + timeout.toSeconds() + " s", true);
  }

  /** Is {@code tool} there, and does its help mention {@code option}? */
  private static boolean supports(String tool, String option) {
    if (!Files.isExecutable(Path.of(tool))) {
      return false;
    }
    try {
      Process p = new ProcessBuilder(tool, "--help").redirectErrorStream(true).start();
      String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return p.waitFor(5, TimeUnit.SECONDS) && help.contains(option);
    } catch (Exception e) {
      return false;
    }
  }
}
