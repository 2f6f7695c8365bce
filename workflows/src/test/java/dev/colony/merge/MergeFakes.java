package dev.colony.merge;

import dev.colony.spec.AntSpec;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-memory "repository" for the merge queue's git steps, a recording desk, and ants that record their news. */
final class MergeFakes {
  private MergeFakes() {}

  /** A commit: its files, and the ant whose work it is ("human" for a push to main). */
  record Commit(String sha, String ant, Set<String> files, String original) {}

  /** An ant's branch: where on main it starts, and its own commits. */
  static final class Branch {
    int base;
    final List<Commit> own = new ArrayList<>();
  }

  /**
   * Main is a list of commits; a branch starts at an index of main. A rebase conflicts when a file
   * of the branch's new work changed on main since its base by someone else; tests are red when the
   * work holds a file named red*; {@code updateTarget} is a compare-and-swap of main's head.
   */
  static final class FakeGit implements MergeActivities {
    final List<Commit> main = new CopyOnWriteArrayList<>();
    final Map<String, Branch> branches = new ConcurrentHashMap<>();
    final Map<String, List<Commit>> rebased = new ConcurrentHashMap<>();
    final List<String> calls = new CopyOnWriteArrayList<>();
    /** When set, PublishBranch waits for a permit (so submissions pile up behind the landing item). */
    volatile Semaphore gate;
    /** When set, RunTests waits for a permit, heartbeating (a cancelled test counts in {@link #testsCancelled}). */
    volatile Semaphore testGate;
    final AtomicInteger testsCancelled = new AtomicInteger();
    /** Human pushes to main that happen just before the next updates of the target. */
    final AtomicInteger humanPushes = new AtomicInteger();
    /** The next update writes, then its worker "dies" (the attempt fails): the retry finds it done. */
    volatile boolean dieAfterWrite;
    private final AtomicInteger seq = new AtomicInteger();

    FakeGit() {
      main.add(new Commit("root", "human", Set.of("README.md"), null));
    }

    synchronized String head() {
      return main.get(main.size() - 1).sha();
    }

    /** The ant commits a change of {@code files} on its branch (branched from main's head on first use). */
    synchronized String commit(String ant, String... files) {
      Branch b = branches.computeIfAbsent(ant, k -> {
        Branch n = new Branch();
        n.base = main.size();
        return n;
      });
      String sha = ant + "-c" + seq.incrementAndGet();
      b.own.add(new Commit(sha, ant, new LinkedHashSet<>(List.of(files)), null));
      return sha;
    }

    /** The ant rebased its branch onto main (how an agent resolves a conflict). */
    synchronized void rebaseBranch(String ant) {
      branches.get(ant).base = main.size();
    }

    /** The originals of main's commits, in order (what landed, each once). */
    synchronized List<String> landedOriginals() {
      List<String> out = new ArrayList<>();
      for (Commit c : main) {
        if (c.original() != null) {
          out.add(c.original());
        }
      }
      return out;
    }

    @Override
    public BranchHead publishBranch(MergeRepo repo, String ant, String branch, String since, String approved) {
      calls.add("publish " + ant + (approved == null ? "" : " " + approved));
      Semaphore g = gate;
      if (g != null) {
        try {
          g.acquire();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new RuntimeException(e);
        }
      }
      synchronized (this) {
        Branch b = branches.get(ant);
        if (b == null) {
          return new BranchHead(null, null, 0, List.of(), null);
        }
        int from = 0;
        for (int i = 0; i < b.own.size(); i++) {
          if (b.own.get(i).sha().equals(since)) {
            from = i + 1;
          }
        }
        int to = b.own.size(); // the branch's head, or the approved head a human reviewed
        for (int i = 0; approved != null && i < b.own.size(); i++) {
          if (b.own.get(i).sha().equals(approved)) {
            to = i + 1;
          }
        }
        List<Commit> work = b.own.subList(Math.min(from, to), to);
        Set<String> paths = new LinkedHashSet<>();
        work.forEach(c -> paths.addAll(c.files()));
        String head = to == 0 ? main.get(b.base - 1).sha() : b.own.get(to - 1).sha();
        String base = from > 0 ? b.own.get(from - 1).sha() : "main@" + b.base;
        return new BranchHead(head, base, work.size(), List.copyOf(paths), branch);
      }
    }

    @Override
    public synchronized String prepareScratch(MergeRepo repo) {
      calls.add("prepare");
      return head();
    }

    @Override
    public synchronized RebaseResult rebase(MergeRepo repo, BranchHead branch, String onto, String message) {
      String ant = branch.head().substring(0, branch.head().indexOf("-c"));
      calls.add("rebase " + ant);
      Branch b = branches.get(ant);
      Set<String> conflicts = new LinkedHashSet<>();
      for (int i = b.base; i < main.size(); i++) {
        Commit c = main.get(i);
        if (!c.ant().equals(ant)) {
          for (String f : c.files()) {
            if (branch.paths().contains(f)) {
              conflicts.add(f);
            }
          }
        }
      }
      if (!conflicts.isEmpty()) {
        return new RebaseResult(null, 0, List.copyOf(conflicts), "CONFLICT (content): Merge conflict in "
            + String.join(", ", conflicts), List.of());
      }
      List<Commit> work = new ArrayList<>();
      boolean started = branch.base().startsWith("main@");
      for (Commit c : b.own) {
        if (started) {
          work.add(c);
          if (c.sha().equals(branch.head())) {
            break; // up to the head read (an approved head: nothing after it)
          }
        }
        if (c.sha().equals(branch.base())) {
          started = true;
        }
      }
      String head = "r" + seq.incrementAndGet() + "-" + branch.head();
      List<Commit> copies = new ArrayList<>();
      for (int i = 0; i < work.size(); i++) {
        Commit c = work.get(i);
        copies.add(new Commit(i == work.size() - 1 ? head : head + "~" + (work.size() - 1 - i), ant, c.files(),
            c.sha()));
      }
      rebased.put(head, copies);
      return new RebaseResult(head, copies.size(), List.of(), "rebased", work.stream().map(Commit::sha).toList());
    }

