package dev.colony.merge;

import static dev.colony.merge.MergeBookTest.book;
import static dev.colony.merge.MergeBookTest.sub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Conflict-aware scheduling: what an ant's paths hold, for how long, and who is served first. */
@Timeout(30)
class MergeClaimsTest {
  static PathClaim claim(String ant, String... globs) {
    return new PathClaim(ant, List.of(globs), null, "ant/test/" + ant);
  }

  static Landed landedOf(MergeItem it) {
    return new Landed(it.id(), it.ant(), it.taskId(), "f" + it.id(), "t" + it.id(), "b", 1, 0, 0, 0, List.of(), null);
  }

  /** An ant's submitted work keeps its paths when the ant claims others for its next work. */
  @Test
  void submittedWorkKeepsItsPathsUntilItLands() {
    MergeBook b = book();
    assertTrue(b.claim(claim("alpha", "src/api/**")).granted());
    b.submit(sub("alpha", 2), 1);
    assertTrue(b.claim(claim("alpha", "docs/**")).granted(), "the next task's paths");
    assertEquals(List.of("docs/**", "src/api/**"), b.card(null, 2).claims().get("alpha"),
        "the card shows what alpha holds: its claim and its submitted work");
    PathReply r = b.claim(claim("beta", "src/api/x.java"));
    assertFalse(r.granted(), "alpha's unlanded work still holds src/api/**");
    assertEquals("alpha", r.holder());
    MergeItem it = b.next(2);
    b.landing(it.id(), 3);
    b.landed(it.id(), landedOf(it), 4);
    List<PathClaim> freed = b.freed();
    assertEquals(List.of("beta"), freed.stream().map(PathClaim::ant).toList(), "beta is told once");
    assertTrue(b.freed().isEmpty(), "and only once");
    assertTrue(b.claim(claim("beta", "src/api/x.java")).granted());
    assertFalse(b.claim(claim("gamma", "docs/a.md")).granted(), "alpha's claim for its next work survived the landing");
  }

  static Submission undeclared(String ant, String... changed) {
    return new Submission(ant, "", "colony/" + ant, null, 2, "ant", false, null, null, null, List.of(changed));
  }

  /**
   * An ant that declares no paths: its submitted work holds the files it changed (its item's files,
   * in one spelling) across continue-as-new, until it is dropped; a submission that came while its
   * item landed holds its files once it follows; the card lists it until it declares paths.
   */
  @Test
  void anUndeclaredAntsChangedFilesAreHeldUntilItsWorkIsDropped() {
    MergeBook b = book();
    b.submit(undeclared("gamma", "./src//api/users.java", "docs/a.md"), 1);
    b = MergeBook.of(b.state()); // continue-as-new
    assertEquals(List.of("gamma"), b.card(null, 2).undeclared());
    PathReply r = b.claim(claim("beta", "src/api/**"));
    assertFalse(r.granted());
    assertEquals("gamma", r.holder());
    assertEquals(List.of("src/api/users.java"), r.overlap());
    assertTrue(b.claim(claim("delta", "web/**")).granted());
    MergeItem it = b.next(3);
    b.landing(it.id(), 3);
    b.submit(undeclared("gamma", "lib/k.c"), 4); // while it lands: the next item holds it
    b.landed(it.id(), landedOf(it), 5);
    assertEquals(List.of("beta"), b.freed().stream().map(PathClaim::ant).toList());
    b.submit(b.takeLater("gamma"), 6);
    assertFalse(b.claim(claim("epsilon", "lib/**")).granted(), "the work that came while it landed holds lib/k.c");
    MergeItem next = b.next(7);
    b.close(next.id(), "nothing to land", 8);
    assertTrue(b.claim(claim("epsilon", "lib/**")).granted(), "dropped: free");
    b.claim(new PathClaim("gamma", List.of("web/x"), null, "ant/test/gamma"));
    assertEquals(List.of(), b.card(null, 9).undeclared(), "it declares paths now");
  }

