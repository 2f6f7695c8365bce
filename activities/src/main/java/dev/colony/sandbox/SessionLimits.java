package dev.colony.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's memory and process limits: a control group of its own (cgroup v2, or the v1
 * {@code memory} and {@code pids} hierarchies), made under the worker's own group when the worker
 * may write there (root, or a delegated group). The sandbox's first process joins it before it
 * starts anything, so everything the agent starts is counted: a fork bomb meets {@code pids.max}
 * and a memory hog the kernel's out-of-memory killer, inside the group only.
 */
public final class SessionLimits implements AutoCloseable {
  private static final Path ROOT = Path.of("/sys/fs/cgroup");
  private static final java.util.concurrent.atomic.AtomicLong SEQUENCE = new java.util.concurrent.atomic.AtomicLong();

  private final List<Path> groups;

  private SessionLimits(List<Path> groups) {
    this.groups = List.copyOf(groups);
  }

  /** What could not be set up, when {@link #create} returns null. */
  public record Refusal(String reason) {}

  /**
   * Makes the groups for one session, or explains why not.
   *
   * @param name unique per session on this worker (ant, session, attempt)
   * @param memoryBytes the memory limit (0: none)
   * @param processes the most processes and threads at once (0: none)
   */
  public static Object create(String name, long memoryBytes, int processes) {
    // Unique on the machine, not only in the colony: two workers (or two colonies of the same
    // names, as the tests run side by side) share the parent group, and a session's close() kills
    // whatever is in its group. A name made of the ant and the session alone once let one worker's
    // session end kill another's agent (exit 137).
    String leaf = "colony-" + name.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + ProcessHandle.current().pid() + "-"
        + SEQUENCE.incrementAndGet();
    List<Path> made = new ArrayList<>();
    try {
      if (Files.exists(ROOT.resolve("cgroup.controllers"))) {
        Path g = under(ROOT, ownGroup("0", ""), leaf);
        sweepStale(g.getParent());
        Files.createDirectories(g);
        made.add(g);
        if (memoryBytes > 0) {
          write(g.resolve("memory.max"), Long.toString(memoryBytes));
          writeIfThere(g.resolve("memory.swap.max"), "0");
        }
        if (processes > 0) {
          write(g.resolve("pids.max"), Integer.toString(processes));
        }
      } else {
        if (memoryBytes > 0) {
          Path g = under(ROOT.resolve("memory"), ownGroup(null, "memory"), leaf);
          sweepStale(g.getParent());
          Files.createDirectories(g);
          made.add(g);
          write(g.resolve("memory.limit_in_bytes"), Long.toString(memoryBytes));
          writeIfThere(g.resolve("memory.memsw.limit_in_bytes"), Long.toString(memoryBytes));
        }
        if (processes > 0) {
          Path g = under(ROOT.resolve("pids"), ownGroup(null, "pids"), leaf);
          sweepStale(g.getParent());
          Files.createDirectories(g);
          made.add(g);
          write(g.resolve("pids.max"), Integer.toString(processes));
        }
      }
      return new SessionLimits(made);
    } catch (IOException | RuntimeException e) {
      new SessionLimits(made).close();
      return new Refusal("cannot make a control group for the session's limits (" + e.getMessage()
          + "): run the worker as root or in a delegated cgroup (docs/security.md), or set sandbox.memory "
          + "and sandbox.processes to off");
    }
  }

  /**
   * The argv that puts itself in the groups, then runs the rest (the sandbox): a shell that writes
   * its own pid into each group's {@code cgroup.procs} and execs.
   */
  List<String> joinPrefix() {
    List<String> a = new ArrayList<>(List.of("/bin/sh", "-c",
        "n=$1; shift; while [ \"$n\" -gt 0 ]; do echo $$ > \"$1\" || exit 125; shift; n=$((n-1)); done; exec \"$@\"",
        "colony-limits", Integer.toString(groups.size())));
    for (Path g : groups) {
      a.add(g.resolve("cgroup.procs").toString());
    }
    return a;
  }

  /** Whether this worker can make a session's group: null when it can, else why not. */
  public static String check() {
    Object made = create("check-" + ProcessHandle.current().pid() + "-" + System.nanoTime(), 1L << 30, 64);
    if (made instanceof SessionLimits l) {
      l.close();
      return null;
    }
    return ((Refusal) made).reason();
  }

  private static final java.util.Set<Path> SWEPT = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private static final java.util.regex.Pattern LEAF = java.util.regex.Pattern.compile("colony-.*-(\\d+)-\\d+");

  /**
   * Once per parent group and worker: removes the groups a worker that is gone left behind (killed
   * with {@code kill -9}, it never closed its sessions' groups), killing what is still in them.
   * A group's name ends with its worker's pid and a sequence; a live worker's are left alone.
   */
  static void sweepStale(Path parent) {
    if (parent == null || !SWEPT.add(parent)) {
      return;
    }
    try (var children = Files.list(parent)) {
      for (Path g : children.toList()) {
        var m = LEAF.matcher(g.getFileName().toString());
        if (!m.matches() || !Files.isDirectory(g)) {
          continue;
        }
        long pid;
        try {
          pid = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
          continue;
        }
        if (pid == ProcessHandle.current().pid() || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
          continue;
        }
        new SessionLimits(List.of(g)).close();
      }
    } catch (IOException | RuntimeException e) {
      // not ours to list: nothing to sweep
    }
  }

  /** Kills whatever is left in the groups and removes them. */
  @Override
  public void close() {
    for (Path g : groups) {
      for (int round = 0; round < 50; round++) {
        List<Long> pids = pids(g);
        if (pids.isEmpty()) {
          break;
        }
        pids.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
        try {
          Thread.sleep(20); // the kernel reaps asynchronously; the group cannot go before its last process
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      try {
        Files.deleteIfExists(g);
      } catch (IOException ignored) {
        // still busy: the next session's name differs, and the worker's group goes with the worker
      }
    }
  }

  private static List<Long> pids(Path g) {
    try {
      return Files.readAllLines(g.resolve("cgroup.procs")).stream().filter(s -> !s.isBlank())
          .map(s -> Long.parseLong(s.strip())).toList();
    } catch (IOException | NumberFormatException e) {
      return List.of();
    }
  }

  /** The worker's own group in a hierarchy ({@code /proc/self/cgroup}), e.g. {@code /user.slice/x}. */
  private static String ownGroup(String id, String controller) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
      String[] f = line.split(":", 3);
      if (f.length == 3 && (id != null ? f[0].equals(id) : List.of(f[1].split(",")).contains(controller))) {
        return f[2];
      }
    }
    return "/";
  }

  private static Path under(Path root, String own, String leaf) {
    Path p = root;
    for (String part : own.split("/")) {
      if (!part.isEmpty()) {
        p = p.resolve(part);
      }
    }
    return p.resolve(leaf);
  }

  private static void write(Path file, String value) throws IOException {
    Files.writeString(file, value, StandardCharsets.US_ASCII);
  }

  private static void writeIfThere(Path file, String value) {
    try {
      if (Files.exists(file)) {
        write(file, value);
      }
    } catch (IOException ignored) {
      // swap accounting off in this kernel: memory alone is limited
    }
  }
}
