package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.ant.Lifecycle;
import dev.colony.autonomy.PendingConfirmation;
import dev.colony.board.FakeTaskBoard;
import dev.colony.client.ColonySource.Row;
import dev.colony.merge.ItemState;
import dev.colony.task.TaskState;
import dev.colony.visibility.AntCard;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ColonyFigures}, what the elected reporter exports: one count per lifecycle state (zeros
 * too, stopped ants from their last run), ants needing a human by reason with the oldest wait and
 * each ant's, the queued messages, tasks by column, merge items by repository and state with the
 * oldest item's age, pollers of the colony's queue and its hosts' queues, spend today and daily
 * caps; a read that fails leaves the others; no label carries a value that is not a name.
 */
@Timeout(30)
class ColonyFiguresTest {
  static final long NOW = Instant.parse("2026-11-29T12:00:00Z").toEpochMilli();

  static AntCard card(String needsHuman, Long needSince, List<PendingConfirmation> confirmations, double today,
      Double daily) {
    return new AntCard(AntCard.VERSION, 1, "waiting", NOW - 60_000, "", needsHuman, needSince, null, 0, false, null, 1,
        today, today, daily, null, "UTC", null, null, List.of(new AntCard.DayCost("2026-11-29", today, 1)), List.of(),
        confirmations, List.of(), 0, "2026-11-29");
  }

  static Row row(String name, String state, boolean running, long queue, String host, boolean needsHuman,
      String pauseReason, AntCard card) {
    return new Row(name, state, pauseReason != null, pauseReason, 1, 0, queue, null, host, needsHuman, "success", card,
        running, NOW - 1000);
  }

  private final FakeSource source = new FakeSource();
  private final FakeTaskBoard board = new FakeTaskBoard();
  private final FakeMergeSource merges = new FakeMergeSource();
  private final List<String> described = new ArrayList<>();

  private ColonyFigures figures() {
    return new ColonyFigures(source, board, merges, (q, activities) -> {
      described.add(q + (activities ? " activities" : " workflows"));
      return q.endsWith("@host2") ? 0 : 2;
    }, "colony-hello", () -> NOW);
  }

  private void colony() {
    source.put(row("alpha", "running", true, 2, "host1", false, null, card(null, null, List.of(), 1.5, 10.0)));
    source.put(row("beta", "waiting", true, 0, "host1", false, null, card(null, null, List.of(), 0, null)));
    source.put(row("gamma", "parked", true, 1, "host2", true, "errors",
        card("parked", NOW - 600_000, List.of(), 0.25, 5.0)));
    source.put(row("delta", "running", true, 0, "host1", true, null, card("confirmation", NOW - 120_000, List.of(
        new PendingConfirmation(1, 3, "Bash", "rm -rf build", "deletes", null, NOW - 120_000),
        new PendingConfirmation(2, 3, "Bash", "git push -f", "force", null, NOW - 30_000)), 0, null)));
    source.put(row("eps", "paused", true, 0, null, true, "billing", card("billing", NOW - 7_200_000, List.of(), 0, null)));
    source.put(row("old", "stopped", false, 0, "host9", false, null, card(null, null, List.of(), 0, null)));
    source.put(row("spent", "stopped", false, 0, null, false, null, card(null, null, List.of(), 0.75, 1.0)));
  }

  @Test
  void everyLifecycleStateIsCountedZerosIncludedAndStoppedAntsFromTheirLastRun() {
    colony();
    ColonyFigures.Reading r = figures().read();
    assertEquals(List.of(), r.failed());
    assertEquals(Lifecycle.values().length, r.gauges().get(ColonyFigures.ANTS).size());
    assertEquals(2.0, r.value(ColonyFigures.ANTS, "state", "running"));
    assertEquals(1.0, r.value(ColonyFigures.ANTS, "state", "waiting"));
    assertEquals(1.0, r.value(ColonyFigures.ANTS, "state", "parked"));
    assertEquals(1.0, r.value(ColonyFigures.ANTS, "state", "paused"));
    assertEquals(0.0, r.value(ColonyFigures.ANTS, "state", "cooling_down"));
    assertEquals(0.0, r.value(ColonyFigures.ANTS, "state", "initializing"));
    assertEquals(2.0, r.value(ColonyFigures.ANTS, "state", "stopped"));
    assertEquals("hello", r.gauges().get(ColonyFigures.ANTS).get(0).labels().get("colony"));
  }

