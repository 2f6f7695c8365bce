package dev.colony.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MergeBookTest {
  static final long HOUR = 3_600_000;

  static MergeRepo repo(boolean review, int maxTries) {
    return new MergeRepo("test", "app", "/r", "main", LandMode.REBASE, List.of("./test.sh"), 600, false, review,
        maxTries, 3600, "/c", "/c/.colony/merge/app", null, null);
  }

  static MergeBook book() {
    return MergeBook.of(MergeQueueState.start(repo(false, 3)));
  }

  static Submission sub(String ant, int priority) {
    return new Submission(ant, "", "colony/" + ant, null, priority, "ant", false);
  }

  static List<String> line(MergeBook b, long now) {
    return b.line(now).stream().map(MergeItem::id).toList();
  }

  @Test
  void itemsAreNumberedPerAntAndLandFirstComeFirstServed() {
    MergeBook b = book();
    assertEquals("alpha-1", b.submit(sub("alpha", 2), 1000).itemId());
    assertEquals("beta-1", b.submit(sub("beta", 2), 2000).itemId());
    SubmitReply g = b.submit(sub("gamma", 2), 3000);
    assertEquals(3, g.position());
    assertEquals(List.of("alpha-1", "beta-1", "gamma-1"), line(b, 4000));
    assertEquals("alpha-1", b.next(4000).id());
  }

  @Test
  void priorityGoesFirstAndAgingLiftsALowItemSoNothingStarves() {
    MergeBook b = book();
    b.submit(sub("low", 3), 0);
    b.submit(sub("urgent", 0), 10);
    b.submit(sub("normal", 2), 20);
    assertEquals(List.of("urgent-1", "normal-1", "low-1"), line(b, 30));
    // three hours later the low one has risen three levels: above a new urgent one
    b.submit(sub("fresh", 0), 3 * HOUR);
    assertEquals(List.of("urgent-1", "low-1", "normal-1", "fresh-1"), line(b, 3 * HOUR + 1),
        "the old urgent one aged too; the low one ties a fresh urgent one and is older");
    assertEquals(MergeBook.rank(3, 0, 3 * HOUR, 3600), 3);
    assertEquals(MergeBook.rank(0, 0, 0, 0), 3, "no aging: the weight alone");
  }

  @Test
  void aSecondSubmissionJoinsTheOpenItemAndReworkComesBackWithItsTries() {
    MergeBook b = book();
    b.submit(sub("alpha", 2), 0);
    SubmitReply again = b.submit(sub("alpha", 1), 5);
    assertEquals("alpha-1", again.itemId());
    assertTrue(again.text().startsWith("joined"));
    assertEquals(1, b.item("alpha-1").priority(), "the more urgent priority wins");
    b.landing("alpha-1", 10);
    assertEquals(ItemState.REWORK, b.rework("alpha-1", "conflict in a.txt", 20));
    assertEquals(ItemState.REWORK, b.item("alpha-1").state());
    SubmitReply back = b.submit(sub("alpha", 2), 30);
    assertEquals("alpha-1", back.itemId());
    assertEquals(ItemState.QUEUED, back.state());
    assertEquals(1, b.item("alpha-1").tries());
  }

  @Test
  void maxTriesSendsTheItemToAHumanAndRetryResetsIt() {
    MergeBook b = MergeBook.of(MergeQueueState.start(repo(false, 2)));
    b.submit(sub("alpha", 2), 0);
    b.landing("alpha-1", 1);
    assertEquals(ItemState.REWORK, b.rework("alpha-1", "red", 2));
    b.submit(sub("alpha", 2), 3);
    b.landing("alpha-1", 4);
    assertEquals(ItemState.NEEDS_HUMAN, b.rework("alpha-1", "red again", 5));
    SubmitReply joined = b.submit(sub("alpha", 2), 6);
    assertEquals(ItemState.NEEDS_HUMAN, joined.state(), "a submission does not undo a human's turn");
    assertNull(b.decideProblem(new MergeDecision("alpha", "retry", "@bob")));
    MergeItem retried = b.decide(new MergeDecision("alpha", "retry", "@bob"), 7);
    assertEquals(ItemState.QUEUED, retried.state());
    assertEquals(0, retried.tries());
    assertEquals("retried by @bob", retried.reason());
  }

  @Test
  void reviewHoldsItemsUntilTheirTaskOrAHumanApproves() {
    MergeBook b = MergeBook.of(MergeQueueState.start(repo(true, 3)));
    SubmitReply r = b.submit(new Submission("alpha", "", "colony/alpha", "t1", 2, "ant", false), 0);
    assertEquals(ItemState.AWAITING_REVIEW, r.state());
    assertEquals(List.of("t1"), b.awaitingTasks());
    assertNull(b.next(1));
    assertFalse(b.taskApproved("other", 2));
    assertTrue(b.taskApproved("t1", 2));
    assertEquals("alpha-1", b.next(3).id());

    SubmitReply pre = b.submit(new Submission("beta", "", "colony/beta", null, 2, "cli", true), 4);
    assertEquals(ItemState.QUEUED, pre.state(), "approved already: no wait");
    b.submit(new Submission("gamma", "", "colony/gamma", null, 2, "ant", false), 5);
    assertTrue(b.decideProblem(new MergeDecision("beta-1", "approve", "x")).contains("not awaiting review"));
    b.decide(new MergeDecision("gamma-1", "approve", "@alice"), 6);
    assertEquals(ItemState.QUEUED, b.item("gamma-1").state());
  }

  private static Submission part(String ant, String task, String head) {
    return new Submission(ant, "", "colony/" + ant, task, 2, "ant", false, head, null);
  }

  @Test
  void anApprovalCoversThePartsItApprovedAndAReworkWithdrawsIt() {
    MergeBook b = MergeBook.of(MergeQueueState.start(repo(true, 3)));
    b.submit(part("alpha", "t1", "aaaa1111"), 0);
    b.submit(part("alpha", "t1", "aaaa2222"), 1); // the same task again before review: the newer head is reviewed
    assertEquals(1, b.item("alpha-1").parts().size());
    assertEquals("aaaa2222", b.item("alpha-1").parts().get(0).head());
    assertTrue(b.taskApproved("t1", 2));
    assertEquals("aaaa2222", b.approvedHead("alpha-1"));
    SubmitReply more = b.submit(part("alpha", "t1", "aaaa3333"), 3); // committed after the approval
    assertTrue(more.text().contains("approval covers up to aaaa222"), more.text());
    assertEquals("aaaa2222", b.approvedHead("alpha-1"), "the approval covers what it covered");
    b.submit(part("alpha", "t2", "bbbb1111"), 4);
    assertEquals(List.of("t1", "t2"), b.item("alpha-1").taskIds());
    assertEquals(List.of("t1"), b.landingTasks("alpha-1"));
    // A rework: every part is reviewed again, at the fix's head.
    b.landing("alpha-1", 5);
    assertEquals(ItemState.REWORK, b.rework("alpha-1", "conflict", 6));
    assertNull(b.approvedHead("alpha-1"));
    b.submit(part("alpha", "t1", "cccc1111"), 7);
    MergeItem fixed = b.item("alpha-1");
    assertEquals(ItemState.AWAITING_REVIEW, fixed.state());
    assertTrue(fixed.parts().stream().allMatch(p -> "cccc1111".equals(p.head()) && !p.approved()), fixed.parts()
        .toString());
    assertTrue(b.taskApproved("t1", 8));
    assertEquals(List.of("t1"), b.landingTasks("alpha-1"), "t2's work is in the fix too: it waits for t2's approval");
    b.decide(new MergeDecision("alpha-1", "approve", "@alice"), 9);
    assertEquals(List.of("t1", "t2"), b.landingTasks("alpha-1"));
    assertTrue(b.item("alpha-1").reason().contains("approved by @alice (up to cccc111)"), b.item("alpha-1").reason());
  }

  /** An ant's rework session submits for no task: its fix is the item's work again, at its head, not a part of its own. */
  @Test
  void aReworkSessionsSubmissionIsTheItemsFixNotAPartOfItsOwn() {
    MergeBook b = MergeBook.of(MergeQueueState.start(repo(true, 3)));
    b.submit(part("alpha", "t1", "aaaa1111"), 0);
    b.submit(part("alpha", "t2", "bbbb1111"), 1);
    b.decide(new MergeDecision("alpha-1", "approve", "@alice"), 2);
    b.landing("alpha-1", 3);
    assertEquals(ItemState.REWORK, b.rework("alpha-1", "conflict", 4));
    b.submit(part("alpha", null, "cccc1111"), 5);
    MergeItem fixed = b.item("alpha-1");
    assertEquals(ItemState.AWAITING_REVIEW, fixed.state());
    assertEquals(List.of("t1", "t2"), fixed.taskIds());
    assertEquals(2, fixed.parts().size(), fixed.parts().toString());
    assertTrue(fixed.parts().stream().allMatch(p -> "cccc1111".equals(p.head()) && !p.approved()), fixed.parts()
        .toString());
    b.decide(new MergeDecision("alpha-1", "approve", "@alice", "cccc111"), 6);
    assertEquals(List.of("t1", "t2"), b.landingTasks("alpha-1"), "one approval of the fix covers the whole item");
  }

  @Test
  void anApprovalNamingTheHeadAHumanSawCoversNothingAfterIt() {
    MergeBook b = MergeBook.of(MergeQueueState.start(repo(true, 3)));
    b.submit(part("alpha", "t1", "aaaa1111bbbb"), 0);
    b.submit(part("alpha", "t2", "cccc2222dddd"), 1); // came after the page was drawn
    assertTrue(b.decideProblem(new MergeDecision("alpha-1", "approve", "@alice", "eeee3333ffff"))
        .contains("holds no submission at eeee333"));
    b.decide(new MergeDecision("alpha-1", "approve", "@alice", "aaaa111"), 2);
    assertEquals("aaaa1111bbbb", b.approvedHead("alpha-1"));
    assertEquals(List.of("t1"), b.landingTasks("alpha-1"));
    assertEquals(ItemState.QUEUED, b.item("alpha-1").state());
    assertFalse(b.item("alpha-1").parts().get(1).approved());
    // t2 approved while alpha-1 lands: that landing still holds t1 only; t2's work is the next item.
    b.landing("alpha-1", 3);
    assertFalse(b.taskApproved("t2", 4), "nothing goes in line by it now: it is the next item's approval");
    assertEquals("aaaa1111bbbb", b.approvedHead("alpha-1"));
    assertEquals(List.of("t1"), b.landingTasks("alpha-1"));
    Landed l = new Landed("alpha-1", "alpha", "t1", "aaaa1111bbbb", "x1", "x0", 1, 0, 0, 5, List.of(), null);
    assertEquals(List.of("t1"), b.landed("alpha-1", l, 5));
    MergeItem next = b.item("alpha-2");
    assertEquals(List.of("t2"), next.taskIds());
    assertEquals(ItemState.QUEUED, next.state(), "its approval came during the landing: it counts for it");
    assertEquals("cccc2222dddd", b.approvedHead("alpha-2"));
  }

  @Test
  void anItemOfAnOlderRunHasOnePartAndReadsWithoutTheNewFields() throws Exception {
    MergeItem old = new MergeItem("alpha-4", "alpha", "", "colony/alpha", "t4", 2, ItemState.AWAITING_REVIEW, null, 0,
        0, 0, null, null, List.of(), "ant", false);
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper()
        .configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    var json = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.valueToTree(old);
    json.remove("parts");
    json.remove("approvedHead");
    MergeItem read = mapper.treeToValue(json, MergeItem.class);
    assertEquals(List.of(), read.parts());
    MergeBook b = MergeBook.of(new MergeQueueState(repo(true, 3), List.of(read), List.of(), Map.of(), Map.of(),
        Map.of(), Map.of(), Map.of(), 0));
    assertEquals(List.of("t4"), b.item("alpha-4").taskIds());
    assertEquals(List.of("t4"), b.awaitingTasks());
    assertTrue(b.taskApproved("t4", 1));
    assertEquals(ItemState.QUEUED, b.item("alpha-4").state());
    assertNull(b.approvedHead("alpha-4"), "approved before heads were named: the branch as it stands");
    var landedJson = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.valueToTree(
        new Landed("a-1", "a", "t", "f", "t2", "b", 1, 0, 0, 0, List.of(), null));
    landedJson.remove("taskIds");
    landedJson.remove("base");
    landedJson.remove("approved");
    assertEquals(List.of(), mapper.treeToValue(landedJson, Landed.class).taskIds());
  }

  @Test
  void aSubmissionNamesACommitIdOrNone() {
    MergeBook b = MergeBook.of(MergeQueueState.start(repo(true, 3)));
    assertTrue(b.submitProblem(part("alpha", "t1", "--exec=x")).contains("not a commit id"));
    assertTrue(b.submitProblem(part("alpha", "t1", "a..b")).contains("not a commit id"));
    assertNull(b.submitProblem(part("alpha", "t1", "0123abcd")));
    for (int k = 0; k < ItemPart.MAX; k++) {
      b.submit(part("alpha", "t" + k, "abcd" + k + "000"), k);
    }
    assertTrue(b.submitProblem(part("alpha", "t99", "ffff9999")).contains("holds " + ItemPart.MAX + " submissions"));
    assertNull(b.submitProblem(part("alpha", "t3", "abcd3000")), "one it holds already is no new part");
  }

  @Test
  void decisionsAreValidated() {
    MergeBook b = book();
    b.submit(sub("alpha", 2), 0);
    assertNotNull(b.decideProblem(null));
    assertTrue(b.decideProblem(new MergeDecision("alpha-1", "merge", "x")).contains("none of approve"));
    assertTrue(b.decideProblem(new MergeDecision("zeta-9", "cancel", "x")).contains("no open item"));
    assertTrue(b.decideProblem(new MergeDecision("alpha-1", "retry", "x")).contains("only an item in rework"));
    b.landing("alpha-1", 1);
    assertTrue(b.decideProblem(new MergeDecision("alpha-1", "cancel", "x")).contains("landing now"));
    b.hold("alpha-1", "host gone", 0, false, 2);
    MergeItem c = b.decide(new MergeDecision("alpha-1", "cancel", "@bob"), 3);
    assertEquals(ItemState.CLOSED, c.state());
    assertTrue(b.decideProblem(new MergeDecision("alpha-1", "cancel", "x")).contains("closed already"));
  }

  @Test
  void submissionsAreValidated() {
    MergeBook b = book();
    assertNotNull(b.submitProblem(null));
    assertTrue(b.submitProblem(sub("bad name", 2)).contains("not valid"));
    assertTrue(b.submitProblem(sub("alpha", 4)).contains("priority 4"));
    assertTrue(b.submitProblem(new Submission("alpha", "", "a..b", null, 2, "x", false)).contains("branch"));
    assertTrue(b.submitProblem(new Submission("alpha", "", "", null, 2, "x", false)).contains("branch"));
    assertTrue(b.submitProblem(new Submission("alpha", "h h", "b", null, 2, "x", false)).contains("host"));
    assertTrue(b.submitProblem(new Submission("alpha", "", "b", "a b", 2, "x", false)).contains("task id"));
    assertNull(b.submitProblem(sub("alpha", 0)));
    for (int i = 0; i < MergeBook.MAX_OPEN; i++) {
      b.submit(sub("a" + i, 2), i);
    }
    assertTrue(b.submitProblem(sub("late", 2)).contains("full"));
    assertNull(b.submitProblem(sub("a1", 2)), "joining an open item is fine when full");
  }

  @Test
  void landingRecordsHistoryHotPathsAndTheAntsNextBase() {
    MergeBook b = book();
    for (int n = 0; n < MergeCard.MAX_LANDED + 5; n++) {
      String ant = n % 2 == 0 ? "alpha" : "beta";
      SubmitReply r = b.submit(sub(ant, 2), n * 10);
      b.landing(r.itemId(), n * 10 + 1);
      b.read(r.itemId(), new BranchHead("h" + n, "b", 1, List.of("src/api/F" + n + ".java", ant + "/own.txt"), null),
          n * 10 + 2);
      b.landed(r.itemId(), new Landed(r.itemId(), ant, null, "h" + n, "t" + n, "t" + (n - 1), 1, 5, 1, n * 10 + 3,
          List.of("src/api/F" + n + ".java"), null), n * 10 + 3);
    }
    MergeCard card = b.card("t54", 1000);
    assertEquals(MergeCard.MAX_LANDED, card.landed().size());
    assertEquals("t54", card.landed().get(0).to(), "newest first");
    assertEquals(MergeCard.MAX_LANDED + 5, card.landedCount());
    assertEquals(List.of("alpha", "beta"), card.hotPaths().get("src/api"));
    assertFalse(card.hotPaths().containsKey("alpha"), "only directories two ants changed");
    assertEquals("h54", b.landedUpTo("alpha"));
    assertTrue(card.items().isEmpty());
    assertTrue(b.state().items().size() <= MergeBook.MAX_CLOSED, "closed items are bounded");
    // ids stay unique after closed items are forgotten, and across continue-as-new
    MergeBook again = MergeBook.of(b.state());
    assertEquals("alpha-29", again.submit(sub("alpha", 2), 2000).itemId());
    assertEquals("h54", again.landedUpTo("alpha"));
    assertEquals(MergeCard.MAX_LANDED + 5, again.card(null, 2001).landedCount());
  }

  @Test
  void aSubmissionWhileLandingBecomesTheNextItem() {
    MergeBook b = book();
    b.submit(sub("alpha", 2), 0);
    b.landing("alpha-1", 1);
    SubmitReply r = b.submit(sub("alpha", 2), 2);
    assertEquals("alpha-1", r.itemId());
    assertEquals(ItemState.LANDING, r.state());
    b.landed("alpha-1", new Landed("alpha-1", "alpha", null, "h", "t", "s", 1, 0, 0, 3, List.of(), null), 3);
    Submission later = b.takeLater("alpha");
    assertNotNull(later);
    assertEquals("alpha-2", b.submit(later, 4).itemId());
  }

  @Test
  void heldItemsAreSkippedUntilTheirTimeAndMovedOnesGoToTheBack() {
    MergeBook b = book();
    b.submit(sub("alpha", 2), 0);
    b.submit(sub("beta", 2), 1);
    b.landing("alpha-1", 2);
    b.hold("alpha-1", "host h1 is not answering", 1000, false, 3);
    assertEquals("beta-1", b.next(4).id());
    assertEquals(1000, b.nextHoldEnd());
    assertEquals("alpha-1", b.next(1000).id());
    b.landing("alpha-1", 1001);
    b.hold("alpha-1", "main moved 5 times", 0, true, 1002);
    assertEquals(List.of("beta-1", "alpha-1"), line(b, 1003));
    assertEquals("main moved 5 times", b.item("alpha-1").reason());
  }

  @Test
  void claimsAreGrantedRefusedWithHolderAndOverlapAndFreedOnRelease() {
    MergeBook b = book();
    assertTrue(b.claim(new PathClaim("alpha", List.of("src/api/**"), null, null)).granted());
    PathReply refused = b.claim(new PathClaim("beta", List.of("src/api/user/*.java", "docs/**"), null, "ant/test/beta"));
    assertFalse(refused.granted());
    assertEquals("alpha", refused.holder());
    assertEquals(List.of("src/api/**"), refused.overlap());
    assertTrue(b.claim(new PathClaim("gamma", List.of("web/**"), null, null)).granted());
    assertTrue(b.claim(new PathClaim("alpha", List.of("src/api/**", "lib/**"), null, null)).granted(),
        "an ant's own claim never blocks it");
    MergeCard card = b.card(null, 0);
    assertEquals(List.of("src/api/**", "lib/**"), card.claims().get("alpha"));
    assertEquals("alpha: src/api/**", card.waiting().get("beta"));
    List<PathClaim> freed = b.release("alpha");
    assertEquals(1, freed.size());
    assertEquals("beta", freed.get(0).ant());
    assertEquals("ant/test/beta", freed.get(0).antWorkflowId());
    assertTrue(b.card(null, 0).waiting().containsKey("beta"), "told, beta keeps its place until it claims again");
    assertTrue(b.claim(new PathClaim("beta", List.of("src/api/user/*.java"), null, null)).granted());
    assertTrue(b.card(null, 0).waiting().isEmpty());
  }

  @Test
  void anOpenItemsLearnedPathsBlockAClaimUntilItLands() {
    MergeBook b = book();
    b.submit(sub("alpha", 2), 0);
    b.landing("alpha-1", 1);
    b.read("alpha-1", new BranchHead("h", "b", 1, List.of("src/a.c", "README.md"), null), 2);
    PathReply r = b.claim(new PathClaim("beta", List.of("src/**"), null, null));
    assertFalse(r.granted());
    assertEquals("alpha", r.holder());
    assertEquals(List.of("src/a.c"), r.overlap());
    b.landed("alpha-1", new Landed("alpha-1", "alpha", null, "h", "t", "s", 1, 0, 0, 3, List.of("src/a.c"), null), 3);
    List<PathClaim> freed = b.release("alpha");
    assertEquals(List.of("beta"), freed.stream().map(PathClaim::ant).toList());
  }

  @Test
  void claimsAreValidated() {
    MergeBook b = book();
    assertNotNull(b.claimProblem(null));
    assertNotNull(b.claimProblem(new PathClaim("no way", List.of(), null, null)));
    assertTrue(b.claimProblem(new PathClaim("a", List.of("../x"), null, null)).contains("leaves"));
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 51; i++) {
      many.add("d" + i + "/**");
    }
    assertTrue(b.claimProblem(new PathClaim("a", many, null, null)).contains("at most 50"));
    assertNull(b.claimProblem(new PathClaim("a", List.of("src/**"), "t1", "ant/test/a")));
    assertTrue(b.claim(new PathClaim("a", List.of(), null, null)).granted(), "no globs: nothing to hold");
  }

  @Test
  void theCardOrdersLandingThenTheLineThenTheWaitingOnes() {
    MergeBook b = book();
    b.submit(sub("a", 2), 0);
    b.submit(sub("b", 2), 1);
    b.submit(sub("c", 0), 2);
    b.submit(sub("d", 2), 3);
    b.landing("a-1", 4);
    b.landing("b-1", 4);
    b.rework("b-1", "conflict", 5);
    MergeCard card = b.card("t", 6);
    assertEquals(List.of("a-1", "c-1", "d-1", "b-1"), card.items().stream().map(MergeItem::id).toList());
    assertEquals("t", card.targetHead());
  }

  @Test
  void textsAreBoundedAndPrintable() {
    String files = MergeText.conflict("alpha-3", "colony/alpha", "main", List.of("a.txt", "b\u001b[2J.txt"),
        "CONFLICT (content): Merge conflict in a.txt\n".repeat(500));
    assertTrue(files.length() <= MergeText.MAX_MESSAGE, "bounded: " + files.length());
    assertTrue(files.contains("a.txt"));
    assertTrue(files.contains("rebase colony/alpha onto main"));
    assertFalse(files.contains("\u001b"), "no terminal escapes");
    String red = MergeText.redTests("alpha-3", "colony/alpha", "main", List.of("./test.sh"),
        new TestRun(false, 1, false, 100, "x\n".repeat(5000) + "FAILED: test_login"));
    assertTrue(red.length() <= MergeText.MAX_MESSAGE);
    assertTrue(red.contains("FAILED: test_login"), "the tail is kept");
    assertTrue(red.contains("exit code 1"));
    assertEquals("🔀 alpha: 3 commits on main (9f8e7d6), tests 42 s", MergeText.landed(new Landed("alpha-3",
        "alpha", null, "a", "9f8e7d6aaaa", "b", 3, 42_000, 900, 0, List.of(), null), "main"));
    assertEquals("a\\nb", MergeText.line("a\nb", 10));
    assertEquals("1a2b3c4", MergeText.shortSha("1a2b3c4d5e6f"));
  }

  /**
   * An ant that runs reworks as sessions of their own submits its next task while its item is in
   * rework: that work joins and waits; only the rework session's submission (the fix) sends the
   * item back in line. A human's submission (no fix flag) still does, as before.
   */
  @Test
  void onlyTheFixEndsARework() {
    MergeBook b = book();
    b.submit(new Submission("alpha", "", "colony/alpha", "t1", 2, "ant", false, null, null, false), 1);
    MergeItem it = b.next(2);
    b.landing(it.id(), 3);
    assertEquals(ItemState.REWORK, b.rework(it.id(), "conflict in a.txt", 4));
    SubmitReply t2 = b.submit(new Submission("alpha", "", "colony/alpha", "t2", 2, "ant", false, null, null, false), 5);
    assertEquals(ItemState.REWORK, t2.state(), t2.text());
    assertNull(b.next(6), "nothing lands before the fix");
    SubmitReply fix = b.submit(new Submission("alpha", "", "colony/alpha", null, 2, "ant", false, null, null, true), 7);
    assertEquals(ItemState.QUEUED, fix.state(), fix.text());
    b.landing(it.id(), 8);
    b.rework(it.id(), "conflict again", 9);
    assertEquals(ItemState.QUEUED, b.submit(sub("alpha", 2), 10).state(), "a submission with no fix flag ends it");
  }

  /**
   * With review, a rework's fix is approved only by an approval given after it came: an approval
   * while the item is in rework (there is no fix yet) is not one, nor is its task being Done on the
   * board (approved before the rework) when the review check looks.
   */
  @Test
  void aFixLandsOnlyOnAnApprovalGivenAfterItCame() {
    MergeBook b = MergeBook.of(MergeQueueState.start(repo(true, 3)));
    b.submit(new Submission("x", "", "colony/x", "t1", 2, "ant", false, "aaaa1111", "base0", false), 1);
    b.taskApproved("t1", 2);
    b.landing("x-1", 3);
    b.rework("x-1", "conflict", 4);
    assertFalse(b.taskApproved("t1", 5), "a human approving the task during its rework approves no fix");
    b.submit(new Submission("x", "", "colony/x", null, 2, "ant", false, "cccc3333", null, true), 6);
    assertEquals(ItemState.AWAITING_REVIEW, b.item("x-1").state(), "the fix waits for its review");
    assertEquals(List.of("t1"), b.awaitingTasks());
    assertFalse(b.taskDone("t1", 7), "its task Done on the board (approved before the rework) is no approval of the fix");
    assertEquals(ItemState.AWAITING_REVIEW, b.item("x-1").state());
    assertNull(b.approvedHead("x-1"));
    assertTrue(b.taskApproved("t1", 8), "a human approves the task again, after the fix came");
    assertEquals(ItemState.QUEUED, b.item("x-1").state());
    assertEquals("cccc3333", b.approvedHead("x-1"), "what lands is the fix's head");
  }

  /**
   * With review, later work of a task approved already is a part of its own that needs an approval of
   * its own: the task moving to Done when its first part lands is none.
   */
  @Test
  void laterWorkOfAnApprovedTaskIsNotApprovedByItsTaskBeingDone() {
    MergeBook b = MergeBook.of(MergeQueueState.start(repo(true, 3)));
    b.submit(new Submission("x", "", "colony/x", "t1", 2, "ant", false, "aaaa1111", "base0", false), 1);
    b.taskApproved("t1", 2);
    b.submit(new Submission("x", "", "colony/x", "t1", 2, "ant", false, "bbbb2222", "base0", false), 3);
    b.landing("x-1", 4);
    b.read("x-1", new BranchHead("aaaa1111", "base0", 1, List.of("a"), "r"), 5);
    b.landed("x-1", new Landed("x-1", "x", "t1", "aaaa1111", "t2", "t1", 1, 0, 0, 6, List.of("a"), null, List.of("t1"),
        "base0", true), 6);
    assertEquals(ItemState.AWAITING_REVIEW, b.item("x-2").state());
    assertFalse(b.taskDone("t1", 7), "t1 is Done because its first part landed: no approval of bbbb2222");
    assertEquals(ItemState.AWAITING_REVIEW, b.item("x-2").state());
    assertTrue(b.taskApproved("t1", 8));
    assertEquals("bbbb2222", b.approvedHead("x-2"));
    b.landing("x-2", 9);
    b.landed("x-2", new Landed("x-2", "x", "t1", "bbbb2222", "t3", "t2", 1, 0, 0, 10, List.of("a"), null,
        List.of("t1"), "aaaa1111", true), 10);
    // more work for t1 after all of it landed: a new item, and t1 is Done on the board from that landing
    b.submit(new Submission("x", "", "colony/x", "t1", 2, "ant", false, "dddd4444", "bbbb2222", false), 11);
    assertFalse(b.taskDone("t1", 12), "its task Done from the last landing is no approval of dddd4444");
    assertEquals(ItemState.AWAITING_REVIEW, b.item("x-3").state());
  }

  /** Parts carried by a run before they knew which came after an approval are approved by Done, as before. */
  @Test
  void aPartOfAnOlderRunIsApprovedByItsTaskBeingDoneAsBefore() {
    MergeItem old = new MergeItem("x-1", "x", "", "colony/x", "t1", 2, ItemState.AWAITING_REVIEW, null, 1, 1, 0, null,
        null, List.of(), "ant", false, List.of(new ItemPart("t1", "aaaa1111", null, false)), null);
    MergeQueueState s = MergeQueueState.start(repo(true, 3));
    MergeBook b = MergeBook.of(new MergeQueueState(s.repo(), List.of(old), null, null, null, null, null, null, 0));
    assertTrue(b.taskDone("t1", 2));
    assertEquals(ItemState.QUEUED, b.item("x-1").state());
  }
}
