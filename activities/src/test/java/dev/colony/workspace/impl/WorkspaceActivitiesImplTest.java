package dev.colony.workspace.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.secrets.Secrets;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Workspaces on one host, and an ant moving to a host that never held it: real git on temp dirs. */
@Timeout(180)
class WorkspaceActivitiesImplTest {
  @TempDir
  Path tmp;

  private AntSpec spec(String repo) {
    return AntSpec.builder().colony("c").name("worker-ant").description("d").instructions("i")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS)
        .autonomy(Autonomy.HUMAN).confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL)
        .lmOutput(LmOutput.DISCORD).recovery(RecoveryPolicy.RESUME).pollIntervalSeconds(0)
        .confirmationTimeoutSeconds(1800).sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(30)
        .continueAsNewEvery(100).workspace(new WorkspaceSpec(tmp.resolve("spec-root").toString(), repo, null))
        .colonyDir(tmp.toString()).sourceFile("ants/a.yaml").build();
  }

  private static String git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString(), "-c", "user.name=t", "-c",
        "user.email=t@example.com"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(Map.of("GIT_CONFIG_NOSYSTEM", "1"));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", args) + ": " + out);
    return out.strip();
  }

  /** A repository with one commit on main. */
  private Path repoWithOneCommit(String name) throws Exception {
    Path repo = Files.createDirectories(tmp.resolve(name));
    git(repo, "init", "-q", "-b", "main");
    Files.writeString(repo.resolve("README"), "hello\n");
    git(repo, "add", "README");
    git(repo, "commit", "-q", "-m", "start");
    return repo;
  }

  /**
   * The worker writes nothing into an ant's repository once the ant had it in its hands: a .git
   * whose commondir the ant pointed at another repository would have the worker's git config
   * written there (the identity now comes with each session's environment).
   */
  @Test
  void anExistingAntRepositoryIsNotWrittenByTheWorkerWhereverItsGitPoints() throws Exception {
    Path seed = repoWithOneCommit("seed-id");
    Path victim = repoWithOneCommit("victim");
    AntSpec spec = spec(seed.toString()).toBuilder()
        .git(new dev.colony.spec.GitIdentity("Colony Ant", "ant@colony.invalid")).build();
    var host = new WorkspaceActivitiesImpl(new Secrets(), "", tmp.resolve("root-id"));
    Path ws = host.prepare(spec);
    assertEquals("Colony Ant", git(ws, "config", "--local", "user.name"), "a new repository gets the identity");
    // The ant (as it may in its session) points its repository's common dir at the victim.
    Files.writeString(ws.resolve(".git/commondir"), victim.resolve(".git").toString() + "\n");
    host.prepare(spec.toBuilder().git(new dev.colony.spec.GitIdentity("Changed Name", "x@colony.invalid")).build());
    String victimConfig = Files.readString(victim.resolve(".git/config"));
    assertFalse(victimConfig.contains("Changed Name") || victimConfig.contains("Colony Ant"), victimConfig);
  }

  @Test
  void aWorkerNamesItsHostAndKeepsWorkspacesUnderItsOwnRoot() throws Exception {
    Path hostRoot = tmp.resolve("host-a");
    var a = new WorkspaceActivitiesImpl(new Secrets(), "host-a", hostRoot);
    assertEquals("host-a", a.claimHost());
    assertEquals(hostRoot.resolve("worker-ant"), a.prepare(spec(null)));
    assertTrue(Files.isDirectory(hostRoot.resolve("worker-ant")));
    assertEquals("", new WorkspaceActivitiesImpl(new Secrets()).claimHost(), "no host name: no affinity");
    assertThrows(IllegalArgumentException.class, () -> new WorkspaceActivitiesImpl(new Secrets(), "bad/host", null));
  }

  @Test
  void anAntMovedToANewHostCarriesOnFromItsPushedBranch() throws Exception {
    // The remote: a bare repository with one commit on main.
    Path seed = repoWithOneCommit("seed");
    Path remote = tmp.resolve("remote.git");
    git(tmp, "clone", "-q", "--bare", seed.toString(), remote.toString());
    String url = remote.toUri().toString(); // file:///...: a URL, so each host clones it

    // Host a: the ant's worktree on colony/worker-ant; it commits and pushes its work.
    var hostA = new WorkspaceActivitiesImpl(new Secrets(), "a", tmp.resolve("host-a"));
    Path wa = hostA.prepare(spec(url));
    assertEquals("colony/worker-ant", git(wa, "rev-parse", "--abbrev-ref", "HEAD"));
    Files.writeString(wa.resolve("work.txt"), "half done\n");
    git(wa, "add", "work.txt");
    git(wa, "commit", "-q", "-m", "progress");
    git(wa, "push", "-q", "origin", "colony/worker-ant");

    // Host a dies; host b, which never held the ant, recreates the worktree from the remote branch.
    var hostB = new WorkspaceActivitiesImpl(new Secrets(), "b", tmp.resolve("host-b"));
    Path wb = hostB.prepare(spec(url));
    assertTrue(wb.startsWith(tmp.resolve("host-b")));
    assertEquals("colony/worker-ant", git(wb, "rev-parse", "--abbrev-ref", "HEAD"));
    assertEquals("half done\n", Files.readString(wb.resolve("work.txt")));
    assertEquals("origin/colony/worker-ant", git(wb, "rev-parse", "--abbrev-ref", "@{upstream}"));
    // Preparing again on b reuses the worktree as it is.
    Files.writeString(wb.resolve("scratch"), "x");
    assertEquals(wb, hostB.prepare(spec(url)));
    assertTrue(Files.exists(wb.resolve("scratch")));
  }

  @Test
  void aNewAntWithNothingPushedStartsItsBranchFromTheDefaultBranch() throws Exception {
    Path seed = repoWithOneCommit("seed2");
    var host = new WorkspaceActivitiesImpl(new Secrets(), "a", tmp.resolve("host-c"));
    Path w = host.prepare(spec(seed.toUri().toString()));
    assertEquals("colony/worker-ant", git(w, "rev-parse", "--abbrev-ref", "HEAD"));
    assertEquals(git(seed, "rev-parse", "main"), git(w, "rev-parse", "HEAD"));
  }

  @Test
  void aUrlsCredentialsStayWithTheWorker() {
    assertEquals("https://github.com/o/r.git",
        WorkspaceActivitiesImpl.withoutCredentials("https://x-access-token:ghp_secret@github.com/o/r.git"));
    assertEquals("https://github.com/o/r.git", WorkspaceActivitiesImpl.withoutCredentials("https://tok@github.com/o/r.git"));
    assertEquals("git@github.com:o/r.git", WorkspaceActivitiesImpl.withoutCredentials("git@github.com:o/r.git"));
    assertEquals("file:///tmp/r.git", WorkspaceActivitiesImpl.withoutCredentials("file:///tmp/r.git"));
    assertEquals("fatal: could not read https://github.com/x: denied",
        WorkspaceActivitiesImpl.withoutCredentials("fatal: could not read https://u:p@github.com/x: denied"));
  }

  @Test
  void aUrlsCredentialsNeverReachTheAntsRepository() throws Exception {
    // The mirror holds the remote's branches from before; the remote is down now (nothing listens).
    Path seed = repoWithOneCommit("seed4");
    Path root = tmp.resolve("host-cred");
    Path mirror = WorkspaceActivitiesImpl.mirror(root, "worker-ant");
    Files.createDirectories(mirror.getParent());
    git(tmp, "init", "-q", "--bare", mirror.toString());
    git(mirror, "fetch", "-q", seed.toString(), "+refs/heads/*:refs/remotes/origin/*");
    String url = "https://x-access-token:tokSECRET42@127.0.0.1:1/app.git";
    Path w = new WorkspaceActivitiesImpl(new Secrets(), "a", root).prepare(spec(url));
    assertEquals("https://127.0.0.1:1/app.git", git(w, "config", "--get", "remote.origin.url"));
    assertEquals(git(seed, "rev-parse", "main"), git(w, "rev-parse", "HEAD"), "it starts from the mirror's main");
    try (var files = Files.walk(w)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertFalse(new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1).contains("tokSECRET42"),
            "the token is in " + f);
      }
    }
    assertEquals(url, git(mirror, "config", "--get", "remote.origin.url"), "the worker's mirror keeps it");
  }

  @Test
  void aFifoTheAntPutInItsRepositoryHoldsTheWorkerOnlyUntilItsDeadline() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(dev.colony.sandbox.Bubblewrap.probe().works());
    Path seed = repoWithOneCommit("seed5");
    var host = new WorkspaceActivitiesImpl(new Secrets(), "a", tmp.resolve("host-fifo"));
    Path w = host.prepare(spec(seed.toUri().toString()));
    // The ant's doing: git reads its packed refs and blocks on a FIFO no one writes.
    Files.deleteIfExists(w.resolve(".git/packed-refs"));
    Process mk = new ProcessBuilder("mkfifo", w.resolve(".git/packed-refs").toString()).start();
    assertEquals(0, mk.waitFor());
    java.time.Duration before = WorkspaceActivitiesImpl.WALLED_TIMEOUT;
    WorkspaceActivitiesImpl.WALLED_TIMEOUT = java.time.Duration.ofSeconds(3);
    try {
      // Before, this never returned (the class's timeout ends the test then).
      assertEquals(w, host.prepare(spec(seed.toUri().toString())), "the session goes on with what it has");
    } finally {
      WorkspaceActivitiesImpl.WALLED_TIMEOUT = before;
    }
  }
}
