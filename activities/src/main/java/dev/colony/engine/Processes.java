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
  private static final boolean CAN_TIE = detectPdeathsig();

  private Processes() {}

  /**
   * The argv to start so the agent dies with the worker: on Linux, {@code setpriv --pdeathsig KILL}
   * makes the kernel kill the agent when the worker thread that started it goes away (a
   * {@code kill -9} of the worker included). Without it a killed worker's agent would keep
   * working in the same workspace as the attempt Temporal retries elsewhere.
   */
  public static List<String> tiedToWorker(List<String> argv) {
    if (!CAN_TIE) {
      return argv;
    }
    List<String> out = new ArrayList<>(List.of(SETPRIV, "--pdeathsig", "KILL", "--"));
    out.addAll(argv);
    return out;
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

  /** Kills the agent and everything it started (shells, test runners, ...). */
  public static void killTree(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private static boolean detectPdeathsig() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux") || !Files.isExecutable(Path.of(SETPRIV))) {
      return false;
    }
    try {
      Process p = new ProcessBuilder(SETPRIV, "--help").redirectErrorStream(true).start();
      String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return p.waitFor(5, TimeUnit.SECONDS) && help.contains("--pdeathsig");
    } catch (Exception e) {
      return false;
    }
  }
}
