package dev.colony.merge.impl;

import dev.colony.engine.Processes;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.TestRun;
import dev.colony.sandbox.Confinement;
import dev.colony.sandbox.GitWalls;
import dev.colony.sandbox.SessionLimits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * RunTests: the repository's test command on the rebased head, in the queue's scratch, inside walls
 * of its own ({@link #walls}) with the limits of a session, under its timeout, heartbeating. A
 * timeout or a cancellation ends the test and everything it started the way an ant's session ends
 * ({@link Processes#killTree}). What the test printed comes back as a bounded, masked, printable tail.
 */
final class TestRunner {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TestRunner.class);
  private static final AtomicBoolean LIMITS_WARNED = new AtomicBoolean();

  private final MergeGit m;
  private final RebaseScratch scratches;

  TestRunner(MergeGit m, RebaseScratch scratches) {
    this.m = m;
    this.scratches = scratches;
  }

  TestRun run(MergeRepo repo, String head) throws IOException, InterruptedException {
    if (repo.test().isEmpty()) {
      return new TestRun(true, 0, false, 0, "");
    }
    Path scratch = scratches.checkout(repo, false);
    scratches.ensureCommit(repo, scratch, head, "refs/heads/" + repo.target());
    m.git.check(scratch, "checkout", "--quiet", "--detach", "--force", head);
    m.git.check(scratch, "clean", "-fdxq");
    Duration timeout = Duration.ofSeconds(Math.max(1, repo.testTimeoutSeconds()));
    if (MergeRepo.TEST_SANDBOX_OFF.equals(repo.testSandbox())) {
      return run(repo.test(), scratch, timeout);
    }
    String problem = GitWalls.problem();
    if (problem != null) {
      // Fail closed: the tests are the ants' code; without walls they do not run.
      return new TestRun(false, 126, false, 0, "sandbox: " + problem + " (or test_sandbox: off in merge.repos)");
    }
    // The tests are bounded like a session: memory and processes (test_memory, test_processes: a
    // fork bomb or a memory hog in an ant's test stops at its limit, not at the worker). Without
    // a control group here the walls still stand, unlimited.
    Object made = repo.testMemoryBytes() <= 0 && repo.testProcesses() <= 0 ? null
        : SessionLimits.create("test-" + repo.colony() + "-" + repo.name(),
            Math.max(0, repo.testMemoryBytes()), Math.max(0, repo.testProcesses()));
    SessionLimits limits = made instanceof SessionLimits l ? l : null;
    if (limits == null && made instanceof SessionLimits.Refusal r && LIMITS_WARNED.compareAndSet(false, true)) {
      log.warn("merge: test runs go without memory and process limits on this worker: {}", r.reason());
    }
    try {
      return run(repo.test(), scratch, timeout, walls(repo, scratch, limits));
    } finally {
      if (limits != null) {
        limits.close();
      }
    }
  }

  /**
   * The test command's walls: the scratch read-write, the repository's git directory read-only
   * (a local repository's scratch is its worktree), a fresh private home each run, no network
   * (the host's with {@code test_sandbox: open}), and an environment built from nothing: the
   * basics and the variables {@code test_secrets} names. No Temporal, no other workspace, none of
   * the worker's tokens.
   */
  private Confinement walls(MergeRepo repo, Path scratch, SessionLimits limits) throws IOException, InterruptedException {
    Map<String, String> env = new LinkedHashMap<>();
    Map<String, String> worker = repo.testSecrets().isEmpty() ? Map.of() : m.environment.apply(Path.of(repo.colonyDir()));
    env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    env.put("HOME", dev.colony.sandbox.Bubblewrap.HOME);
    env.put("USER", "ant");
    env.put("LOGNAME", "ant");
    env.put("TMPDIR", "/tmp");
    env.put("TERM", "dumb");
    env.put("LANG", System.getenv().getOrDefault("LANG", "C.UTF-8"));
    env.put("GIT_TERMINAL_PROMPT", "0");
    for (String name : repo.testSecrets()) {
      if (worker.get(name) != null) {
        env.put(name, worker.get(name));
      }
    }
    // The scratch's git (a clone's .git, a worktree's .git file) is read-only inside: the queue's
    // next steps run git there with the worker's powers, so the tests must not plant a config
    // or point it at a git directory of their own.
    List<Path> readOnly = new ArrayList<>(List.of(scratch.toAbsolutePath().resolve(".git")));
    if (!repo.remote()) {
      readOnly.add(GitWalls.sharedGitDir(m.localRepo(m.resolvedRepo(repo)).toAbsolutePath()));
    }
    Path home = scratch.resolveSibling(scratch.getFileName() + ".home");
    MergeGit.deleteTree(home); // what an earlier test left there (a planted config) never reaches the next
    return GitWalls.forTest(repo.name(), scratch.toAbsolutePath(), readOnly,
        MergeRepo.TEST_SANDBOX_OPEN.equals(repo.testSandbox()), env, limits);
  }

  TestRun run(List<String> argv, Path cwd, Duration timeout) throws IOException, InterruptedException {
    return run(argv, cwd, timeout, null);
  }

  /** Runs the test command in {@code cwd}, inside {@code walls} (null: as a child of the worker). */
  TestRun run(List<String> argv, Path cwd, Duration timeout, Confinement walls)
      throws IOException, InterruptedException {
    ProcessBuilder pb;
    if (walls == null) {
      pb = new ProcessBuilder(Processes.tiedToWorker(argv)).directory(cwd.toFile()).redirectErrorStream(true);
      pb.environment().put("GIT_TERMINAL_PROMPT", "0");
    } else {
      pb = walls.processFor(argv, Map.of(), Map.of(), cwd).redirectErrorStream(true);
    }
    long start = System.nanoTime();
    Process p;
    try {
      p = Processes.start(pb);
    } catch (IOException e) {
      // A test command that does not exist is a red test the ant can fix, not an outage.
      return new TestRun(false, 127, false, 0, m.secrets.redact(MergeGit.bounded(
          "cannot start " + argv.getFirst() + ": " + e.getMessage(), TestRun.MAX_TAIL)));
    }
    p.getOutputStream().close();
    Tail tail = new Tail(p.getInputStream());
    Thread reader = Thread.ofVirtual().start(tail);
    long deadline = start + timeout.toNanos();
    boolean timedOut = false;
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          timedOut = true;
          break;
        }
        if (p.waitFor(Math.min(left, MergeGit.HEARTBEAT.toNanos()), TimeUnit.NANOSECONDS)) {
          break;
        }
        MergeGit.heartbeat((System.nanoTime() - start) / 1_000_000_000L);
      }
    } catch (RuntimeException | Error | InterruptedException e) {
      // Cancelled (the heartbeat says so), the worker stopping: the test's tree goes too.
      Processes.killTree(p);
      throw e;
    }
    if (timedOut) {
      Processes.killTree(p);
    }
    p.waitFor(10, TimeUnit.SECONDS);
    reader.join(Duration.ofSeconds(5));
    long millis = (System.nanoTime() - start) / 1_000_000;
    String text = tail.text();
    if (timedOut) {
      text = text + (text.isEmpty() || text.endsWith("\n") ? "" : "\n") + "[killed after " + timeout.toSeconds()
          + " s: the test timed out]";
    }
    String out = printable(m.secrets.redact(text));
    if (out.length() > TestRun.MAX_TAIL) {
      out = out.substring(out.length() - TestRun.MAX_TAIL);
    }
    int exit = timedOut ? -1 : p.exitValue();
    return new TestRun(!timedOut && exit == 0, exit, timedOut, millis, out);
  }

  /** Keeps the last bytes of a stream. */
  static final class Tail implements Runnable {
    private static final int KEEP = 64 * 1024;
    private final InputStream in;
    private final byte[] ring = new byte[KEEP];
    private long total;

    Tail(InputStream in) {
      this.in = in;
    }

    @Override
    public void run() {
      byte[] buf = new byte[8192];
      try {
        int n;
        while ((n = in.read(buf)) > 0) {
          synchronized (this) {
            for (int i = 0; i < n; i++) {
              ring[(int) (total++ % KEEP)] = buf[i];
            }
          }
        }
      } catch (IOException ignored) {
        // the process is gone
      }
    }

    synchronized String text() {
      int len = (int) Math.min(total, KEEP);
      byte[] out = new byte[len];
      for (int i = 0; i < len; i++) {
        out[i] = ring[(int) ((total - len + i) % KEEP)];
      }
      return new String(out, StandardCharsets.UTF_8);
    }
  }

  /** Without control characters (escape sequences of colored output, NULs), keeping lines and tabs. */
  static String printable(String s) {
    String noAnsi = s.replaceAll("\u001B\\[[0-9;?]*[ -/]*[@-~]", "").replace("\r\n", "\n");
    StringBuilder b = new StringBuilder(noAnsi.length());
    noAnsi.codePoints().forEach(c -> {
      if (c == '\n' || c == '\t' || !(Character.isISOControl(c) || c == 0xFFFD
          || Character.getType(c) == Character.FORMAT && c != 0x200D)) {
        b.appendCodePoint(c);
      }
    });
    return b.toString();
  }
}
