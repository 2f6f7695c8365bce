package dev.colony.merge.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.Activities;
import dev.colony.secrets.Secrets;
import dev.colony.merge.BranchHead;
import dev.colony.merge.ItemState;
import dev.colony.merge.LandMode;
import dev.colony.merge.Landed;
import dev.colony.merge.MergeActivities;
import dev.colony.merge.MergeCard;
import dev.colony.merge.MergeDeskActivities;
import dev.colony.merge.MergeItem;
import dev.colony.merge.MergeQueueState;
import dev.colony.merge.MergeQueueWorkflow;
import dev.colony.merge.MergeQueueWorkflowImpl;
import dev.colony.merge.MergeRepo;
import dev.colony.merge.PathClaim;
import dev.colony.merge.PathReply;
import dev.colony.merge.RebaseResult;
import dev.colony.merge.Submission;
import dev.colony.merge.SubmitReply;
import dev.colony.merge.TargetUpdate;
import dev.colony.merge.TestRun;
import dev.colony.spec.AntSpec;
import dev.colony.testing.Seeds;
import dev.colony.visibility.AntSearchAttributes;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkflowImplementationOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 32's property test: the real queue workflow ({@link MergeQueueWorkflowImpl}, on Temporal's
 * test environment) with the real git steps ({@link MergeActivitiesImpl}) on a bare repository on
 * disk, under a random sequence of ant commits (own file, a shared file that conflicts, a red
 * {@code RED} file, a committed conflict marker), submissions, human pushes to main racing the
 * queue, ants rebasing their branches, and worker "kills" (a git step that throws before or after
 * its real effect, so Temporal runs it again). Half of the tries use a local repository (the
 * scratch a worktree of it), half a {@code file://} URL (clones, branches pushed).
 *
 * <p>After the sequence the queue drains (REWORK items are fixed by their ant: rebased onto main,
 * RED and markers dropped, resubmitted; a few rounds), then: main's first-parent history is a line
 * with every human push; every landed head passes the test command (land: rebase tests only an
 * item's head, so only heads are checked: the commits below a landed head were never tested); each
 * ant commit is on main at most once, the commits of every reported landing are on main exactly
 * once, and nothing else is; main (its reflog) only ever moved forward, each landing's
 * {@code before} an ancestor of its {@code to}; the scratch was never an ant's worktree, and no ant's
 * branch or worktree was touched. Green work that was submitted and not sent back lands.
 *
 * <p>A seeded loop rather than jqwik: each try starts a Temporal test environment and real git, so
 * shrinking would be far too slow. A failure prints the seed and the operations; replay one try
 * with {@code -Dcolony.seed=<seed>} ({@link Seeds}) (the interleaving with the queue is timing-dependent, the
 * operations are not). {@code -Dmerge.prop.tries=N} runs more tries; {@code -Dmerge.prop.story=true}
 * prints every try's story (operations, kills, the queue's updates of main, with times) even when
 * it passes.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class MergeQueuePropertyTest {
  static final String QUEUE = "merge-prop";
  static final List<String> ANTS = List.of("ada", "bob", "cy");
  /** Red when a file RED exists or a file holds a line starting with a conflict marker. */
  static final List<String> TEST = List.of("sh", "-c",
      "test ! -e RED && ! grep -rqs --exclude-dir=.git '^<<<<<<<' .");

  @TempDir
  Path tmp;

  @Test
  void theQueueLandsOnlyGreenWorkOnceOnAForwardLine() throws Exception {
    java.util.OptionalLong replay = Seeds.given();
    int tries = replay.isPresent() ? 1 : Integer.getInteger("merge.prop.tries", 6);
    long base = replay.isPresent() ? replay.getAsLong() : new Random().nextLong();
    for (int t = 0; t < tries; t++) {
      long seed = base + t;
      Seeds.announce("MergeQueuePropertyTest try " + t, seed);
      Try run = new Try(seed, Files.createDirectories(tmp.resolve("try" + t)));
      long start = System.nanoTime();
      try {
        run.run();
      } catch (Throwable e) {
        throw new AssertionError("merge queue property failed for " + Seeds.replay(seed) + "\n" + run.story(), e);
      } finally {
        run.close();
      }
      System.out.printf("merge property try %d seed %d: %s, %d ops, %d crashes, %d landed, %d reworks fixed, main moved"
          + " under the queue %d times, %.1f s (drain %.1f s)%n", t, seed, run.remote ? "url" : "local", run.ops,
          run.git.crashes.size(), run.landedCount, run.count(" fixes its rework"), run.count(": MOVED"),
          (System.nanoTime() - start) / 1e9, run.drainMillis / 1e3);
    }
  }

  /** splitmix64: seeds next to each other give unrelated sequences (java.util.Random's first draws do not). */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  // ---- one try ---------------------------------------------------------------------------------

  static final class Try implements AutoCloseable {
    final long seed;
    final Random rnd;
    final Path dir;
    final boolean remote;
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    final Map<String, Path> antDirs = new LinkedHashMap<>();
    /** Each ant's branch head as the ant last left it. */
    final Map<String, String> antHeads = new HashMap<>();
    final List<String> humanSubjects = Collections.synchronizedList(new ArrayList<>());
    Path bare;
    Path human;
    Path colony;
    String seedSha;
    MergeRepo repo;
    TestWorkflowEnvironment env;
    MergeQueueWorkflow q;
    CrashingGit git;
    final java.util.concurrent.atomic.AtomicInteger seq = new java.util.concurrent.atomic.AtomicInteger();
    int ops;
    long landedCount;
    long drainMillis;

    Try(long seed, Path dir) {
      this.seed = seed;
      this.rnd = new Random(mix(seed));
      this.dir = dir;
      this.remote = (seed & 1) != 0; // consecutive seeds alternate: a local repository, a URL
    }

    final long born = System.nanoTime();

    /** An operation (or what the queue did) for the story, with the time since the try began. */
    void note(String what) {
      log.add(String.format("%6d ms  %s", (System.nanoTime() - born) / 1_000_000, what));
    }

    long count(String what) {
      synchronized (log) {
        return log.stream().filter(l -> l.contains(what)).count();
      }
    }

    String story() {
      StringBuilder b = new StringBuilder("repository: " + (remote ? "url" : "local") + "\noperations:\n");
      synchronized (log) {
        log.forEach(l -> b.append("  ").append(l).append('\n'));
      }
      if (git != null) {
        b.append("crashes: ").append(git.crashes).append('\n');
      }
      try {
        if (q != null) {
          b.append("card: ").append(q.card()).append('\n');
        }
      } catch (RuntimeException e) {
        b.append("card: unavailable (").append(e.getMessage()).append(")\n");
      }
      try {
        if (bare != null) {
          b.append("main:\n").append(gitOut(bare, "log", "--first-parent", "--format=  %h %s", "main")).append('\n');
        }
      } catch (Exception e) {
        b.append("main: unavailable\n");
      }
      return b.toString();
    }

    void run() throws Exception {
      setUpRepository();
      startQueue();
      int n = 10 + rnd.nextInt(9);
      for (int i = 0; i < n; i++) {
        operation();
        ops++;
        if (rnd.nextInt(3) == 0) {
          Thread.sleep(rnd.nextInt(120)); // not a wait: random jitter, to let the queue get ahead sometimes
        }
      }
      long drainStart = System.nanoTime();
      // Each ant submits what it has at the end of its session.
      for (String ant : ANTS) {
        if (!antHeads.get(ant).equals(seedSha)) {
          submit(ant);
        }
      }
      for (int round = 0; round < 3; round++) {
        MergeCard card = awaitQuiet();
        List<MergeItem> rework = card.items().stream().filter(i -> i.state() == ItemState.REWORK).toList();
        if (rework.isEmpty()) {
          break;
        }
        for (MergeItem i : rework) {
          fix(i.ant());
          submit(i.ant());
        }
      }
      MergeCard card = awaitQuiet();
      drainMillis = (System.nanoTime() - drainStart) / 1_000_000;
      git.quiet = true;
      check(card);
      if (Boolean.getBoolean("merge.prop.story")) {
        System.out.println(story());
      }
    }

    // ---- the repository and the ants ----

    void setUpRepository() throws Exception {
      Path seedDir = Files.createDirectories(dir.resolve("seed"));
      gitOk(seedDir, "init", "-q", "-b", "main");
      Files.writeString(seedDir.resolve("README"), "seed\n");
      Files.writeString(seedDir.resolve("shared.txt"), "base\n");
      gitOk(seedDir, "add", "-A");
      gitOk(seedDir, "commit", "-q", "-m", "seed");
      bare = dir.resolve("app.git");
      gitOk(dir, "clone", "-q", "--bare", seedDir.toString(), bare.toString());
      gitOk(bare, "config", "core.logAllRefUpdates", "always"); // main's reflog: every move of it
      gitOk(bare, "config", "gc.auto", "0");
      seedSha = gitOut(bare, "rev-parse", "main");
      colony = Files.createDirectories(dir.resolve("colony"));
      String location = remote ? "file://" + bare : bare.toString();
      repo = new MergeRepo("c", "app", location, "main", LandMode.REBASE, TEST, 60, false, false, 3, 3600,
          colony.toString(), colony.resolve(".colony/merge/app").toString(), null, null);
      for (String ant : ANTS) {
        Path a;
        if (remote) {
          a = colony.resolve(".colony/workspaces").resolve(ant); // a URL repository's ant: a repository of its own
          Files.createDirectories(a.getParent());
          gitOk(dir, "clone", "-q", location, a.toString());
          gitOk(a, "checkout", "-q", "-b", "colony/" + ant, "origin/main");
        } else {
          a = dir.resolve("ants").resolve(ant);
          Files.createDirectories(a.getParent());
          gitOk(bare, "worktree", "add", "-q", "-b", "colony/" + ant, a.toString(), "main");
        }
        antDirs.put(ant, a);
        antHeads.put(ant, seedSha);
      }
      human = dir.resolve("human");
      if (remote) {
        gitOk(dir, "clone", "-q", location, human.toString());
      } else {
        gitOk(bare, "worktree", "add", "-q", "--detach", human.toString(), "main");
      }
    }

    void startQueue() {
      env = TestWorkflowEnvironment.newInstance();
      AntSearchAttributes.ALL.forEach(k -> env.registerSearchAttribute(k.getName(), k.getValueType()));
      Worker w = env.newWorker(QUEUE);
      // Production's attempts, but retries within a fraction of a second (not 1 s and up).
      Map<String, ActivityOptions> quick = new HashMap<>();
      quick.put("PublishBranch", quick(Activities.MERGE_PUBLISH, 5));
      quick.put("PrepareScratch", quick(Activities.MERGE_GIT, 12));
      quick.put("Rebase", quick(Activities.MERGE_GIT, 12));
      quick.put("UpdateTarget", quick(Activities.MERGE_GIT, 12));
      quick.put("RunTests", quick(Activities.mergeTests(60), 3));
      w.registerWorkflowImplementationTypes(WorkflowImplementationOptions.newBuilder().setActivityOptions(quick)
          .build(), MergeQueueWorkflowImpl.class);
      MergeActivitiesImpl real = new MergeActivitiesImpl(new Secrets(), null, null, null, p -> Map.of());
      git = new CrashingGit(real, new Random(mix(seed + 1)), rnd.nextInt(3) * 6, this);
      w.registerActivitiesImplementations(git, new Desk());
      env.start();
      WorkflowClient client = env.getWorkflowClient();
      q = client.newWorkflowStub(MergeQueueWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(repo.workflowId()).setTaskQueue(QUEUE).build());
      WorkflowClient.start(q::run, MergeQueueState.start(repo));
      note("crash chance per step " + git.percent + "% (before or after its effect)");
    }

    static ActivityOptions quick(ActivityOptions o, int attempts) {
      return ActivityOptions.newBuilder(o).setRetryOptions(RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofMillis(50)).setBackoffCoefficient(1.5)
          .setMaximumInterval(Duration.ofMillis(300)).setMaximumAttempts(attempts).build()).build();
    }

    void operation() throws Exception {
      String ant = ANTS.get(rnd.nextInt(ANTS.size()));
      int r = rnd.nextInt(100);
      if (r < 28) {
        commit(ant, ant + ".txt", false);
      } else if (r < 42) {
        commit(ant, "shared.txt", false);
      } else if (r < 48) {
        commit(ant, "RED", false);
      } else if (r < 52) {
        commit(ant, ant + ".txt", true);
      } else if (r < 80) {
        submit(ant);
      } else if (r < 91) {
        humanPush();
      } else {
        note(ant + " rebases onto main");
        rebaseOntoMain(ant);
      }
    }

    /** The ant commits a change of {@code file}: a line of its own, or (marker) a botched conflict resolution. */
    void commit(String ant, String file, boolean marker) throws Exception {
      Path a = antDirs.get(ant);
      String subject = "ant-" + ant + "-" + seq.incrementAndGet();
      Path f = a.resolve(file);
      if (file.equals("shared.txt")) {
        Files.writeString(f, subject + "\n"); // every ant rewrites the same line: they conflict
      } else {
        String old = Files.exists(f) ? Files.readString(f) : "";
        Files.writeString(f, old + (marker ? "<<<<<<< " : "") + subject + "\n");
      }
      gitOk(a, "add", file);
      gitOk(a, "commit", "-q", "-m", subject);
      antHeads.put(ant, gitOut(a, "rev-parse", "HEAD"));
      note(ant + " commits " + subject + " to " + file + (marker ? " (a conflict marker)" : ""));
    }

    void submit(String ant) {
      try {
        SubmitReply r = q.submit(new Submission(ant, "", "colony/" + ant, "T-" + ant, Submission.NORMAL, "ant",
            false));
        note(ant + " submits: " + r.itemId() + " " + r.state());
      } catch (RuntimeException e) {
        note(ant + " submits: refused " + e.getMessage());
      }
    }

    /** A human commits a file of their own and pushes it to main (again after a rejected push). */
    synchronized void humanPush() throws Exception {
      String subject = "human-" + seq.incrementAndGet();
      for (int i = 0; ; i++) {
        if (remote) {
          gitOk(human, "fetch", "-q", "origin");
          gitOk(human, "reset", "-q", "--hard", "origin/main");
        } else {
          gitOk(human, "reset", "-q", "--hard", "main");
        }
        String old = gitOut(human, "rev-parse", "HEAD");
        Files.writeString(human.resolve(subject + ".txt"), subject + "\n");
        gitOk(human, "add", "-A");
        gitOk(human, "commit", "-q", "-m", subject);
        boolean pushed = remote ? git(human, "push", "-q", "origin", "HEAD:refs/heads/main").ok()
            : git(human, "update-ref", "refs/heads/main", gitOut(human, "rev-parse", "HEAD"), old).ok();
        if (pushed) {
          break;
        }
        assertTrue(i < 20, "the human could not push " + subject);
      }
      humanSubjects.add(subject);
      note("human pushes " + subject);
    }

    /** The ant's branch onto main; a conflict keeps main's side (the ant's change is dropped). */
    void rebaseOntoMain(String ant) throws Exception {
      Path a = antDirs.get(ant);
      String upstream = "main";
      if (remote) {
        gitOk(a, "fetch", "-q", "origin");
        upstream = "origin/main";
      }
      Result r = git(a, "-c", "core.editor=true", "rebase", "-q", upstream);
      for (int guard = 0; !r.ok() && rebasing(a); guard++) {
        assertTrue(guard < 100, "the rebase of " + ant + " does not end: " + r.out());
        List<String> conflicted = gitOut(a, "diff", "--name-only", "--diff-filter=U").lines().toList();
        for (String f : conflicted) {
          if (!git(a, "checkout", "-q", "--ours", "--", f).ok()) {
            gitOk(a, "rm", "-q", "--", f);
          } else {
            gitOk(a, "add", "--", f);
          }
        }
        r = git(a, "-c", "core.editor=true", "rebase", "--continue");
        if (!r.ok() && rebasing(a) && gitOut(a, "diff", "--name-only", "--diff-filter=U").isEmpty()) {
          r = git(a, "-c", "core.editor=true", "rebase", "--skip"); // nothing left of that commit
        }
      }
      assertTrue(r.ok(), "the rebase of " + ant + " failed: " + r.out());
      antHeads.put(ant, gitOut(a, "rev-parse", "HEAD"));
    }

    boolean rebasing(Path a) throws Exception {
      return Files.exists(a.resolve(gitOut(a, "rev-parse", "--git-path", "rebase-merge")))
          || Files.exists(a.resolve(gitOut(a, "rev-parse", "--git-path", "rebase-apply")));
    }

    /** What an agent does with a rework: rebase onto main, drop RED and conflict markers. */
    void fix(String ant) throws Exception {
      note(ant + " fixes its rework");
      rebaseOntoMain(ant);
      Path a = antDirs.get(ant);
      String subject = "ant-" + ant + "-" + seq.incrementAndGet();
      if (Files.exists(a.resolve("RED"))) {
        gitOk(a, "rm", "-q", "RED");
      }
      for (String file : List.of(ant + ".txt", "shared.txt")) {
        Path f = a.resolve(file);
        if (Files.exists(f)) {
          String text = Files.readString(f);
          String clean = text.lines().filter(l -> !l.startsWith("<<<<<<<")).map(l -> l + "\n")
              .collect(Collectors.joining());
          if (!clean.equals(text)) {
            Files.writeString(f, clean);
            gitOk(a, "add", file);
          }
        }
      }
      if (!gitOut(a, "diff", "--cached", "--name-only").isEmpty()) {
        gitOk(a, "commit", "-q", "-m", subject + " fix");
        note(ant + " commits " + subject + " fix");
      }
      antHeads.put(ant, gitOut(a, "rev-parse", "HEAD"));
    }

    /** Waits until nothing is queued or landing (the card unchanged for a few polls). */
    MergeCard awaitQuiet() {
      MergeCard[] last = new MergeCard[1];
      int[] still = new int[1];
      dev.colony.testing.Eventually.eventually(java.time.Duration.ofSeconds(40), () -> {
        MergeCard c = q.card();
        boolean busy = c.items().stream().anyMatch(i -> i.state() == ItemState.QUEUED
            || i.state() == ItemState.LANDING || i.state() == ItemState.AWAITING_REVIEW);
        MergeCard before = last[0];
        still[0] = !busy && before != null && before.items().equals(c.items())
            && before.landedCount() == c.landedCount() ? still[0] + 1 : 0;
        last[0] = c;
        return still[0] >= 15; // unchanged and idle for about 300 ms (the shared poll is every 20 ms)
      }, () -> "the queue did not drain: " + (last[0] == null ? "?" : last[0].items()));
      return last[0];
    }

    // ---- the properties ----

    void check(MergeCard card) throws Exception {
      note("checking: " + card.landedCount() + " landed, open " + card.items().stream()
          .map(i -> i.id() + " " + i.state()).toList());
      assertTrue(git.violations.isEmpty(), "violations seen by the git steps: " + git.violations);
      for (MergeItem i : card.items()) {
        assertTrue(i.state() == ItemState.REWORK || i.state() == ItemState.NEEDS_HUMAN,
            "an item still in the line after the drain: " + i);
      }
      landedCount = card.landedCount();
      assertTrue(card.landedCount() <= MergeCard.MAX_LANDED, "too many landings for the card's history");
      assertEquals(card.landedCount(), card.landed().size(), "the card lists every landing");
      List<Landed> landings = new ArrayList<>(card.landed());
      Collections.reverse(landings); // oldest first

      // 1. main's first-parent history from the seed is a line with every human push.
      String main = gitOut(bare, "rev-parse", "main");
      assertTrue(isAncestor(seedSha, main), "the seed is not on main");
      assertEquals("", gitOut(bare, "rev-list", "--merges", seedSha + ".." + main), "merge commits on main");
      List<String> line = gitOut(bare, "rev-list", "--first-parent", "--reverse", seedSha + ".." + main).lines()
          .toList();
      assertEquals(line.size(), gitOut(bare, "rev-list", seedSha + ".." + main).lines().count(),
          "main is not a line");
      Map<String, String> subjectOf = new HashMap<>();
      for (String l : gitOut(bare, "log", "--format=%H %s", seedSha + ".." + main).lines().toList()) {
        subjectOf.put(l.substring(0, l.indexOf(' ')), l.substring(l.indexOf(' ') + 1));
      }
      List<String> subjects = line.stream().map(subjectOf::get).toList();
      for (String h : humanSubjects) {
        assertEquals(1, Collections.frequency(subjects, h), "human push " + h + " on main once");
      }

      // 3. each ant commit on main at most once; each landing's commits there exactly once; nothing else.
      Map<String, Long> counts = subjects.stream().collect(Collectors.groupingBy(s -> s, Collectors.counting()));
      counts.forEach((s, c) -> assertEquals(1L, c, s + " is on main " + c + " times"));
      Set<String> ids = new HashSet<>();
      Set<String> covered = new HashSet<>();
      int at = -1;
      for (Landed l : landings) {
        assertTrue(ids.add(l.itemId()), l.itemId() + " landed twice");
        // 4. every landing moved the target forward.
        assertTrue(isAncestor(l.before(), l.to()), l.itemId() + ": before " + l.before() + " is not below " + l.to());
        int idx = line.indexOf(l.to());
        assertTrue(idx >= 0, l.itemId() + " is reported landed as " + l.to() + ", which is not on main's line");
        assertTrue(idx > at, l.itemId() + " landed below an earlier landing");
        at = idx;
        List<String> range = gitOut(bare, "rev-list", "--first-parent", l.before() + ".." + l.to()).lines().toList();
        assertEquals(l.commits(), range.size(), l.itemId() + ": commits landed");
        for (String c : range) {
          assertTrue(covered.add(c), c + " counted in two landings");
          assertTrue(subjectOf.containsKey(c) && subjectOf.get(c).startsWith("ant-" + l.ant() + "-"),
              l.itemId() + " landed " + c + " (" + subjectOf.get(c) + "), not a commit of " + l.ant());
        }
        assertEquals(gitOut(bare, "log", "-1", "--format=%s", l.from()), subjectOf.get(l.to()),
            l.itemId() + ": the landed head is not the ant's head");
      }
      for (String c : line) {
        String s = subjectOf.get(c);
        assertTrue(s.startsWith("human-") || covered.contains(c), c + " (" + s + ") is on main but no landing has it");
      }

      // 2. every landed head passes the test command (land: rebase tests only an item's head).
      Path check = dir.resolve("check");
      gitOk(bare, "worktree", "add", "-q", "--detach", check.toString(), main);
      for (Landed l : landings) {
        gitOk(check, "checkout", "-q", "--detach", "--force", l.to());
        gitOk(check, "clean", "-fdxq");
        Process p = new ProcessBuilder(TEST).directory(check.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor(), l.itemId() + " landed " + l.to() + ", which fails the tests");
      }

      // 4. main (every move of it in its reflog) only went forward.
      List<String> moves = gitOut(bare, "log", "-g", "--format=%H", "refs/heads/main").lines().toList();
      assertEquals(landings.size() + humanSubjects.size(), moves.size(),
          "main moved once per landing and per human push: " + moves);
      for (int i = 0; i + 1 < moves.size(); i++) {
        assertTrue(isAncestor(moves.get(i + 1), moves.get(i)), "main moved from " + moves.get(i + 1) + " to "
            + moves.get(i) + ", not forward");
      }

      // 4. the scratch is not an ant's worktree, and no ant's branch or worktree was touched.
      Path scratch = Path.of(repo.scratchDir()).toRealPath();
      for (String ant : ANTS) {
        Path a = antDirs.get(ant).toRealPath();
        assertTrue(!scratch.startsWith(a) && !a.startsWith(scratch), "the scratch " + scratch + " and " + a);
        assertEquals("refs/heads/colony/" + ant, gitOut(a, "symbolic-ref", "HEAD"), ant + "'s worktree moved");
        assertEquals(antHeads.get(ant), gitOut(a, "rev-parse", "HEAD"), ant + "'s branch was moved");
        assertEquals("", gitOut(a, "status", "--porcelain"), ant + "'s worktree was changed");
      }
      if (!remote) {
        String list = gitOut(bare, "worktree", "list", "--porcelain");
        List<String> blocks = List.of(list.split("\n\n"));
        for (String b : blocks) {
          if (b.startsWith("worktree " + scratch)) {
            assertTrue(b.contains("\ndetached"), "the scratch holds a branch: " + b);
          }
        }
      }

      // Green work that was submitted and not sent back landed: an ant with no open item has
      // nothing beyond main that is not on main.
      Set<String> onMain = new HashSet<>(subjects);
      for (String ant : ANTS) {
        boolean open = card.items().stream().anyMatch(i -> i.ant().equals(ant));
        if (open) {
          continue;
        }
        Path a = antDirs.get(ant);
        String upstream = "main";
        if (remote) {
          gitOk(a, "fetch", "-q", "origin");
          upstream = "origin/main";
        }
        for (String s : gitOut(a, "log", "--format=%s", upstream + "..HEAD").lines().toList()) {
          assertTrue(onMain.contains(s), ant + "'s " + s + " was submitted, never sent back, and is not on main");
        }
      }
    }

    boolean isAncestor(String a, String b) throws Exception {
      return git(bare, "merge-base", "--is-ancestor", a, b).ok();
    }

    @Override
    public void close() {
      if (env != null) {
        env.close();
      }
    }
  }

  // ---- crashes ---------------------------------------------------------------------------------

  /**
   * The real git steps, killed at random: a step throws before its effect, or after it (as a
   * worker that died before it could report), and Temporal runs it again. Never on an attempt
   * past the second (the production attempts are never used up by the test's kills).
   */
  static final class CrashingGit implements MergeActivities {
    final MergeActivitiesImpl real;
    final Random rnd;
    final int percent;
    final Try t;
    final List<String> crashes = Collections.synchronizedList(new ArrayList<>());
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    volatile boolean quiet;
    int budget = 8;
    /** Human pushes made just before an UpdateTarget. */
    int pushes = 3;

    CrashingGit(MergeActivitiesImpl real, Random rnd, int percent, Try t) {
      this.real = real;
      this.rnd = rnd;
      this.percent = percent;
      this.t = t;
    }

    private <T> T step(String name, MergeRepo repo, Supplier<T> effect) {
      Path scratch = real.scratchDir(repo).toAbsolutePath().normalize();
      for (Path a : t.antDirs.values()) {
        Path ant = a.toAbsolutePath().normalize();
        if (scratch.startsWith(ant) || ant.startsWith(scratch)) {
          violations.add(name + " works in " + scratch + ", an ant's worktree " + ant);
        }
      }
      int attempt = Activity.getExecutionContext().getInfo().getAttempt();
      if (attempt > 1) {
        t.note("    (" + name + " again, attempt " + attempt + ")");
      }
      int roll;
      synchronized (this) {
        roll = attempt <= 2 && budget > 0 && !quiet ? rnd.nextInt(200) : 200;
        if (roll < 2 * percent) {
          budget--;
        }
      }
      if (roll < percent) {
        crashes.add(name + "#" + attempt + " before");
        t.note("    (worker killed before " + name + ", attempt " + attempt + ")");
        throw new IllegalStateException("worker killed before " + name);
      }
      T result = effect.get();
      if (roll < 2 * percent) {
        crashes.add(name + "#" + attempt + " after");
        t.note("    (worker killed after " + name + ", attempt " + attempt + ")");
        throw new IllegalStateException("worker killed after " + name);
      }
      return result;
    }

    @Override
    public BranchHead publishBranch(MergeRepo repo, String ant, String branch, String since, String approved) {
      return step("PublishBranch", repo, () -> real.publishBranch(repo, ant, branch, since, approved));
    }

    @Override
    public String prepareScratch(MergeRepo repo) {
      return step("PrepareScratch", repo, () -> real.prepareScratch(repo));
    }

    @Override
    public RebaseResult rebase(MergeRepo repo, BranchHead branch, String onto, String message) {
      return step("Rebase", repo, () -> real.rebase(repo, branch, onto, message));
    }

    @Override
    public TestRun runTests(MergeRepo repo, String head) {
      return step("RunTests", repo, () -> real.runTests(repo, head));
    }

    @Override
    public TargetUpdate updateTarget(MergeRepo repo, String expected, String head) {
      boolean push;
      synchronized (this) {
        push = !quiet && pushes > 0 && rnd.nextInt(4) == 0;
        pushes -= push ? 1 : 0;
      }
      if (push) {
        // A human pushes just before the queue's compare-and-swap: main moved under it.
        try {
          t.humanPush();
          t.note("    (that push came just before the queue's update of main)");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      return step("UpdateTarget", repo, () -> {
        TargetUpdate u = real.updateTarget(repo, expected, head);
        t.note("  queue: update main " + MergeGit.abbrev(expected) + " → "
            + MergeGit.abbrev(head) + ": " + u.outcome());
        return u;
      });
    }

    @Override
    public String openPullRequest(MergeRepo repo, String ant, String branch, String head, String title, String body) {
      throw new UnsupportedOperationException("land: rebase opens no pull request");
    }

    @Override
    public String syncBranch(AntSpec spec, String landedFrom, String landedTo) {
      throw new UnsupportedOperationException("no ant workflow here");
    }
  }

  /** The queue's calls to the board: recorded nowhere, answered at once. */
  static final class Desk implements MergeDeskActivities {
    @Override
    public SubmitReply submit(MergeRepo repo, Submission submission) {
      throw new UnsupportedOperationException();
    }

    @Override
    public PathReply claimPaths(MergeRepo repo, PathClaim claim) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void releasePaths(MergeRepo repo, String ant) {}

    @Override
    public void finishTask(String colony, String taskId, String comment) {}

    @Override
    public void reworkTask(String colony, String taskId, String ant, String comment) {}

    @Override
    public void taskInRework(String colony, String taskId, String comment, boolean review) {}

    @Override
    public Map<String, dev.colony.task.TaskState> taskStates(String colony, List<String> taskIds) {
      return Map.of();
    }
  }

  // ---- git ---------------------------------------------------------------------------------------

  record Result(int exit, String out) {
    boolean ok() {
      return exit == 0;
    }
  }

  static Result git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString(), "-c", "user.name=Ann Tester", "-c",
        "user.email=ann@example.com", "-c", "commit.gpgSign=false", "-c", "advice.detachedHead=false"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(Map.of("GIT_CONFIG_NOSYSTEM", "1", "GIT_TERMINAL_PROMPT", "0", "GIT_EDITOR", "true"));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(p.waitFor(), out.strip());
  }

  static void gitOk(Path dir, String... args) throws Exception {
    gitOut(dir, args);
  }

  static String gitOut(Path dir, String... args) throws Exception {
    Result r = git(dir, args);
    for (int again = 0; !r.ok() && r.out().contains("cannot lock ref") && again < 5; again++) {
      // The queue's PublishBranch works in the same clone on the ant's host (it pushes and
      // fetches there); a real agent whose fetch meets its lock tries again, and so does this one.
      r = git(dir, args);
    }
    if (!r.ok()) {
      throw new AssertionError("git " + String.join(" ", args) + " in " + dir + ": " + r.out());
    }
    return r.out();
  }
}