  /** undeclared: everything: ** waits for any other ant's unlanded work, even one whose files are not read yet. */
  @Test
  void everythingWaitsForAnyUnlandedWork() {
    MergeBook b = book();
    b.submit(sub("alpha", 2), 1); // from a human (colony merge submit): no claim, its files not read yet
    PathReply r = b.claim(new PathClaim("gamma", List.of("**"), null, "ant/test/gamma", true));
    assertFalse(r.granted());
    assertEquals("alpha", r.holder());
    assertEquals(List.of("alpha-1"), r.overlap());
    MergeItem it = b.next(2);
    b.landing(it.id(), 3);
    b.landed(it.id(), landedOf(it), 4);
    assertEquals(List.of("gamma"), b.freed().stream().map(PathClaim::ant).toList(), "alpha's work landed");
    assertTrue(b.claim(new PathClaim("gamma", List.of("**"), null, "ant/test/gamma", true)).granted());
    assertFalse(b.claim(claim("delta", "docs/a.md")).granted(), "declared ants wait for it");
  }

  /**
   * A declared ant whose paths normalise to ** ("." or "**") is judged as before: an item whose files
   * are not read yet holds nothing from it (only an undeclared ant's ** waits for any unlanded work).
   */
  @Test
  void aDeclaredClaimOfEverythingIsJudgedAsBefore() {
    MergeBook b = book();
    b.submit(sub("human", 2), 1); // colony merge submit: no claim, its files not read yet
    assertTrue(b.claim(claim("delta", ".")).granted(), "declared '.': granted, as before");
    assertTrue(b.claim(claim("omega", "**")).granted() == false, "delta holds everything now");
    b.release("delta");
    assertTrue(b.claim(claim("omega", "**")).granted(), "declared '**': granted, as before");
  }

  /**
   * undeclared: everything, an ant that keeps working: its claim of ** for its next session, made
   * while its submitted work is unlanded, is new work; it queues behind who waits longer, and when
   * the earlier work lands the waiter is told its paths are free.
   */
  @Test
  void aBusyUndeclaredAntsNextClaimQueuesBehindWaitersAndLetsThemIn() {
    MergeBook b = book();
    assertTrue(b.claim(new PathClaim("e", List.of("**"), null, "ant/test/e", true)).granted());
    b.submit(new Submission("e", "", "colony/e", null, 2, "ant", false, null, null, false), 1);
    assertFalse(b.claim(claim("d", "docs/**")).granted(), "e's submitted work holds everything");
    PathReply again = b.claim(new PathClaim("e", List.of("**"), null, "ant/test/e", true));
    assertFalse(again.granted(), "e's next session queues behind d, who waits longer");
    assertEquals("d", again.holder());
    MergeItem it = b.next(2);
    b.landing(it.id(), 3);
    b.read(it.id(), new BranchHead("aaaa1111", "base0", 1, List.of("src/x.java"), "r"), 4);
    b.landed(it.id(), landedOf(it), 5);
    assertEquals(List.of("d"), b.freed().stream().map(PathClaim::ant).toList(), "e's work landed: d goes first");
    assertTrue(b.claim(claim("d", "docs/**")).granted());
  }

  /**
   * undeclared: everything, an ant waiting with ** behind a stuck item does not make every declared
   * ant's unrelated claim queue behind it.
   */
  @Test
  void aWaiterOfEverythingDoesNotStopUnrelatedClaims() {
    MergeBook b = book();
    b.claim(claim("alpha", "src/x/**"));
    b.submit(new Submission("alpha", "", "colony/alpha", null, 2, "ant", false, null, null, false), 1);
    b.landing("alpha-1", 2);
    b.rework("alpha-1", "red", 3); // stuck in rework
    assertFalse(b.claim(new PathClaim("e", List.of("**"), null, "ant/test/e", true)).granted());
    assertTrue(b.claim(claim("d", "docs/**")).granted(), "docs/** has nothing to do with alpha's work");
  }

  private static MergeBook changedBook(boolean review) {
    return MergeBook.of(MergeQueueState.start(new MergeRepo("test", "app", "/r", "main", LandMode.REBASE,
        List.of("./test.sh"), 600, false, review, 3, 3600, "/c", "/c/.colony/merge/app", null, null,
        Undeclared.CHANGED)));
  }

