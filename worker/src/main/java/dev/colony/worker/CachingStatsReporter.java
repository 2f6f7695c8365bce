package dev.colony.worker;

import com.uber.m3.tally.Buckets;
import com.uber.m3.tally.Capabilities;
import com.uber.m3.tally.StatsReporter;
import com.uber.m3.util.Duration;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The Temporal SDK's Tally meters into Micrometer, as {@link MicrometerClientStatsReporter} does, but
 * with each counter and timer looked up once: the SDK's reporter builds and registers a meter (tags
 * sorted, every registry's filters run, through the composite) at every timer it records, which is
 * several times a workflow or activity task and every call to Temporal, and cost a worker about a
 * fifth more CPU per session (bench/OBSERVABILITY.md). Here a meter is found by its name and tag map
 * in a map after the first time. The meters are the same (same names, tags, and a timer publishes a
 * histogram, whose buckets {@link Metrics} decides); gauges and the rest go to the SDK's reporter.
 */
final class CachingStatsReporter implements StatsReporter {
  private record Key(String name, Map<String, String> tags) {}

  private final MeterRegistry registry;
  private final MicrometerClientStatsReporter sdk;
  private final Map<Key, Counter> counters = new ConcurrentHashMap<>();
  private final Map<Key, Timer> timers = new ConcurrentHashMap<>();

  CachingStatsReporter(MeterRegistry registry) {
    this.registry = registry;
    this.sdk = new MicrometerClientStatsReporter(registry);
  }

  @Override
  public void reportCounter(String name, Map<String, String> tagsOrNull, long value) {
    Map<String, String> tags = tagsOrNull == null ? Map.of() : tagsOrNull;
    Counter c = counters.get(new Key(name, tags));
    if (c == null) {
      c = counters.computeIfAbsent(new Key(name, Map.copyOf(tags)), k -> registry.counter(k.name(), tags(k.tags())));
    }
    c.increment(value);
  }

  @Override
  public void reportTimer(String name, Map<String, String> tagsOrNull, Duration interval) {
    Map<String, String> tags = tagsOrNull == null ? Map.of() : tagsOrNull; // a root scope's are null
    Timer t = timers.get(new Key(name, tags)); // Tally hands the scope's own (immutable) map each time
    if (t == null) {
      t = timers.computeIfAbsent(new Key(name, Map.copyOf(tags)), k -> Timer.builder(k.name()).tags(tags(k.tags()))
          .publishPercentileHistogram(true).register(registry));
    }
    t.record(interval.getNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void reportGauge(String name, Map<String, String> tags, double value) {
    sdk.reportGauge(name, tags, value);
  }

  @Override
  @SuppressWarnings("deprecation")
  public void reportHistogramValueSamples(String name, Map<String, String> tags, Buckets buckets,
      double bucketLowerBound, double bucketUpperBound, long samples) {
    sdk.reportHistogramValueSamples(name, tags, buckets, bucketLowerBound, bucketUpperBound, samples);
  }

  @Override
  @SuppressWarnings("deprecation")
  public void reportHistogramDurationSamples(String name, Map<String, String> tags, Buckets buckets,
      Duration bucketLowerBound, Duration bucketUpperBound, long samples) {
    sdk.reportHistogramDurationSamples(name, tags, buckets, bucketLowerBound, bucketUpperBound, samples);
  }

  @Override
  public Capabilities capabilities() {
    return sdk.capabilities();
  }

  @Override
  public void flush() {
    sdk.flush();
  }

  @Override
  public void close() {
    sdk.close();
  }

  private static List<Tag> tags(Map<String, String> tags) {
    List<Tag> out = new ArrayList<>(tags.size());
    tags.forEach((k, v) -> out.add(Tag.of(k, v)));
    return out;
  }

  /** How many meters it looked up (tests). */
  int meters() {
    return counters.size() + timers.size();
  }
}
