package dev.colony.console;

import dev.colony.client.TemporalColonySource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.secrets.Secrets;
import dev.colony.visibility.AntCard;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.temporal.api.common.v1.Memo;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.converter.DataConverter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The costs page of a 10,000-ant colony, running and stopped, read from a visibility store that
 * answers as Temporal's does (pages of at most 1,000, the query's status filter): every ant counts
 * once, with its newest run, and the total adds up.
 */
@Timeout(120)
class CostsOfABigColonyTest {
  static final int ANTS = 10_000;
  static final int RUNNING = 6_000;

  /** Visibility with the ants' runs: it reads the query's status conditions, and pages by offset. */
  static final class Visibility extends WorkflowServiceGrpc.WorkflowServiceImplBase {
    final List<WorkflowExecutionInfo> runs = new ArrayList<>();
    /** When each run last changed (its card written, or it closed), by workflow and run id; absent: long ago. */
    final java.util.Map<String, Long> changedAt = new java.util.concurrent.ConcurrentHashMap<>();
    final java.util.concurrent.atomic.AtomicInteger lists = new java.util.concurrent.atomic.AtomicInteger();

    static String key(WorkflowExecutionInfo r) {
      return r.getExecution().getWorkflowId() + " " + r.getExecution().getRunId();
    }

    /** When each run started and closed (absent: long ago, or not closed). */
    final java.util.Map<String, Long> startedAt = new java.util.concurrent.ConcurrentHashMap<>();
    final java.util.Map<String, Long> closedAt = new java.util.concurrent.ConcurrentHashMap<>();
    /** The server's clock less the console's (Temporal stamps AntUpdatedAt, CloseTime and StartTime by its own). */
    volatile long skew;

    long serverNow() {
      return System.currentTimeMillis() + skew;
    }

    /** Replaces a run (same workflow and run id) or adds it, changed now: its card written, or it closed. */
    synchronized void change(WorkflowExecutionInfo run) {
      long now = serverNow();
      boolean known = runs.stream().anyMatch(r -> key(r).equals(key(run)));
      boolean running = run.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
      if (running) {
        changedAt.put(key(run), now);
      } else {
        closedAt.put(key(run), now);
      }
      if (!known) {
        startedAt.put(key(run), now);
      }
      put(run, changedAt.get(key(run)));
    }

    /**
     * The ant's run continues as new: the old one closes now, the new one starts now and carries the
     * old run's search attributes (its AntUpdatedAt too) until it writes its first card.
     */
    synchronized void continueAsNew(WorkflowExecutionInfo old, WorkflowExecutionInfo next) {
      long now = serverNow();
      Long updated = changedAt.get(key(old));
      closedAt.put(key(old), now);
      put(old.toBuilder().setStatus(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW).build(), updated);
      startedAt.put(key(next), now);
      if (updated != null) {
        changedAt.put(key(next), updated);
      }
      put(next, updated);
    }

    private void put(WorkflowExecutionInfo run, Long updated) {
      WorkflowExecutionInfo.Builder b = run.toBuilder();
      if (updated != null) {
        b.setSearchAttributes(io.temporal.internal.common.SearchAttributesUtil.encodeTyped(
            io.temporal.common.SearchAttributes.newBuilder().set(TemporalColonySource.UPDATED_AT,
                java.time.OffsetDateTime.ofInstant(java.time.Instant.ofEpochMilli(updated), ZoneOffset.UTC)).build()));
      }
      Long started = startedAt.get(key(run));
      if (started != null) {
        b.setStartTime(com.google.protobuf.util.Timestamps.fromMillis(started));
      }
      Long closed = closedAt.get(key(run));
      if (closed != null) {
        b.setCloseTime(com.google.protobuf.util.Timestamps.fromMillis(closed));
      }
      runs.removeIf(r -> key(r).equals(key(run)));
      runs.add(b.build());
    }

    private synchronized List<WorkflowExecutionInfo> matching(String query) {
      if (!query.contains("ColonyName = 'big'")) {
        return List.of();
      }
      java.util.regex.Matcher since = java.util.regex.Pattern.compile("AntUpdatedAt >= '([^']+)'").matcher(query);
      if (since.find()) { // the runs changed since then, as the query's conditions say
        long from = java.time.Instant.parse(since.group(1)).toEpochMilli();
        boolean close = query.contains("CloseTime >= '");
        boolean start = query.contains("StartTime >= '");
        return runs.stream().filter(r -> changedAt.getOrDefault(key(r), Long.MIN_VALUE) >= from
            || close && closedAt.getOrDefault(key(r), Long.MIN_VALUE) >= from
            || start && startedAt.getOrDefault(key(r), Long.MIN_VALUE) >= from).toList();
      }
      return runs.stream()
          .filter(r -> !query.contains("ExecutionStatus = 'Running'")
              || r.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING)
          .filter(r -> !query.contains("ExecutionStatus != 'ContinuedAsNew'")
              || r.getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW)
          .toList();
    }