  /**
   * undeclared: changed: work submitted while the ant's item is landing holds the files it changed
   * at once (it waits aside for the landing to end, unlanded all the same).
   */
  @Test
  void workSubmittedDuringALandingHoldsItsFilesAtOnce() {
    MergeBook b = changedBook(false);
    b.submit(new Submission("u", "", "colony/u", null, 2, "ant", false, null, null, false, List.of("a.java")), 1);
    b.landing("u-1", 2);
    b.submit(new Submission("u", "", "colony/u", null, 2, "ant", false, null, null, false, List.of("b.java")), 3);
    PathReply r = b.claim(claim("d", "b.java"));
    assertFalse(r.granted(), "u's b.java work is submitted and unlanded");
    assertEquals("u", r.holder());
    b.read("u-1", new BranchHead("aaaa1111", "base0", 1, List.of("a.java"), "r"), 4);
    b.landed("u-1", landedOf(b.item("u-1")), 5);
    assertEquals(List.of(), b.freed(), "the b.java work follows in u's next item: still held");
    b.submit(b.takeLater("u"), 6);
    assertFalse(b.claim(claim("d", "b.java")).granted());
  }

  /**
   * undeclared: changed with review: the read at the turn (the approved head's files) does not drop
   * the files of later, unapproved work, and the item after the landing holds that work's files, not
   * the files that just landed.
   */
  @Test
  void withReviewTheLaterWorksFilesStayHeldAndTheLandedOnesAreFreed() {
    MergeBook b = changedBook(true);
    b.submit(new Submission("u", "", "colony/u", "t1", 2, "ant", false, "aaaa1111", "base0", false,
        List.of("a.java")), 1);
    b.taskApproved("t1", 2);
    b.submit(new Submission("u", "", "colony/u", "t2", 2, "ant", false, "bbbb2222", "base0", false,
        List.of("a.java", "b.java")), 3);
    b.landing("u-1", 4);
    b.read("u-1", new BranchHead("aaaa1111", "base0", 1, List.of("a.java"), "r"), 5);
    assertFalse(b.claim(claim("d", "b.java")).granted(), "the unapproved part's b.java is still unlanded");
    b.landed("u-1", new Landed("u-1", "u", "t1", "aaaa1111", "t2", "t1", 1, 0, 0, 6, List.of("a.java"), null,
        List.of("t1"), "base0", true), 6);
    assertTrue(b.item("u-2").paths().contains("b.java"), "the next item holds the later work's files");
    assertFalse(b.claim(claim("d", "b.java")).granted());
  }

  /** A landing or a drop frees the claim made for that work; an item closed with nothing to land too. */
  @Test
  void aClosedItemFreesItsPathsAndAStoppedAntItsClaimButNotItsSubmittedWork() {
    MergeBook b = book();
    b.claim(claim("alpha", "src/**"));
    b.submit(sub("alpha", 2), 1);
    b.release("alpha"); // the ant stopped: its submitted work still has to land
    assertFalse(b.claim(claim("beta", "src/a")).granted());
    MergeItem it = b.next(2);
    b.close(it.id(), "nothing to land", 3);
    assertEquals(List.of("beta"), b.freed().stream().map(PathClaim::ant).toList());
    assertTrue(b.claim(claim("beta", "src/a")).granted());
  }

  /** Waiters are served in the order they began to wait: a newcomer never overtakes one. */
  @Test
  void waitersAreServedInOrder() {
    MergeBook b = book();
    assertTrue(b.claim(claim("holder", "src/**")).granted());
    assertFalse(b.claim(claim("first", "src/a/**")).granted());
    assertFalse(b.claim(claim("second", "src/**")).granted());
    assertEquals(List.of("first"), b.release("holder").stream().map(PathClaim::ant).toList(),
        "second overlaps first, who waited longer");
    PathReply newcomer = b.claim(claim("newcomer", "src/a/b.txt"));
    assertFalse(newcomer.granted(), "first keeps its place until it claims again");
    assertEquals("first", newcomer.holder());
    assertTrue(b.claim(claim("first", "src/a/**")).granted());
    assertFalse(b.claim(claim("second", "src/**")).granted(), "still behind first's claim");
    List<String> next = b.release("first").stream().map(PathClaim::ant).toList();
    assertEquals(List.of("second"), next, "second waited before the newcomer");
    assertFalse(b.claim(claim("newcomer", "src/a/b.txt")).granted());
    assertTrue(b.claim(claim("second", "src/**")).granted());
  }