    @Override
    public TestRun runTests(MergeRepo repo, String head) {
      calls.add("test " + head);
      Semaphore g = testGate;
      while (g != null) {
        try {
          if (g.tryAcquire(50, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            break;
          }
          io.temporal.activity.Activity.getExecutionContext().heartbeat(null);
        } catch (io.temporal.client.ActivityCompletionException cancelled) {
          testsCancelled.incrementAndGet();
          throw cancelled;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new RuntimeException(e);
        }
      }
      boolean red = rebased.get(head).stream().anyMatch(c -> c.files().stream().anyMatch(f -> f.startsWith("red")));
      return red ? new TestRun(false, 1, false, 1500, "collecting...\nFAILED test_login: expected 200, got 500")
          : new TestRun(true, 0, false, 42_000, "ok");
    }

    @Override
    public TargetUpdate updateTarget(MergeRepo repo, String expected, String head) {
      synchronized (this) {
        calls.add("update " + expected + " " + head);
        if (head().equals(head)) {
          return new TargetUpdate(TargetUpdate.Outcome.ALREADY, head);
        }
        if (humanPushes.get() > 0) {
          humanPushes.decrementAndGet();
          main.add(new Commit("human" + seq.incrementAndGet(), "human", Set.of("CHANGELOG-" + seq.get()), null));
        }
        if (!head().equals(expected)) {
          return new TargetUpdate(TargetUpdate.Outcome.MOVED, head());
        }
        main.addAll(rebased.get(head));
      }
      if (dieAfterWrite) {
        dieAfterWrite = false;
        throw new RuntimeException("worker killed after update-ref");
      }
      return new TargetUpdate(TargetUpdate.Outcome.UPDATED, head);
    }

    @Override
    public String openPullRequest(MergeRepo repo, String ant, String branch, String head, String title, String body) {
      calls.add("pr " + ant);
      return "https://github.com/o/r/pull/7";
    }

    @Override
    public String syncBranch(AntSpec spec, String landedFrom, String landedTo) {
      throw new UnsupportedOperationException();
    }
  }

  /** The queue's desk: task changes recorded, task states set by the test. */
  static final class FakeDesk implements MergeDeskActivities {
    final List<String> finished = new CopyOnWriteArrayList<>();
    final List<String> reworked = new CopyOnWriteArrayList<>();
    /** Tasks of work sent back to an ant that reworks in a session of its own: "task review comment". */
    final List<String> inRework = new CopyOnWriteArrayList<>();
    final Map<String, dev.colony.task.TaskState> states = new ConcurrentHashMap<>();
    final AtomicInteger stateChecks = new AtomicInteger();

    @Override
    public SubmitReply submit(MergeRepo repo, Submission submission) {
      throw new UnsupportedOperationException();
    }

    @Override
    public PathReply claimPaths(MergeRepo repo, PathClaim claim) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void releasePaths(MergeRepo repo, String ant) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void finishTask(String colony, String taskId, String comment) {
      finished.add(taskId + " " + comment);
    }

    @Override
    public void reworkTask(String colony, String taskId, String ant, String comment) {
      reworked.add(taskId + " " + ant + " " + comment);
    }

    @Override
    public void taskInRework(String colony, String taskId, String comment, boolean review) {
      // The move first, the record after: a test that sees the record sees the move (they ran on
      // the activity's thread, the test reads on its own; recorded first, CI once saw DONE).
      if (review && states.get(taskId) == dev.colony.task.TaskState.DONE) {
        states.put(taskId, dev.colony.task.TaskState.IN_REVIEW);
      }
      inRework.add(taskId + " " + review + " " + comment);
    }

    @Override
    public Map<String, dev.colony.task.TaskState> taskStates(String colony, List<String> taskIds) {
      stateChecks.incrementAndGet();
      Map<String, dev.colony.task.TaskState> out = new java.util.TreeMap<>();
      taskIds.forEach(id -> out.put(id, states.getOrDefault(id, dev.colony.task.TaskState.IN_REVIEW)));
      return out;
    }
  }

  /** An ant as far as the queue sees it: a workflow that records its mergeNews. */
  @WorkflowInterface
  public interface FakeAnt {
    @WorkflowMethod(name = "FakeAnt")
    void run();

    @SignalMethod(name = "mergeNews")
    void mergeNews(MergeNews news);
  }

  /** News by the ant's workflow id. */
  static final Map<String, List<MergeNews>> NEWS = new ConcurrentHashMap<>();

  public static final class FakeAntImpl implements FakeAnt {
    @Override
    public void run() {
      Workflow.await(() -> false);
    }

    @Override
    public void mergeNews(MergeNews news) {
      if (!Workflow.isReplaying()) {
        NEWS.computeIfAbsent(Workflow.getInfo().getWorkflowId(), k -> new CopyOnWriteArrayList<>()).add(news);
      }
    }
  }
}
