package dev.colony.merge.impl;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.secrets.Secrets;
import dev.colony.merge.BranchHead;
import dev.colony.merge.LandMode;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.RebaseResult;
import dev.colony.merge.TargetUpdate;
import dev.colony.merge.TestRun;
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
import dev.colony.workspace.impl.WorkspaceActivitiesImpl;
import dev.colony.merge.MergeActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The merge queue's git steps on real repositories in temp dirs: local worktrees, a bare remote, two hosts. */
@Timeout(180)
class MergeActivitiesImplTest {
  @TempDir
  Path tmp;

  private Secrets secrets;
  private Path colony;

  @BeforeEach
  void setUp() throws Exception {
    secrets = new Secrets();
    colony = Files.createDirectories(tmp.resolve("colony"));
  }

  // --- fixtures ----------------------------------------------------------------------------------

  static String git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString(), "-c", "user.name=Ann Tester", "-c",
        "user.email=ann@example.com", "-c", "commit.gpgSign=false"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(Map.of("GIT_CONFIG_NOSYSTEM", "1", "GIT_TERMINAL_PROMPT", "0"));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", args) + ": " + out);
    return out.strip();
  }

  static String commit(Path dir, String file, String content, String subject) throws Exception {
    Path f = dir.resolve(file);
    Files.createDirectories(f.getParent());
    Files.writeString(f, content);
    git(dir, "add", file);
    git(dir, "commit", "-q", "-m", subject);
    return git(dir, "rev-parse", "HEAD");
  }

  /** A non-bare repository with main (README, three lines) that no worktree holds (its own checkout is detached). */
  private Path localRepo() throws Exception {
    Path repo = Files.createDirectories(tmp.resolve("repo"));
    git(repo, "init", "-q", "-b", "main");
    commit(repo, "README", "one\ntwo\nthree\n", "start");
    git(repo, "checkout", "-q", "--detach");
    return repo;
  }

  /** A bare "remote" with main. */
  private Path bareRemote() throws Exception {
    Path seed = Files.createDirectories(tmp.resolve("seed"));
    git(seed, "init", "-q", "-b", "main");
    commit(seed, "README", "one\ntwo\nthree\n", "start");
    Path remote = tmp.resolve("remote.git");
    git(tmp, "clone", "-q", "--bare", seed.toString(), remote.toString());
    return remote;
  }

  private MergeRepo repo(String location, LandMode land, List<String> test) {
    return repo(location, land, test, 60, false, null);
  }

  private MergeRepo repo(String location, LandMode land, List<String> test, long timeout, boolean push,
      String githubRepo) {
    return new MergeRepo("c", "app", location, "main", land, test, timeout, push, false, 3, 3600,
        colony.toString(), colony.resolve(".colony/merge/app").toString(), githubRepo, "GH_TOKEN");
  }

  /**
   * The same queue with its test outside walls ({@code test_sandbox: off}): for the tests of the
   * runner's own mechanics that watch the test's processes from the worker (pid files outside
   * the scratch). The walled run has its tests in GitWallsTest.
   */
  static MergeRepo unwalled(MergeRepo r) {
    return new MergeRepo(r.colony(), r.name(), r.repo(), r.target(), r.land(), r.test(), r.testTimeoutSeconds(),
        r.push(), r.review(), r.maxTries(), r.agingSeconds(), r.colonyDir(), r.scratchDir(), r.githubRepo(),
        r.githubTokenVar(), MergeRepo.TEST_SANDBOX_OFF, List.of());
  }

  private AntSpec spec(String ant, String repo, Path root) {
    return AntSpec.builder().colony("c").name(ant).description("d").instructions("i")
        .engine(EngineKind.COMMAND).claude(ClaudeSpec.DEFAULTS).gemini(GeminiSpec.DEFAULTS)
        .autonomy(Autonomy.HUMAN).confirmation(ConfirmationSpec.NONE).toolCalls(ToolCallLogging.IMPACTFUL)
        .lmOutput(LmOutput.DISCORD).recovery(RecoveryPolicy.RESUME).pollIntervalSeconds(0)
        .confirmationTimeoutSeconds(1800).sessionTimeoutSeconds(3600).heartbeatTimeoutSeconds(30)
        .continueAsNewEvery(100).workspace(new WorkspaceSpec(root.toString(), repo, null))
        .colonyDir(colony.toString()).sourceFile("ants/" + ant + ".yaml").build();
  }

  /** A host: its workspaces (the ants' worktrees) and its merge activities under one root. */
  private record Host(WorkspaceActivitiesImpl workspaces, MergeActivitiesImpl merge, Path root) {}

  private Host host(String name) {
    Path root = tmp.resolve("host-" + name);
    var ws = new WorkspaceActivitiesImpl(secrets, name, root);
    return new Host(ws, new MergeActivitiesImpl(secrets, ws::prepare, new OkHttpClient(), root), root);
  }

  /** The queue's worker: no override, its scratch is MergeRepo.scratchDir. */
  private MergeActivitiesImpl queue() {
    var ws = new WorkspaceActivitiesImpl(secrets);
    return new MergeActivitiesImpl(secrets, ws::prepare, new OkHttpClient(), null);
  }

  /** Publish, prepare, rebase, test, update: one landing as the queue's workflow does it. */
  private String land(MergeActivitiesImpl publisher, MergeActivitiesImpl q, MergeRepo repo, String ant, String since) {
    BranchHead b = publisher.publishBranch(repo, ant, "colony/" + ant, since, null);
    assertTrue(b.commits() > 0, ant + " has work");
    String t = q.prepareScratch(repo);
    RebaseResult r = q.rebase(repo, b, t, ant + "'s work");
    assertFalse(r.conflicted(), r.detail());
    TestRun run = q.runTests(repo, r.head());
    assertTrue(run.passed(), run.tail());
    TargetUpdate u = q.updateTarget(repo, t, r.head());
    assertEquals(TargetUpdate.Outcome.UPDATED, u.outcome());
    return r.head();
  }

  // --- tests -----------------------------------------------------------------------------------

  @Test
  void independentChangesOfTwoAntsRebaseTestAndLandInOrder() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    Path beta = h.workspaces().prepare(spec("beta", repoDir.toString(), h.root()));
    String a1 = commit(alpha, "src/a.txt", "alpha\n", "alpha: a.txt");
    commit(beta, "b.txt", "beta 1\n", "beta: b.txt");
    String b2 = commit(beta, "docs/b.md", "beta 2\n", "beta: b.md");
    String main0 = git(repoDir, "rev-parse", "main");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of("sh", "-c", "test -f README"));
    MergeActivitiesImpl q = queue();

    BranchHead ba = h.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
    assertEquals(new BranchHead(a1, main0, 1, List.of("src/a.txt"), "refs/heads/colony/alpha"), ba);
    assertEquals(main0, q.prepareScratch(repo));
    RebaseResult ra = q.rebase(repo, ba, main0, null);
    assertEquals(a1, ra.head(), "already on main's head: the rebase keeps the very commit");
    assertEquals(List.of("alpha: a.txt"), ra.subjects());
    TestRun run = q.runTests(repo, ra.head());
    assertTrue(run.passed());
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.UPDATED, a1), q.updateTarget(repo, main0, a1));

    BranchHead bb = h.merge().publishBranch(repo, "beta", "colony/beta", null, null);
    assertEquals(2, bb.commits());
    assertEquals(List.of("b.txt", "docs/b.md"), bb.paths());
    String t = q.prepareScratch(repo);
    assertEquals(a1, t);
    RebaseResult rb = q.rebase(repo, bb, t, null);
    assertEquals(2, rb.commits());
    assertNotEquals(b2, rb.head());
    assertEquals(List.of("beta: b.txt", "beta: b.md"), rb.subjects());
    assertTrue(q.runTests(repo, rb.head()).passed());
    assertEquals(TargetUpdate.Outcome.UPDATED, q.updateTarget(repo, t, rb.head()).outcome());

    assertEquals(rb.head(), git(repoDir, "rev-parse", "main"));
    assertEquals("beta: b.md\nbeta: b.txt\nalpha: a.txt\nstart", git(repoDir, "log", "--format=%s", "main"));
    assertEquals("", git(repoDir, "log", "--merges", "--format=%H", "main"), "a line, no merges");
    assertEquals("Ann Tester|Colony merge queue", git(repoDir, "log", "-1", "--format=%an|%cn", "main"));
    // The scratch is a detached worktree of the repository, never an ant's.
    Path scratch = colony.resolve(".colony/merge/app");
    assertTrue(git(repoDir, "worktree", "list").contains(scratch.toString()));
    assertEquals("HEAD", git(scratch, "rev-parse", "--abbrev-ref", "HEAD"));
    // The ant's branch is where it was: SyncBranch moves it, not the landing.
    assertEquals(b2, git(beta, "rev-parse", "HEAD"));
  }

  @Test
  void publishBranchReadsAMissingBranchAndStartsAfterTheLastLandedOriginal() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of());
    BranchHead none = h.merge().publishBranch(repo, "ghost", "colony/ghost", null, null);
    assertNull(none.head());
    assertEquals(0, none.commits());

    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    String c1 = commit(alpha, "a.txt", "1\n", "one");
    String c2 = commit(alpha, "b.txt", "2\n", "two");
    BranchHead after = h.merge().publishBranch(repo, "alpha", "colony/alpha", c1, null);
    assertEquals(c1, after.base());
    assertEquals(1, after.commits());
    assertEquals(List.of("b.txt"), after.paths());
    BranchHead nothing = h.merge().publishBranch(repo, "alpha", "colony/alpha", c2, null);
    assertEquals(0, nothing.commits());
    // A since that is not in the branch's history: the merge base with the target.
    BranchHead fallback = h.merge().publishBranch(repo, "alpha", "colony/alpha", "0".repeat(40), null);
    assertEquals(git(repoDir, "rev-parse", "main"), fallback.base());
    assertEquals(2, fallback.commits());
  }

  @Test
  void aConflictNamesTheFileAbortsAndLeavesACleanScratch() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    Path beta = h.workspaces().prepare(spec("beta", repoDir.toString(), h.root()));
    commit(alpha, "README", "one\nTWO by alpha\nthree\n", "alpha edits line 2");
    commit(beta, "README", "one\ntwo by beta\nthree\n", "beta edits line 2");
    commit(beta, "other.txt", "fine\n", "beta other");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of());
    MergeActivitiesImpl q = queue();
    land(h.merge(), q, repo, "alpha", null);

    BranchHead bb = h.merge().publishBranch(repo, "beta", "colony/beta", null, null);
    String t = q.prepareScratch(repo);
    RebaseResult r = q.rebase(repo, bb, t, null);
    assertTrue(r.conflicted());
    assertEquals(List.of("README"), r.conflicts());
    assertTrue(r.detail().contains("CONFLICT"), r.detail());
    assertTrue(r.detail().length() <= RebaseScratch.MAX_DETAIL);
    Path scratch = colony.resolve(".colony/merge/app");
    assertFalse(Files.exists(scratch.resolve(".git")) && git(scratch, "status", "--porcelain").contains("README"),
        "the rebase was aborted");
    assertEquals(t, git(repoDir, "rev-parse", "main"), "the target did not move");
    // The next step starts from a clean scratch.
    assertEquals(t, q.prepareScratch(repo));
    assertEquals("", git(scratch, "status", "--porcelain"));
  }

  @Test
  void squashLandsOneCommitWithTheMessageAndTheAntsAuthor() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    commit(alpha, "a.txt", "1\n", "one");
    commit(alpha, "a.txt", "1\n2\n", "two");
    String head = commit(alpha, "b.txt", "3\n", "three");
    MergeRepo repo = repo(repoDir.toString(), LandMode.SQUASH, List.of());
    MergeActivitiesImpl q = queue();
    BranchHead b = h.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
    assertEquals(3, b.commits());
    String t = q.prepareScratch(repo);
    RebaseResult r = q.rebase(repo, b, t, "alpha: a and b\n\nthree commits");
    assertEquals(1, r.commits());
    assertEquals(List.of("alpha: a and b"), r.subjects());
    assertEquals(t, git(repoDir, "rev-parse", r.head() + "^"));
    assertEquals(git(repoDir, "rev-parse", head + "^{tree}"), git(repoDir, "rev-parse", r.head() + "^{tree}"));
    assertEquals("Ann Tester <ann@example.com>|Colony merge queue",
        git(repoDir, "log", "-1", "--format=%an <%ae>|%cn", r.head()));
    assertEquals(TargetUpdate.Outcome.UPDATED, q.updateTarget(repo, t, r.head()).outcome());
    assertEquals(2, Integer.parseInt(git(repoDir, "rev-list", "--count", "main")));
  }

  @Test
  void aRetriedRebaseGivesTheSameShaEvenAfterAKilledStepLeftTheScratchDirty() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    commit(alpha, "a.txt", "1\n", "one");
    commit(alpha, "c.txt", "2\n", "two");
    // main moves on, so the rebase really makes new commits.
    git(repoDir, "update-ref", "refs/heads/main",
        git(repoDir, "commit-tree", "-p", "main", "-m", "human", git(repoDir, "rev-parse", "main^{tree}")));
    MergeActivitiesImpl q = queue();
    for (LandMode mode : List.of(LandMode.REBASE, LandMode.SQUASH)) {
      MergeRepo repo = repo(repoDir.toString(), mode, List.of());
      BranchHead b = h.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
      String t = q.prepareScratch(repo);
      RebaseResult first = q.rebase(repo, b, t, "squashed");
      // The clock moves on (commit dates have a one second resolution) ...
      long second = Instant.now().getEpochSecond();
      eventually(Duration.ofSeconds(5), () -> Instant.now().getEpochSecond() > second + 1, "the clock to move on");
      // ... and a worker killed in the middle of a step left a rebase in progress and junk.
      Path scratch = colony.resolve(".colony/merge/app");
      git(scratch, "checkout", "-q", "--detach", b.head());
      Files.writeString(scratch.resolve("junk.txt"), "x");
      Files.writeString(scratch.resolve("a.txt"), "edited");
      RebaseResult again = q.rebase(repo, b, t, "squashed");
      assertEquals(first.head(), again.head(), mode + ": the same inputs give the same commit");
      assertFalse(Files.exists(scratch.resolve("junk.txt")));
      // A rebase stopped half way (a conflict) is aborted by the next step.
      Files.writeString(scratch.resolve("a.txt"), "conflicting\n");
      git(scratch, "add", "a.txt");
      git(scratch, "commit", "-q", "-m", "conflicting");
      ProcessBuilder pb = new ProcessBuilder("git", "-C", scratch.toString(), "-c", "user.name=x", "-c",
          "user.email=x@x", "rebase", "--onto", git(scratch, "rev-parse", "HEAD"), t, b.head());
      pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
      assertNotEquals(0, pb.start().waitFor(), "the rebase stopped on a conflict");
      assertEquals(first.head(), q.rebase(repo, b, t, "squashed").head());
      assertTrue(q.runTests(repo, first.head()).passed());
    }
  }

  @Test
  void theCompareAndSwapSaysAlreadyOnARepeatAndMovedWhenAHumanPushed() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    commit(alpha, "a.txt", "1\n", "one");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of());
    MergeActivitiesImpl q = queue();
    BranchHead b = h.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
    String t = q.prepareScratch(repo);
    // A human commits to main in between.
    Path human = Files.createDirectories(tmp.resolve("human"));
    git(tmp, "clone", "-q", repoDir.toString(), human.toString());
    git(human, "checkout", "-q", "main");
    String hc = commit(human, "human.txt", "h\n", "human");
    git(human, "push", "-q", "origin", "main");
    RebaseResult r = q.rebase(repo, b, t, null);
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.MOVED, hc), q.updateTarget(repo, t, r.head()));
    assertEquals(hc, git(repoDir, "rev-parse", "main"), "nothing written");

    String t2 = q.prepareScratch(repo);
    assertEquals(hc, t2);
    RebaseResult r2 = q.rebase(repo, b, t2, null);
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.UPDATED, r2.head()), q.updateTarget(repo, t2, r2.head()));
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.ALREADY, r2.head()), q.updateTarget(repo, t2, r2.head()),
        "a retry after the write");
    assertEquals(hc, git(repoDir, "rev-parse", "main^"));
    // A retry after the write when a human pushed on top since: still ALREADY (it landed), not
    // MOVED (which would rebase landed work again); main stays where the human left it.
    git(human, "pull", "-q", "--rebase", "origin", "main");
    String hc2 = commit(human, "human2.txt", "h\n", "human again");
    git(human, "push", "-q", "origin", "main");
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.ALREADY, r2.head()), q.updateTarget(repo, t2, r2.head()),
        "a retry after the write, main moved on since");
    assertEquals(hc2, git(repoDir, "rev-parse", "main"));
    // Work never written is MOVED as before.
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.MOVED, hc2), q.updateTarget(repo, t, r.head()));
  }

  @Test
  void pushTrueAlsoMovesOriginWithALease() throws Exception {
    Path remote = bareRemote();
    Path repoDir = tmp.resolve("repo");
    git(tmp, "clone", "-q", remote.toString(), repoDir.toString());
    git(repoDir, "checkout", "-q", "--detach");
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    commit(alpha, "a.txt", "1\n", "one");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of(), 60, true, null);
    MergeActivitiesImpl q = queue();
    String landed = land(h.merge(), q, repo, "alpha", null);
    assertEquals(landed, git(remote, "rev-parse", "main"));
    assertEquals(TargetUpdate.Outcome.ALREADY, q.updateTarget(repo, landed, landed).outcome());

    // A human pushes to origin's main (not the local one): the queue lands on top of it, never over it.
    commit(alpha, "b.txt", "2\n", "two");
    BranchHead b = h.merge().publishBranch(repo, "alpha", "colony/alpha", git(alpha, "rev-parse", "HEAD^"), null);
    String t = q.prepareScratch(repo);
    assertEquals(landed, t);
    Path human = tmp.resolve("human");
    git(tmp, "clone", "-q", remote.toString(), human.toString());
    String hc = commit(human, "h.txt", "h\n", "human");
    git(human, "push", "-q", "origin", "main");
    RebaseResult r = q.rebase(repo, b, t, null);
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.MOVED, hc), q.updateTarget(repo, t, r.head()));
    assertEquals(landed, git(repoDir, "rev-parse", "main"), "nothing written locally");
    String t2 = q.prepareScratch(repo);
    assertEquals(hc, t2, "origin is ahead: the queue lands on it");
    RebaseResult r2 = q.rebase(repo, b, t2, null);
    assertEquals(TargetUpdate.Outcome.UPDATED, q.updateTarget(repo, t2, r2.head()).outcome());
    assertEquals(r2.head(), git(remote, "rev-parse", "main"));
    assertEquals(r2.head(), git(repoDir, "rev-parse", "main"));
    assertEquals(hc, git(repoDir, "rev-parse", "main^"));
    assertEquals(TargetUpdate.Outcome.ALREADY, q.updateTarget(repo, t2, r2.head()).outcome());
  }

  /** An executable script (origin's upload-pack or receive-pack, as ssh would run it). */
  private Path script(String name, String body) throws Exception {
    Path f = tmp.resolve(name);
    Files.writeString(f, "#!/bin/sh\n" + body + "\n");
    f.toFile().setExecutable(true);
    return f;
  }

  private static final String SSH_WARNING =
      "echo \"Warning: Permanently added 'git.example.com' (ED25519) to the list of known hosts.\" >&2";

  @Test
  void aWarningOnGitsStderrIsNeverReadAsACommit() throws Exception {
    Path remote = bareRemote();
    Path repoDir = tmp.resolve("repo");
    git(tmp, "clone", "-q", remote.toString(), repoDir.toString());
    git(repoDir, "checkout", "-q", "--detach");
    // Origin answers through programs that warn on stderr first, as ssh does for a new host key.
    git(repoDir, "config", "remote.origin.uploadpack",
        script("upload-pack", SSH_WARNING + "\nexec git-upload-pack \"$@\"").toString());
    git(repoDir, "config", "remote.origin.receivepack",
        script("receive-pack", SSH_WARNING + "\nexec git-receive-pack \"$@\"").toString());
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    commit(alpha, "a.txt", "1\n", "one");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of(), 60, true, null);
    MergeActivitiesImpl q = queue();
    BranchHead b = h.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
    String t = q.prepareScratch(repo);
    RebaseResult r = q.rebase(repo, b, t, null);
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.UPDATED, r.head()), q.updateTarget(repo, t, r.head()),
        "the warning is not origin's head");
    assertEquals(r.head(), git(remote, "rev-parse", "main"));
    assertEquals(r.head(), git(repoDir, "rev-parse", "main"));
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.ALREADY, r.head()), q.updateTarget(repo, t, r.head()));
  }

  /** A local repository whose origin is a bare remote, with push on, and alpha's work rebased on its main. */
  private record PushOn(Path remote, Path repoDir, MergeRepo repo, MergeActivitiesImpl q, String target,
      RebaseResult rebased) {}

  private PushOn pushOn() throws Exception {
    Path remote = bareRemote();
    Path repoDir = tmp.resolve("repo");
    git(tmp, "clone", "-q", remote.toString(), repoDir.toString());
    git(repoDir, "checkout", "-q", "--detach");
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    commit(alpha, "a.txt", "1\n", "one");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of(), 60, true, null);
    MergeActivitiesImpl q = queue();
    BranchHead b = h.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
    String t = q.prepareScratch(repo);
    RebaseResult r = q.rebase(repo, b, t, null);
    return new PushOn(remote, repoDir, repo, q, t, r);
  }

  @Test
  void withPushOriginsCompareAndSwapDecidesAndALocalMoveMeanwhileIsNotMoved() throws Exception {
    PushOn p = pushOn();
    Path remote = p.remote();
    Path repoDir = p.repoDir();
    MergeRepo repo = p.repo();
    MergeActivitiesImpl q = p.q();
    String t = p.target();
    RebaseResult r = p.rebased();
    // A human's commit on the local main lands right after origin took the queue's push, before
    // the queue moves the local main: origin's receive-pack moves it as it ends.
    Path human = tmp.resolve("human");
    git(tmp, "clone", "-q", repoDir.toString(), human.toString());
    String hc = commit(human, "h.txt", "h\n", "human");
    git(human, "push", "-q", "origin", "HEAD:refs/human/x");
    git(repoDir, "config", "remote.origin.receivepack", script("receive-pack",
        "git-receive-pack \"$@\"; rc=$?\ngit -C '" + repoDir + "' update-ref refs/heads/main " + hc
            + "\nexit $rc").toString());
    TargetUpdate u = q.updateTarget(repo, t, r.head());
    assertEquals(r.head(), git(remote, "rev-parse", "main"), "origin has the landing");
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.UPDATED, r.head()), u,
        "origin's compare-and-swap decided: landed, not MOVED");
    assertEquals(hc, git(repoDir, "rev-parse", "main"), "the human's local commit is left as it is");
    git(repoDir, "config", "--unset", "remote.origin.receivepack");
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.ALREADY, r.head()), q.updateTarget(repo, t, r.head()),
        "a retry says ALREADY");
  }

  @Test
  void withPushALeaseLostToATargetDeletedMeanwhileIsNoLanding() throws Exception {
    PushOn p = pushOn();
    Path remote = p.remote();
    Path repoDir = p.repoDir();
    MergeRepo repo = p.repo();
    MergeActivitiesImpl q = p.q();
    String t = p.target();
    RebaseResult r = p.rebased();
    String localMain = git(repoDir, "rev-parse", "main");
    // A human deletes origin's main between the queue's read of it and its push with lease.
    git(repoDir, "config", "remote.origin.receivepack", script("receive-pack",
        "git -C '" + remote + "' update-ref -d refs/heads/main\nexec git-receive-pack \"$@\"").toString());
    TargetUpdate u = q.updateTarget(repo, t, r.head());
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.MOVED, null), u, "lost to a branch that is gone: not landed");
    assertEquals(localMain, git(repoDir, "rev-parse", "main"), "the local target did not follow a landing that did not happen");
  }

  @Test
  void withPushARetryAfterOriginTookTheLandingMovesTheLocalTargetAndSaysAlready() throws Exception {
    PushOn p = pushOn();
    Path repoDir = p.repoDir();
    MergeRepo repo = p.repo();
    MergeActivitiesImpl q = p.q();
    String t = p.target();
    RebaseResult r = p.rebased();
    git(repoDir, "push", "-q", "origin", r.head() + ":refs/heads/main"); // the worker died after the push
    assertEquals(t, git(repoDir, "rev-parse", "main"));
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.ALREADY, r.head()), q.updateTarget(repo, t, r.head()));
    assertEquals(r.head(), git(repoDir, "rev-parse", "main"), "the local target followed origin");
  }

  @Test
  void onlyTheApprovedHeadLandsNotWhatTheAntCommittedAfterIt() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    String approved = commit(alpha, "a.txt", "1\n", "the reviewed work");
    String after = commit(alpha, "b.txt", "2\n", "the next task's work"); // committed after the approval
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of());
    MergeActivitiesImpl q = queue();
    BranchHead b = h.merge().publishBranch(repo, "alpha", "colony/alpha", null, approved);
    assertEquals(approved, b.head());
    assertEquals(1, b.commits());
    assertEquals(List.of("a.txt"), b.paths());
    String t = q.prepareScratch(repo);
    RebaseResult r = q.rebase(repo, b, t, null);
    assertEquals(TargetUpdate.Outcome.UPDATED, q.updateTarget(repo, t, r.head()).outcome());
    assertEquals(approved, git(repoDir, "rev-parse", "main"), "a fast-forward to the approved head");
    assertEquals(after, git(alpha, "rev-parse", "HEAD"), "the later work stays on the ant's branch");
    // It is the next item's: the work after the landed approved head.
    BranchHead next = h.merge().publishBranch(repo, "alpha", "colony/alpha", approved, null);
    assertEquals(after, next.head());
    assertEquals(List.of("b.txt"), next.paths());
    // An approved commit that is not there (the branch was rewritten and collected) is a clear refusal.
    ApplicationFailure f = assertThrows(ApplicationFailure.class,
        () -> h.merge().publishBranch(repo, "alpha", "colony/alpha", null, "0123456789abcdef0123456789abcdef01234567"));
    assertEquals("CommitMissing", f.getType());
    assertTrue(f.isNonRetryable());
    ApplicationFailure ref = assertThrows(ApplicationFailure.class,
        () -> h.merge().publishBranch(repo, "alpha", "colony/alpha", null, "main"));
    assertEquals("BadInput", ref.getType(), "a ref name is not an approved commit");
  }

  @Test
  void aUrlRepositoryLandsTheApprovedHeadThroughARefOfItsOwn() throws Exception {
    Path remote = bareRemote();
    String url = "file://" + remote;
    Host a = host("a");
    Path alpha = a.workspaces().prepare(spec("alpha", url, a.root()));
    String approved = commit(alpha, "a.txt", "1\n", "the reviewed work");
    String after = commit(alpha, "b.txt", "2\n", "the next task's work");
    MergeRepo repo = repo(url, LandMode.REBASE, List.of());
    MergeActivitiesImpl q = queue();
    BranchHead b = a.merge().publishBranch(repo, "alpha", "colony/alpha", null, approved);
    assertEquals(approved, b.head());
    assertEquals(approved, git(remote, "rev-parse", "refs/colony/approved/alpha"));
    String t = q.prepareScratch(repo);
    RebaseResult r = q.rebase(repo, b, t, null);
    assertEquals(TargetUpdate.Outcome.UPDATED, q.updateTarget(repo, t, r.head()).outcome());
    assertEquals(approved, git(remote, "rev-parse", "main"));
    assertFalse(git(remote, "log", "--format=%s", "main").contains("the next task's work"));
    assertEquals(after, git(alpha, "rev-parse", "HEAD"));
  }

  @Test
  void aTargetCheckedOutInANonBareWorktreeIsRefused() throws Exception {
    Path repoDir = Files.createDirectories(tmp.resolve("checked-out"));
    git(repoDir, "init", "-q", "-b", "main");
    commit(repoDir, "README", "x\n", "start");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of());
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> queue().prepareScratch(repo));
    assertEquals("TargetCheckedOut", f.getType());
    assertTrue(f.isNonRetryable());
    assertEquals("main is checked out in " + repoDir.toRealPath()
        + "; use a bare repository or a target no worktree holds", f.getOriginalMessage());
    assertFalse(Files.exists(colony.resolve(".colony/merge/app")), "nothing made");
    // Bad config is a clear, non-retryable line too.
    ApplicationFailure missing = assertThrows(ApplicationFailure.class,
        () -> queue().prepareScratch(repo(tmp.resolve("nope").toString(), LandMode.REBASE, List.of())));
    assertEquals("RepoNotFound", missing.getType());
    assertTrue(missing.isNonRetryable());
    // A URL that leads nowhere: not retried, and its resolved value (a secret) is not in the message.
    Path nowhere = tmp.resolve("nowhere-secret-place.git");
    Files.writeString(colony.resolve(".env"), "NOWHERE=" + nowhere + "\n");
    ApplicationFailure bad = assertThrows(ApplicationFailure.class,
        () -> queue().prepareScratch(repo("file://${NOWHERE}", LandMode.REBASE, List.of())));
    assertEquals("RepoNotFound", bad.getType());
    assertTrue(bad.isNonRetryable());
    assertFalse(bad.getOriginalMessage().contains("nowhere-secret-place"), bad.getOriginalMessage());
    git(repoDir, "checkout", "-q", "--detach");
    MergeRepo noTarget = new MergeRepo("c", "app", repoDir.toString(), "release", LandMode.REBASE, List.of(), 60,
        false, false, 3, 3600, colony.toString(), colony.resolve(".colony/merge/app").toString(), null, null);
    ApplicationFailure nt = assertThrows(ApplicationFailure.class, () -> queue().prepareScratch(noTarget));
    assertEquals("TargetMissing", nt.getType());
  }

  @Test
  void aBrokenScratchIsRebuilt() throws Exception {
    Path repoDir = localRepo();
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of());
    MergeActivitiesImpl q = queue();
    String t = q.prepareScratch(repo);
    Path scratch = colony.resolve(".colony/merge/app");
    Files.delete(scratch.resolve(".git"));
    assertEquals(t, q.prepareScratch(repo));
    assertEquals(t, git(scratch, "rev-parse", "HEAD"));
    // Gone altogether (the worktree still registered): rebuilt too.
    try (var s = Files.walk(scratch)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    assertEquals(t, q.prepareScratch(repo));
    assertEquals(t, git(scratch, "rev-parse", "HEAD"));
  }

  @Test
  void aUrlRepositoryLandsTheWorkOfAntsOnTwoHostsThroughItsRemote() throws Exception {
    Path remote = bareRemote();
    // The URL is a reference resolved on the worker only; its value is masked in what comes back.
    Files.writeString(colony.resolve(".env"), "MERGE_REMOTE=" + remote + "\n");
    String spelled = "file://${MERGE_REMOTE}";
    String url = "file://" + remote;
    Host a = host("a");
    Host b = host("b");
    Path alpha = a.workspaces().prepare(spec("alpha", url, a.root()));
    Path beta = b.workspaces().prepare(spec("beta", url, b.root()));
    String a1 = commit(alpha, "a.txt", "alpha\n", "alpha: a");
    commit(beta, "b.txt", "beta\n", "beta: b");
    MergeRepo repo = repo(spelled, LandMode.REBASE, List.of("sh", "-c", "test -f README"));
    MergeActivitiesImpl q = queue();

    BranchHead ba = a.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
    assertEquals(a1, ba.head());
    assertEquals(a1, git(remote, "rev-parse", "refs/heads/colony/alpha"), "published to the remote");
    assertNull(b.merge().publishBranch(repo, "alpha", "colony/alpha", null, null).head(), "host b holds no clone of alpha");
    BranchHead bb = b.merge().publishBranch(repo, "beta", "colony/beta", null, null);

    String t = q.prepareScratch(repo);
    assertEquals(git(remote, "rev-parse", "main"), t);
    assertTrue(Files.isDirectory(colony.resolve(".colony/merge/app/.git")), "the scratch is a clone");
    RebaseResult ra = q.rebase(repo, ba, t, null);
    assertEquals(TargetUpdate.Outcome.UPDATED, q.updateTarget(repo, t, ra.head()).outcome());

    String t2 = q.prepareScratch(repo);
    assertEquals(ra.head(), t2);
    RebaseResult rb = q.rebase(repo, bb, t2, null);
    assertFalse(rb.conflicted());
    assertEquals(rb.head(), git(remote, "rev-parse", "refs/colony/rebased/" + rb.head()), "the rebased head is on the remote");
    // The tests and the update run on another worker (its own scratch): it fetches the rebased head.
    var other = new MergeActivitiesImpl(secrets, p -> null, new OkHttpClient(), tmp.resolve("queue-2"));
    assertEquals(rb.head(), other.rebase(repo, bb, t2, null).head(), "a retry on another worker: the same commit");
    TestRun run = other.runTests(repo, rb.head());
    assertTrue(run.passed(), run.tail());
    assertTrue(Files.isDirectory(tmp.resolve("queue-2/.merge/app/.git")), "the override holds the scratch");
    assertEquals(TargetUpdate.Outcome.UPDATED, other.updateTarget(repo, t2, rb.head()).outcome());
    assertEquals(TargetUpdate.Outcome.ALREADY, q.updateTarget(repo, t2, rb.head()).outcome());
    assertEquals(rb.head(), git(remote, "rev-parse", "main"));
    assertEquals("beta: b\nalpha: a\nstart", git(remote, "log", "--format=%s", "main"));
    assertEquals("", git(remote, "for-each-ref", "refs/colony/"), "the rebased refs are deleted after the update");

    // A human pushes to main: the CAS says MOVED.
    Path human = tmp.resolve("human");
    git(tmp, "clone", "-q", url, human.toString());
    String hc = commit(human, "h.txt", "h\n", "human");
    git(human, "push", "-q", "origin", "main");
    assertEquals(new TargetUpdate(TargetUpdate.Outcome.MOVED, hc), q.updateTarget(repo, rb.head(), a1));
    // A reworked item's rebased head (never landed) is dropped at the next turn.
    git(remote, "update-ref", "refs/colony/rebased/" + a1, a1);
    assertEquals(hc, q.prepareScratch(repo));
    assertEquals("", git(remote, "for-each-ref", "refs/colony/"));

    // Back on the hosts: alpha's work landed as it was (a fast-forward), beta's was rebased.
    assertEquals(a1, ra.head());
    String same = a.merge().syncBranch(spec("alpha", spelled, a.root()), a1, ra.head());
    assertTrue(same.contains("already"), same);
    String synced = b.merge().syncBranch(spec("beta", spelled, b.root()), bb.head(), rb.head());
    assertTrue(synced.contains("reset"), synced);
    assertEquals(rb.head(), git(beta, "rev-parse", "HEAD"));
    assertFalse(synced.contains(remote.toString()), "no secret in answers: " + synced);
  }

  @Test
  void aUrlRepositorysConflictIsReworkedByTheAntAndThenLands() throws Exception {
    Path remote = bareRemote();
    String url = "file://" + remote;
    Host a = host("a");
    Host b = host("b");
    Path alpha = a.workspaces().prepare(spec("alpha", url, a.root()));
    Path beta = b.workspaces().prepare(spec("beta", url, b.root()));
    commit(alpha, "README", "one\nTWO (alpha)\nthree\n", "alpha: two");
    commit(beta, "README", "one\ntwo (beta)\nthree\n", "beta: two");
    MergeRepo repo = repo(url, LandMode.REBASE, List.of("sh", "-c", "grep -q beta README && grep -q alpha README"));
    MergeActivitiesImpl q = queue();
    BranchHead ba = a.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
    String t = q.prepareScratch(repo);
    RebaseResult ra = q.rebase(repo, ba, t, null);
    assertFalse(q.runTests(repo, ra.head()).passed(), "red until both are in");
    // (a red item is reworked; here the human lands alpha without the test)
    MergeRepo noTest = repo(url, LandMode.REBASE, List.of());
    assertEquals(TargetUpdate.Outcome.UPDATED, q.updateTarget(noTest, t, ra.head()).outcome());

    BranchHead bb = b.merge().publishBranch(repo, "beta", "colony/beta", null, null);
    String t2 = q.prepareScratch(repo);
    RebaseResult conflict = q.rebase(repo, bb, t2, null);
    assertEquals(List.of("README"), conflict.conflicts());
    // The ant reworks: rebases onto main, resolves keeping both changes' intent, commits.
    git(beta, "fetch", "-q", "origin");
    ProcessBuilder pb = new ProcessBuilder("git", "-C", beta.toString(), "-c", "user.name=b", "-c", "user.email=b@b",
        "rebase", "origin/main").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    assertNotEquals(0, pb.start().waitFor());
    Files.writeString(beta.resolve("README"), "one\nTWO (alpha) two (beta)\nthree\n");
    git(beta, "add", "README");
    ProcessBuilder cont = new ProcessBuilder("git", "-C", beta.toString(), "-c", "user.name=b", "-c",
        "user.email=b@b", "-c", "core.editor=true", "rebase", "--continue").redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    assertEquals(0, cont.start().waitFor());
    String landed = land(b.merge(), q, repo, "beta", null);
    assertEquals(landed, git(remote, "rev-parse", "main"));
    assertEquals("one\nTWO (alpha) two (beta)\nthree", git(remote, "show", "main:README"));
  }

  @Test
  void aHangingTestIsKilledAtItsTimeoutWithTheProcessesItStarted() throws Exception {
    Path repoDir = localRepo();
    Path pidFile = tmp.resolve("child.pid");
    MergeRepo repo = unwalled(repo(repoDir.toString(), LandMode.REBASE,
        List.of("sh", "-c", "sleep 300 & echo $! > " + pidFile + "; echo started; sleep 300"), 2, false, null));
    MergeActivitiesImpl q = queue();
    String t = q.prepareScratch(repo);
    long start = System.nanoTime();
    TestRun run = q.runTests(repo, t);
    long took = (System.nanoTime() - start) / 1_000_000;
    assertTrue(run.timedOut());
    assertFalse(run.passed());
    assertEquals(-1, run.exitCode());
    assertTrue(run.millis() >= 2000 && took < 30_000, "took " + took + " ms");
    assertTrue(run.tail().contains("started"), run.tail());
    assertTrue(run.tail().contains("timed out"), run.tail());
    long child = Long.parseLong(Files.readString(pidFile).strip());
    eventually(Duration.ofSeconds(10), () -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true),
        "the test's child " + child + " to be gone");
  }

  @Test
  void aCancelledTestRunStopsTheTestAndWhatItStarted() throws Exception {
    Path repoDir = localRepo();
    Path pidFile = tmp.resolve("child.pid");
    MergeRepo repo = unwalled(repo(repoDir.toString(), LandMode.REBASE,
        List.of("sh", "-c", "sleep 300 & echo $! > " + pidFile + "; sleep 300"), 120, false, null));
    MergeActivitiesImpl q = queue();
    String t = q.prepareScratch(repo);
    TestActivityEnvironment env = TestActivityEnvironment.newInstance();
    try {
      env.registerActivitiesImplementations(q);
      MergeActivities stub = env.newActivityStub(MergeActivities.class, ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofMinutes(2)).setHeartbeatTimeout(Duration.ofSeconds(30)).build());
      CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
        try {
          stub.runTests(repo, t);
          return null;
        } catch (Throwable e) {
          return e;
        }
      });
      eventually(Duration.ofSeconds(20), () -> pid(pidFile) > 0, "the test to start its child");
      long child = pid(pidFile);
      env.requestCancelActivity();
      Throwable e = outcome.get(30, TimeUnit.SECONDS);
      assertNotNull(e, "a cancelled run does not report a result");
      eventually(Duration.ofSeconds(10), () -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true),
          "the cancelled test's child " + child + " to be gone");
    } finally {
      env.close();
    }
  }

  @Test
  void aStepWaitsForAnotherStepInTheSameScratch() throws Exception {
    Path repoDir = localRepo();
    Path started = tmp.resolve("started");
    MergeRepo repo = unwalled(repo(repoDir.toString(), LandMode.REBASE,
        List.of("sh", "-c", "touch " + started + "; sleep 2; touch " + tmp.resolve("finished")), 60, false, null));
    MergeActivitiesImpl q = queue();
    String t = q.prepareScratch(repo);
    CompletableFuture<TestRun> run = CompletableFuture.supplyAsync(() -> q.runTests(repo, t));
    eventually(Duration.ofSeconds(20), () -> Files.exists(started), "the test to start");
    // An abandoned attempt's retry (another thread, another MergeActivitiesImpl) waits for the scratch.
    assertEquals(t, queue().prepareScratch(repo));
    assertTrue(Files.exists(tmp.resolve("finished")), "the step ran after the test, not in the middle of it");
    assertTrue(run.get().passed(), run.get().tail());
  }

  private static long pid(Path file) {
    try {
      String s = Files.exists(file) ? Files.readString(file).strip() : "";
      return s.isEmpty() ? 0 : Long.parseLong(s);
    } catch (java.io.IOException | NumberFormatException e) {
      return 0;
    }
  }

  @Test
  void aRedTestsTailIsBoundedMaskedAndPrintable() throws Exception {
    Path repoDir = localRepo();
    secrets.register("TEST_TOKEN", "s3cr3t-token-value");
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of("sh", "-c",
        "i=0; while [ $i -lt 3000 ]; do echo \"line $i s3cr3t-token-value\"; i=$((i+1)); done;"
            + " printf '\\033[31mFAILED\\033[0m\\001\\n' >&2; exit 3"));
    MergeActivitiesImpl q = queue();
    TestRun run = q.runTests(repo, q.prepareScratch(repo));
    assertFalse(run.passed());
    assertFalse(run.timedOut());
    assertEquals(3, run.exitCode());
    assertTrue(run.tail().length() <= TestRun.MAX_TAIL, "tail of " + run.tail().length());
    assertTrue(run.tail().endsWith("FAILED\n"), run.tail().substring(run.tail().length() - 40));
    assertTrue(run.tail().contains("line 2999 ${TEST_TOKEN}"));
    assertFalse(run.tail().contains("s3cr3t"));
    assertFalse(run.tail().contains("\u001B"));
    // No test: green at once.
    TestRun none = q.runTests(repo(repoDir.toString(), LandMode.REBASE, List.of()), q.prepareScratch(repo));
    assertEquals(new TestRun(true, 0, false, 0, ""), none);
  }

  @Test
  void syncBranchResetsRebasesOrLeavesTheAntsBranch() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    AntSpec alphaSpec = spec("alpha", repoDir.toString(), h.root());
    Path alpha = h.workspaces().prepare(alphaSpec);
    MergeRepo repo = repo(repoDir.toString(), LandMode.SQUASH, List.of());
    MergeActivitiesImpl q = queue();
    // Nothing after the landed work: a reset.
    String a1 = commit(alpha, "a.txt", "1\n", "one");
    String l1 = land(h.merge(), q, repo, "alpha", null);
    assertTrue(h.merge().syncBranch(alphaSpec, a1, l1).contains("reset"));
    assertEquals(l1, git(alpha, "rev-parse", "HEAD"));
    assertEquals("colony/alpha", git(alpha, "rev-parse", "--abbrev-ref", "HEAD"));

    // Work after what landed: rebased onto it.
    String a2 = commit(alpha, "b.txt", "2\n", "two");
    String l2 = land(h.merge(), q, repo, "alpha", null);
    String a3 = commit(alpha, "c.txt", "3\n", "three");
    String line = h.merge().syncBranch(alphaSpec, a2, l2);
    assertTrue(line.contains("rebased"), line);
    assertEquals(l2, git(alpha, "rev-parse", "HEAD^"));
    assertEquals("three", git(alpha, "log", "-1", "--format=%s"));
    assertNotEquals(a3, git(alpha, "rev-parse", "HEAD"));

    // A dirty worktree is left as it is.
    String before = git(alpha, "rev-parse", "HEAD");
    Files.writeString(alpha.resolve("a.txt"), "uncommitted\n");
    String dirty = h.merge().syncBranch(alphaSpec, before, l2);
    assertTrue(dirty.contains("uncommitted"), dirty);
    assertEquals(before, git(alpha, "rev-parse", "HEAD"));
    git(alpha, "checkout", "-q", "--", "a.txt");

    // A branch whose history does not hold the landed original (it was rewritten): left as it is.
    String unrelated = h.merge().syncBranch(alphaSpec, a3, l2);
    assertTrue(unrelated.contains("left as it is"), unrelated);
    assertEquals(before, git(alpha, "rev-parse", "HEAD"));
  }

  @Test
  void syncBranchLeavesAConflictingBranchAsItIs() throws Exception {
    Path repoDir = localRepo();
    Host h = host("a");
    AntSpec alphaSpec = spec("alpha", repoDir.toString(), h.root());
    Path alpha = h.workspaces().prepare(alphaSpec);
    MergeRepo repo = repo(repoDir.toString(), LandMode.REBASE, List.of());
    MergeActivitiesImpl q = queue();
    // Someone else's work on README lands first, so alpha's rebased commit differs from its original.
    Path beta = h.workspaces().prepare(spec("beta", repoDir.toString(), h.root()));
    commit(beta, "README", "one\ntwo\nthree\nfour by beta\n", "beta");
    land(h.merge(), q, repo, "beta", null);
    String a1 = commit(alpha, "README", "zero\none\ntwo\nthree\n", "alpha prepends");
    String l1 = land(h.merge(), q, repo, "alpha", null);
    // After submitting, alpha rewrote the line beta's landed change sits next to.
    commit(alpha, "README", "zero\none\ntwo\nTHREE\n", "alpha edits three");
    String head = git(alpha, "rev-parse", "HEAD");
    String line = h.merge().syncBranch(alphaSpec, a1, l1);
    assertTrue(line.contains("left as it is") && line.contains("README"), line);
    assertEquals(head, git(alpha, "rev-parse", "HEAD"));
    assertEquals("", git(alpha, "status", "--porcelain", "--untracked-files=no"), "the rebase was aborted");
  }

  @Test
  void aPullRequestIsOpenedOrFoundWhenItAlreadyExists() throws Exception {
    Path remote = bareRemote();
    Path repoDir = tmp.resolve("repo");
    git(tmp, "clone", "-q", remote.toString(), repoDir.toString());
    git(repoDir, "checkout", "-q", "--detach");
    Host h = host("a");
    Path alpha = h.workspaces().prepare(spec("alpha", repoDir.toString(), h.root()));
    commit(alpha, "a.txt", "1\n", "one");
    ObjectMapper json = new ObjectMapper();
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(201)
          .body("{\"number\":7,\"html_url\":\"https://github.com/o/r/pull/7\"}").build());
      server.enqueue(new MockResponse.Builder().code(422)
          .body("{\"message\":\"Validation Failed\",\"errors\":[{\"resource\":\"PullRequest\","
              + "\"code\":\"custom\",\"message\":\"A pull request already exists for o:colony/alpha.\"}]}").build());
      server.enqueue(new MockResponse.Builder().code(200)
          .body("[{\"number\":7,\"html_url\":\"https://github.com/o/r/pull/7\"}]").build());
      server.start();
      Files.writeString(colony.resolve(".env"), "GH_TOKEN=ghp_secret_value_123\nCOLONY_GITHUB_API_URL="
          + server.url("/api/") + "\n");
      MergeRepo repo = repo(repoDir.toString(), LandMode.PULL_REQUEST, List.of(), 60, false, "o/r");
      MergeActivitiesImpl q = queue();
      BranchHead b = h.merge().publishBranch(repo, "alpha", "colony/alpha", null, null);
      String t = q.prepareScratch(repo);
      RebaseResult r = q.rebase(repo, b, t, null);
      assertEquals("https://github.com/o/r/pull/7",
          q.openPullRequest(repo, "alpha", "colony/alpha", r.head(), "alpha: one", "body text"));
      assertEquals(r.head(), git(remote, "rev-parse", "refs/heads/colony/alpha"));
      RecordedRequest post = server.takeRequest();
      assertEquals("POST", post.getMethod());
      assertEquals("/api/repos/o/r/pulls", post.getUrl().encodedPath());
      assertEquals("Bearer ghp_secret_value_123", post.getHeaders().get("Authorization"));
      JsonNode sent = json.readTree(post.getBody().utf8());
      assertEquals("alpha: one", sent.path("title").asText());
      assertEquals("colony/alpha", sent.path("head").asText());
      assertEquals("main", sent.path("base").asText());
      assertEquals("body text", sent.path("body").asText());

      // Again (a retry): GitHub says it exists; it is found.
      assertEquals("https://github.com/o/r/pull/7",
          q.openPullRequest(repo, "alpha", "colony/alpha", r.head(), "alpha: one", "body text"));
      server.takeRequest();
      RecordedRequest get = server.takeRequest();
      assertEquals("GET", get.getMethod());
      assertEquals("o:colony/alpha", get.getUrl().queryParameter("head"));
      assertEquals("open", get.getUrl().queryParameter("state"));
      assertEquals(git(repoDir, "rev-parse", "main"), t, "a pull request does not move the target");
    }
  }
}
