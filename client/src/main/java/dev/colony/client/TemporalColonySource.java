package dev.colony.client;

import com.google.protobuf.ByteString;
import dev.colony.ant.AntRun;
import dev.colony.overseer.Turn;
import dev.colony.overseer.TurnReport;
import dev.colony.spec.AntIds;
import dev.colony.supervision.ColonyEvent;
import dev.colony.supervision.ColonyWorkflow;
import dev.colony.task.TaskCard;
import dev.colony.task.TaskIds;
import dev.colony.visibility.AntCard;
import dev.colony.visibility.AntSearchAttributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.HistoryEventFilterType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.query.v1.WorkflowQuery;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.api.workflowservice.v1.QueryWorkflowRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc.WorkflowServiceBlockingStub;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.converter.DataConverter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The colony as Temporal holds it: visibility (search attributes and memo cards) for the lists,
 * histories for the config and the live turns, signals for the actions. Every call a surface (the
 * console, an MCP server) makes through it, its own, the task board's ({@link #board}), the merge
 * queues' ({@link #merges}), and the operators' signals, goes through one set of service stubs with
 * a counting interceptor (counted: {@link #calls()}, {@link #callsByMethod()}); an action is sent
 * with the identity of its {@link Actor} ({@code console:<operator>}, {@code mcp:<client>}), so
 * the history records who acted.
 *
 * <p>Visibility on the dev server (SQLite) has no {@code LIKE}, and {@code STARTS_WITH} is not on
 * every server: the list reads the colony's ants (at most {@link #MAX_ANTS}), sorts them by name and
 * filters by name part here; page tokens are offsets into that list.
 */
public final class TemporalColonySource implements ColonySource {
  /** Set by the ant when its card changes; until every ant sets it the poller lists them all. */
  public static final SearchAttributeKey<OffsetDateTime> UPDATED_AT = AntSearchAttributes.UPDATED_AT;
  static final int MAX_ANTS = 2000;
  private static final java.util.regex.Pattern ANT = java.util.regex.Pattern.compile(Verbs.ANT_NAME);
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(10);
  private static final Duration QUERY_DEADLINE = Duration.ofSeconds(2);
  /**
   * How long a history read from the start waits before it counts as caught up. A server answers
   * a long poll with a shorter deadline at once, empty: that counts as caught up too.
   */
  private static final Duration CATCH_UP = Duration.ofMillis(500);
  /** A cursor's mark for a run that has closed (no next-page token to follow). */
  static final String ENDED = "ended";
  /** How often a closed run's follower looks for a newer run. */
  static final Duration ENDED_WAIT = Duration.ofSeconds(5);
  private static final java.util.Set<EventType> CLOSED = java.util.EnumSet.of(
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED);

  private final WorkflowClient client;
  private final WorkflowServiceStubs stubs;
  private final String namespace;
  private final String colony;
  private final String webUi;
  private final DataConverter converter;
  private final AtomicLong calls = new AtomicLong();
  private final Map<String, AtomicLong> byMethod = new ConcurrentHashMap<>();
  /** The surface's actions: the colony's one executor of verbs, on the counted stubs. */
  private final AntSteering steering;
  /** Whether the server refused a query on {@code AntUpdatedAt} (the attribute is not registered). */
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TemporalColonySource.class);
  private volatile boolean noUpdatedAt;
  /**
   * Until when not to ask for changed tasks: the server refused {@code TaskUpdatedAt} (not registered
   * yet, so no task exists); asked again a minute later, as the attributes may be registered meanwhile.
   */
  private volatile long noTaskUpdatedAtUntil;

  /** Counts every call made through {@link #stubs} (and so through {@link #client}). */
  private final ClientInterceptor counter = new ClientInterceptor() {
    @Override
    public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
      calls.incrementAndGet();
      byMethod.computeIfAbsent(method.getBareMethodName(), k -> new AtomicLong()).incrementAndGet();
      return next.newCall(method, options);
    }
  };

  /**
   * @param client a client of the namespace, with the colony's data converter
   * @param webUi the Web UI's base address, for links; null when none
   */
  public TemporalColonySource(WorkflowClient client, String colony, String webUi) {
    this.stubs = counted(client.getWorkflowServiceStubs(), counter);
    this.client = WorkflowClient.newInstance(stubs, client.getOptions());
    this.steering = new AntSteering(this.client);
    this.namespace = client.getOptions().getNamespace();
    this.colony = colony;
    this.webUi = webUi;
    this.converter = client.getOptions().getDataConverter();
  }

  /**
   * Stubs on the same connection as {@code stubs} (its options: headers, API key, interceptors),
   * with {@code counter} added: every call through them is counted, whichever client makes it.
   */
  static WorkflowServiceStubs counted(WorkflowServiceStubs stubs, ClientInterceptor counter) {
    WorkflowServiceStubsOptions o = stubs.getOptions();
    List<ClientInterceptor> interceptors = new ArrayList<>(o.getGrpcClientInterceptors() == null ? List.of()
        : o.getGrpcClientInterceptors());
    interceptors.add(counter);
    // The channel is the one already made (TLS and all): what made it must not be set again.
    return WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder(o)
        .setTarget(null).setChannelInitializer(null).setSslContext(null).setEnableHttps(false)
        .setChannel(stubs.getRawChannel()).setGrpcClientInterceptors(interceptors).build());
  }

  /** The client the surface calls through (counted): for the task board it shows, and the merge queues. */
  public WorkflowClient client() {
    return client;
  }

  /** The colony's task board, its calls counted with the surface's. */
  public dev.colony.board.TaskBoard board(dev.colony.task.TaskSettings settings) {
    return new dev.colony.board.TemporalTaskBoard(client, colony, settings);
  }

  @Override
  public MergeSource merges() {
    return new TemporalMergeSource(client, colony);
  }

  @Override
  public MergeSource merges(String via) {
    return new TemporalMergeSource(client, colony, via);
  }

  @Override
  public String colony() {
    return colony;
  }

  @Override
  public String namespace() {
    return namespace;
  }

  @Override
  public long calls() {
    return calls.get();
  }

  @Override
  public Map<String, Long> callsByMethod() {
    Map<String, Long> m = new java.util.TreeMap<>();
    byMethod.forEach((k, v) -> m.put(k, v.get()));
    return m;
  }

  private WorkflowServiceBlockingStub rpc() {
    return stubs.blockingStub();
  }

  private WorkflowServiceBlockingStub rpc(Duration deadline) {
    return rpc().withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  private VisibilityQuery base(boolean runningOnly) {
    VisibilityQuery q = AntRow.ants(colony);
    return runningOnly ? q.running() : q;
  }

  /** The ants {@code f} shows: nothing more for {@code ALL}. */
  static VisibilityQuery filterQuery(Filter f) {
    VisibilityQuery q = VisibilityQuery.where();
    return switch (f) {
      case ALL -> q;
      case NEED_YOU -> q.eq("AntNeedsHuman", true);
      case WORKING -> q.in("AntState", Filter.WORKING_STATES);
      case WAITING -> q.in("AntState", Filter.WAITING_STATES);
      case PAUSED -> q.eq("AntState", "paused");
      case PARKED -> q.eq("AntState", "parked");
    };
  }

  private <T> T call(String what, java.util.function.Supplier<T> c) {
    try {
      return c.get();
    } catch (StatusRuntimeException e) {
      throw new SourceException(what + ": Temporal answered " + e.getStatus().getCode()
          + (e.getStatus().getDescription() == null ? "" : " (" + e.getStatus().getDescription() + ")"), e);
    }
  }

  @Override
  public Counts counts() {
    return call("counting the ants", () -> new Counts(count(null), count(Filter.NEED_YOU), count(Filter.WORKING),
        count(Filter.WAITING), count(Filter.PAUSED), count(Filter.PARKED)));
  }

  /** One visibility count per state: {@code AntState = s} among the colony's running ants. */
  @Override
  public Map<String, Long> countByState(java.util.Collection<String> states) {
    Map<String, Long> out = new LinkedHashMap<>();
    call("counting the ants by state", () -> {
      for (String s : states) {
        out.put(s, countQuery(base(true).eq("AntState", s).toString()));
      }
      return out;
    });
    return out;
  }

  /** The running ants with a message queued ({@code AntQueue > 0}), page by page: their queues summed. */
  @Override
  public long queuedMessages() {
    String q = base(true).above("AntQueue", 0).toString();
    return call("counting the queued messages", () -> {
      long sum = 0;
      ByteString token = ByteString.EMPTY;
      do {
        Changes page = listPage(q, token, 1000);
        for (Row r : page.rows()) {
          sum += r.queue();
        }
        token = page.next() == null ? ByteString.EMPTY : decodeToken(page.next());
      } while (!token.isEmpty());
      return sum;
    });
  }

  private long count(Filter f) {
    String q = base(true).and(filterQuery(f == null ? Filter.ALL : f)).toString();
    return rpc(CALL_DEADLINE).countWorkflowExecutions(CountWorkflowExecutionsRequest.newBuilder()
        .setNamespace(namespace).setQuery(q).build()).getCount();
  }

  @Override
  public List<Row> list(Filter filter) {
    String q = base(true).and(filterQuery(filter)).toString();
    return call("listing the ants", () -> sorted(listQuery(q)));
  }

  /**
   * The most ants the costs page reads (runs, before one per ant is kept): far above any colony
   * Colony is measured at, a bound against a runaway query only.
   */
  static final int MAX_COST_RUNS = 200_000;

  /**
   * Every ant, running or stopped: runs that did not end by continue-as-new (the running run, or
   * the last run of a stopped ant), all pages, then one row per ant (its running run, else its
   * newest card). A stopped ant started again has a closed and a running run: the running one
   * carries the stopped one's ledger, so only it counts.
   */
  @Override
  public List<Row> costRows() {
    return call("listing the ants' costs", costs::rows);
  }

  /**
   * Reads the costs page's runs in the background (once, when nothing is kept yet), so that the
   * page's first visit reads only the changes since. A failure is logged; the first visit reads them.
   */
  public void warmCosts() {
    Thread.ofVirtual().name("console-costs-warm").start(() -> {
      try {
        costs.warm();
      } catch (RuntimeException e) {
        log.warn("console: reading the costs failed ({}); the costs page reads them when opened", e.toString());
      }
    });
  }

  /** How far back of the previous read each read of the costs' changes looks (visibility lags). */
  static final Duration COST_MARGIN = Duration.ofMinutes(1);
  /** How old the costs' full read may get before a visit starts reading it again (in the background). */
  static final Duration COST_REBUILD = Duration.ofMinutes(10);

  private final CostRuns costs = new CostRuns();

  /**
   * The runs the costs page sums, derived from visibility and rebuilt from it, never the only
   * copy of anything: the first read lists every ant's runs (all pages); each later read lists only
   * the runs changed since the newest change seen (the server's times, less {@link #COST_MARGIN}):
   * a new card ({@code AntUpdatedAt}), a closed run ({@code CloseTime}), a started run
   * ({@code StartTime}: a run continued as new carries its predecessor's AntUpdatedAt until its
   * first card), a run that continued as new (dropped: its successor carries its ledger). A read
   * that finds the full listing older than {@link #COST_REBUILD} starts reading it again in the
   * background (runs deleted by retention, a change visibility showed late) and is answered from
   * what is kept, as are the reads until that ends. A restart of the surface reads everything again.
   * On a server without {@code AntUpdatedAt} every read is a full one.
   */
  final class CostRuns {
    private Map<String, Row> runs;
    private long since;
    private long builtNanos;
    private boolean rebuilding;
    /** Reads of visibility pages by the costs (for tests). */
    final AtomicLong pages = new AtomicLong();

    void warm() {
      synchronized (this) {
        if (runs != null) {
          return;
        }
      }
      long[] newest = {0};
      Map<String, Row> all = readAll(newest);
      synchronized (this) {
        if (runs == null) {
          runs = all;
          since = newest[0] - COST_MARGIN.toMillis();
          builtNanos = System.nanoTime();
        }
      }
    }

    List<Row> rows() {
      Map<String, Row> kept;
      synchronized (this) {
        kept = runs;
      }
      if (kept == null || noUpdatedAt) {
        long[] newest = {0};
        Map<String, Row> all = readAll(newest);
        synchronized (this) {
          runs = all;
          since = newest[0] - COST_MARGIN.toMillis();
          builtNanos = System.nanoTime();
          return newestPerAnt(new ArrayList<>(runs.values()));
        }
      }
      synchronized (this) {
        // The next read looks back from the newest change seen (the server's clock, not ours), less the margin.
        long[] newest = {since + COST_MARGIN.toMillis()};
        try {
          readChanges(since, runs, newest);
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
            throw e;
          }
          noUpdatedAt = true; // not registered on this server: full reads from now on
          runs = readAll(newest);
        }
        since = newest[0] - COST_MARGIN.toMillis();
        if (!rebuilding && System.nanoTime() - builtNanos > COST_REBUILD.toNanos()) {
          rebuilding = true;
          Thread.ofVirtual().name("colony-costs-rebuild").start(this::rebuild);
        }
        return newestPerAnt(new ArrayList<>(runs.values()));
      }
    }

    private void rebuild() {
      try {
        long[] newest = {0};
        Map<String, Row> all = readAll(newest);
        synchronized (this) {
          runs = all;
          since = Math.min(since, newest[0] - COST_MARGIN.toMillis());
          builtNanos = System.nanoTime();
        }
      } catch (RuntimeException e) {
        log.warn("reading the ants' costs again failed ({}); the kept ones are served", e.toString());
      } finally {
        synchronized (this) {
          rebuilding = false;
        }
      }
    }

    /** Every run of every ant that did not continue as new, by workflow and run id. */
    private Map<String, Row> readAll(long[] newest) {
      Map<String, Row> out = new java.util.HashMap<>();
      listRuns(base(false).notEq("ExecutionStatus", "ContinuedAsNew").toString(), out, MAX_COST_RUNS, newest);
      return out;
    }

    /**
     * The runs changed since {@code sinceMillis}, merged into {@code into}: a new card, a closed run,
     * a run started since (one that continued as new carries its predecessor's AntUpdatedAt until its
     * first card).
     */
    private void readChanges(long sinceMillis, Map<String, Row> into, long[] newest) {
      Instant at = Instant.ofEpochMilli(Math.max(0, sinceMillis));
      listRuns(base(false).and(VisibilityQuery.anyOf(VisibilityQuery.where().since("AntUpdatedAt", at),
          VisibilityQuery.where().since("CloseTime", at), VisibilityQuery.where().since("StartTime", at),
          VisibilityQuery.where().isNull("AntUpdatedAt").running())).toString(), into, MAX_COST_RUNS, newest);
    }

    /** Lists the runs into {@code into}; {@code newest[0]} rises to the newest change it saw (server time). */
    private void listRuns(String query, Map<String, Row> into, int max, long[] newest) {
      ByteString token = ByteString.EMPTY;
      int read = 0;
      do {
        pages.incrementAndGet();
        ListWorkflowExecutionsResponse r = rpc(CALL_DEADLINE).listWorkflowExecutions(ListWorkflowExecutionsRequest
            .newBuilder().setNamespace(namespace).setQuery(query).setPageSize(1000).setNextPageToken(token).build());
        for (WorkflowExecutionInfo info : r.getExecutionsList()) {
          read++;
          newest[0] = Math.max(newest[0], Math.max(millis(info.getStartTime()), millis(info.getCloseTime())));
          String key = info.getExecution().getWorkflowId() + "\n" + info.getExecution().getRunId();
          if (info.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW) {
            into.remove(key);
            continue;
          }
          Row row = row(info);
          if (row != null) {
            into.put(key, row);
            newest[0] = Math.max(newest[0], row.updatedMillis());
          }
        }
        token = r.getNextPageToken();
      } while (!token.isEmpty() && read < max);
    }
  }

  private static long millis(com.google.protobuf.Timestamp t) {
    return t == null ? 0 : t.getSeconds() * 1000 + t.getNanos() / 1_000_000;
  }

  /** One row per ant name, sorted by name: the running run's, else the one changed last. */
  static List<Row> newestPerAnt(List<Row> rows) {
    Map<String, Row> byName = new java.util.TreeMap<>();
    for (Row r : rows) {
      byName.merge(r.name(), r, (a, b) -> newer(b, a) ? b : a);
    }
    return new ArrayList<>(byName.values());
  }

  private static boolean newer(Row b, Row a) {
    if (a.running() != b.running()) {
      return b.running();
    }
    if (a.updatedMillis() != b.updatedMillis()) {
      return b.updatedMillis() > a.updatedMillis();
    }
    long ra = a.card() == null ? -1 : a.card().revision();
    long rb = b.card() == null ? -1 : b.card().revision();
    return rb > ra;
  }

  private static List<Row> sorted(List<Row> rows) {
    Map<String, Row> byName = new LinkedHashMap<>();
    rows.stream().sorted(Comparator.comparing(Row::name)).forEach(r -> byName.putIfAbsent(r.name(), r));
    return new ArrayList<>(byName.values());
  }

  private List<Row> listQuery(String query) {
    return listQuery(query, MAX_ANTS);
  }

  private List<Row> listQuery(String query, int max) {
    List<Row> out = new ArrayList<>();
    ByteString token = ByteString.EMPTY;
    do {
      Changes page = listPage(query, token, 1000);
      out.addAll(page.rows());
      token = page.next() == null ? ByteString.EMPTY : decodeToken(page.next());
    } while (!token.isEmpty() && out.size() < max);
    return out;
  }

  /** One visibility page of {@code query}: its rows and the next page's token (null: the last). */
  private Changes listPage(String query, ByteString token, int size) {
    ListWorkflowExecutionsResponse r = rpc(CALL_DEADLINE).listWorkflowExecutions(ListWorkflowExecutionsRequest
        .newBuilder().setNamespace(namespace).setQuery(query).setPageSize(size).setNextPageToken(token).build());
    List<Row> rows = new ArrayList<>();
    for (WorkflowExecutionInfo info : r.getExecutionsList()) {
      Row row = row(info);
      if (row != null) {
        rows.add(row);
      }
    }
    return new Changes(rows, r.getNextPageToken().isEmpty() ? null
        : Base64.getUrlEncoder().withoutPadding().encodeToString(r.getNextPageToken().toByteArray()));
  }

  private static ByteString decodeToken(String token) {
    try {
      return ByteString.copyFrom(Base64.getUrlDecoder().decode(token));
    } catch (IllegalArgumentException bad) {
      throw new IllegalArgumentException("not a page token this source gave");
    }
  }

  /** Ants one page of {@link #changedSince} holds. */
  static final int CHANGES_PAGE = 1000;

  /**
   * Up to {@link #SMALL} ants the overview reads them all and sorts them by name; above, it pages
   * in visibility (most recently started first: SQL visibility cannot sort by a search attribute)
   * and {@code q} matches the start of a name ({@code STARTS_WITH}: SQL visibility has no LIKE).
   */
  static final int SMALL = 1000;

  @Override
  public Page page(Filter filter, String q, int size, String token) {
    VisibilityQuery where = base(true).and(filterQuery(filter));
    Long counted = null;
    if (token == null || !token.startsWith("v")) {
      long all = call("counting the ants", () -> countQuery(where.toString()));
      if (all <= SMALL && (token == null || token.matches("[0-9]{1,9}"))) {
        return ColonySource.super.page(filter, q, size, token);
      }
      counted = all;
    }
    boolean byName = q != null && !q.isBlank();
    String query = (byName ? where.startsWith("AntName", q.strip()) : where).toString();
    // The page's total is the count just made when no name narrows the query (one call, not two).
    Long total = byName ? null : counted;
    ByteString from = ByteString.EMPTY;
    if (token != null && token.startsWith("v")) {
      try {
        from = ByteString.copyFrom(java.util.Base64.getUrlDecoder().decode(token.substring(1)));
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException("page is not a page token this source gave");
      }
    }
    ByteString start = from;
    return call("listing the ants", () -> {
      ListWorkflowExecutionsResponse r = rpc(CALL_DEADLINE).listWorkflowExecutions(ListWorkflowExecutionsRequest
          .newBuilder().setNamespace(namespace).setQuery(query).setPageSize(size).setNextPageToken(start).build());
      List<Row> rows = new ArrayList<>();
      for (WorkflowExecutionInfo info : r.getExecutionsList()) {
        Row row = row(info);
        if (row != null) {
          rows.add(row);
        }
      }
      String next = r.getNextPageToken().isEmpty() ? null
          : "v" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(r.getNextPageToken().toByteArray());
      return new Page(rows, next, total != null ? total : countQuery(query));
    });
  }

  private long countQuery(String query) {
    return rpc(CALL_DEADLINE).countWorkflowExecutions(CountWorkflowExecutionsRequest.newBuilder()
        .setNamespace(namespace).setQuery(query).build()).getCount();
  }

  @Override
  public Changes changedSince(long sinceMillis, String token) {
    ByteString from = token == null ? ByteString.EMPTY : decodeToken(token.startsWith("all:") ? token.substring(4) : token);
    if (!noUpdatedAt && (token == null || !token.startsWith("all:"))) {
      // Ants whose run began before the card have no AntUpdatedAt until they continue as new: listed every time.
      String q = base(false).and(VisibilityQuery.anyOf(
          VisibilityQuery.where().since("AntUpdatedAt", Instant.ofEpochMilli(sinceMillis)),
          VisibilityQuery.where().isNull("AntUpdatedAt").running())).toString();
      try {
        return listPage(q, from, CHANGES_PAGE);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
          throw new SourceException("listing the changed ants: Temporal answered " + e.getStatus().getCode(), e);
        }
        noUpdatedAt = true; // not registered on this server: list every running ant instead
        from = ByteString.EMPTY;
      }
    }
    // Without AntUpdatedAt every running ant, page by page (its tokens marked, so a page of the other query is not mixed in).
    ByteString start = from;
    Changes page = call("listing the ants", () -> listPage(base(true).toString(), start, CHANGES_PAGE));
    return new Changes(page.rows(), page.next() == null ? null : "all:" + page.next());
  }

  @Override
  public java.util.Set<String> running(java.util.Collection<String> names) {
    List<String> all = names.stream().filter(n -> ANT.matcher(n).matches()).distinct().sorted().toList();
    java.util.Set<String> out = new java.util.HashSet<>();
    // One visibility call per 100 names (an IN list of names, not a read of the whole colony).
    for (int i = 0; i < all.size(); i += 100) {
      List<String> chunk = all.subList(i, Math.min(all.size(), i + 100));
      String q = base(true).in("AntName", chunk).toString();
      call("listing the running ants", () -> listQuery(q)).forEach(r -> out.add(r.name()));
    }
    return out;
  }

  @Override
  public List<TaskCard> tasksChangedSince(long sinceMillis) {
    if (System.currentTimeMillis() < noTaskUpdatedAtUntil) {
      return List.of();
    }
    String q = tasksChangedQuery(colony, sinceMillis);
    List<TaskCard> out = new ArrayList<>();
    try {
      ByteString token = ByteString.EMPTY;
      do {
        ListWorkflowExecutionsResponse r = rpc(CALL_DEADLINE).listWorkflowExecutions(ListWorkflowExecutionsRequest
            .newBuilder().setNamespace(namespace).setQuery(q).setPageSize(500).setNextPageToken(token).build());
        for (WorkflowExecutionInfo info : r.getExecutionsList()) {
          TaskCard card = taskCard(new WorkflowExecutionMetadata(info, converter));
          if (card != null) {
            out.add(card);
          }
        }
        token = r.getNextPageToken();
      } while (!token.isEmpty()); // every page of the window: the poll's cursor moves past all of it
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
        noTaskUpdatedAtUntil = System.currentTimeMillis() + 60_000; // not registered: no task to follow yet
        return List.of();
      }
      throw new SourceException("listing the changed tasks: Temporal answered " + e.getStatus().getCode(), e);
    }
    return out;
  }

  /** The colony's tasks changed at or after {@code sinceMillis} (tasks share {@code ColonyName} with ants). */
  static String tasksChangedQuery(String colony, long sinceMillis) {
    return VisibilityQuery.where().eq("WorkflowType", TaskIds.WORKFLOW_TYPE).eq("ColonyName", colony)
        .since("TaskUpdatedAt", Instant.ofEpochMilli(sinceMillis)).toString();
  }

  /** A task's memo card; null when it has none or it is unreadable. */
  private static TaskCard taskCard(WorkflowExecutionMetadata m) {
    try {
      return m.getMemo(TaskCard.MEMO_KEY, TaskCard.class, TaskCard.class);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** The list's row of an ant's run: the client's {@link AntRow} (the one reading) with its card; null when it is no ant's. */
  Row row(WorkflowExecutionInfo info) {
    WorkflowExecutionMetadata m = new WorkflowExecutionMetadata(info, converter);
    AntRow r = AntRow.of(m);
    return r.named() ? Row.of(r, AntRow.card(m)) : null;
  }

  private String workflowId(String ant) {
    return AntIds.workflowId(colony, ant);
  }

  private WorkflowExecutionInfo describe(String workflowId) {
    try {
      return rpc(CALL_DEADLINE).describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
          .setNamespace(namespace).setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build())
          .getWorkflowExecutionInfo();
    } catch (StatusRuntimeException e) {
      if (Rpc.notFound(e)) {
        return null;
      }
      throw new SourceException("describing " + workflowId + ": Temporal answered " + e.getStatus().getCode(), e);
    }
  }

  @Override
  public Detail ant(String name) {
    WorkflowExecutionInfo info = describe(workflowId(name));
    if (info == null) {
      return null;
    }
    Row row = row(info);
    var m = new WorkflowExecutionMetadata(info, converter);
    String runId = info.getExecution().getRunId();
    String link = webUi == null ? null : webUi + "/namespaces/" + enc(namespace) + "/workflows/"
        + enc(workflowId(name)) + "/" + enc(runId) + "/history";
    return new Detail(row, workflowId(name), runId, link, memoString(m, AntSearchAttributes.MEMO_DESCRIPTION),
        memoString(m, AntSearchAttributes.MEMO_ENGINE));
  }

  private static String memoString(WorkflowExecutionMetadata m, String key) {
    try {
      return m.getMemo(key, String.class, String.class);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public Object config(String name) {
    WorkflowExecutionInfo info = describe(workflowId(name));
    if (info == null) {
      return null;
    }
    GetWorkflowExecutionHistoryResponse r = call("reading the history", () -> rpc(CALL_DEADLINE)
        .getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder().setNamespace(namespace)
            .setExecution(info.getExecution()).setMaximumPageSize(1).build()));
    for (HistoryEvent e : r.getHistory().getEventsList()) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
        Payloads input = e.getWorkflowExecutionStartedEventAttributes().getInput();
        AntRun run = converter.fromPayloads(0, Optional.of(input), AntRun.class, AntRun.class);
        return run == null ? null : run.spec();
      }
    }
    return null;
  }

  @Override
  public Live live(String name) {
    WorkflowExecutionInfo info = describe(workflowId(name));
    if (info == null) {
      throw new NoSuchElementException("no ant '" + name + "' in colony '" + colony + "'");
    }
    AntCard card = AntRow.card(new WorkflowExecutionMetadata(info, converter));
    return live(info.getExecution(), card,
        info.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
  }

  /**
   * The run {@code detail} describes, its history read without describing the ant again (one call
   * to Temporal fewer for a status); a detail without a row (a run that published nothing yet) is
   * read by name.
   */
  @Override
  public Live live(String name, Detail detail) {
    if (detail == null || detail.row() == null || detail.runId() == null || detail.runId().isEmpty()) {
      return live(name);
    }
    WorkflowExecution run = WorkflowExecution.newBuilder().setWorkflowId(detail.workflowId()).setRunId(detail.runId())
        .build();
    return live(run, detail.row().card(), detail.row().running());
  }

  /** The turns of the last session in {@code run}'s history; its card tells whether that session runs. */
  private Live live(WorkflowExecution run, AntCard card, boolean runRunning) {
    List<Turn> turns = new ArrayList<>();
    int session = 0;
    ByteString token = ByteString.EMPTY;
    do {
      ByteString t = token;
      GetWorkflowExecutionHistoryResponse r = call("reading the history", () -> rpc(CALL_DEADLINE)
          .getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder().setNamespace(namespace)
              .setExecution(run).setNextPageToken(t).build()));
      for (HistoryEvent e : r.getHistory().getEventsList()) {
        TurnReport report = report(e);
        if (report != null) {
          if (report.session() != session) {
            turns.clear();
            session = report.session();
          }
          turns.addAll(report.turns());
        }
      }
      token = r.getNextPageToken();
    } while (!token.isEmpty());
    boolean running = card != null ? card.sessionRunning() : runRunning;
    List<Turn> last = turns.size() > 200 ? turns.subList(turns.size() - 200, turns.size()) : turns;
    return new Live(session, running, List.copyOf(last));
  }

  /** The turns an accepted {@code reportTurns} update carries; null for any other event. */
  private TurnReport report(HistoryEvent e) {
    if (e.getEventType() != EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) {
      return null;
    }
    var input = e.getWorkflowExecutionUpdateAcceptedEventAttributes().getAcceptedRequest().getInput();
    if (!"reportTurns".equals(input.getName())) {
      return null;
    }
    try {
      return converter.fromPayloads(0, Optional.of(input.getArgs()), TurnReport.class, TurnReport.class);
    } catch (RuntimeException bad) {
      return null;
    }
  }

  @Override
  public TurnBatch waitTurns(String name, String cursor, Duration maxWait) throws InterruptedException {
    String runId;
    ByteString token;
    boolean reset = false;
    if (cursor == null) {
      WorkflowExecutionInfo info = describe(workflowId(name));
      if (info == null) {
        throw new NoSuchElementException("no ant '" + name + "'");
      }
      runId = info.getExecution().getRunId();
      token = ByteString.EMPTY;
    } else {
      int colon = cursor.indexOf(':');
      runId = cursor.substring(0, colon);
      if (cursor.substring(colon + 1).equals(ENDED)) {
        // The run this cursor followed has closed: wait, then follow a newer run when one started.
        WorkflowExecutionInfo info = describe(workflowId(name));
        if (info == null || info.getExecution().getRunId().equals(runId)) {
          Thread.sleep(Math.min(maxWait.toMillis(), ENDED_WAIT.toMillis()));
          return new TurnBatch(cursor, 0, List.of(), false, false);
        }
        runId = info.getExecution().getRunId();
        token = ByteString.EMPTY;
        reset = true;
      } else {
        token = ByteString.copyFrom(Base64.getDecoder().decode(cursor.substring(colon + 1)));
      }
    }
    List<Turn> turns = new ArrayList<>();
    int session = 0;
    boolean changed = false;
    boolean ended = false;
    boolean initial = cursor == null || reset;
    int polls = 0;
    while (true) {
      // From the start, read until a call has to wait (caught up); then the cursor is where new
      // events come. Otherwise one long poll, up to maxWait.
      Duration wait = initial && polls > 0 ? CATCH_UP : maxWait;
      polls++;
      GetWorkflowExecutionHistoryResponse r;
      try {
        r = rpc(wait).getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder()
            .setNamespace(namespace).setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId(name)).setRunId(runId))
            .setNextPageToken(token).setWaitNewEvent(true)
            .setHistoryEventFilterType(HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT).build());
      } catch (StatusRuntimeException e) {
        if (Thread.currentThread().isInterrupted() || e.getStatus().getCode() == Status.Code.CANCELLED) {
          throw new InterruptedException("stopped following " + name);
        }
        if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
          break; // nothing new within the wait
        }
        throw new SourceException("following " + name + ": Temporal answered " + e.getStatus().getCode(), e);
      }
      String next = null;
      for (HistoryEvent e : r.getHistory().getEventsList()) {
        changed = true;
        TurnReport report = report(e);
        if (report != null) {
          if (report.session() != session && session != 0) {
            turns.clear();
          }
          session = report.session();
          turns.addAll(report.turns());
        }
        if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) {
          next = e.getWorkflowExecutionContinuedAsNewEventAttributes().getNewExecutionRunId();
        } else if (CLOSED.contains(e.getEventType())) {
          ended = true;
        }
      }
      token = r.getNextPageToken();
      if (next != null) {
        runId = next;
        token = ByteString.EMPTY;
        reset = true;
        turns.clear();
        continue;
      }
      if (token.isEmpty() || !initial || r.getHistory().getEventsCount() == 0) {
        break; // the run ended (no more events), one long poll answered, or caught up
      }
    }
    // An ended run's last page has no next-page token, which would read the history from the start again.
    return new TurnBatch(runId + ":" + (ended ? ENDED : Base64.getEncoder().encodeToString(token.toByteArray())), session,
        List.copyOf(turns), reset, changed);
  }

  @Override
  public Supervision supervision() {
    String id = ColonyWorkflow.workflowId(colony);
    WorkflowExecutionInfo info = describe(id);
    if (info == null || info.getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return new Supervision(false, List.of(), List.of(), "no supervision workflow runs for colony '" + colony + "'");
    }
    var m = new WorkflowExecutionMetadata(info, converter);
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> card = m.getMemo("card", Map.class, Map.class);
      if (card != null) {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> groups = (List<Map<String, Object>>) card.getOrDefault("groups", List.of());
        @SuppressWarnings("unchecked")
        List<Object> events = (List<Object>) card.getOrDefault("events", List.of());
        return new Supervision(true, groups, events, null);
      }
    } catch (RuntimeException unreadable) {
      // fall back to the queries
    }
    try {
      ColonyEvent[] events = query(info.getExecution(), "events", ColonyEvent[].class, 0L);
      String[] failed = query(info.getExecution(), "failedGroups", String[].class);
      List<Map<String, Object>> groups = new ArrayList<>();
      for (String g : failed == null ? new String[0] : failed) {
        groups.add(Map.of("name", g, "breaker", "open"));
      }
      return new Supervision(true, groups, events == null ? List.of() : List.of((Object[]) events),
          "groups whose breaker is closed are not listed (no colony card)");
    } catch (StatusRuntimeException e) {
      return new Supervision(false, List.of(), List.of(), "the colony workflow did not answer (is a worker running?)");
    }
  }

  private <T> T query(WorkflowExecution execution, String type, Class<T> result, Object... args) {
    var q = WorkflowQuery.newBuilder().setQueryType(type);
    Optional<Payloads> in = converter.toPayloads(args);
    in.ifPresent(q::setQueryArgs);
    var r = rpc(QUERY_DEADLINE).queryWorkflow(QueryWorkflowRequest.newBuilder().setNamespace(namespace)
        .setExecution(execution).setQuery(q).build());
    return converter.fromPayloads(0, Optional.of(r.getQueryResult()), result, result);
  }

  /** A surface's actions, through the one executor: sent as {@code who} ({@code console:<operator>}, {@code mcp:<client>}). */
  @Override
  public String act(String name, AntVerb verb, Actor who) {
    try {
      return steering.send(workflowId(name), verb, who);
    } catch (io.temporal.client.WorkflowException e) {
      if (Rpc.notFound(e)) {
        throw new NoSuchElementException("no ant '" + name + "' runs in colony '" + colony + "'");
      }
      throw new SourceException("sending " + verb.word() + " to " + name + ": Temporal refused it", e);
    }
  }
}