  @Test
  void antsNeedingAHumanByReasonTheOldestWaitAndEachAntsWait() {
    colony();
    ColonyFigures.Reading r = figures().read();
    assertEquals(ColonyFigures.REASONS.size(), r.gauges().get(ColonyFigures.NEEDING_HUMAN).size());
    assertEquals(1.0, r.value(ColonyFigures.NEEDING_HUMAN, "reason", "confirmation"), "two confirmations, one ant");
    assertEquals(1.0, r.value(ColonyFigures.NEEDING_HUMAN, "reason", "parked"));
    assertEquals(1.0, r.value(ColonyFigures.NEEDING_HUMAN, "reason", "billing"));
    assertEquals(0.0, r.value(ColonyFigures.NEEDING_HUMAN, "reason", "budget"));
    assertEquals(7200.0, r.value(ColonyFigures.NEEDS_HUMAN_OLDEST));
    assertEquals(120.0, r.value(ColonyFigures.ANT_NEEDS_HUMAN_SINCE, "ant", "delta", "reason", "confirmation"),
        "since the card says it needs one (the inbox's reading)");
    assertEquals(600.0, r.value(ColonyFigures.ANT_NEEDS_HUMAN_SINCE, "ant", "gamma", "reason", "parked"));
    assertEquals(7200.0, r.value(ColonyFigures.ANT_NEEDS_HUMAN_SINCE, "ant", "eps", "reason", "billing"));
    assertEquals(3, r.gauges().get(ColonyFigures.ANT_NEEDS_HUMAN_SINCE).size(), "only ants that need one");
  }

  @Test
  void nobodyWaitingIsZeroAndNoAntSeries() {
    source.put(row("beta", "waiting", true, 0, "host1", false, null, card(null, null, List.of(), 0, null)));
    ColonyFigures.Reading r = figures().read();
    assertEquals(0.0, r.value(ColonyFigures.NEEDS_HUMAN_OLDEST));
    assertEquals(List.of(), r.gauges().get(ColonyFigures.ANT_NEEDS_HUMAN_SINCE));
    assertTrue(r.gauges().get(ColonyFigures.NEEDING_HUMAN).stream().allMatch(s -> s.value() == 0));
  }

  @Test
  void anUnknownInboxKindIsOtherNeverItsOwnLabel() {
    assertEquals("other", ColonyFigures.reason("<script>"));
    assertEquals("other", ColonyFigures.reason(null));
    assertEquals("sandbox", ColonyFigures.reason("sandbox"));
    source.put(row("zeta", "paused", true, 0, null, true, null, card("a new kind\nof reason", NOW - 5_000, List.of(), 0,
        null)));
    ColonyFigures.Reading r = figures().read();
    assertEquals(1.0, r.value(ColonyFigures.NEEDING_HUMAN, "reason", "other"));
    assertEquals(5.0, r.value(ColonyFigures.ANT_NEEDS_HUMAN_SINCE, "ant", "zeta", "reason", "other"));
  }

  @Test
  void theMailboxIsTheRunningAntsQueuedMessagesSummed() {
    colony();
    assertEquals(3.0, figures().read().value(ColonyFigures.MAILBOX));
  }

  @Test
  void tasksByColumnZerosIncluded() {
    board.put("t1", "one", TaskState.TODO, null);
    board.put("t2", "two", TaskState.TODO, null);
    board.put("t3", "three", TaskState.BLOCKED, null);
    ColonyFigures.Reading r = figures().read();
    assertEquals(TaskState.values().length, r.gauges().get(ColonyFigures.TASKS).size());
    assertEquals(2.0, r.value(ColonyFigures.TASKS, "state", "todo"));
    assertEquals(1.0, r.value(ColonyFigures.TASKS, "state", "blocked"));
    assertEquals(0.0, r.value(ColonyFigures.TASKS, "state", "in_review"));
  }

  @Test
  void mergeItemsByRepositoryAndStateAndTheOldestOpenItem() {
    merges.put(FakeMergeSource.card("api", List.of(
        FakeMergeSource.item("m1", "alpha", ItemState.LANDING, "testing", 0, null, null, 900_000),
        FakeMergeSource.item("m2", "beta", ItemState.QUEUED, null, 0, null, null, 60_000),
        FakeMergeSource.item("m3", "gamma", ItemState.QUEUED, null, 0, null, null, 30_000)), List.of(), Map.of(),
        Map.of(), Map.of()));
    merges.put(FakeMergeSource.card("web", List.of(), List.of(), Map.of(), Map.of(), Map.of()));
    merges.put(FakeMergeSource.card("bad repo\"}", List.of(), List.of(), Map.of(), Map.of(), Map.of()));
    long wall = System.currentTimeMillis(); // the fake's items are aged from the wall clock
    ColonyFigures.Reading r = new ColonyFigures(source, null, merges, null, "colony-hello", () -> wall).read();
    assertEquals(2.0, r.value(ColonyFigures.MERGE_ITEMS, "repo", "api", "state", "queued"));
    assertEquals(1.0, r.value(ColonyFigures.MERGE_ITEMS, "repo", "api", "state", "landing"));
    assertEquals(0.0, r.value(ColonyFigures.MERGE_ITEMS, "repo", "api", "state", "needs_human"));
    assertEquals(0.0, r.value(ColonyFigures.MERGE_ITEMS, "repo", "web", "state", "queued"));
    assertNull(r.value(ColonyFigures.MERGE_ITEMS, "repo", "api", "state", "landed"), "only open states");
    double oldest = r.value(ColonyFigures.MERGE_OLDEST, "repo", "api");
    assertTrue(oldest >= 900 && oldest < 910, "the landing item's age: " + oldest);
    assertEquals(0.0, r.value(ColonyFigures.MERGE_OLDEST, "repo", "web"));
    assertEquals(2, r.gauges().get(ColonyFigures.MERGE_OLDEST).size(), "a repository that is not a name is left out");
    assertNull(r.gauges().get(ColonyFigures.TASKS), "no board: no task gauges");
    assertNull(r.gauges().get(ColonyFigures.POLLERS), "no pollers reader: no poller gauges");
  }

