package dev.colony.merge.impl;

import dev.colony.secrets.Secrets;
import dev.colony.engine.Processes;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs git for the merge queue: never prompts (no terminal, no askpass, ssh in batch mode), never
 * opens an editor, runs no hooks and signs nothing (the queue's commits must be reproducible), in a
 * session of its own tied to the worker, and is killed (with what it started) at its timeout.
 */
final class Git {
  /** Network steps (clone, fetch, push) may be slow; nothing may hang for ever. */
  static final Duration TIMEOUT = Duration.ofMinutes(10);
  /** How often a git run that is still going heartbeats (inside an activity). */
  static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(3);

  /** Settings for every run: the queue's results must not depend on the user's git config. */
  private static final List<String> CONFIG = List.of(
      "-c", "core.hooksPath=/dev/null",
      "-c", "core.fsmonitor=false",
      "-c", "commit.gpgSign=false",
      "-c", "tag.gpgSign=false",
      "-c", "rebase.autoSquash=false",
      "-c", "rebase.autoStash=false",
      "-c", "rebase.updateRefs=false",
      "-c", "advice.detachedHead=false",
      "-c", "gc.auto=0",
      "-c", "core.quotePath=false");

  /**
   * A finished git: its exit code, its standard output (the only stream values such as a sha are
   * parsed from: an ssh or HTTP warning on stderr must never read as a commit id) and its standard
   * error (kept for messages).
   */
  record Result(int exit, String out, String err) {
    Result(int exit, String out) {
      this(exit, out, "");
    }

    boolean ok() {
      return exit == 0;
    }

    /** Both streams, for a human (an error message, a conflict's detail): never parsed for a value. */
    String text() {
      String e = err == null ? "" : err.strip();
      String o = out.strip();
      return e.isEmpty() ? o : o.isEmpty() ? e : o + "\n" + e;
    }

    /** The standard output's first line (for a value such as a sha). */
    String line() {
      String s = out.strip();
      int nl = s.indexOf('\n');
      return nl < 0 ? s : s.substring(0, nl).strip();
    }

    List<String> lines() {
      List<String> out = new ArrayList<>();
      for (String l : this.out.split("\n")) {
        if (!l.isBlank()) {
          out.add(l.strip());
        }
      }
      return out;
    }
  }

  private final Secrets secrets;
  /** Where git runs: null for the worker itself, else an ant's walls (git on the ant's own work). */
  private final dev.colony.sandbox.Confinement walls;

  Git(Secrets secrets) {
    this(secrets, null);
  }

  private Git(Secrets secrets, dev.colony.sandbox.Confinement walls) {
    this.secrets = secrets;
    this.walls = walls;
  }

  /** The same git, run inside {@code walls} (an ant's sandbox): for git on a repository the ant writes. */
  Git inside(dev.colony.sandbox.Confinement walls) {
    return new Git(secrets, walls);
  }

  Result run(Path cwd, String... args) throws IOException, InterruptedException {
    return run(cwd, Map.of(), TIMEOUT, List.of(args));
  }

  Result run(Path cwd, Map<String, String> env, String... args) throws IOException, InterruptedException {
    return run(cwd, env, TIMEOUT, List.of(args));
  }

  /** Runs git; an exit code other than 0 is returned, not thrown. Git missing or a full disk throws. */
  Result run(Path cwd, Map<String, String> env, Duration timeout, List<String> args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("git");
    if (cwd != null) {
      cmd.add("-C");
      cmd.add(cwd.toString());
    }
    cmd.addAll(CONFIG);
    cmd.addAll(args);
    // In an ant's walls git gets only these variables; on the worker, the worker's with these.
    Map<String, String> e = new LinkedHashMap<>();
    if (walls == null) {
      e.putAll(System.getenv());
    }
    e.put("GIT_TERMINAL_PROMPT", "0");
    e.put("GIT_ASKPASS", "");
    e.put("SSH_ASKPASS", "");
    e.put("GIT_EDITOR", "true");
    e.put("GIT_SEQUENCE_EDITOR", "true");
    e.put("GIT_MERGE_AUTOEDIT", "no");
    e.put("LC_ALL", "C");
    e.put("LANGUAGE", "C");
    e.putIfAbsent("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    e.putAll(new LinkedHashMap<>(env));
    ProcessBuilder pb;
    if (walls == null) {
      pb = new ProcessBuilder(Processes.tiedToWorker(cmd));
      pb.environment().clear();
      pb.environment().putAll(e);
    } else {
      pb = walls.processFor(cmd, Map.of(), e, cwd == null ? Path.of("/") : cwd);
    }
    Process p = Processes.start(pb);
    p.getOutputStream().close();
    // The two streams apart, each drained on its own (a full pipe would stall git).
    CompletableFuture<byte[]> output = drain(p.getInputStream());
    CompletableFuture<byte[]> errors = drain(p.getErrorStream());
    boolean done = false;
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      // In slices, heartbeating between them: a worker killed during a step is noticed within the
      // step's heartbeat timeout (not its start-to-close), and another worker runs it again.
      while (!done && System.nanoTime() < deadline) {
        long slice = Math.min(HEARTBEAT_EVERY.toNanos(), Math.max(1, deadline - System.nanoTime()));
        done = p.waitFor(slice, TimeUnit.NANOSECONDS);
        if (!done) {
          MergeGit.heartbeat(0);
        }
      }
    } catch (InterruptedException | RuntimeException ex) {
      Processes.killTree(p); // interrupted, or the heartbeat says the step was cancelled
      throw ex;
    }
    if (!done) {
      Processes.killTree(p);
      return new Result(-1, "", "git " + args.get(0) + " timed out after " + timeout.toSeconds() + " s");
    }
    return new Result(p.exitValue(), text(output), text(errors));
  }

  private static CompletableFuture<byte[]> drain(java.io.InputStream in) {
    CompletableFuture<byte[]> f = new CompletableFuture<>();
    Thread.ofVirtual().start(() -> {
      try {
        f.complete(in.readAllBytes());
      } catch (IOException ex) {
        f.complete(new byte[0]);
      }
    });
    return f;
  }

  private static String text(CompletableFuture<byte[]> f) throws InterruptedException {
    try {
      return new String(f.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
      return "";
    }
  }

  /** Runs git and returns its output; a failure is a retryable activity failure (secrets masked). */
  Result check(Path cwd, String... args) throws IOException, InterruptedException {
    return check(cwd, Map.of(), args);
  }

  Result check(Path cwd, Map<String, String> env, String... args) throws IOException, InterruptedException {
    Result r = run(cwd, env, TIMEOUT, List.of(args));
    if (!r.ok()) {
      throw ApplicationFailure.newFailure(describe(args, r), "GitFailed");
    }
    return r;
  }

  /** "git ARGS failed (exit N): output", masked and bounded. */
  String describe(String[] args, Result r) {
    return secrets.redact("git " + String.join(" ", args) + " failed (exit " + r.exit + "): "
        + MergeGit.bounded(r.text(), 1000));
  }
}