    @Override
    public void listWorkflowExecutions(ListWorkflowExecutionsRequest request,
        StreamObserver<ListWorkflowExecutionsResponse> answer) {
      lists.incrementAndGet();
      List<WorkflowExecutionInfo> all = matching(request.getQuery());
      int from = request.getNextPageToken().isEmpty() ? 0 : Integer.parseInt(request.getNextPageToken().toStringUtf8());
      int size = Math.min(1000, request.getPageSize() <= 0 ? 1000 : request.getPageSize());
      int to = Math.min(all.size(), from + size);
      ListWorkflowExecutionsResponse.Builder b = ListWorkflowExecutionsResponse.newBuilder()
          .addAllExecutions(all.subList(from, to));
      if (to < all.size()) {
        b.setNextPageToken(com.google.protobuf.ByteString.copyFromUtf8(String.valueOf(to)));
      }
      answer.onNext(b.build());
      answer.onCompleted();
    }

    @Override
    public void getSystemInfo(io.temporal.api.workflowservice.v1.GetSystemInfoRequest request,
        StreamObserver<io.temporal.api.workflowservice.v1.GetSystemInfoResponse> answer) {
      answer.onNext(io.temporal.api.workflowservice.v1.GetSystemInfoResponse.getDefaultInstance());
      answer.onCompleted();
    }

    @Override
    public void countWorkflowExecutions(CountWorkflowExecutionsRequest request,
        StreamObserver<CountWorkflowExecutionsResponse> answer) {
      answer.onNext(CountWorkflowExecutionsResponse.newBuilder().setCount(matching(request.getQuery()).size()).build());
      answer.onCompleted();
    }
  }

  final Visibility visibility = new Visibility();
  Server grpc;
  ManagedChannel channel;
  WorkflowServiceStubs stubs;
  ConsoleServer console;
  final OkHttpClient http = new OkHttpClient();

  static AntCard card(long revision, double usdToday) {
    String today = LocalDate.now(ZoneOffset.UTC).toString();
    return new AntCard(AntCard.VERSION, revision, "waiting", 1_000L, "waiting", null, null, null, 1, false, null, 1,
        usdToday, usdToday, null, null, "UTC", null, null, List.of(new AntCard.DayCost(today, usdToday, 1)),
        List.of(), List.of(), List.of(), 0, today);
  }

  static WorkflowExecutionInfo run(String ant, String runId, WorkflowExecutionStatus status, AntCard card) {
    return WorkflowExecutionInfo.newBuilder()
        .setExecution(WorkflowExecution.newBuilder().setWorkflowId("ant/big/" + ant).setRunId(runId))
        .setStatus(status)
        .setMemo(Memo.newBuilder().putFields(AntCard.MEMO_KEY,
            DataConverter.getDefaultInstance().toPayload(card).orElseThrow()))
        .build();
  }

