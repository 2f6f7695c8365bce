package dev.colony.worker;

import dev.colony.chat.impl.LeasedConnection;
import dev.colony.client.ColonyFigures;
import dev.colony.client.TaskQueuePollers;
import dev.colony.client.TemporalColonySource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The colony's figures of state as gauges ({@link ColonyFigures}: ants by state, who needs a human
 * and since when, queued messages, tasks, merge items, pollers, spend today), exported by exactly
 * one process per colony: every process with a worker and a metrics registry is a candidate for
 * the colony's {@code metrics} lease (a {@link LeasedConnection}, the election the Discord gateway
 * and the Slack connection use); only the holder reads visibility, every {@link #DEFAULT_PERIOD},
 * and registers the gauges. A candidate that loses the lease (or cannot renew it) removes them at
 * once, so a scrape never sees two copies, nor a stale one. Every candidate exports
 * {@code colony_reporter_leader{colony}}: 1 on the holder, 0 on the others.
 *
 * <p>A holder killed without a goodbye is replaced once its lease runs out: the colony's gauges
 * are missing for up to the lease's ttl ({@link LeasedConnection#DEFAULT_TTL}, 15 s) plus a
 * renewal ({@code ttl / 3}) plus the new holder's first read.
 */
public final class ColonyReporter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ColonyReporter.class);
  public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(30);
  /** The lease's kind: {@code colony-metrics-gateway/<hash of the colony's name>}. */
  public static final String LEASE_KIND = "metrics";
  public static final String LEADER = "colony_reporter_leader";
  public static final String LAST_SUCCESS = "colony_reporter_last_success_timestamp_seconds";

  private final MeterRegistry registry;
  private final String colony;
  private final Supplier<ColonyFigures.Reading> reader;
  private final Duration period;
  private final AtomicInteger leader = new AtomicInteger();
  private final Gauge leaderGauge;
  private final Map<String, MultiGauge> gauges = new LinkedHashMap<>();
  /**
   * Each gauge's series and their values: a series that stays is updated in place (re-registering
   * it would leave a moment in which a scrape misses it), a new one is added, a gone one removed.
   */
  private final Map<String, Map<Tags, Value>> values = new LinkedHashMap<>();

  /** One series' value, read by its gauge at each scrape. */
  private static final class Value {
    volatile double v;
  }
  /** Changes each time this process starts or stops holding: a read begun under another is not published. */
  private long generation;
  private boolean leading;
  private boolean closed;
  private Thread loop;
  private LeasedConnection<Holding> lease;
  /** The last failure logged, so the same one is not logged every period. */
  private String lastFailure;

  /**
   * A reporter of {@code colony} on {@code registry} that reads with {@code reader} every
   * {@code period} while it leads ({@link #lead}); the election is the caller's ({@link #start}: the lease).
   */
  public ColonyReporter(MeterRegistry registry, String colony, Supplier<ColonyFigures.Reading> reader, Duration period) {
    this.registry = registry;
    this.colony = colony;
    this.reader = reader;
    this.period = period;
    this.leaderGauge = Gauge.builder(LEADER, leader, AtomicInteger::get).strongReference(true)
        .description("1 on the process that exports the colony's figures of state (the metrics lease's holder), 0 on the other candidates")
        .tag("colony", colony).register(registry);
    ColonyFigures.NAMES.forEach((name, help) -> gauges.put(name, MultiGauge.builder(name).description(help)
        .register(registry)));
    gauges.put(LAST_SUCCESS, MultiGauge.builder(LAST_SUCCESS)
        .description("When the reporter last read every figure of the colony, in seconds since the epoch").register(registry));
  }

  /**
   * Starts the colony's reporter in this process: a candidate for the colony's {@code metrics}
   * lease (on {@code taskQueue}, where the colony's workers run the lease workflow), reading the
   * colony through the client module every {@code period} while it holds it. {@code candidate}
   * names this process ({@code pid@host}). Close it to let another process take over at once.
   */
  public static ColonyReporter start(WorkflowClient client, String taskQueue, String colony, String candidate,
      MeterRegistry registry, Duration period) {
    TemporalColonySource source = new TemporalColonySource(client, colony, null);
    ColonyFigures figures = new ColonyFigures(source, source.board(dev.colony.task.TaskSettings.defaults()),
        source.merges(), new TaskQueuePollers(source.client())::alive, taskQueue, System::currentTimeMillis);
    ColonyReporter reporter = new ColonyReporter(registry, colony, figures::read, period);
    reporter.elect(client, taskQueue, candidate, LeasedConnection.DEFAULT_TTL);
    return reporter;
  }

  /** Becomes a candidate for the colony's {@code metrics} lease with {@code ttl}. */
  synchronized ColonyReporter elect(WorkflowClient client, String taskQueue, String candidate, Duration ttl) {
    lease = new LeasedConnection<Holding>(client, taskQueue, LEASE_KIND, colony, candidate, ttl, Holding::new,
        Holding::begin).start();
    return this;
  }

  /** What the lease guards: while it is open this process leads. */
  private final class Holding implements LeasedConnection.Connection {
    private boolean open;

    void begin() {
      open = true;
      lead();
    }

    @Override
    public boolean connected() {
      return open;
    }

    @Override
    public void close() {
      if (open) {
        open = false;
        follow();
      }
    }
  }

  /** Starts leading: 1 on the leader gauge, a first read at once, then one every period. */
  public synchronized void lead() {
    if (leading || closed) {
      return;
    }
    leading = true;
    long g = ++generation;
    leader.set(1);
    loop = Thread.ofPlatform().daemon().name("colony-metrics-reporter").start(() -> run(g));
    log.info("metrics: this process exports colony '{}''s figures of state", colony);
  }

  /** Stops leading: 0 on the leader gauge and every colony gauge removed (no stale copy). */
  public synchronized void follow() {
    if (!leading) {
      return;
    }
    leading = false;
    generation++;
    leader.set(0);
    if (loop != null) {
      loop.interrupt();
      loop = null;
    }
    clear();
    log.info("metrics: colony '{}''s figures of state are exported elsewhere now", colony);
  }

  /** True while this process exports the colony's gauges. */
  public synchronized boolean leading() {
    return leading;
  }

  private synchronized boolean current(long g) {
    return leading && generation == g;
  }

  private void run(long g) {
    while (current(g)) {
      try {
        publish(g, reader.get());
      } catch (RuntimeException e) {
        failed(String.valueOf(e.getMessage()));
      }
      try {
        Thread.sleep(period.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Sets the gauges {@code r} read, if this process still leads under {@code g}; a gauge not read keeps its values. */
  synchronized void publish(long g, ColonyFigures.Reading r) {
    if (!leading || generation != g) {
      return; // the lease was lost while reading: another process exports them now
    }
    r.gauges().forEach((name, samples) -> {
      if (gauges.containsKey(name)) {
        set(name, samples);
      }
    });
    if (r.failed().isEmpty()) {
      set(LAST_SUCCESS, List.of(new ColonyFigures.Sample(Map.of("colony", colony), r.atMillis() / 1000.0)));
      lastFailure = null;
    } else {
      failed(String.join("; ", r.failed()));
    }
  }

  /** The series of gauge {@code name} are {@code samples} now: kept ones updated in place, new ones added, gone ones removed. */
  private void set(String name, List<ColonyFigures.Sample> samples) {
    Map<Tags, Value> kept = values.getOrDefault(name, Map.of());
    Map<Tags, Value> next = new LinkedHashMap<>();
    for (ColonyFigures.Sample s : samples) {
      Tags tags = Tags.empty();
      for (Map.Entry<String, String> l : s.labels().entrySet()) {
        tags = tags.and(l.getKey(), l.getValue());
      }
      Value v = kept.get(tags);
      if (v == null) {
        v = new Value();
      }
      v.v = s.value();
      next.put(tags, v);
    }
    List<MultiGauge.Row<?>> rows = new ArrayList<>(next.size());
    next.forEach((tags, v) -> rows.add(MultiGauge.Row.of(tags, v, x -> x.v)));
    gauges.get(name).register(rows, false); // false: a series already there keeps its gauge (reading the same Value)
    values.put(name, next);
  }

  /** Every series of the colony's gauges removed (the leader gauge stays). */
  private void clear() {
    gauges.values().forEach(m -> m.register(List.of(), true));
    values.clear();
  }

  private synchronized void failed(String why) {
    if (!why.equals(lastFailure)) {
      log.warn("metrics: reading colony '{}''s figures failed ({}); the gauges keep their last values", colony, why);
      lastFailure = why;
    }
  }

  /** Gives up the lease (another candidate takes over at once) and removes every gauge of the colony. */
  @Override
  public void close() {
    LeasedConnection<Holding> l;
    synchronized (this) {
      closed = true;
      l = lease;
    }
    if (l != null) {
      l.close();
    }
    synchronized (this) {
      follow();
      clear();
      registry.remove(leaderGauge);
    }
  }
}