  @Test
  void pollersOfTheColonysQueueAndOfEachHostItsRunningAntsUse() {
    colony();
    ColonyFigures.Reading r = figures().read();
    assertEquals(2.0, r.value(ColonyFigures.POLLERS, "task_queue", "colony-hello"));
    assertEquals(2.0, r.value(ColonyFigures.POLLERS, "task_queue", "colony-hello@host1"));
    assertEquals(0.0, r.value(ColonyFigures.POLLERS, "task_queue", "colony-hello@host2"));
    assertNull(r.value(ColonyFigures.POLLERS, "task_queue", "colony-hello@host9"), "only running ants' hosts");
    assertEquals(List.of("colony-hello workflows", "colony-hello@host1 activities", "colony-hello@host2 activities"),
        described);
  }

  @Test
  void spendTodayForRunningAntsAndStoppedOnesThatSpentAndDailyCapsWhereSet() {
    colony();
    ColonyFigures.Reading r = figures().read();
    assertEquals(1.5, r.value(ColonyFigures.COST_TODAY, "ant", "alpha"));
    assertEquals(0.0, r.value(ColonyFigures.COST_TODAY, "ant", "beta"));
    assertEquals(0.75, r.value(ColonyFigures.COST_TODAY, "ant", "spent"), "stopped today after spending");
    assertNull(r.value(ColonyFigures.COST_TODAY, "ant", "old"), "stopped, nothing spent today");
    assertEquals(10.0, r.value(ColonyFigures.BUDGET_DAILY, "ant", "alpha"));
    assertEquals(5.0, r.value(ColonyFigures.BUDGET_DAILY, "ant", "gamma"));
    assertEquals(1.0, r.value(ColonyFigures.BUDGET_DAILY, "ant", "spent"));
    assertNull(r.value(ColonyFigures.BUDGET_DAILY, "ant", "beta"), "no cap: no series");
  }

  @Test
  void aReadThatFailsLeavesTheOthersAndIsNamed() {
    colony();
    merges.queues.clear();
    dev.colony.board.TaskBoard away = (dev.colony.board.TaskBoard) java.lang.reflect.Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {dev.colony.board.TaskBoard.class}, (p, m, a) -> {
          throw new dev.colony.board.TaskBoardException("Temporal is away");
        });
    ColonyFigures.Reading r = new ColonyFigures(source, away, merges, null, "colony-hello", () -> NOW).read();
    assertEquals(1, r.failed().size(), r.failed().toString());
    assertTrue(r.failed().get(0).startsWith("the tasks"), r.failed().toString());
    assertNull(r.gauges().get(ColonyFigures.TASKS));
    assertEquals(2.0, r.value(ColonyFigures.ANTS, "state", "running"));
    assertEquals(List.of(), r.gauges().get(ColonyFigures.MERGE_ITEMS), "no queue: no series, but read");
  }

  @Test
  void everyLabelIsFromAClosedSetOrANameAndEveryGaugeIsNamed() {
    colony();
    source.put(row("evil\"} 1\nx", "running", true, 0, "h\nost", true, null,
        card("parked", NOW - 1000, List.of(), 3.0, 4.0)));
    ColonyFigures.Reading r = figures().read();
    assertTrue(ColonyFigures.NAMES.keySet().containsAll(r.gauges().keySet()), r.gauges().keySet().toString());
    r.gauges().values().forEach(samples -> samples.forEach(s -> s.labels().values().forEach(v ->
        assertTrue(v.matches("[A-Za-z0-9][A-Za-z0-9._@:-]*"), "label value " + v))));
  }
}
