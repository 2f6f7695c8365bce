package dev.colony.merge.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.secrets.Secrets;
import dev.colony.engine.Progress;
import dev.colony.engine.SessionContext;
import dev.colony.engine.command.CommandEngine;
import dev.colony.merge.BranchHead;
import dev.colony.merge.LandMode;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.RebaseResult;
import dev.colony.merge.TargetUpdate;
import dev.colony.merge.TestRun;
import dev.colony.sandbox.Bubblewrap;
import dev.colony.sandbox.GitWalls;
import dev.colony.sandbox.SessionWalls;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.SandboxSpec;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile ant on a shared local repository, in its sandbox: it commits to its own branch and
 * its work lands through the merge queue, but it cannot move the target or another ant's branch,
 * nor plant anything (config, hooks, filters, fsmonitor) that the worker or the queue then runs;
 * and the queue's test command (the ants' code) runs in walls of its own.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class GitWallsTest {
  @TempDir
  Path tmp;
  Path colony;
  Path shared;
  Path root;
  Path markers;
  Secrets secrets;
  WorkspaceActivitiesImpl workspaces;
  MergeActivitiesImpl merge;

  @BeforeAll
  static void bubblewrapIsThere() {
    Bubblewrap.Probe p = Bubblewrap.probe();
    assertTrue(p.works(), "bubblewrap: " + p.problem());
  }

  @BeforeEach
  void colony() throws Exception {
    colony = Files.createDirectories(tmp.resolve("colony"));
    root = colony.resolve(".colony/workspaces");
    markers = Files.createDirectories(tmp.resolve("markers"));
    Path seed = Files.createDirectories(tmp.resolve("seed"));
    MergeActivitiesImplTest.git(seed, "init", "-q", "-b", "main");
    MergeActivitiesImplTest.commit(seed, "README", "one\n", "start");
    shared = tmp.resolve("app.git");
    MergeActivitiesImplTest.git(tmp, "clone", "-q", "--bare", seed.toString(), shared.toString());
    secrets = new Secrets();
    workspaces = new WorkspaceActivitiesImpl(secrets);
    merge = new MergeActivitiesImpl(secrets, workspaces::prepare, new OkHttpClient(), null,
        dir -> Map.of("WORKER_SECRET", "workerSecret123", "GRANTED_TO_TESTS", "granted456"));
  }

  private AntSpec spec(String ant, String script) {
    return spec(ant, script, shared.toString());
  }

  private AntSpec spec(String ant, String script, String repoLocation) {
    return dev.colony.sandbox.CommandAnts.ant(colony, ant, List.of("/bin/bash", "-c", script))
        .workspace(new WorkspaceSpec(root.toString(), repoLocation, null)).sandbox(SandboxSpec.DEFAULTS).build();
  }


  /** Prepares the ant's workspace and runs {@code script} as its session, in its sandbox; its output. */
  private String session(String ant, String script) throws Exception {
    return session(spec(ant, script));
  }

  /** The same for an ant of any spec (a URL repository's, say). */
  private String session(AntSpec spec) throws Exception {
    String ant = spec.name();
    Path ws = workspaces.prepare(spec);
    Map<String, String> worker = new LinkedHashMap<>(System.getenv());
    Map<String, String> vars = Map.of("COLONY_ANT", ant, "COLONY_COLONY", "c");
    worker.putAll(vars);
    Path transcript = colony.resolve(".colony/transcripts/" + ant + "/session-" + System.nanoTime() + ".log");
    dev.colony.engine.Transcripts.prepare(transcript);
    try (SessionWalls walls = SessionWalls.of(spec, ws.toAbsolutePath(), worker, vars, List.of(transcript.getParent()),
        "gitwalls-" + System.nanoTime())) {
      assertNull(walls.refusal());
      if (!spec.workspace().repo().contains("://")) {
        dev.colony.sandbox.GitWalls.refreshOrigin(walls.confinement(), ws.toAbsolutePath()); // as a session starts
      }
      new CommandEngine().run(new SessionContext(spec, 1, "p", ws, worker, transcript, Duration.ofSeconds(90),
          Duration.ofMillis(100), Progress.NONE, null, null, dev.colony.engine.SessionGuard.of(spec),
          dev.colony.engine.OverseerFeed.NONE, walls.confinement()));
      return Files.readString(transcript);
    }
  }

  private MergeRepo repo(List<String> test, String testSandbox, List<String> testSecrets) {
    return new MergeRepo("c", "app", shared.toString(), "main", LandMode.REBASE, test, 60, false, false, 3, 3600,
        colony.toString(), colony.resolve(".colony/merge/app").toString(), null, null, testSandbox, testSecrets);
  }

  private String land(MergeRepo repo, String ant) {
    BranchHead b = merge.publishBranch(repo, ant, "colony/" + ant, null, null);
    assertTrue(b.commits() > 0, ant + " has work to land: " + b);
    String t = merge.prepareScratch(repo);
    RebaseResult r = merge.rebase(repo, b, t, ant + "'s work");
    assertFalse(r.conflicted(), r.detail());
    TestRun run = merge.runTests(repo, r.head());
    assertTrue(run.passed(), run.tail());
    assertEquals(TargetUpdate.Outcome.UPDATED, merge.updateTarget(repo, t, r.head()).outcome());
    return r.head();
  }

  private String sharedRef(String ref) throws Exception {
    return MergeActivitiesImplTest.git(shared, "rev-parse", "--verify", "-q", ref);
  }

  /** A variable of the worker's own environment (the JVM running this test has it). */
  private static final String INHERITED = System.getenv().keySet().stream().sorted()
      .filter(k -> k.matches("[A-Z][A-Z0-9_]*") && !List.of("PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TERM", "LANG",
          "PWD", "OLDPWD", "SHLVL", "GIT_TERMINAL_PROMPT", "HOSTNAME").contains(k))
      .findFirst().orElseThrow();

  private static final String COMMIT = "git config user.email a@example.com; git config user.name A; "
      + "echo \"$COLONY_ANT\" > $COLONY_ANT.txt; git add $COLONY_ANT.txt; git commit -qm \"$COLONY_ANT's work\"; ";

  @Test
  void aHostileAntCannotMoveTheTargetOrAnotherAntsBranchAndItsOwnWorkStillLands() throws Exception {
    session("b", COMMIT);
    MergeRepo repo = repo(List.of(), null, null);
    merge.publishBranch(repo, "b", "colony/b", null, null);
    String main0 = sharedRef("refs/heads/main");
    String b0 = sharedRef("refs/heads/colony/b");
    String config0 = Files.readString(shared.resolve("config"));
    String s = shared.toString();
    String out = session("a", COMMIT
        + "git update-ref refs/heads/main HEAD; git push -q . HEAD:main; git branch -D colony/b; "
        + "git --git-dir=" + s + " update-ref refs/heads/main HEAD && echo DOOR-update-ref-main; "
        + "git push -q origin HEAD:main && echo DOOR-push-main; "
        + "git push -q origin HEAD:refs/heads/colony/b --force && echo DOOR-push-other; "
        + "git --git-dir=" + s + " branch -D colony/b && echo DOOR-branch-D; "
        + "git rev-parse HEAD > " + s + "/refs/heads/colony/b && echo DOOR-ref-file; "
        + "git rev-parse HEAD > " + s + "/refs/heads/main && echo DOOR-main-file; "
        + "printf '[core]\\n\\tfsmonitor = touch " + markers + "/fsmonitor\\n' >> " + s + "/config && echo DOOR-config; "
        + "mkdir -p " + s + "/hooks && echo 'touch " + markers + "/hook' > " + s + "/hooks/post-update "
        + "&& echo DOOR-hook; "
        + "ls " + root.resolve("b") + " && echo DOOR-other-workspace; "
        + "git fetch -q origin && git log --format=%s -1 origin/main && echo READS-TARGET; echo END");
    assertTrue(out.contains("END"), out);
    assertEquals(main0, sharedRef("refs/heads/main"), "main did not move: " + out);
    assertEquals(b0, sharedRef("refs/heads/colony/b"), "b's branch is untouched: " + out);
    assertFalse(out.contains("DOOR-"), out);
    assertTrue(out.contains("READS-TARGET"), "the ant reads (fetches) the target: " + out);
    assertEquals(config0, Files.readString(shared.resolve("config")));
    assertFalse(Files.exists(shared.resolve("hooks/post-update")));

    // Its own work lands through the queue as before (and b's after it).
    String landed = land(repo, "a");
    assertEquals(landed, sharedRef("refs/heads/main"));
    assertEquals("a's work", MergeActivitiesImplTest.git(shared, "log", "-1", "--format=%s", "main"));
    // b's next session sees the new main (its repository fetched its origin first) and rebases onto it.
    String rebased = session("b", "git rebase -q main && git log --format=%s -2 | tr '\\n' '|'; echo; echo END");
    assertTrue(rebased.contains("b's work|a's work|"), rebased);
    land(repo, "b");
    assertEquals("b's work", MergeActivitiesImplTest.git(shared, "log", "-1", "--format=%s", "main"));
    try (var files = Files.list(markers)) {
      assertEquals(List.of(), files.toList());
    }
  }

  @Test
  void whatAnAntPlantsInItsRepositoryDoesNotRunWhenTheQueueOrTheWorkerReadsItsWork() throws Exception {
    MergeRepo repo = repo(List.of(), null, null);
    String m = markers.toString();
    // Everything git may run from a repository's config, hooks and attributes, aimed outside.
    String plant = COMMIT
        + "git config core.fsmonitor 'touch " + m + "/fsmonitor; echo'; "
        + "git config core.hooksPath .git/hooks; mkdir -p .git/hooks; "
        + "for h in pre-commit post-checkout post-merge post-rewrite reference-transaction pre-push pre-auto-gc; do "
        + "printf '#!/bin/sh\\ntouch " + m + "/hook-%s\\n' $h > .git/hooks/$h; chmod +x .git/hooks/$h; done; "
        + "printf '* filter=evil diff=evil\\n' > .gitattributes; git add .gitattributes; "
        + "git config filter.evil.clean 'touch " + m + "/clean; cat'; "
        + "git config filter.evil.smudge 'touch " + m + "/smudge; cat'; "
        + "git config filter.evil.process 'touch " + m + "/process'; "
        + "git config diff.evil.textconv 'touch " + m + "/textconv; cat'; "
        + "git config diff.external 'touch " + m + "/external'; "
        + "git config core.alternateRefsCommand 'touch " + m + "/altrefs'; "
        + "git config uploadpack.packObjectsHook 'touch " + m + "/packhook;'; "
        + "git config gpg.program 'touch " + m + "/gpg'; git config log.showSignature true; "
        + "git commit -qm attributes; echo more >> a.txt; echo END";
    String out = session("a", plant);
    assertTrue(out.contains("END"), out);
    Path ws = root.resolve("a");
    assertTrue(MergeActivitiesImplTest.git(ws, "config", "--get", "core.fsmonitor").contains(m),
        "the ant's repository holds the plants");
    // The queue reads and lands its work; the worker syncs its branch afterwards (its repository's
    // git, status, reset or rebase) and prepares its workspace again.
    BranchHead b = merge.publishBranch(repo, "a", "colony/a", null, null);
    String t = merge.prepareScratch(repo);
    RebaseResult r = merge.rebase(repo, b, t, "work");
    assertTrue(merge.runTests(repo, r.head()).passed());
    assertEquals(TargetUpdate.Outcome.UPDATED, merge.updateTarget(repo, t, r.head()).outcome());
    // Its tree has a change: sync's status runs the clean filter and asks the fsmonitor (then leaves it).
    String synced = merge.syncBranch(spec("a", ""), b.head(), r.head());
    assertTrue(synced.startsWith("colony/a left as it is"), synced);
    workspaces.prepare(spec("a", ""));
    try (var files = Files.list(markers)) {
      assertEquals(List.of(), files.toList(), "nothing the ant planted ran on the worker (sync: " + synced + ")");
    }
  }

  @Test
  void theQueuesTestRunsInWallsWithoutTheWorkersSecretsNetworkOrOtherWorkspaces() throws Exception {
    session("b", COMMIT + "echo b-private > private.txt; echo END");
    try (ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      int port = server.getLocalPort();
      Thread.ofVirtual().start(() -> {
        while (!server.isClosed()) {
          try (var c = server.accept()) {
            c.getOutputStream().write("DOOR-loopback\n".getBytes());
          } catch (java.io.IOException e) {
            return;
          }
        }
      });
      String test = "#!/bin/bash\n"
          + "echo \"worker=${WORKER_SECRET:-none} granted=${GRANTED_TO_TESTS:-none} path=$PATH\"\n"
          + "echo \"inherited=${" + INHERITED + ":-none}\"\n"
          + "env | grep -q workerSecret123 && echo DOOR-env\n"
          + "timeout 5 bash -c 'cat < /dev/tcp/127.0.0.1/" + port + "' 2>/dev/null\n"
          + "cat " + root.resolve("b/private.txt") + " 2>/dev/null && echo DOOR-other-workspace\n"
          + "cat " + colony + "/.env 2>/dev/null; echo > " + markers + "/from-test 2>/dev/null && echo DOOR-write\n"
          + "(echo 'gitdir: /tmp/mine' > .git) 2>/dev/null && echo DOOR-scratch-git\n"
          + "exit 0\n";
      session("a", "printf '%s' '" + test.replace("'", "'\\''") + "' > test.sh; chmod +x test.sh; git add test.sh; "
          + COMMIT + "echo END");
      MergeRepo repo = repo(List.of("./test.sh"), null, List.of("GRANTED_TO_TESTS"));
      BranchHead b = merge.publishBranch(repo, "a", "colony/a", null, null);
      String t = merge.prepareScratch(repo);
      RebaseResult r = merge.rebase(repo, b, t, "work");
      TestRun run = merge.runTests(repo, r.head());
      assertTrue(run.passed(), run.tail());
      assertTrue(run.tail().contains("worker=none granted=granted456"), run.tail());
      assertTrue(run.tail().contains("inherited=none"), "none of the worker's own variables: " + run.tail());
      assertFalse(run.tail().contains("DOOR-"), run.tail());
      assertFalse(Files.exists(markers.resolve("from-test")));

      // test_sandbox: off is the explicit opt-out: the same test then reaches the worker's loopback.
      TestRun open = merge.runTests(repo(List.of("./test.sh"), "off", List.of()), r.head());
      assertTrue(open.tail().contains("DOOR-loopback"), open.tail());
    }
  }

  @Test
  void aHangingTestInItsWallsIsKilledWithEverythingItStartedAtItsTimeout() throws Exception {
    session("a", COMMIT + "echo END");
    String marker = "colony-test-orphan-" + System.nanoTime();
    MergeRepo repo = new MergeRepo("c", "app", shared.toString(), "main", LandMode.REBASE,
        List.of("bash", "-c", "setsid nohup bash -c 'exec -a " + marker + " sleep 600' >/dev/null 2>&1 & "
            + "echo started; sleep 600"), 2, false, false, 3, 3600, colony.toString(),
        colony.resolve(".colony/merge/app").toString(), null, null, null, null);
    BranchHead b = merge.publishBranch(repo, "a", "colony/a", null, null);
    String t = merge.prepareScratch(repo);
    RebaseResult r = merge.rebase(repo, b, t, "work");
    long start = System.nanoTime();
    TestRun run = merge.runTests(repo, r.head());
    assertTrue(run.timedOut(), run.tail());
    assertTrue(run.tail().contains("started"), run.tail());
    assertTrue((System.nanoTime() - start) / 1_000_000 < 30_000);
    dev.colony.testing.Eventually.eventually(() -> ProcessHandle.allProcesses().noneMatch(
        p -> p.info().commandLine().orElse("").contains(marker)), "nothing the test started outlives it");
  }

  @Test
  void aWorkspaceMadeAsAWorktreeOfTheSharedRepositoryBecomesARepositoryOfItsOwn() throws Exception {
    // As an older Colony made it: a worktree of the shared repository on the ant's branch.
    Path ws = root.resolve("a");
    Files.createDirectories(root);
    MergeActivitiesImplTest.git(shared, "worktree", "add", "-q", "-b", "colony/a", ws.toString(), "main");
    String committed = MergeActivitiesImplTest.commit(ws, "a.txt", "committed\n", "a's work");
    Files.writeString(ws.resolve("a.txt"), "committed\nand more, not committed\n");

    Path prepared = workspaces.prepare(spec("a", ""));
    assertEquals(ws, prepared);
    assertTrue(Files.isDirectory(ws.resolve(".git")), "its own repository now");
    assertEquals(committed, MergeActivitiesImplTest.git(ws, "rev-parse", "HEAD"));
    assertEquals("colony/a", MergeActivitiesImplTest.git(ws, "rev-parse", "--abbrev-ref", "HEAD"));
    assertEquals("committed\nand more, not committed\n", Files.readString(ws.resolve("a.txt")), "uncommitted work stays");
    assertEquals("M a.txt", MergeActivitiesImplTest.git(ws, "status", "--porcelain", "--untracked-files=no"));
    assertFalse(MergeActivitiesImplTest.git(shared, "worktree", "list").contains(ws.toString()),
        "the shared repository no longer holds it as a worktree");
    // Its sandbox now holds the shared repository read-only, and its work still lands.
    String out = session("a", "git config user.email a@example.com; git config user.name A; "
        + "git commit -qam 'more' && echo COMMITTED; git push -q origin HEAD:main && echo DOOR-push; echo END");
    assertTrue(out.contains("COMMITTED") && !out.contains("DOOR-"), out);
    land(repo(List.of(), null, null), "a");
    assertEquals("more", MergeActivitiesImplTest.git(shared, "log", "-1", "--format=%s", "main"));
  }

  @Test
  void aUrlRepositorysAntClonePlantsNothingThatPublishingItsBranchRuns() throws Exception {
    String url = shared.toUri().toString(); // file:///...: a URL, so the ant has a clone of its own
    Path ws = workspaces.prepare(spec("a", "", url));
    String head = MergeActivitiesImplTest.commit(ws, "a.txt", "a\n", "a's work");
    // What the ant can write in its repository (read-write in its sandbox): programs git runs to
    // fetch and push, and a hook.
    Path clone = ws;
    assertFalse(Files.exists(root.resolve(".repos")), "no clone holding the URL");
    String m = markers.toString();
    Files.writeString(clone.resolve(".git/config"), Files.readString(clone.resolve(".git/config"))
        + "[remote \"origin\"]\n\tuploadpack = touch " + m + "/uploadpack; git-upload-pack\n"
        + "\treceivepack = touch " + m + "/receivepack; git-receive-pack\n"
        + "[core]\n\tfsmonitor = touch " + m + "/fsmonitor\n\tsshCommand = touch " + m + "/ssh\n"
        // Run by receive-pack and upload-pack themselves (the repository borrows objects): only
        // their walls keep it from the worker.
        + "\talternateRefsCommand = touch " + m + "/alternate-refs; true\n"
        + "[credential]\n\thelper = !touch " + m + "/credential\n");
    MergeRepo repo = new MergeRepo("c", "app", url, "main", LandMode.REBASE, List.of(), 60, true, false, 3, 3600,
        colony.toString(), colony.resolve(".colony/merge/app").toString(), null, null, null, null);
    BranchHead b = null;
    RuntimeException failed = null;
    try {
      workspaces.prepare(spec("a", "", url)); // as the next session starts: the remote's branches handed over
      b = merge.publishBranch(repo, "a", "colony/a", null, null);
    } catch (RuntimeException e) {
      failed = e;
    }
    try (var files = Files.list(markers)) {
      assertEquals(List.of(), files.toList(), "nothing the ant's clone names ran on the worker");
    }
    if (failed != null) {
      throw failed;
    }
    assertEquals(head, b.head());
    assertEquals(1, b.commits());
    assertEquals(head, sharedRef("refs/heads/colony/a"), "the branch reached the remote");

    // It lands (a fast-forward: the landed commit is its own, unknown to its clone's origin/main
    // until the worker hands it over) and the worker syncs its branch: still nothing runs.
    String t = merge.prepareScratch(repo);
    RebaseResult r = merge.rebase(repo, b, t, "work");
    assertEquals(TargetUpdate.Outcome.UPDATED, merge.updateTarget(repo, t, r.head()).outcome());
    String synced = merge.syncBranch(spec("a", "", url), head, r.head());
    assertTrue(synced.startsWith("colony/a "), synced);
    assertEquals(r.head(), MergeActivitiesImplTest.git(clone, "rev-parse", "refs/remotes/origin/main"),
        "the landed commit was handed to the ant's clone");
    try (var files = Files.list(markers)) {
      assertEquals(List.of(), files.toList(), "nothing the ant's clone names ran on the worker (" + synced + ")");
    }
  }

  @Test
  void aUrlRepositorysAntSeesNeitherItsUrlNorTheMirrorButGetsTheRemotesBranches() throws Exception {
    String url = shared.toUri().toString();
    Path mirror = root.resolve(".publish/a.git");
    String script = "cd \"$PWD\"; cat " + mirror + "/config && echo DOOR-mirror-config; "
        + "ls " + mirror + "/objects >/dev/null && echo OBJECTS-READABLE; "
        + "touch " + mirror + "/objects/x && echo DOOR-mirror-write; "
        + "git config --get remote.origin.url; "
        + "echo ORIGIN-MAIN $(git rev-parse origin/main); git log -1 --format=%s; echo END";
    AntSpec spec = spec("a", script, url);
    String first = session(spec);
    assertTrue(first.contains("END") && first.contains("OBJECTS-READABLE") && !first.contains("DOOR-"), first);
    assertTrue(first.contains("ORIGIN-MAIN " + sharedRef("refs/heads/main")), first);
    assertTrue(first.contains("\n" + MergeActivitiesImplTest.git(shared, "log", "-1", "--format=%s", "main") + "\nEND"),
        "the ant's history reads through the mirror's objects: " + first);
    assertTrue(Files.exists(mirror.resolve("config")), "the worker's mirror is there, outside the walls");

    // Someone lands on the remote: the next session starts with it as origin/main.
    Path other = tmp.resolve("other");
    MergeActivitiesImplTest.git(tmp, "clone", "-q", shared.toString(), other.toString());
    String landed = MergeActivitiesImplTest.commit(other, "b.txt", "b\n", "landed elsewhere");
    MergeActivitiesImplTest.git(other, "push", "-q", "origin", "HEAD:main");
    String second = session(spec);
    assertTrue(second.contains("ORIGIN-MAIN " + landed), second);
  }

  @Test
  void aUrlWorkspaceOfTheLayoutBeforeBecomesARepositoryOfItsOwnKeepingItsWork() throws Exception {
    String url = shared.toUri().toString();
    Path clone = root.resolve(".repos/a");
    Path ws = root.resolve("a");
    Files.createDirectories(root.resolve(".repos"));
    MergeActivitiesImplTest.git(root, "clone", "-q", url, clone.toString());
    MergeActivitiesImplTest.git(clone, "worktree", "add", "-q", "-b", "colony/a", ws.toString());
    String head = MergeActivitiesImplTest.commit(ws, "a.txt", "a\n", "a's work, never published");
    Files.writeString(ws.resolve("a.txt"), "a, changed\n");
    Files.writeString(ws.resolve("new.txt"), "untracked\n");

    assertEquals(ws, workspaces.prepare(spec("a", "", url)));
    assertTrue(GitWalls.ownRepository(ws), "a repository of its own");
    assertFalse(Files.exists(clone), "the clone that held the URL is gone");
    assertEquals(head, MergeActivitiesImplTest.git(ws, "rev-parse", "HEAD"));
    assertEquals("colony/a", MergeActivitiesImplTest.git(ws, "rev-parse", "--abbrev-ref", "HEAD"));
    assertEquals("a, changed\n", Files.readString(ws.resolve("a.txt")));
    assertEquals("untracked\n", Files.readString(ws.resolve("new.txt")));
    assertEquals(url, MergeActivitiesImplTest.git(ws, "config", "--get", "remote.origin.url"));
    // And its work publishes from there.
    MergeRepo repo = new MergeRepo("c", "app", url, "main", LandMode.REBASE, List.of(), 60, true, false, 3, 3600,
        colony.toString(), colony.resolve(".colony/merge/app").toString(), null, null, null, null);
    assertEquals(head, merge.publishBranch(repo, "a", "colony/a", null, null).head());
  }

  @Test
  void theSharedRepositorysConfigIsMaskedForTheAntAndTheQueuesTest() throws Exception {
    // A shared repository whose config holds a token (its origin, for push: true).
    MergeActivitiesImplTest.git(shared, "config", "remote.origin.url", "https://x-access-token:tokenInConfig42@example.com/app.git");
    MergeActivitiesImplTest.git(shared, "config", "colony.note", "tokenInConfig42");
    String s = GitWalls.sharedGitDir(shared).toString();
    String out = session("a", "cat " + s + "/config; git -C " + s + " config --list; "
        + "git fetch -q origin && echo FETCHED; git log -1 --format=%s origin/main; "
        + COMMIT + "echo END");
    assertTrue(out.contains("FETCHED") && out.contains("END"), out);
    assertFalse(out.contains("tokenInConfig42"), out);
    assertTrue(out.contains("repositoryformatversion"), "git still reads the repository: " + out);

    String test = "#!/bin/sh\ncat " + s + "/config; cat .git 2>/dev/null; git config --list; exit 0\n";
    session("a", "printf '%s' '" + test.replace("'", "'\\''") + "' > test.sh; chmod +x test.sh; git add test.sh; "
        + COMMIT + "echo END");
    MergeRepo repo = repo(List.of("./test.sh"), null, List.of());
    BranchHead b = merge.publishBranch(repo, "a", "colony/a", null, null);
    String t = merge.prepareScratch(repo);
    RebaseResult r = merge.rebase(repo, b, t, "work");
    TestRun run = merge.runTests(repo, r.head());
    assertTrue(run.passed(), run.tail());
    assertTrue(run.tail().contains("repositoryformatversion"), run.tail());
    assertFalse(run.tail().contains("tokenInConfig42"), run.tail());
    // The worker's own git still reads the whole config.
    assertEquals("tokenInConfig42", MergeActivitiesImplTest.git(shared, "config", "colony.note"));
  }

  @Test
  void theQueuesTestMeetsItsMemoryAndProcessLimits() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(dev.colony.sandbox.SessionLimits.check() == null,
        "no control group for limits on this machine: " + dev.colony.sandbox.SessionLimits.check());
    Path ws = workspaces.prepare(spec("a", ""));
    Files.writeString(ws.resolve("forks.py"), """
        import os, time
        kids, fail = [], 0
        for i in range(100):
            try:
                pid = os.fork()
            except OSError:
                fail += 1
                continue
            if pid == 0:
                time.sleep(2)
                os._exit(0)
            kids.append(pid)
        for k in kids:
            os.waitpid(k, 0)
        print("forkfail=%d" % fail)
        """);
    Files.writeString(ws.resolve("test.sh"), """
        #!/bin/sh
        python3 forks.py
        python3 -c 'a = bytearray(512 * 1024 * 1024); print("DOOR-hog-got", len(a))'
        echo hog=$?
        exit 0
        """);
    session("a", "chmod +x test.sh; git add test.sh forks.py; " + COMMIT + "echo END");
    MergeRepo limited = new MergeRepo("c", "app", shared.toString(), "main", LandMode.REBASE, List.of("./test.sh"), 60,
        false, false, 3, 3600, colony.toString(), colony.resolve(".colony/merge/app").toString(), null, null,
        dev.colony.merge.Undeclared.CHANGED, null, null, 128L << 20, 64);
    BranchHead b = merge.publishBranch(limited, "a", "colony/a", null, null);
    String t = merge.prepareScratch(limited);
    RebaseResult r = merge.rebase(limited, b, t, "work");
    TestRun run = merge.runTests(limited, r.head());
    assertTrue(run.tail().contains("hog=137"), "the hog is killed at 128m: " + run);
    assertFalse(run.tail().contains("DOOR-hog-got"), run.tail());
    assertTrue(run.tail().matches("(?s).*forkfail=[1-9].*"), "forks past 64 fail: " + run.tail());
    // With the defaults (4g, 4096) the same test gets its memory and its processes.
    TestRun roomy = merge.runTests(repo(List.of("./test.sh"), null, List.of()), r.head());
    assertTrue(roomy.tail().contains("DOOR-hog-got") && roomy.tail().contains("forkfail=0"), roomy.tail());
  }
}
