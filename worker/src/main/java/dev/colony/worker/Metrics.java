package dev.colony.worker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micrometer.registry.otlp.OtlpMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The metrics of one process: one registry ({@link #registry()}) with the JVM's meters, the Temporal
 * SDK's worker and client meters fed into it through a Tally root scope ({@link #scope()}, given to
 * the service stubs), and, when asked, {@code /metrics} served in the Prometheus text format. Behind
 * that registry: a Prometheus registry when the process is scraped, an OTLP registry pushing to a
 * receiver when the {@code OTEL_EXPORTER_OTLP_*} variables ask ({@link OtlpPush}), or both; every
 * meter goes to each.
 *
 * <p>Every timer's buckets are decided here ({@link #BUCKETS}, {@link #TEMPORAL_BUCKETS}): the SDK
 * asks for Micrometer's percentile histogram on every timer it reports (about 70 buckets a
 * series); a filter replaces that with a short list of fixed bounds.
 */
public final class Metrics implements AutoCloseable {
  /** How often the Tally scope hands what it counted to the registry: a scrape trails by at most this. */
  public static final Duration REPORT_EVERY = Duration.ofSeconds(1);

  /** The Prometheus text format, version 0.0.4: what every Prometheus server reads. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /** The buckets of the Temporal SDK's timers ({@code temporal_*}), in seconds: 0.2 s is the usual alert's bound. */
  static final double[] TEMPORAL_BUCKETS = {0.01, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30};

  /**
   * The buckets of Colony's own timers, in seconds, by the timer's name (the Prometheus name
   * without {@code _seconds}). A {@code colony_*} timer not named here gets {@link #DEFAULT_COLONY_BUCKETS}.
   */
  static final Map<String, double[]> BUCKETS = Map.of(
      "colony_session_duration", new double[] {10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200},
      "colony_wait_planned", new double[] {10, 30, 60, 300, 900, 3600, 14400, 86400},
      "colony_confirmation_answer", new double[] {5, 15, 30, 60, 300, 900, 3600},
      "colony_merge_landing", new double[] {30, 60, 120, 300, 600, 1800, 3600});

  static final double[] DEFAULT_COLONY_BUCKETS = {1, 10, 60, 300, 1800, 3600, 14400, 86400};

  /** Where meters are registered: each one reaches every registry behind it. */
  private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
  /** The scraped registry; null when the process is not scraped (push only). */
  private final PrometheusMeterRegistry prometheus;
  /** The pushing registry; null when nothing is pushed. */
  private final OtlpMeterRegistry otlp;
  private final OtlpPush push;
  private final Scope scope;
  private final JvmGcMetrics gc;
  /** Meters the registry refused (a name already registered with other tag keys), by name: told once each. */
  private final java.util.Set<String> refused = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private HttpServer server;
  private ExecutorService serving;

