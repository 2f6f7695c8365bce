package dev.colony.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
@Timeout(value = 1, unit = TimeUnit.MINUTES)
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
