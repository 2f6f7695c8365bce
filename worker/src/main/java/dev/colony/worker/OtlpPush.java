package dev.colony.worker;

import dev.colony.text.Printable;
import io.micrometer.core.ipc.http.HttpUrlConnectionSender;
import io.micrometer.registry.otlp.AggregationTemporality;
import io.micrometer.registry.otlp.CompressionMode;
import io.micrometer.registry.otlp.HistogramFlavor;
import io.micrometer.registry.otlp.OtlpConfig;
import io.micrometer.registry.otlp.OtlpHttpMetricsSender;
import io.micrometer.registry.otlp.OtlpMetricsSender;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * OTLP push of the process's metrics, as the standard OpenTelemetry variables ask for it
 * (<a href="https://opentelemetry.io/docs/specs/otel/protocol/exporter/">OTLP exporter</a>,
 * <a href="https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/">SDK
 * variables</a>). Read from an environment handed in ({@link #fromEnv}), never from the process's
 * own: Micrometer's {@code OtlpConfig} reads {@code System.getenv()} in its defaults, and every one
 * of those defaults is overridden by {@link #config()}, so each variable is read once, here.
 *
 * <p>On when {@code OTEL_EXPORTER_OTLP_METRICS_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_ENDPOINT} is
 * set, unless {@code OTEL_METRICS_EXPORTER} leaves {@code otlp} out (e.g. {@code none}) or
 * {@code OTEL_SDK_DISABLED} is {@code true}. Only OTLP/HTTP with protobuf bodies is spoken.
 *
 * <p>The headers may hold a token: they are never printed ({@link #toString()} shows their names
 * only), a malformed one is told by its position, and a failed push is told with every header
 * value masked ({@link Sender}).
 */
public final class OtlpPush {
  /** A variable with a value Colony cannot use: the message is one line naming it (never a header's value). */
  public static final class Invalid extends IllegalArgumentException {
    Invalid(String message) {
      super(message);
    }
  }

  static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  private static final List<String> EXPORTERS = List.of("otlp", "prometheus", "console", "logging", "logging-otlp", "none");

  private final URI url;
  private final String urlVariable;
  private final Map<String, String> headers;
  private final Duration interval;
  private final Duration timeout;
  private final Map<String, String> resource;
  private final AggregationTemporality temporality;
  private final CompressionMode compression;
  private final HistogramFlavor histograms;

  private OtlpPush(URI url, String urlVariable, Map<String, String> headers, Duration interval, Duration timeout,
      Map<String, String> resource, AggregationTemporality temporality, CompressionMode compression,
      HistogramFlavor histograms) {
    this.url = url;
    this.urlVariable = urlVariable;
    this.headers = headers;
    this.interval = interval;
    this.timeout = timeout;
    this.resource = resource;
    this.temporality = temporality;
    this.compression = compression;
    this.histograms = histograms;
  }

  /**
   * The push the variables in {@code env} ask for, or null when they ask for none.
   *
   * @param serviceName the {@code service.name} unless {@code OTEL_SERVICE_NAME} or
   *     {@code OTEL_RESOURCE_ATTRIBUTES} gives one (e.g. {@code colony-worker})
   * @throws Invalid a variable's value is malformed: one line naming the variable
   */
  public static OtlpPush fromEnv(Map<String, String> env, String serviceName) {
    if ("true".equalsIgnoreCase(get(env, "OTEL_SDK_DISABLED"))) {
      return null;
    }
    if (!otlpExporter(get(env, "OTEL_METRICS_EXPORTER"))) {
      return null;
    }
    String metricsEndpoint = get(env, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
    String endpoint = get(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
    URI url;
    String urlVariable;
    if (!metricsEndpoint.isEmpty()) {
      urlVariable = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";
      url = url(urlVariable, metricsEndpoint); // the signal's own endpoint is used as given
    } else if (!endpoint.isEmpty()) {
      urlVariable = "OTEL_EXPORTER_OTLP_ENDPOINT";
      URI base = url(urlVariable, endpoint);
      String s = base.toString();
      url = URI.create(s + (s.endsWith("/") ? "" : "/") + "v1/metrics"); // the base's path, then v1/metrics
    } else {
      return null;
    }
    String protocolVariable = env.containsKey("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")
        ? "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
    String protocol = get(env, protocolVariable);
    if (!protocol.isEmpty() && !protocol.equals("http/protobuf")) {
      throw new Invalid("invalid " + protocolVariable + " '" + Printable.line(protocol, 40) + "' for metrics: Colony "
          + "pushes metrics over OTLP/HTTP with protobuf only (http/protobuf, usually port 4318); set "
          + "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=http/protobuf");
    }
    Map<String, String> headers = new LinkedHashMap<>(pairs(env, "OTEL_EXPORTER_OTLP_HEADERS", false));
    headers.putAll(pairs(env, "OTEL_EXPORTER_OTLP_METRICS_HEADERS", false)); // the signal's own win
    Duration interval = millis(env, "OTEL_METRIC_EXPORT_INTERVAL", DEFAULT_INTERVAL);
    String timeoutVariable = env.containsKey("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT")
        ? "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT" : "OTEL_EXPORTER_OTLP_TIMEOUT";
    Duration timeout = millis(env, timeoutVariable, DEFAULT_TIMEOUT);
    Map<String, String> resource = new LinkedHashMap<>(pairs(env, "OTEL_RESOURCE_ATTRIBUTES", true));
    String service = get(env, "OTEL_SERVICE_NAME");
    if (!service.isEmpty()) {
      resource.put("service.name", service); // the spec: OTEL_SERVICE_NAME wins over the attributes'
    } else {
      resource.putIfAbsent("service.name", serviceName);
    }
    AggregationTemporality temporality = switch (lower(env, "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE")) {
      case "", "cumulative" -> AggregationTemporality.CUMULATIVE;
      case "delta" -> AggregationTemporality.DELTA;
      default -> throw new Invalid(invalid(env, "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
          "give cumulative (the default) or delta"));
    };
    String compressionVariable = env.containsKey("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION")
        ? "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION" : "OTEL_EXPORTER_OTLP_COMPRESSION";
    CompressionMode compression = switch (lower(env, compressionVariable)) {
      case "", "none" -> CompressionMode.NONE;
      case "gzip" -> CompressionMode.GZIP;
      default -> throw new Invalid(invalid(env, compressionVariable, "give none (the default) or gzip"));
    };
    HistogramFlavor histograms = switch (lower(env, "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION")) {
      case "", "explicit_bucket_histogram" -> HistogramFlavor.EXPLICIT_BUCKET_HISTOGRAM;
      case "base2_exponential_bucket_histogram" -> HistogramFlavor.BASE2_EXPONENTIAL_BUCKET_HISTOGRAM;
      default -> throw new Invalid(invalid(env, "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION",
          "give explicit_bucket_histogram (the default) or base2_exponential_bucket_histogram"));
    };
    return new OtlpPush(url, urlVariable, Collections.unmodifiableMap(headers), interval, timeout,
        Collections.unmodifiableMap(resource), temporality, compression, histograms);
  }

  /** Whether {@code OTEL_METRICS_EXPORTER} (a comma-separated list; unset: otlp) names otlp. */
  private static boolean otlpExporter(String value) {
    if (value.isEmpty()) {
      return true;
    }
    List<String> names = java.util.Arrays.stream(value.split(",")).map(s -> s.strip().toLowerCase(Locale.ROOT))
        .filter(s -> !s.isEmpty()).toList();
    for (String name : names) {
      if (!EXPORTERS.contains(name)) {
        throw new Invalid("invalid OTEL_METRICS_EXPORTER '" + Printable.line(value, 80) + "': give otlp (push to "
            + "OTEL_EXPORTER_OTLP_ENDPOINT), none (no push), or leave it unset");
      }
    }
    if (names.contains("none") && names.size() > 1) {
      throw new Invalid("invalid OTEL_METRICS_EXPORTER '" + Printable.line(value, 80) + "': none goes alone");
    }
    return names.isEmpty() || names.contains("otlp");
  }

  private static URI url(String variable, String value) {
    String problem = "give the http:// or https:// URL of an OTLP/HTTP receiver (for example http://127.0.0.1:4318)";
    URI uri;
    try {
      uri = new URI(value);
    } catch (URISyntaxException e) {
      throw new Invalid("invalid " + variable + " '" + shown(value) + "': " + problem);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getHost().isEmpty()
        || uri.getRawFragment() != null) {
      throw new Invalid("invalid " + variable + " '" + shown(value) + "': " + problem);
    }
    return uri;
  }

  /**
   * {@code key=value,key=value} (the values URL-encoded, as the spec says; a {@code +} is kept).
   * A malformed entry is told by its position only when {@code showValues} is false (headers).
   */
  private static Map<String, String> pairs(Map<String, String> env, String variable, boolean showValues) {
    String value = get(env, variable);
    Map<String, String> out = new LinkedHashMap<>();
    if (value.isEmpty()) {
      return out;
    }
    String[] entries = value.split(",", -1);
    for (int i = 0; i < entries.length; i++) {
      String entry = entries[i].strip();
      if (entry.isEmpty()) {
        continue;
      }
      int eq = entry.indexOf('=');
      String which = showValues ? "'" + Printable.line(entry, 80) + "'"
          : "entry " + (i + 1) + " (values not shown: they may hold a token)";
      if (eq <= 0) {
        throw new Invalid("invalid " + variable + ": " + which + " is not key=value (key=value,key=value, "
            + "values URL-encoded)");
      }
      try {
        out.put(decode(entry.substring(0, eq).strip()), decode(entry.substring(eq + 1).strip()));
      } catch (IllegalArgumentException e) {
        throw new Invalid("invalid " + variable + ": " + which + " is not URL-encoded (a % must start %XX)");
      }
    }
    return out;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static Duration millis(Map<String, String> env, String variable, Duration otherwise) {
    String value = get(env, variable);
    if (value.isEmpty()) {
      return otherwise;
    }
    long ms;
    try {
      ms = Long.parseLong(value);
    } catch (NumberFormatException e) {
      ms = 0;
    }
    if (ms <= 0) {
      throw new Invalid(invalid(env, variable, "give milliseconds, a whole number above 0 (default "
          + otherwise.toMillis() + ")"));
    }
    return Duration.ofMillis(ms);
  }

  private static String invalid(Map<String, String> env, String variable, String what) {
    return "invalid " + variable + " '" + Printable.line(get(env, variable), 40) + "': " + what;
  }

  private static String get(Map<String, String> env, String variable) {
    String v = env.get(variable);
    return v == null ? "" : v.strip();
  }

  private static String lower(Map<String, String> env, String variable) {
    return get(env, variable).toLowerCase(Locale.ROOT);
  }

  /** A URL as it may be printed: the user and password part (user:secret@) masked, on one line. */
  static String shown(String url) {
    return Printable.line(url.replaceAll("(?<=//)[^/@?#]*@", "****@"), 120);
  }

  /** Where the metrics go (the receiver's {@code /v1/metrics}). */
  public URI url() {
    return url;
  }

  /** The variable the URL came from. */
  public String urlVariable() {
    return urlVariable;
  }

  /** How often the metrics are pushed. */
  public Duration interval() {
    return interval;
  }

  /** The resource attributes every push carries ({@code service.name} among them). */
  public Map<String, String> resource() {
    return resource;
  }

  /** The names of the headers every push carries (their values are never handed out but to the sender). */
  public java.util.Set<String> headerNames() {
    return headers.keySet();
  }

  /** One line for the operator: where, how often; no header value. */
  @Override
  public String toString() {
    return "metrics pushed (OTLP) to " + shown(url.toString()) + " every " + seconds(interval)
        + (headers.isEmpty() ? "" : ", headers " + String.join(", ", headers.keySet()));
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  /**
   * Micrometer's configuration for this push: every default that reads the process's environment
   * (url, step, headers, resource attributes, temporality, compression, histogram flavour) is
   * overridden, so none is read twice. Durations are in seconds, as on the Prometheus side.
   */
  OtlpConfig config() {
    return new OtlpConfig() {
      @Override
      public String get(String key) {
        return null;
      }

      @Override
      public String url() {
        return url.toString();
      }

      @Override
      public Duration step() {
        return interval;
      }

      @Override
      public Map<String, String> headers() {
        return headers;
      }

      @Override
      public Map<String, String> resourceAttributes() {
        return resource;
      }

      @Override
      public AggregationTemporality aggregationTemporality() {
        return temporality;
      }

      @Override
      public CompressionMode compressionMode() {
        return compression;
      }

      @Override
      public HistogramFlavor histogramFlavor() {
        return histograms;
      }

      @Override
      public TimeUnit baseTimeUnit() {
        return TimeUnit.SECONDS;
      }
    };
  }

  /** The sender: Micrometer's OTLP/HTTP one, its failures told in one line with every header value masked. */
  OtlpMetricsSender sender() {
    Duration connect = timeout.compareTo(Duration.ofSeconds(5)) < 0 ? timeout : Duration.ofSeconds(5);
    return new Sender(new OtlpHttpMetricsSender(new HttpUrlConnectionSender(connect, timeout)), this);
  }

  /** A value with every header value (and the URL's user part) masked. */
  String mask(String text) {
    String out = text == null ? "" : text;
    for (String v : headers.values()) {
      if (!v.isEmpty()) {
        out = out.replace(v, "****");
      }
      for (String part : v.split("\\s+")) {
        if (part.length() >= 8) { // the token of "Bearer <token>", "Basic <token>" alone
          out = out.replace(part, "****");
        }
      }
    }
    return out.replaceAll("(?<=//)[^/@?#\\s]*@", "****@");
  }

  /**
   * Tells a failing push once (one line, no stack trace, headers masked) and its recovery once,
   * instead of Micrometer's warning with a stack trace at every step.
   */
  static final class Sender implements OtlpMetricsSender {
    private final OtlpMetricsSender delegate;
    private final OtlpPush push;
    private final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(OtlpPush.class);
    private volatile boolean failing;

    Sender(OtlpMetricsSender delegate, OtlpPush push) {
      this.delegate = delegate;
      this.push = push;
    }

    @Override
    public void send(Request request) {
      try {
        delegate.send(request);
        if (failing) {
          failing = false;
          log.info("OTLP metrics push to {} works again", shown(push.url.toString()));
        }
      } catch (Exception e) {
        if (!failing) {
          failing = true;
          log.warn("OTLP metrics push to {} failed: {} (tried again every {}; told again once it works)",
              shown(push.url.toString()), Printable.line(push.mask(e.getClass().getSimpleName() + ": " + e.getMessage()), 300),
              seconds(push.interval));
        }
      }
    }
  }
}
