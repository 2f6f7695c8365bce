package dev.colony.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How agents are started: in a session of their own, and still tied to the worker. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ProcessesTest {
  /** The fields of /proc/PID/stat this test reads. */
  record Stat(long pid, long pgrp, long session) {
    static Stat of(String line) {
      // "pid (comm) state ppid pgrp session ...": comm may hold spaces, so split after its ')'
      String[] f = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
      return new Stat(Long.parseLong(line.substring(0, line.indexOf(' '))), Long.parseLong(f[2]), Long.parseLong(f[3]));
    }
  }

  private static Stat self() throws Exception {
    return Stat.of(Files.readString(Path.of("/proc/self/stat")));
  }

  @Test
  void anAgentLeadsASessionAndProcessGroupOfItsOwnSoTerminalSignalsToTheWorkersGroupMissIt() throws Exception {
    assumeTrue(Files.exists(Path.of("/proc/self/stat")), "Linux only");
    Process p = new ProcessBuilder(Processes.tiedToWorker(List.of("/bin/sh", "-c",
        "cat /proc/$$/stat; grep '^PPid' /proc/$$/status"))).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    Stat agent = Stat.of(out.lines().findFirst().orElseThrow());
    Stat worker = self();
    // The agent is the process the worker started (nothing forked in between, so the worker's
    // Process handle, its waitFor and the kernel's parent-death signal all concern the agent).
    assertEquals(p.pid(), agent.pid(), out);
    assertEquals(agent.pid(), agent.session(), "not a session leader: " + out);
    assertEquals(agent.pid(), agent.pgrp(), "not a process group leader: " + out);
    assertNotEquals(worker.pgrp(), agent.pgrp(), "in the worker's process group: " + out);
    assertNotEquals(worker.session(), agent.session(), "in the worker's session: " + out);
    assertEquals("PPid:\t" + ProcessHandle.current().pid(), out.lines().skip(1).findFirst().orElseThrow(), out);
  }

  @Test
  void killTreeEndsWhatTheChildLeftBehindInItsProcessGroup() throws Exception {
    // setsid (util-linux) and /proc are on every Linux the worker runs on: a test that skipped without them would hide the policy
    assertTrue(Files.isExecutable(Path.of("/usr/bin/setsid")) && Files.exists(Path.of("/proc/self/stat")),
        "needs setsid and /proc");
    // A subshell that starts a background job and exits leaves the job an orphan: no descendant of
    // the child any more, but still in the child's process group (a test runner's server, an
    // agent's `(cmd &)`). Killing the tree must end it too.
    Path pidFile = Files.createTempFile("colony-orphan", ".pid");
    try {
      Process p = Processes.start(new ProcessBuilder(Processes.tiedToWorker(List.of("/bin/sh", "-c",
          "(sleep 300 & echo $! > " + pidFile + "); sleep 300"))));
      dev.colony.testing.Eventually.eventually(java.time.Duration.ofSeconds(20),
          () -> {
            try {
              return !Files.readString(pidFile).isBlank();
            } catch (java.io.IOException e) {
              return false;
            }
          }, "the orphan to start");
      long orphan = Long.parseLong(Files.readString(pidFile).strip());
      assertEquals(false, p.descendants().anyMatch(h -> h.pid() == orphan), "the job is no descendant of the child");
      Processes.killTree(p);
      dev.colony.testing.Eventually.eventually(java.time.Duration.ofSeconds(10),
          () -> ProcessHandle.of(orphan).map(h -> !h.isAlive()).orElse(true), "the orphan " + orphan + " to be gone");
    } finally {
      // a failed run leaves no sleeping orphan behind
      String left = Files.exists(pidFile) ? Files.readString(pidFile).strip() : "";
      if (left.matches("[0-9]+")) {
        ProcessHandle.of(Long.parseLong(left)).ifPresent(ProcessHandle::destroyForcibly);
      }
      Files.deleteIfExists(pidFile);
    }
  }

  @Test
  void anAgentStartedOnAVirtualThreadOutlivesTheCarrierThreadItStartedOn() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv");
    // Sessions run on virtual threads (the worker's activity executors). The parent-death signal
    // follows the OS thread that started a child, here a carrier thread, and the JVM retires a
    // carrier after 30 s idle: agents died (exit code 137) in the middle of their sessions.
    // Several sessions start at once, so that several carriers exist and go idle afterwards.
    int sessions = 4;
    List<Process> agents = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(sessions);
    List<Thread> threads = new java.util.ArrayList<>();
    for (int i = 0; i < sessions; i++) {
      threads.add(Thread.ofVirtual().start(() -> {
        try {
          Process p = Processes.start(new ProcessBuilder(Processes.tiedToWorker(List.of("sleep", "120"))));
          agents.add(p);
          started.countDown();
          // Keep this carrier busy until every session has started, so they start on several.
          started.await(60, TimeUnit.SECONDS);
          p.waitFor();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    try {
      assertEquals(true, started.await(30, TimeUnit.SECONDS), "the agents did not start");
      // Past the carriers' 30 s keep-alive: any agent tied to a retired carrier has been killed.
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
      while (System.nanoTime() < end && agents.stream().allMatch(Process::isAlive)) {
        agents.get(0).waitFor(1, TimeUnit.SECONDS);
      }
      assertEquals(List.of(), agents.stream().filter(p -> !p.isAlive()).map(Process::exitValue).toList(),
          "exit codes of agents killed while their sessions ran");
    } finally {
      agents.forEach(Process::destroyForcibly);
      for (Thread t : threads) {
        t.join(java.time.Duration.ofSeconds(30));
      }
    }
  }

  @Test
  void anAgentStillGetsTheParentDeathSignal() throws Exception {
    assumeTrue(Files.exists(Path.of("/proc/self/stat")), "Linux only");
    // /proc/PID/status does not show the parent-death signal; ask the kernel through a tool
    // that reads it back for the process it runs in: setpriv --dump prints "Parent death signal".
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv");
    Process p = new ProcessBuilder(Processes.tiedToWorker(List.of("/usr/bin/setpriv", "--dump")))
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    assertEquals("Parent death signal: KILL", out.lines().filter(l -> l.startsWith("Parent death signal"))
        .findFirst().orElse("(none) in:\n" + out), out);
  }
}
