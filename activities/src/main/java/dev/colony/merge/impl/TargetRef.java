package dev.colony.merge.impl;

import dev.colony.merge.MergeRepo;
import dev.colony.merge.TargetUpdate;
import dev.colony.merge.TargetUpdate.Outcome;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Path;

/**
 * UpdateTarget: the target branch moved from the head the queue tested on to the landed head by one
 * compare-and-swap ({@link #compareAndSwap}), whichever ref decides: origin's branch of a URL
 * repository (a push with lease from the scratch), a local repository's branch ({@code update-ref}
 * with its old value), or, for a local repository with push on, origin's branch (the local branch
 * follows it). A retry after the swap (its worker killed before it reported) answers ALREADY, also
 * when the target moved on since.
 */
final class TargetRef {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TargetRef.class);

  private final MergeGit m;
  private final Git git;
  private final RebaseScratch scratches;

  TargetRef(MergeGit m, RebaseScratch scratches) {
    this.m = m;
    this.git = m.git;
    this.scratches = scratches;
  }

  /** A branch the queue swaps: where it is read, how it is swapped, what a landing on it does after. */
  private interface Ref {
    /** The branch's head now (null: there is none). */
    String head() throws IOException, InterruptedException;

    /**
     * Whether {@code head}, built on {@code expected}, is already below the branch's {@code now}:
     * an earlier attempt of this update moved it (its worker was killed before it reported) and the
     * branch moved on since (a human's push). The retry reports ALREADY, not MOVED: MOVED would
     * rebase work that is on the target again (nothing left, or a conflict with what came after it).
     */
    boolean landedBefore(String expected, String head, String now) throws IOException, InterruptedException;

    /** Why the swap may not happen from {@code now} (MOVED, or an answer of another ref); null: it may. */
    TargetUpdate refuse(String now, String expected, String head) throws IOException, InterruptedException;

    /** From {@code now} to {@code head}: null when swapped, else the head that won the race. */
    String swap(String now, String head) throws IOException, InterruptedException;

    /** What follows a landing (UPDATED or ALREADY) on this branch. */
    TargetUpdate landed(Outcome outcome, String head) throws IOException, InterruptedException;
  }

  TargetUpdate update(MergeRepo repo, String expected, String head) throws IOException, InterruptedException {
    String url = m.resolvedRepo(repo);
    if (repo.remote()) {
      return compareAndSwap(new Origin(repo, scratches.checkout(repo, false)), expected, head);
    }
    Path local = m.localRepo(url);
    Ref ref = m.pushesToOrigin(repo, local) ? new PushedLocal(repo, local) : new Local(repo, local);
    return compareAndSwap(ref, expected, head);
  }

  /** The one compare-and-swap: landed already, refused, swapped, or lost to someone else's move. */
  private static TargetUpdate compareAndSwap(Ref ref, String expected, String head)
      throws IOException, InterruptedException {
    String now = ref.head();
    if (now != null && (head.equals(now) || ref.landedBefore(expected, head, now))) {
      return ref.landed(Outcome.ALREADY, head);
    }
    TargetUpdate refused = ref.refuse(now, expected, head);
    if (refused != null) {
      return refused;
    }
    String winner = ref.swap(now, head);
    if (winner == null) {
      return ref.landed(Outcome.UPDATED, head);
    }
    return head.equals(winner) ? ref.landed(Outcome.ALREADY, head) : new TargetUpdate(Outcome.MOVED, winner);
  }

  /** A URL repository's target: origin's branch, swapped by a push with lease from the queue's scratch. */
  private final class Origin implements Ref {
    private final MergeRepo repo;
    private final Path scratch;

    Origin(MergeRepo repo, Path scratch) {
      this.repo = repo;
      this.scratch = scratch;
    }

    @Override
    public String head() throws IOException, InterruptedException {
      return m.remoteHead(scratch, repo.target());
    }

    @Override
    public boolean landedBefore(String expected, String head, String now) throws IOException, InterruptedException {
      if (now.equals(expected)) {
        return false;
      }
      if (!m.hasCommit(scratch, now)) {
        git.run(scratch, "fetch", "--quiet", "origin");
      }
      return TargetRef.this.landedBefore(scratch, expected, head, now);
    }

    @Override
    public TargetUpdate refuse(String now, String expected, String head) {
      return expected.equals(now) ? null : new TargetUpdate(Outcome.MOVED, now);
    }

    @Override
    public String swap(String now, String head) throws IOException, InterruptedException {
      scratches.ensureCommit(repo, scratch, head);
      return pushWithLease(scratch, repo.target(), now, head) ? null : head();
    }

    @Override
    public TargetUpdate landed(Outcome outcome, String head) throws IOException, InterruptedException {
      scratches.deleteRebasedRef(scratch, head);
      if (outcome == Outcome.UPDATED) {
        git.run(scratch, "fetch", "--quiet", "origin");
      }
      return new TargetUpdate(outcome, head);
    }
  }

  /** A local repository's target without push: its branch, swapped by {@code update-ref} with its old value. */
  private final class Local implements Ref {
    private final MergeRepo repo;
    private final Path local;
    private final String ref;

    Local(MergeRepo repo, Path local) {
      this.repo = repo;
      this.local = local;
      this.ref = "refs/heads/" + repo.target();
    }

    @Override
    public String head() throws IOException, InterruptedException {
      return localHead(repo, local);
    }

    @Override
    public boolean landedBefore(String expected, String head, String now) throws IOException, InterruptedException {
      return TargetRef.this.landedBefore(local, expected, head, now);
    }

    @Override
    public TargetUpdate refuse(String now, String expected, String head) {
      // Not exactly expected: it moved, forwards or backwards (a human's reset), and the queue
      // rebases again instead of landing on a head that is not the target's.
      return now.equals(expected) ? null : new TargetUpdate(Outcome.MOVED, now);
    }

    @Override
    public String swap(String now, String head) throws IOException, InterruptedException {
      Git.Result r = git.run(local, "update-ref", "-m", "colony merge queue: land " + MergeGit.abbrev(head), ref, head, now);
      if (r.ok()) {
        return null;
      }
      String after = m.revParse(local, ref);
      if (after == null || (!after.equals(head) && after.equals(now))) {
        throw ApplicationFailure.newFailure(git.describe(new String[] {"update-ref", ref}, r), "GitFailed");
      }
      return after;
    }

    @Override
    public TargetUpdate landed(Outcome outcome, String head) {
      return new TargetUpdate(outcome, head);
    }
  }

  /**
   * A local repository's target with push on: origin's branch decides (a push with lease from the
   * repository), and the local branch follows it. Origin behind expected is origin lagging the local
   * target (pushed forward here); anything else moved on origin.
   */
  private final class PushedLocal implements Ref {
    private final MergeRepo repo;
    private final Path local;
    private final String ref;
    private String localNow;

    PushedLocal(MergeRepo repo, Path local) {
      this.repo = repo;
      this.local = local;
      this.ref = "refs/heads/" + repo.target();
    }

    @Override
    public String head() throws IOException, InterruptedException {
      localNow = localHead(repo, local);
      return m.remoteHead(local, repo.target());
    }

    @Override
    public boolean landedBefore(String expected, String head, String now) throws IOException, InterruptedException {
      if (!m.hasCommit(local, now)) {
        fetchTarget();
      }
      return TargetRef.this.landedBefore(local, expected, head, now);
    }

    @Override
    public TargetUpdate refuse(String now, String expected, String head) throws IOException, InterruptedException {
      // The local target may lag behind expected (origin was ahead); a target that moved elsewhere
      // refuses, unless head is already in it (written before a worker died, a human pushed on top
      // since): landed.
      if (!localNow.equals(expected) && !localNow.equals(head) && !m.isAncestor(local, localNow, expected)) {
        return TargetRef.this.landedBefore(local, expected, head, localNow) ? new TargetUpdate(Outcome.ALREADY, head)
            : new TargetUpdate(Outcome.MOVED, localNow);
      }
      if (now != null && !now.equals(expected) && !(m.hasCommit(local, now) && m.isAncestor(local, now, expected))) {
        return new TargetUpdate(Outcome.MOVED, now);
      }
      return null;
    }

    @Override
    public String swap(String now, String head) throws IOException, InterruptedException {
      if (pushWithLease(local, repo.target(), now == null ? "" : now, head)) {
        return null;
      }
      String after = m.remoteHead(local, repo.target());
      return head.equals(after) ? null : after; // origin has it: landed by this update
    }

    @Override
    public TargetUpdate landed(Outcome outcome, String head) throws IOException, InterruptedException {
      if (outcome == Outcome.UPDATED) {
        fetchTarget();
      }
      // The landing is on origin: the local target follows (or is left for PrepareScratch to
      // report, when a human committed to it meanwhile); it never turns the landing into MOVED.
      follow(local, ref, head);
      return new TargetUpdate(outcome, head);
    }

    private void fetchTarget() throws IOException, InterruptedException {
      git.run(local, "fetch", "--quiet", "origin", "+" + ref + ":refs/remotes/origin/" + repo.target());
    }
  }

  private String localHead(MergeRepo repo, Path local) throws IOException, InterruptedException {
    String now = m.revParse(local, "refs/heads/" + repo.target());
    if (now == null) {
      throw m.nonRetryable("the target branch " + repo.target() + " does not exist in " + local, "TargetMissing");
    }
    return now;
  }

  /**
   * With push on, after origin took {@code head}: the local target moves to it when it is behind
   * it (a compare-and-swap, tried again if it moved meanwhile). A local target that already holds
   * head stays; one a human moved elsewhere meanwhile stays too (PrepareScratch reports the
   * divergence): origin, which decided, has the landing either way.
   */
  private void follow(Path local, String ref, String head) throws IOException, InterruptedException {
    for (int attempt = 0; attempt < 3; attempt++) {
      String cur = m.revParse(local, ref);
      if (cur == null || cur.equals(head) || m.isAncestor(local, head, cur)) {
        return;
      }
      if (!m.isAncestor(local, cur, head)) {
        log.warn("merge: {} moved to {} while {} landed on origin; left as it is", ref, MergeGit.abbrev(cur),
            MergeGit.abbrev(head));
        return;
      }
      if (git.run(local, "update-ref", "-m", "colony merge queue: land " + MergeGit.abbrev(head), ref, head, cur).ok()) {
        return;
      }
    }
  }

  private boolean landedBefore(Path dir, String expected, String head, String now)
      throws IOException, InterruptedException {
    return !head.equals(expected) && m.hasCommit(dir, now) && m.isAncestor(dir, expected, head)
        && m.isAncestor(dir, head, now);
  }

  /** True when origin took it; false when the lease failed (origin's branch is not {@code expected}). */
  private boolean pushWithLease(Path dir, String target, String expected, String head)
      throws IOException, InterruptedException {
    String ref = "refs/heads/" + target;
    String[] args = {"push", "--porcelain", "--force-with-lease=" + ref + ":" + expected, "origin", head + ":" + ref};
    Git.Result r = git.run(dir, args);
    if (r.ok()) {
      return true;
    }
    String said = r.text();
    if (said.contains("stale info") || said.contains("[rejected]") || said.contains("fetch first")) {
      return false;
    }
    throw ApplicationFailure.newFailure(git.describe(args, r), "GitFailed");
  }
}
