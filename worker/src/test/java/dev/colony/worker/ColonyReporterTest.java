package dev.colony.worker;

import static dev.colony.testing.Eventually.eventually;
import static dev.colony.testing.Eventually.throughout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.autonomy.PendingConfirmation;
import dev.colony.board.FakeTaskBoard;
import dev.colony.client.ColonyFigures;
import dev.colony.client.ColonySource.Row;
import dev.colony.client.FakeMergeSource;
import dev.colony.client.FakeSource;
import dev.colony.lease.LeaseWorkflowImpl;
import dev.colony.merge.ItemState;
import dev.colony.task.TaskState;
import dev.colony.visibility.AntCard;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ColonyReporter}: the leader's scrape carries every figure-of-state gauge with its exact
 * name and labels (read from the client's fakes); a reporter that does not lead has none; the
 * election on the metrics lease gives them to one process of two, and to the other once the
 * holder cannot renew (its gauges removed, none stale); a read begun before the lease was lost is
 * not published; a failed read keeps the last values without moving the success time.
 */
@Timeout(120)
class ColonyReporterTest {
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private static PrometheusMeterRegistry registry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  /** The value of the series {@code series} (name and labels as scraped), or null when absent. */
  static Double value(PrometheusMeterRegistry r, String series) {
    for (String line : r.scrape().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return null;
  }

  static boolean hasAny(PrometheusMeterRegistry r, String name) {
    return r.scrape().lines().anyMatch(l -> l.startsWith(name + "{"));
  }

  static final long DAY_MS = 86_400_000L;

  static Row row(String name, String state, boolean running, long queue, String host, boolean needsHuman,
      String pauseReason, String need, Long needSince, double today, Double daily) {
    long now = System.currentTimeMillis();
    String day = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString();
    AntCard card = new AntCard(AntCard.VERSION, 1, state, now - 60_000, "", need, needSince, null, 0, false, null, 1,
        today, today, daily, null, "UTC", null, null, List.of(new AntCard.DayCost(day, today, 1)), List.of(),
        "confirmation".equals(need) ? List.of(new PendingConfirmation(1, 1, "Bash", "rm", "deletes", null, needSince))
            : List.of(), List.of(), 0, day);
    return new Row(name, state, pauseReason != null, pauseReason, 1, 0, queue, null, host, needsHuman, "success", card,
        running, now);
  }

  /** A colony in memory: two running ants, one parked, one waiting on a confirmation, a task, a merge queue. */
  static ColonyFigures fakeColony() {
    long now = System.currentTimeMillis();
    FakeSource source = new FakeSource();
    source.put(row("alpha", "running", true, 2, "host1", false, null, null, null, 1.25, 10.0));
    source.put(row("beta", "waiting", true, 1, "host1", false, null, null, null, 0, null));
    source.put(row("gamma", "parked", true, 0, "host1", true, "errors", "parked", now - 600_000, 0.5, null));
    source.put(row("delta", "running", true, 0, "host1", true, null, "confirmation", now - 60_000, 0, null));
    source.put(row("old", "stopped", false, 0, null, false, null, null, null, 0, null));
    FakeTaskBoard board = new FakeTaskBoard();
    board.put("t1", "one", TaskState.TODO, null);
    FakeMergeSource merges = new FakeMergeSource();
    merges.put(FakeMergeSource.card("api", List.of(FakeMergeSource.item("m1", "alpha", ItemState.QUEUED, null, 0, null,
        null, 300_000)), List.of(), Map.of(), Map.of(), Map.of()));
    return new ColonyFigures(source, board, merges, (q, activities) -> 1, "colony-hello", System::currentTimeMillis);
  }

  private ColonyReporter reporter(PrometheusMeterRegistry r, Supplier<ColonyFigures.Reading> reader, Duration period) {
    ColonyReporter c = new ColonyReporter(r, "hello", reader, period);
    open.add(c);
    return c;
  }

  @Test
  void theLeaderExportsEveryFigureWithItsExactNameAndLabels() {
    PrometheusMeterRegistry r = registry();
    ColonyFigures colony = fakeColony();
    ColonyReporter c = reporter(r, colony::read, Duration.ofMinutes(5));
    assertEquals(0.0, value(r, "colony_reporter_leader{colony=\"hello\"}"));
    assertFalse(hasAny(r, "colony_ants"), "not leading: no colony gauge");
    c.lead();
    eventually(() -> value(r, "colony_reporter_last_success_timestamp_seconds{colony=\"hello\"}") != null,
        "the first read at once");
    assertEquals(1.0, value(r, "colony_reporter_leader{colony=\"hello\"}"));
    assertEquals(2.0, value(r, "colony_ants{colony=\"hello\",state=\"running\"}"));
    assertEquals(1.0, value(r, "colony_ants{colony=\"hello\",state=\"parked\"}"));
    assertEquals(0.0, value(r, "colony_ants{colony=\"hello\",state=\"cooling_down\"}"));
    assertEquals(1.0, value(r, "colony_ants{colony=\"hello\",state=\"stopped\"}"));
    assertEquals(11, r.scrape().lines().filter(l -> l.startsWith("colony_ants{")).count(), "every lifecycle state");
    assertEquals(1.0, value(r, "colony_ants_needing_human{colony=\"hello\",reason=\"parked\"}"));
    assertEquals(1.0, value(r, "colony_ants_needing_human{colony=\"hello\",reason=\"confirmation\"}"));
    assertEquals(0.0, value(r, "colony_ants_needing_human{colony=\"hello\",reason=\"billing\"}"));
    double oldest = value(r, "colony_needs_human_oldest_seconds{colony=\"hello\"}");
    assertTrue(oldest >= 600 && oldest < 660, "oldest " + oldest);
    double since = value(r, "colony_ant_needs_human_since_seconds{ant=\"delta\",colony=\"hello\",reason=\"confirmation\"}");
    assertTrue(since >= 60 && since < 120, "since " + since);
    assertNull(value(r, "colony_ant_needs_human_since_seconds{ant=\"alpha\",colony=\"hello\",reason=\"parked\"}"));
    assertEquals(3.0, value(r, "colony_mailbox_messages{colony=\"hello\"}"));
    assertEquals(1.0, value(r, "colony_task_queue_pollers{colony=\"hello\",task_queue=\"colony-hello\"}"));
    assertEquals(1.0, value(r, "colony_task_queue_pollers{colony=\"hello\",task_queue=\"colony-hello@host1\"}"));
    assertEquals(1.0, value(r, "colony_tasks{colony=\"hello\",state=\"todo\"}"));
    assertEquals(0.0, value(r, "colony_tasks{colony=\"hello\",state=\"done\"}"));
    assertEquals(1.0, value(r, "colony_merge_items{colony=\"hello\",repo=\"api\",state=\"queued\"}"));
    assertEquals(0.0, value(r, "colony_merge_items{colony=\"hello\",repo=\"api\",state=\"needs_human\"}"));
    double age = value(r, "colony_merge_oldest_item_age_seconds{colony=\"hello\",repo=\"api\"}");
    assertTrue(age >= 300 && age < 360, "age " + age);
    assertEquals(1.25, value(r, "colony_ant_cost_today_usd{ant=\"alpha\",colony=\"hello\"}"));
    assertEquals(0.0, value(r, "colony_ant_cost_today_usd{ant=\"beta\",colony=\"hello\"}"));
    assertEquals(10.0, value(r, "colony_ant_budget_daily_usd{ant=\"alpha\",colony=\"hello\"}"));
    assertNull(value(r, "colony_ant_budget_daily_usd{ant=\"beta\",colony=\"hello\"}"), "no cap, no series");
    double at = value(r, "colony_reporter_last_success_timestamp_seconds{colony=\"hello\"}");
    assertTrue(Math.abs(at - System.currentTimeMillis() / 1000.0) < 60, "last success " + at);

    c.follow();
    for (String name : ColonyFigures.NAMES.keySet()) {
      assertFalse(hasAny(r, name), name + " removed when the lease is lost");
    }
    assertFalse(hasAny(r, ColonyReporter.LAST_SUCCESS));
    assertEquals(0.0, value(r, "colony_reporter_leader{colony=\"hello\"}"));
    c.close();
    assertFalse(hasAny(r, ColonyReporter.LEADER), "closed: nothing of the colony left");
  }

  @Test
  void everyPeriodReadsAgainAndAChangeShows() {
    PrometheusMeterRegistry r = registry();
    AtomicInteger reads = new AtomicInteger();
    ColonyReporter c = reporter(r, () -> reading("running", reads.incrementAndGet(), List.of()), Duration.ofMillis(50));
    c.lead();
    eventually(() -> reads.get() >= 3 && value(r, "colony_ants{colony=\"hello\",state=\"running\"}") instanceof Double d
        && d >= 3,
        "read every period");
  }

  @Test
  void aSeriesNoLongerReadIsRemovedAndOneStillReadNeverMissesAScrape() {
    PrometheusMeterRegistry r = registry();
    AtomicInteger reads = new AtomicInteger();
    ColonyReporter c = reporter(r, () -> {
      int n = reads.incrementAndGet();
      List<ColonyFigures.Sample> since = new ArrayList<>();
      since.add(new ColonyFigures.Sample(Map.of("colony", "hello", "ant", "alpha", "reason", "parked"), n));
      if (n < 3) {
        since.add(new ColonyFigures.Sample(Map.of("colony", "hello", "ant", "beta", "reason", "billing"), n));
      }
      return new ColonyFigures.Reading(Map.of(ColonyFigures.ANT_NEEDS_HUMAN_SINCE, since), List.of(),
          System.currentTimeMillis());
    }, Duration.ofMillis(20));
    String alpha = "colony_ant_needs_human_since_seconds{ant=\"alpha\",colony=\"hello\",reason=\"parked\"}";
    String beta = "colony_ant_needs_human_since_seconds{ant=\"beta\",colony=\"hello\",reason=\"billing\"}";
    c.lead();
    eventually(() -> value(r, beta) != null, "beta needs a human");
    long until = System.currentTimeMillis() + 1000;
    eventually(() -> {
      assertTrue(value(r, alpha) != null, "a series still read is in every scrape");
      return reads.get() > 10 && System.currentTimeMillis() > until;
    }, "many reads");
    assertNull(value(r, beta), "beta no longer needs one: its series is gone");
    assertTrue(value(r, alpha) > 3, "updated in place");
  }

  static ColonyFigures.Reading reading(String state, double n, List<String> failed) {
    return new ColonyFigures.Reading(Map.of(ColonyFigures.ANTS, List.of(new ColonyFigures.Sample(
        Map.of("colony", "hello", "state", state), n))), failed, System.currentTimeMillis());
  }

  @Test
  void aFailedReadKeepsTheLastValuesAndDoesNotMoveTheSuccessTime() {
    PrometheusMeterRegistry r = registry();
    AtomicReference<ColonyFigures.Reading> next = new AtomicReference<>(reading("running", 4, List.of()));
    AtomicInteger reads = new AtomicInteger();
    ColonyReporter c = reporter(r, () -> {
      reads.incrementAndGet();
      return next.get();
    }, Duration.ofMillis(50));
    c.lead();
    // the success time is set last in a publication: once it shows, the whole first read does
    eventually(() -> value(r, "colony_reporter_last_success_timestamp_seconds{colony=\"hello\"}") != null, "first read");
    Double success = value(r, "colony_reporter_last_success_timestamp_seconds{colony=\"hello\"}");
    next.set(new ColonyFigures.Reading(Map.of(), List.of("the tasks: Temporal is away"), System.currentTimeMillis() + 5000));
    int now = reads.get();
    eventually(() -> reads.get() >= now + 2, "two failed reads");
    assertEquals(4.0, value(r, "colony_ants{colony=\"hello\",state=\"running\"}"));
    assertEquals(success, value(r, "colony_reporter_last_success_timestamp_seconds{colony=\"hello\"}"));
  }

  @Test
  void aReadBegunBeforeTheLeaseWasLostIsNotPublished() throws Exception {
    PrometheusMeterRegistry r = registry();
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean done = new AtomicBoolean();
    ColonyReporter c = reporter(r, () -> {
      reading.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        // interrupted by follow(): answer anyway, as a read that was already under way
      }
      done.set(true);
      return reading("running", 7, List.of());
    }, Duration.ofMinutes(5));
    c.lead();
    assertTrue(reading.await(10, java.util.concurrent.TimeUnit.SECONDS));
    c.follow();
    release.countDown();
    eventually(done::get, "the read ended");
    assertFalse(hasAny(r, "colony_ants"), "published after the lease was lost");
    assertFalse(c.leading());
  }

  // ---- the election, on Temporal's in-memory server ----

  /** A client on {@code env}'s connection whose calls fail while {@code cut} is set (a process cut off). */
  static WorkflowClient cuttable(TestWorkflowEnvironment env, AtomicBoolean cut) {
    WorkflowServiceStubs stubs = env.getWorkflowServiceStubs();
    ClientInterceptor cutter = new ClientInterceptor() {
      @Override
      public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
        if (cut.get()) {
          throw Status.UNAVAILABLE.withDescription("cut off (test)").asRuntimeException();
        }
        return next.newCall(method, options);
      }
    };
    WorkflowServiceStubsOptions o = stubs.getOptions();
    WorkflowServiceStubs mine = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder(o)
        .setTarget(null).setChannelInitializer(null).setSslContext(null).setEnableHttps(false)
        .setChannel(stubs.getRawChannel()).setGrpcClientInterceptors(List.of(cutter)).build());
    return WorkflowClient.newInstance(mine, env.getWorkflowClient().getOptions());
  }

  @Test
  void oneOfTwoCandidatesExportsAndTheOtherTakesOverWhenTheHolderIsCutOff() {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(
        TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    open.add(env::close);
    env.newWorker("colony-hello").registerWorkflowImplementationTypes(LeaseWorkflowImpl.class);
    env.start();
    Duration ttl = Duration.ofMillis(1500);
    AtomicBoolean cutA = new AtomicBoolean();
    PrometheusMeterRegistry ra = registry();
    PrometheusMeterRegistry rb = registry();
    ColonyFigures colony = fakeColony();
    ColonyReporter a = reporter(ra, colony::read, Duration.ofMillis(200))
        .elect(cuttable(env, cutA), "colony-hello", "1@a", ttl);
    eventually(a::leading, "a leads");
    ColonyReporter b = reporter(rb, colony::read, Duration.ofMillis(200))
        .elect(env.getWorkflowClient(), "colony-hello", "2@b", ttl);
    eventually(() -> value(ra, "colony_ants{colony=\"hello\",state=\"running\"}") != null, "a exports");
    // b asks every ttl / 3: over several of its asks, it never exports
    throughout(ttl.multipliedBy(2), () -> !hasAny(rb, "colony_ants")
        && Double.valueOf(0.0).equals(value(rb, "colony_reporter_leader{colony=\"hello\"}"))
        && Double.valueOf(1.0).equals(value(ra, "colony_reporter_leader{colony=\"hello\"}")),
        () -> "the loser exports no colony gauge: " + rb.scrape());

    cutA.set(true); // a cannot renew: it lets go after ttl / 2, b takes over after ttl
    eventually(Duration.ofSeconds(30), () -> !hasAny(ra, "colony_ants") && !a.leading(),
        "a removed its gauges once it could not renew");
    assertEquals(0.0, value(ra, "colony_reporter_leader{colony=\"hello\"}"));
    eventually(Duration.ofSeconds(30), () -> value(rb, "colony_ants{colony=\"hello\",state=\"running\"}") != null,
        "b exports");
    assertEquals(1.0, value(rb, "colony_reporter_leader{colony=\"hello\"}"));
    assertFalse(hasAny(ra, "colony_ants"), "never two copies");

    cutA.set(false); // a is back: it stays a candidate and b keeps the lease
    throughout(ttl.multipliedBy(2), () -> !hasAny(ra, "colony_ants") && b.leading(),
        () -> "a stays out while b holds: " + ra.scrape());

    b.close(); // a clean stop lets go at once
    assertFalse(hasAny(rb, "colony_ants"));
    assertFalse(hasAny(rb, ColonyReporter.LEADER));
    eventually(Duration.ofSeconds(30), () -> value(ra, "colony_ants{colony=\"hello\",state=\"running\"}") != null,
        "a exports again");
  }
}
