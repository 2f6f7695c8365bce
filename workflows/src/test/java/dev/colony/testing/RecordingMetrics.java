package dev.colony.testing;

import com.uber.m3.tally.Buckets;
import com.uber.m3.tally.Capabilities;
import com.uber.m3.tally.CapableOf;
import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.tally.StatsReporter;
import com.uber.m3.util.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Tally metrics scope for tests that keeps every counter increment and timer value it is given, to
 * read after {@link #finish()}: set {@link #scope()} on a test environment
 * ({@code TestEnvironmentOptions.Builder.setMetricsScope}) and the workers' workflow code reports here
 * through {@code Workflow.getMetricsScope()}, as it would to the Prometheus registry.
 */
public final class RecordingMetrics implements StatsReporter {
  /** One report: a counter's increment since the last report, or one timer value (in nanoseconds). */
  public record Point(String name, SortedMap<String, String> tags, long value) {}

  private final List<Point> counters = new CopyOnWriteArrayList<>();
  private final List<Point> timers = new CopyOnWriteArrayList<>();
  private final Scope scope = new RootScopeBuilder().reporter(this).reportEvery(Duration.ofMillis(100));

  public Scope scope() {
    return scope;
  }

  /** Reports what Tally still buffers and stops the scope: call once the workers are done. */
  public void finish() {
    try {
      scope.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing the metrics scope", e);
    }
  }

  /** Counter increments and timer values whose name starts with {@code prefix}. */
  public List<Point> named(String prefix) {
    List<Point> out = new ArrayList<>();
    counters.stream().filter(p -> p.name().startsWith(prefix)).forEach(out::add);
    timers.stream().filter(p -> p.name().startsWith(prefix)).forEach(out::add);
    return out;
  }

  /** The sum of counter {@code name}'s increments whose labels include {@code labels} ("key", "value", ...). */
  public long count(String name, String... labels) {
    return counters.stream().filter(p -> p.name().equals(name) && has(p, labels)).mapToLong(Point::value).sum();
  }

  /** Counter {@code name}'s sums by the value of label {@code by}. */
  public SortedMap<String, Long> countsBy(String name, String by) {
    SortedMap<String, Long> out = new TreeMap<>();
    counters.stream().filter(p -> p.name().equals(name))
        .forEach(p -> out.merge(String.valueOf(p.tags().get(by)), p.value(), Long::sum));
    return out;
  }

  /** Timer {@code name}'s values, in milliseconds, whose labels include {@code labels}. */
  public List<Long> timerMillis(String name, String... labels) {
    return timers.stream().filter(p -> p.name().equals(name) && has(p, labels)).map(p -> p.value() / 1_000_000L)
        .toList();
  }

  private static boolean has(Point p, String... labels) {
    for (int i = 0; i + 1 < labels.length; i += 2) {
      if (!labels[i + 1].equals(p.tags().get(labels[i]))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void reportCounter(String name, Map<String, String> tags, long value) {
    counters.add(new Point(name, new TreeMap<>(tags), value));
  }

  @Override
  public void reportGauge(String name, Map<String, String> tags, double value) {
    // Workflow code sets no gauges; the SDK's own are not read here.
  }

  @Override
  public void reportTimer(String name, Map<String, String> tags, Duration interval) {
    timers.add(new Point(name, new TreeMap<>(tags), interval.getNanos()));
  }

  @Override
  public void reportHistogramValueSamples(String name, Map<String, String> tags, Buckets buckets, double lower,
      double upper, long samples) {
    counters.add(new Point("histogram:" + name, new TreeMap<>(tags), samples));
  }

  @Override
  public void reportHistogramDurationSamples(String name, Map<String, String> tags, Buckets buckets, Duration lower,
      Duration upper, long samples) {
    counters.add(new Point("histogram:" + name, new TreeMap<>(tags), samples));
  }

  @Override
  public Capabilities capabilities() {
    return CapableOf.REPORTING_TAGGING;
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