  @BeforeEach
  void setUp() throws IOException {
    for (int i = 0; i < ANTS; i++) {
      String ant = String.format("ant-%05d", i);
      double usd = 0.01 * (1 + i % 5);
      boolean running = i < RUNNING;
      visibility.runs.add(run(ant, "r3", running ? WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
          : WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED, card(3, usd)));
      if (i % 10 == 0) { // an earlier run that continued as new: its card is older, its spend is in the newer one
        visibility.runs.add(run(ant, "r1", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW,
            card(1, 50)));
      }
      if (running && i % 50 == 0) { // stopped once, then started again: the running run carries the spend
        visibility.runs.add(run(ant, "r2", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED, card(2, 7)));
      }
    }
    String name = InProcessServerBuilder.generateName();
    grpc = InProcessServerBuilder.forName(name).directExecutor().addService(visibility).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setChannel(channel).build());
    WorkflowClient client = WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().build());
    console = ConsoleServer.start(ConsoleServer.Options.defaults().withBind("127.0.0.1", 0),
        new TemporalColonySource(client, "big", null), new Secrets());
  }

  @AfterEach
  void tearDown() {
    if (console != null) {
      console.close();
    }
    stubs.shutdownNow();
    channel.shutdownNow();
    grpc.shutdownNow();
  }

  @Test
  void everyAntRunningOrStoppedCountsOnceAtTenThousand() throws IOException {
    JsonNode costs;
    long t0 = System.nanoTime();
    try (Response r = http.newCall(new Request.Builder().url(console.url() + "/api/costs?days=7").build()).execute()) {
      String body = r.body().string();
      assertEquals(200, r.code(), body);
      costs = Views.MAPPER.readTree(body);
    }
    System.out.printf("/api/costs at %,d ants (%,d runs, in-process visibility): %d ms%n", ANTS, visibility.runs.size(),
        (System.nanoTime() - t0) / 1_000_000);
    assertEquals(ANTS, costs.get("ants").size(), "every ant, running or stopped, once");
    // 2,000 ants each of $0.01, $0.02, $0.03, $0.04 and $0.05
    assertEquals(300.0, costs.get("totalUsd").asDouble(), 1e-6, "the colony's total");
    JsonNode perDay = costs.get("totalPerDay");
    assertEquals(300.0, perDay.get(perDay.size() - 1).asDouble(), 1e-6, "today's bar");
    assertEquals("ant-09999", costs.get("ants").get(ANTS - 1).get("name").asText(), "a stopped ant is listed");
    try (Response r = http.newCall(new Request.Builder().url(console.url() + "/api/costs.csv?days=1").build()).execute()) {
      assertEquals(1 + ANTS, r.body().string().split("\n").length, "one CSV line per ant and day");
    }
  }

  private JsonNode costs(int days) throws IOException {
    try (Response r = http.newCall(new Request.Builder().url(console.url() + "/api/costs?days=" + days).build()).execute()) {
      String body = r.body().string();
      assertEquals(200, r.code(), body);
      return Views.MAPPER.readTree(body);
    }
  }

  private static JsonNode ant(JsonNode costs, String name) {
    for (JsonNode a : costs.get("ants")) {
      if (a.get("name").asText().equals(name)) {
        return a;
      }
    }
    return null;
  }

  /**
   * The page read again reads only what changed since it was read (not the colony's ten pages),
   * and loses nothing: new spend, an ant stopped, an ant that continued as new and a new ant all
   * show, every other ant still counts once, the total adds up.
   */
  @Test
  void readAgainItReadsOnlyTheChangesAndLosesNoAnt() throws IOException {
    assertEquals(ANTS, costs(7).get("ants").size());
    int before = visibility.lists.get();

    visibility.change(run("ant-00003", "r3", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, card(4, 1.04)));
    visibility.change(run("ant-00001", "r3", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED, card(3, 0.02)));
    visibility.change(run("ant-00020", "r3", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, card(3, 0.01)));
    visibility.change(run("ant-00020", "r4", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, card(4, 2.01)));
    visibility.change(run("ant-10000", "r1", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, card(1, 0.5)));

    JsonNode again = costs(7);
    assertTrue(visibility.lists.get() - before <= 2,
        "read again, only the changed runs are listed, not every ant: " + (visibility.lists.get() - before) + " list calls");
    assertEquals(ANTS + 1, again.get("ants").size(), "every ant once, the new one too");
    assertEquals(300.0 + 1.0 + 2.0 + 0.5, again.get("totalUsd").asDouble(), 1e-6, "the new spend is counted, once");
    assertEquals(1.04, ant(again, "ant-00003").get("totalUsd").asDouble(), 1e-6, "the ant's new spend");
    assertEquals(2.01, ant(again, "ant-00020").get("totalUsd").asDouble(), 1e-6, "the run it continued as");
    assertEquals(0.02, ant(again, "ant-00001").get("totalUsd").asDouble(), 1e-6, "a stopped ant still counts");
    assertEquals(300.0 + 1.0 + 2.0 + 0.5, costs(7).get("totalUsd").asDouble(), 1e-6, "and the read after it");
  }

  /**
   * A run that continued as new carries its predecessor's AntUpdatedAt until its first card: read
   * again, the page still finds the ant (by the new run's StartTime), with its spend, once.
   */
  @Test
  void anAntThatContinuedAsNewIsFoundBeforeItsFirstCard() throws IOException {
    visibility.skew = -3_600_000L; // its last card an hour ago
    visibility.change(run("ant-00030", "r3", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, card(4, 3.0)));
    visibility.skew = 0;
    assertEquals(ANTS, costs(7).get("ants").size());
    WorkflowExecutionInfo old = visibility.runs.stream()
        .filter(r -> r.getExecution().getWorkflowId().equals("ant/big/ant-00030") && r.getExecution().getRunId().equals("r3"))
        .findFirst().orElseThrow();
    visibility.continueAsNew(old, run("ant-00030", "r4", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
        card(4, 3.0)));
    JsonNode again = costs(7);
    assertEquals(ANTS, again.get("ants").size(), "every ant once: the one that continued as new too");
    assertEquals(3.0, ant(again, "ant-00030").get("totalUsd").asDouble(), 1e-6, "its spend, from the run it continued as");
  }

  /** Temporal's clock behind the console's: changes are still read (since counts on the server's times). */
  @Test
  void aServerClockBehindTheConsolesLosesNoChange() throws IOException {
    visibility.skew = -5 * 60_000L;
    visibility.change(run("ant-00004", "r3", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, card(4, 0.05)));
    assertEquals(ANTS, costs(7).get("ants").size());
    visibility.change(run("ant-00004", "r3", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, card(5, 4.05)));
    visibility.change(run("ant-00002", "r3", WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED, card(3, 0.03)));
    JsonNode again = costs(7);
    assertEquals(4.05, ant(again, "ant-00004").get("totalUsd").asDouble(), 1e-6, "the new spend, stamped by the server's clock");
    assertEquals(300.0 + 4.0, again.get("totalUsd").asDouble(), 1e-6);
  }
}
