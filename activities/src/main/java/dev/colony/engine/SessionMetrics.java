package dev.colony.engine;

import dev.colony.spec.AntSpec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * What the session activity counts for Prometheus, on the worker's registry (the activity side of
 * the metrics; workflow code counts through {@code dev.colony.ant.AntMetrics}). An activity attempt
 * is a real event: a retried session that is interrupted again is counted again.
 *
 * <p>Labels are config names and closed sets only: {@code colony} and {@code ant} (the names in the
 * colony's files, from the ant's spec), {@code engine} ({@code EngineKind.configName}), {@code kind}
 * ({@link Refusal}). Nothing an agent writes or asks for (a path, a host, a command) becomes a label.
 *
 * <ul>
 *   <li>{@code colony_watchdog_interruptions_total{colony,ant,engine}}: sessions the idle watchdog
 *       gave up on ({@link SessionGuard#interrupted}).
 *   <li>{@code colony_sandbox_refused_connections_total{colony,ant}}: connections the egress proxy
 *       refused, read from the proxy's own count ({@link #egress}).
 *   <li>{@code colony_sandbox_refusals_total{colony,ant,kind}}: a sandbox grant refused ({@code path}:
 *       {@code sandbox.read}/{@code write} naming the colony's own files) or a request on the
 *       session's channel to its colony refused ({@code channel}).
 * </ul>
 */
public final class SessionMetrics {
  /** Micrometer's names; Prometheus shows them with underscores and {@code _total}. */
  public static final String WATCHDOG_INTERRUPTIONS = "colony.watchdog.interruptions";
  public static final String SANDBOX_REFUSED_CONNECTIONS = "colony.sandbox.refused.connections";
  public static final String SANDBOX_REFUSALS = "colony.sandbox.refusals";

  /** What a sandbox refused, the {@code kind} label. */
  public enum Refusal {
    /** A {@code sandbox.read}/{@code write} grant naming the colony's own directory, config or state. */
    PATH("path"),
    /** A request on the session's channel to its colony. */
    CHANNEL("channel");

    private final String label;

    Refusal(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** Counts nothing and registers nothing (a worker without {@code --metrics-port}, the engine tests). */
  public static final SessionMetrics NONE = new SessionMetrics(null);

  private final MeterRegistry registry;
  /** The ants whose refused connections are exported already (colony, ant). */
  private final java.util.Set<java.util.List<String>> exported = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** @param registry where to count; null: nowhere ({@link #NONE}) */
  public SessionMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** On {@code registry}, or {@link #NONE} when there is none. */
  public static SessionMetrics on(MeterRegistry registry) {
    return registry == null ? NONE : new SessionMetrics(registry);
  }

  /** The registry counted on; null for {@link #NONE}. */
  public MeterRegistry registry() {
    return registry;
  }

  /** What counts one watchdog interruption of a session of {@code spec}. */
  public Runnable watchdog(AntSpec spec) {
    if (registry == null) {
      return () -> { };
    }
    Counter c = Counter.builder(WATCHDOG_INTERRUPTIONS)
        .description("Sessions the idle watchdog interrupted (no sign of life for session_idle_timeout)")
        .tag("colony", label(spec.colony())).tag("ant", label(spec.name()))
        .tag("engine", spec.engine() == null ? "none" : spec.engine().configName())
        .register(registry);
    return c::increment;
  }

  /** One refusal of {@code kind} in a session of {@code ant}. */
  public void refused(String colony, String ant, Refusal kind) {
    if (registry == null) {
      return;
    }
    Counter.builder(SANDBOX_REFUSALS)
        .description("What an ant's sandbox refused: a granted path (path), a request on its channel to the colony (channel)")
        .tag("colony", label(colony)).tag("ant", label(ant)).tag("kind", kind.label())
        .register(registry).increment();
  }

  /** What counts one refusal of {@code kind} for {@code ant}: for code that holds no spec. */
  public Runnable refusals(String colony, String ant, Refusal kind) {
    return () -> refused(colony, ant, kind);
  }

  /**
   * Exports the connections {@code proxy} refused for {@code ant}: the proxy counts them itself
   * (since the worker started), the registry reads that count at each scrape. Registering again
   * (each session of the ant) finds the same meter.
   */
  public <T> void egress(T proxy, String colony, String ant, ToDoubleFunction<T> refused) {
    if (registry == null || !exported.add(java.util.List.of(label(colony), label(ant)))) {
      return; // registered by an earlier session (Micrometer would warn of the second registration)
    }
    FunctionCounter.builder(SANDBOX_REFUSED_CONNECTIONS, proxy, refused)
        .description("Connections the worker's egress proxy refused for an ant's sessions")
        .tag("colony", label(colony)).tag("ant", label(ant))
        .register(registry);
  }

  /** A config name as a label (never null: Micrometer refuses a null tag value). */
  private static String label(String name) {
    return name == null ? "" : name;
  }
}
