package dev.colony.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The walls of a worker that is not root: bubblewrap run as an unprivileged user (nobody, through
 * {@code setpriv}) with the arguments a session gets, so it relies on unprivileged user namespaces
 * as a non-root worker does. Runs where the tests run as root (CI), which can become nobody.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SandboxNonRootTest {
  private static final int NOBODY = 65534;
  private Path dir;

  @AfterEach
  void clean() throws Exception {
    if (dir != null) {
      new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aSessionOfAWorkerThatIsNotRootRunsInItsWalls() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "becoming nobody needs root");
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv (util-linux) is not here");
    assumeTrue(Bubblewrap.probe().works(), Bubblewrap.probe().problem());
    // A directory nobody can reach (the test's own temp directory may sit under a 0700 home).
    dir = Files.createTempDirectory(Path.of("/tmp"), "colony-nonroot-",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    // Readable by anyone on the machine, nobody included: only the walls keep it out.
    Files.writeString(dir.resolve("outside.txt"), "a file beside the workspace\n");
    Files.setPosixFilePermissions(dir.resolve("outside.txt"), PosixFilePermissions.fromString("rw-r--r--"));
    Path home = dir.resolve("homes/ant");
    Files.createDirectories(home.getParent());
    Bubblewrap walls = new Bubblewrap(new Bubblewrap.Walls("lowly", workspace, home, List.of(), List.of(), false, null),
        Map.of("PATH", SessionWalls.PATH, "HOME", Bubblewrap.HOME));
    for (Path p : List.of(workspace, home)) {
      Files.setAttribute(p, "unix:uid", NOBODY);
      Files.setAttribute(p, "unix:gid", NOBODY);
    }
    ProcessBuilder pb = walls.processFor(List.of("/bin/sh", "-c",
        "echo uid=$(id -u) host=$(hostname) init=$(cat /proc/1/comm); cat /etc/shadow >/dev/null 2>&1 || echo no-shadow; "
            + "cat " + dir.resolve("outside.txt") + " 2>/dev/null || echo no-outside; "
            + "ls /root >/dev/null 2>&1 || echo no-root-home; echo x > made.txt && echo WROTE; "
            + "touch /usr/x 2>/dev/null || echo usr-read-only; echo END"), Map.of(), Map.of(), workspace);
    List<String> cmd = new ArrayList<>(pb.command());
    int at = cmd.indexOf(Bubblewrap.BWRAP.toString());
    assertTrue(at >= 0, "bwrap in " + cmd);
    cmd.addAll(at, List.of("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
        "--inh-caps=-all", "--"));
    pb.command(cmd).redirectErrorStream(true);
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), out);
    assertEquals(0, p.exitValue(), "bwrap as nobody: " + out);
    assertTrue(out.contains("uid=" + Bubblewrap.UID + " host=lowly init=bwrap"), "its own user, host and pid namespaces: " + out);
    assertTrue(out.contains("no-outside"), "a readable file beside the workspace is not there: " + out);
    assertTrue(out.contains("no-shadow") && out.contains("no-root-home") && out.contains("usr-read-only"), out);
    assertTrue(out.contains("WROTE") && out.contains("END"), out);
    assertEquals(NOBODY, Files.getAttribute(workspace.resolve("made.txt"), "unix:uid"),
        "the session's files belong to the worker's user outside");
    assertFalse(out.contains("Operation not permitted"), out);
  }
}
