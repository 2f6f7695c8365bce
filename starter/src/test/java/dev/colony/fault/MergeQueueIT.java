package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge queue on real parts: the real dev server, workers as processes killed with SIGKILL,
 * real git repositories on disk (a bare repository, the ants' worktrees and the queue's scratch),
 * and ants whose agent is a script that commits ({@code examples/merge}).
 *
 * <p>Faults are injected from outside the code under test: the test command holds the first
 * item's tests, and a {@code git} in front of the real one on the workers' PATH holds the queue's
 * first update of {@code main} and its first clean rebase, each after git did it; the test kills
 * the worker at each hold. A human pushes to {@code main} while the queue tests the item after.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MergeQueueIT {
  private static final Path EXAMPLE = Path.of("../examples/merge").toAbsolutePath().normalize();
  private static final Duration LONG = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private Cluster cluster;
  private final List<Cluster.WorkerProcess> workers = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    if (cluster != null) {
      Files.createDirectories(gates());
      for (String g : List.of("rebase", "tests-1", "tests-2", "update")) {
        Files.writeString(gates().resolve(g + ".go"), ""); // nothing left holding
      }
    }
    Cluster.closeAll(cluster);
  }

  private Path gates() {
    return tmp.resolve("gates");
  }

  private Path repo() {
    return cluster.dir.resolve(".colony/app.git");
  }

  @Test
  void everyAntsWorkLandsOnceInALineAcrossKillsAConflictAndARedTestThroughRework() throws Exception {
    cluster = new Cluster(tmp, EXAMPLE).startServer("dev");
    cluster.colonyName = "merge";
    Files.createDirectories(gates());
    installGates(); // the repository itself is made by `colony start` (the example's create_from)
    workers.add(cluster.startWorker("w1"));
    try {
      cluster.cli("start", cluster.dir.toString());

      // 1. The first item's tests are held: kill the worker there (the tests' process tree dies with it).
      awaitGate("tests-1");
      killAndReplace();
      open("tests-1");
      // 2. Main was written and the worker dies before it can say so.
      awaitGate("update");
      killAndReplace();
      open("update");
      // 3. The next item that rebases cleanly (the first one was a fast-forward) is held after the
      // rebase: kill the worker there.
      awaitGate("rebase");
      killAndReplace();
      open("rebase");
      // 4. While that item is tested, a human pushes to main: the queue rebases again.
      awaitGate("tests-2");
      String human = humanCommit();
      open("tests-2");

      eventually(Duration.ofSeconds(240), () -> subjects().containsAll(List.of("ada: the notes page",
          "bob: the greeting says bob", "cy: the greeting says cy", "human: README")),
          () -> "not everything landed: " + subjects() + "\n" + status());
      assertTrue(git(repo(), "merge-base", "--is-ancestor", human, "main").isEmpty());

      // 5. A red test: ada breaks the notes; the queue sends it back; ada fixes it; it lands.
      cluster.cli("send", "merge/ada", "break the notes");
      eventually(LONG, () -> subjects().contains("ada: remove the stray marker"),
          () -> "the red test was never reworked: " + subjects() + "\n" + status() + "\n" + log());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + log() + "\n" + cluster.diagnostics(), e);
    }
    // Main is one line of commits, each ant's work on it exactly once, every commit green.
    assertEquals("", git(repo(), "rev-list", "--merges", "main").strip(), "no merge commits");
    List<String> subjects = subjects();
    for (String s : List.of("ada: the notes page", "bob: the greeting says bob", "cy: the greeting says cy",
        "human: README", "ada: a stray marker in the notes", "ada: remove the stray marker")) {
      assertEquals(1, subjects.stream().filter(s::equals).count(), s + " on main: " + subjects);
    }
    String app = git(repo(), "show", "main:app.txt");
    assertTrue(app.contains("greeting: hello from bob") && app.contains("greeting: hello from cy"),
        "both greetings kept by the rework: " + app);
    assertTrue(log().contains("rework: resolved app.txt keeping both changes"), log());
    assertTrue(log().contains("rework: the tests failed, removed the stray marker"), log());
    assertGreenLine();
    // The queue's card: the conflict and the red test were reworks, everything landed.
    JsonNode card = JSON.readTree(cluster.cli("merge", "status", "--dir", cluster.dir.toString(), "app", "--json"));
    assertTrue(card.toString().contains("\"landedCount\""), card.toString());
  }

  /**
   * Two hosts, one repository given as a URL (a bare "remote" on disk): each host keeps its own
   * clones, ada works on host a and bob on host b, and both their work lands on the remote's main.
   * The queue reads each branch on its ant's host (which pushes it), and rebases, tests and
   * updates main from whichever worker runs the step, meeting on the remote. Host a is killed
   * while ada's work waits to be read there, and comes back.
   */
  @Test
  void antsOfOneRepositoryOnTwoHostsLandThroughItsRemote() throws Exception {
    cluster = new Cluster(tmp, EXAMPLE).startServer("dev");
    cluster.colonyName = "merge";
    Path remote = tmp.resolve("remote.git");
    dev.colony.merge.impl.RepoSeed.createIfMissing(remote, cluster.dir.resolve("seed"), "main");
    String url = remote.toUri().toString(); // file:///...: a URL, so each host clones it
    Path yaml = cluster.dir.resolve("colony.yaml");
    Files.writeString(yaml, Files.readString(yaml).replace("repo: .colony/app.git", "repo: " + url)
        .replaceAll("(?m)^\\s*create_from:.*\n", ""));
    for (String ant : List.of("ada", "bob")) {
      Path file = cluster.dir.resolve("ants/" + ant + ".yaml");
      Files.writeString(file, Files.readString(file).replace("repo: .colony/app.git", "repo: " + url));
    }
    Files.delete(cluster.dir.resolve("ants/cy.yaml"));
    Cluster.WorkerProcess a = cluster.startWorker("a", cluster.target(), "--host", "a",
        "--workspace-root", tmp.resolve("host-a").toString());
    try {
      cluster.cli("start", cluster.dir.toString(), "ada");
      eventually(LONG, () -> Files.exists(tmp.resolve("host-a/.publish/ada.git")) && log().contains("ada session 1: committed"),
          () -> "ada never worked on host a: " + log());
      Cluster.kill9(a);
      cluster.startWorker("b", cluster.target(), "--host", "b", "--workspace-root", tmp.resolve("host-b").toString());
      cluster.cli("start", cluster.dir.toString(), "bob");
      eventually(LONG, () -> log().contains("bob session 1: committed"), () -> "bob never worked: " + log());
      cluster.startWorker("a2", cluster.target(), "--host", "a", "--workspace-root", tmp.resolve("host-a").toString());
      eventually(Duration.ofSeconds(180), () -> remoteSubjects(remote).containsAll(List.of("ada: the notes page",
          "bob: the greeting says bob")), () -> "not both landed: " + remoteSubjects(remote) + "\n" + status());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + log() + "\n" + cluster.diagnostics(), e);
    }
    assertTrue(Files.exists(tmp.resolve("host-b/.publish/bob.git")) && !Files.exists(tmp.resolve("host-a/.publish/bob.git")),
        "bob worked on host b only");
    assertFalse(Files.exists(tmp.resolve("host-b/.publish/ada.git")), "ada worked on host a only");
    for (String host : List.of("a", "b")) {
      assertFalse(Files.exists(tmp.resolve("host-" + host + "/.repos")), "no clone holding the URL on host " + host);
    }
    assertEquals(url, git(tmp.resolve("host-a/ada"), "config", "--get", "remote.origin.url").strip(),
        "ada's own repository names the remote without credentials");
    assertEquals("", git(remote, "rev-list", "--merges", "main").strip(), "no merge commits");
  }

  private static List<String> remoteSubjects(Path remote) {
    try {
      return git(remote, "log", "--format=%s", "main").lines().toList();
    } catch (Exception e) {
      return List.of(e.toString());
    }
  }

  /** Each first-parent commit on main after the seed passes the example's tests. */
  private void assertGreenLine() throws Exception {
    Path check = tmp.resolve("check");
    git(tmp, "clone", "-q", repo().toString(), check.toString());
    List<String> line = git(check, "rev-list", "--first-parent", "--reverse", "origin/main").lines().toList();
    for (String sha : line.subList(1, line.size())) {
      git(check, "checkout", "-q", "--detach", sha);
      if (git(check, "log", "-1", "--format=%s").startsWith("human:") || git(check, "log", "-1", "--format=%s")
          .startsWith("ada: a stray marker")) {
        continue; // a human's push is not the queue's to test; a red commit lands only with its fix on top
      }
      Process p = new ProcessBuilder("sh", "test.sh").directory(check.toFile()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, sha + " is red on main: " + out);
    }
  }

  private void killAndReplace() throws Exception {
    Cluster.kill9(workers.get(workers.size() - 1));
    workers.add(cluster.startWorker("w" + (workers.size() + 1)));
  }

  /**
   * Holds: the queue's first rebase and the first update of main (a {@code git} in front of the
   * real one on the workers' PATH: the command runs, then holds before it exits, so the worker dies
   * after the effect and before it could report it), and the tests of the first two items (the
   * test command). Each hold writes gates/NAME.reached and waits for gates/NAME.go. The queue runs
   * git with hooks off, so the holds sit where git is called, not in the repository.
   */
  private void installGates() throws Exception {
    String hold = "hold() { [ -e \"$G/$1.reached\" ] && return 0; : > \"$G/$1.reached\"; n=0; "
        + "while [ ! -e \"$G/$1.go\" ] && [ $n -lt 1200 ]; do sleep 0.1; n=$((n+1)); done; }\n";
    String g = "G='" + gates() + "'\n";
    String real = new String(new ProcessBuilder("sh", "-c", "command -v git").start().getInputStream().readAllBytes(),
        StandardCharsets.UTF_8).strip();
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    script(bin.resolve("git"), "#!/bin/sh\n" + g + hold
        + "'" + real + "' \"$@\"; rc=$?\n"
        + "[ $rc -eq 0 ] || exit $rc\n"
        + "case \" $* \" in\n"
        + "  *'/.colony/merge/'*' rebase --no-autostash '*) hold rebase ;;\n"
        + "  *' update-ref '*' refs/heads/main '*) hold update ;;\n"
        + "esac\nexit 0\n");
    cluster.env.put("PATH", bin + ":" + System.getenv("PATH"));
    Path tests = script(tmp.resolve("gated-tests.sh"), "#!/bin/sh\n" + g + hold
        + "head=$(git rev-parse HEAD)\n"
        + "if [ ! -e \"$G/tests-1.reached\" ]; then echo \"$head\" > \"$G/tests-1.sha\"; hold tests-1;\n"
        + "elif [ \"$head\" != \"$(cat \"$G/tests-1.sha\")\" ]; then hold tests-2; fi\n"
        + "exec sh test.sh\n");
    Path yaml = cluster.dir.resolve("colony.yaml");
    String config = Files.readString(yaml);
    // The gate is the harness's, outside the repository: the test runs without walls here
    // (test_sandbox: off). The walled test of the example runs in the other test of this class.
    String gated = config.replace("test: [\"sh\", \"test.sh\"]", "test: [\"" + tests + "\"]\n      test_sandbox: off");
    assertFalse(gated.equals(config), "the example's test line moved");
    Files.writeString(yaml, gated);
  }

  private static Path script(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    return file;
  }

  private void awaitGate(String name) {
    eventually(LONG, () -> Files.exists(gates().resolve(name + ".reached")),
        () -> "never reached the " + name + " hold: " + status());
  }

  private void open(String name) throws IOException {
    Files.writeString(gates().resolve(name + ".go"), "");
  }

  private String humanCommit() throws Exception {
    Path clone = tmp.resolve("human");
    git(tmp, "clone", "-q", repo().toString(), clone.toString());
    Files.writeString(clone.resolve("README"), "A human was here.\n");
    git(clone, "add", "README");
    git(clone, "-c", "user.name=human", "-c", "user.email=human@example.invalid", "commit", "-q", "-m",
        "human: README");
    git(clone, "push", "-q", "origin", "HEAD:main");
    return git(clone, "rev-parse", "HEAD").strip();
  }

  private List<String> subjects() {
    try {
      return git(repo(), "log", "--format=%s", "main").lines().toList();
    } catch (Exception e) {
      return List.of(e.toString());
    }
  }

  private String status() {
    try {
      return cluster.cli("merge", "status", "--dir", cluster.dir.toString());
    } catch (Exception e) {
      return "merge status: " + e;
    }
  }

  private String log() {
    return Cluster.read(cluster.dir.resolve("logs/merge.log"));
  }

  static String git(Path cwd, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", cwd.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("GIT_TERMINAL_PROMPT", "0");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("git " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }
}