  private Metrics(boolean scraped, OtlpPush push) {
    if (!scraped && push == null) {
      throw new IllegalArgumentException("metrics neither scraped nor pushed");
    }
    this.push = push;
    prometheus = scraped ? configured(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)) : null;
    otlp = push == null ? null : configured(OtlpMeterRegistry.builder(push.config()).metricsSender(push.sender())
        .threadFactory(r -> {
          Thread t = new Thread(r, "colony-otlp-metrics");
          t.setDaemon(true);
          return t;
        }).build());
    // Each registry is configured before it is added: a filter added after a meter exists does not change it.
    for (MeterRegistry r : new MeterRegistry[] {prometheus, otlp}) {
      if (r != null) {
        registry.add(r);
      }
    }
    new JvmMemoryMetrics().bindTo(registry);
    gc = new JvmGcMetrics();
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    scope = new RootScopeBuilder()
        .reporter(new CachingStatsReporter(registry))
        .reportEvery(com.uber.m3.util.Duration.ofMillis(REPORT_EVERY.toMillis()));
  }

  /** A registry (Prometheus) with the JVM's meters and a Tally scope feeding it; nothing served yet. */
  public static Metrics create() {
    return new Metrics(true, null);
  }

  /**
   * The process's metrics: scraped ({@link #serve}) when {@code scraped}, pushed when {@code push}
   * is not null (the pushing starts now), at least one of the two.
   */
  public static Metrics create(boolean scraped, OtlpPush push) {
    return new Metrics(scraped, push);
  }

  /** Colony's buckets and the told-once refusal on one registry behind the composite. */
  private <R extends MeterRegistry> R configured(R r) {
    r.config().meterFilter(new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        return buckets(id, config);
      }
    });
    r.config().onMeterRegistrationFailed((id, reason) -> {
      if (refused.add(id.getName())) {
        org.slf4j.LoggerFactory.getLogger(Metrics.class).warn("metric {} not exported: {}", id.getName(), reason);
      }
    });
    return r;
  }

  /** The Tally scope to give to {@code WorkflowServiceStubsOptions.Builder.setMetricsScope}. */
  public Scope scope() {
    return scope;
  }

  /** Where to register a meter: it is scraped and pushed as the process is. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The push, or null when nothing is pushed. */
  public OtlpPush push() {
    return push;
  }

  /** Whether the process is scraped ({@link #scrape}, {@link #serve}). */
  public boolean scraped() {
    return prometheus != null;
  }

  /** What {@code /metrics} answers now. */
  public String scrape() {
    if (prometheus == null) {
      throw new IllegalStateException("not scraped: these metrics are only pushed");
    }
    return prometheus.scrape();
  }

  /**
   * Serves {@code GET /metrics} on {@code address} (port 0: any free one) and answers the address
   * it listens on. One thread answers scrapes, one after the other.
   *
   * @throws IOException the address cannot be listened on (the port is taken, the address is not this machine's)
   */
  public synchronized InetSocketAddress serve(InetSocketAddress address) throws IOException {
    if (server != null) {
      throw new IllegalStateException("already serving on " + server.getAddress());
    }
    if (prometheus == null) {
      throw new IllegalStateException("not scraped: these metrics are only pushed");
    }
    HttpServer s = HttpServer.create(address, 0);
    s.createContext("/", this::answer);
    AtomicInteger n = new AtomicInteger();
    serving = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "colony-metrics-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    s.setExecutor(serving);
    s.start();
    server = s;
    return s.getAddress();
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      if (!"/metrics".equals(path)) {
        reply(exchange, 404, "not found: the metrics are at /metrics\n", !"HEAD".equals(method));
        return;
      }
      if (!"GET".equals(method) && !"HEAD".equals(method)) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        reply(exchange, 405, "method not allowed: GET /metrics\n", true);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      reply(exchange, 200, scrape(), "GET".equals(method));
    }
  }

  private static void reply(HttpExchange exchange, int status, String body, boolean withBody) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (!exchange.getResponseHeaders().containsKey("Content-Type")) {
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    }
    if (!withBody) {
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * A timer's distribution as Colony wants it: for {@code temporal_*} and {@code colony_*} timers,
   * fixed buckets in place of the percentile histogram; any other meter as it asked.
   */
  static DistributionStatisticConfig buckets(Meter.Id id, DistributionStatisticConfig config) {
    if (id.getType() != Meter.Type.TIMER) {
      return config;
    }
    double[] seconds = bucketsOf(id.getName());
    if (seconds == null) {
      return config;
    }
    double[] nanos = new double[seconds.length];
    for (int i = 0; i < seconds.length; i++) {
      nanos[i] = seconds[i] * 1e9; // a timer's bounds are in nanoseconds
    }
    // The builder's values win the merge: the SDK's publishPercentileHistogram(true) is overridden.
    return DistributionStatisticConfig.builder().percentilesHistogram(false).serviceLevelObjectives(nanos)
        .build().merge(config);
  }

  /** The bounds (seconds) of the timer called {@code name} (Micrometer's name, dots or underscores), or null. */
  static double[] bucketsOf(String name) {
    String key = name.replace('.', '_');
    if (key.endsWith("_seconds")) {
      key = key.substring(0, key.length() - "_seconds".length());
    }
    if (key.startsWith("temporal_")) {
      return TEMPORAL_BUCKETS;
    }
    if (key.startsWith("colony_")) {
      return BUCKETS.getOrDefault(key, DEFAULT_COLONY_BUCKETS);
    }
    return null;
  }

  /** The names of meters the registry refused, so far (none is expected). */
  public java.util.Set<String> refused() {
    return java.util.Set.copyOf(refused);
  }

  /** The address {@code /metrics} is served on, or null when it is not served. */
  public synchronized InetSocketAddress address() {
    return server == null ? null : server.getAddress();
  }

  /**
   * Stops serving, reports what the scope still holds and closes the registries (the push's last
   * push among them).
   */
  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop(0);
      serving.shutdownNow();
      server = null;
    }
    for (AutoCloseable c : List.<AutoCloseable>of(scope::close, gc)) {
      try {
        c.close(); // the scope's reporter closes the registry, which closes those behind it
      } catch (Exception ignored) {
        // closing: nothing to do about it
      }
    }
  }
}