  /** One spelling per path: "src/./a/**" and "src/a/x" are the same place. */
  @Test
  void pathsAreNormalised() {
    MergeBook b = book();
    assertTrue(b.claim(claim("alpha", "src/./a/**")).granted());
    assertFalse(b.claim(claim("beta", "src/a/x")).granted());
    assertFalse(b.claim(claim("gamma", "./src//b/../a/y")).granted());
    assertTrue(b.claim(claim("delta", "src/b/**")).granted());
    assertTrue(PathGlobs.matches("src/./a/**", "src/a/x"));
    assertEquals("src/a/**", PathGlobs.normalize("src/b/../a/"));
  }

  /** What is held crosses continue-as-new, and so does the waiters' order. */
  @Test
  void heldPathsAndTheWaitersOrderCrossContinueAsNew() {
    MergeBook b = book();
    b.claim(claim("alpha", "src/**"));
    b.submit(sub("alpha", 2), 1);
    b.claim(claim("alpha", "docs/**"));
    b.claim(claim("zed", "src/x"));
    b.claim(claim("amy", "src/**"));
    MergeBook copy = MergeBook.of(b.state());
    assertEquals(List.of("src/**"), copy.held("alpha"));
    assertTrue(copy.release("alpha").isEmpty(), "alpha stopped, its submitted work still holds src/**");
    assertFalse(copy.claim(claim("beta", "src/y")).granted(), "submitted work is held after the next run starts");
    MergeItem it = copy.next(2);
    copy.landing(it.id(), 3);
    copy.landed(it.id(), landedOf(it), 4);
    assertEquals(List.of("zed"), copy.freed().stream().map(PathClaim::ant).toList(),
        "zed waited first (by name it would be amy)");
    assertEquals(Map.of(), Map.copyOf(copy.state().claimOrder().held()));
  }

  /** A human's cancel drops the work: its paths are free at once (the inbox says so). */
  @Test
  void aCancelledItemFreesItsPaths() {
    MergeBook b = book();
    b.claim(claim("alpha", "src/a/**"));
    b.submit(sub("alpha", 2), 1);
    assertFalse(b.claim(claim("beta", "src/a/x")).granted());
    MergeItem it = b.line(2).get(0);
    b.decide(new MergeDecision(it.id(), "cancel", "@ops", null), 3);
    assertEquals(List.of(), b.held("alpha"));
    assertEquals(List.of("beta"), b.freed().stream().map(PathClaim::ant).toList());
  }

  /**
   * The rework session's submission (the fix) does not take the ant's current claim (for the task in
   * hand) into the item: when the fix lands, that claim stays the ant's.
   */
  @Test
  void aFixLandingKeepsTheClaimOfTheTaskInHand() {
    MergeBook b = MergeBook.of(MergeQueueState.start(MergeBookTest.repo(false, 3)));
    b.claim(claim("alpha", "src/a/**"));
    b.submit(new Submission("alpha", "", "colony/alpha", "t1", 2, "ant", false, null, null, false), 1);
    MergeItem it = b.next(2);
    b.landing(it.id(), 3);
    b.rework(it.id(), "conflict", 4);
    assertTrue(b.claim(claim("alpha", "src/b/**")).granted(), "its next task's paths");
    b.submit(new Submission("alpha", "", "colony/alpha", null, 2, "ant", false, null, null, true), 5);
    MergeItem again = b.next(6);
    b.landing(again.id(), 7);
    b.landed(again.id(), landedOf(again), 8);
    assertFalse(b.claim(claim("beta", "src/b/x")).granted(), "the task in hand keeps its paths");
    assertTrue(b.claim(claim("gamma", "src/a/x")).granted(), "the reworked item's paths are free");
  }
}
