package dev.colony.worker;

import dev.colony.secrets.Secrets;
import dev.colony.session.impl.SessionTrace;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.opentracingshim.OpenTracingShim;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.interceptors.WorkflowClientInterceptor;
import io.temporal.opentracing.OpenTracingClientInterceptor;
import io.temporal.opentracing.OpenTracingOptions;
import io.temporal.opentracing.OpenTracingWorkerInterceptor;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The process's traces (docs/observability.md#traces): off, with no interceptor and no SDK, unless
 * the standard OpenTelemetry variables ask for them ({@code OTEL_TRACES_EXPORTER} other than
 * {@code none}, or an {@code OTEL_EXPORTER_OTLP_ENDPOINT} / {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT});
 * then the OpenTelemetry SDK, configured from every {@code OTEL_*} variable (autoconfigure), exports
 * over OTLP/HTTP with the JDK's client, and Temporal's tracing interceptors (OpenTracing, through
 * OpenTelemetry's shim) plus Colony's {@link SessionTracing} run on the client and the workers.
 * Every span passes {@link SpanRules}.
 */
public final class Tracing implements AutoCloseable {
  /** No traces: no interceptor, the API's no-op tracer. */
  public static final Tracing OFF = new Tracing(null, OpenTelemetry.noop(), Secrets.processRegistry());
  private static volatile Tracing process = OFF;

  /** Null when off. */
  private final OpenTelemetrySdk sdk;
  private final OpenTelemetry otel;
  private final Secrets secrets;
  private final OpenTracingOptions tracingOptions;

  private Tracing(OpenTelemetrySdk sdk, OpenTelemetry otel, Secrets secrets) {
    this.sdk = sdk;
    this.otel = otel;
    this.secrets = secrets;
    this.tracingOptions = sdk == null ? null
        : OpenTracingOptions.newBuilder().setTracer(OpenTracingShim.createTracerShim(otel)).build();
  }

  /**
   * Turns the process's traces on when its environment asks for them (once; later calls return the
   * same). Called by the commands that run workers, before they connect.
   *
   * @param defaultServiceName the service name unless {@code OTEL_SERVICE_NAME} says another
   * @throws IllegalArgumentException one line naming the bad setting
   */
  public static synchronized Tracing install(String defaultServiceName) {
    if (process == OFF) {
      process = fromEnvironment(System.getenv(), defaultServiceName, Secrets.process());
    }
    return process;
  }

  /** The process's tracing: {@link #OFF} unless {@link #install} turned it on. */
  public static Tracing process() {
    return process;
  }

  /** Whether these variables ask for traces. */
  static boolean wanted(Map<String, String> env) {
    if ("true".equalsIgnoreCase(trim(env.get("OTEL_SDK_DISABLED")))) {
      return false;
    }
    String exporter = trim(env.get("OTEL_TRACES_EXPORTER"));
    if (!exporter.isEmpty()) {
      return !exporter.equalsIgnoreCase("none");
    }
    return !trim(env.get("OTEL_EXPORTER_OTLP_ENDPOINT")).isEmpty()
        || !trim(env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")).isEmpty();
  }

  private static String trim(String s) {
    return s == null ? "" : s.trim();
  }

  /**
   * From the {@code OTEL_*} variables (autoconfigure reads the process's own; {@code env} decides
   * whether at all). Colony's defaults, each overridden by its variable: the service name, the
   * OTLP exporter for traces over {@code http/protobuf} (the JDK sender speaks HTTP only); never
   * a metrics or logs exporter of its own (the metrics are Micrometer's: {@code --metrics-port}, OtlpPush).
   */
  static Tracing fromEnvironment(Map<String, String> env, String defaultServiceName, Secrets secrets) {
    if (!wanted(env)) {
      return OFF;
    }
    try {
      OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
          .addPropertiesSupplier(() -> Map.of(
              "otel.service.name", defaultServiceName,
              "otel.traces.exporter", "otlp",
              "otel.exporter.otlp.protocol", "http/protobuf"))
          // Never the SDK's metrics or logs, whatever OTEL_METRICS_EXPORTER says: that variable is
          // for Colony's own OTLP push of its Micrometer meters (OtlpPush), not this SDK.
          .addPropertiesCustomizer(config -> Map.of("otel.metrics.exporter", "none", "otel.logs.exporter", "none"))
          .addSamplerCustomizer((sampler, config) -> SpanRules.replayAware(sampler))
          .addSpanExporterCustomizer((exporter, config) -> SpanRules.hygienic(exporter, secrets))
          .addTracerProviderCustomizer((builder, config) -> builder.addSpanProcessor(SpanRules.sessionAttributes()))
          // closed by the worker's own shutdown, after its sessions had their grace (close())
          .disableShutdownHook()
          .build()
          .getOpenTelemetrySdk();
      return new Tracing(sdk, sdk, secrets);
    } catch (ConfigurationException e) {
      throw new IllegalArgumentException("traces: " + told(e.getMessage()) + " (check the OTEL_* variables)", e);
    }
  }

  /**
   * The SDK's complaint about a variable, without its value when the variable holds headers (the
   * parser repeats the whole value, a collector's token with it), and masked anyway.
   */
  static String told(String message) {
    String m = message == null ? "unexpected configuration error" : message;
    if (m.toLowerCase(java.util.Locale.ROOT).contains("header")) {
      int eq = m.indexOf('=');
      m = (eq >= 0 ? m.substring(0, eq) : m).strip()
          + ": not a list of key=value pairs separated by commas (its value is not shown)";
    }
    return Secrets.process().redact(m);
  }

  /** Traces to {@code exporter}, each span as it ends (tests). */
  public static Tracing to(SpanExporter exporter, Secrets secrets) {
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setSampler(SpanRules.replayAware(Sampler.parentBased(Sampler.alwaysOn())))
        .addSpanProcessor(SpanRules.sessionAttributes())
        .addSpanProcessor(SimpleSpanProcessor.create(SpanRules.hygienic(exporter, secrets)))
        .build();
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(provider)
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
    return new Tracing(sdk, sdk, secrets);
  }

  public boolean on() {
    return sdk != null;
  }

  /** Colony's tracer (the no-op one when off). */
  public Tracer tracer() {
    return otel.getTracer(SessionTrace.SCOPE);
  }

  /**
   * For a worker factory: Colony's session root first, then Temporal's. The first interceptor's
   * outbound calls are the outermost, so {@code colony.session} is current when Temporal's starts
   * {@code StartActivity:RunSession}. Empty when off.
   */
  public WorkerInterceptor[] workerInterceptors() {
    if (!on()) {
      return new WorkerInterceptor[0];
    }
    return new WorkerInterceptor[] {new SessionTracing(tracer(), secrets), new OpenTracingWorkerInterceptor(tracingOptions)};
  }

  /** For a workflow client: Temporal's (a start or a signal carries its context). Empty when off. */
  public WorkflowClientInterceptor[] clientInterceptors() {
    if (!on()) {
      return new WorkflowClientInterceptor[0];
    }
    return new WorkflowClientInterceptor[] {new OpenTracingClientInterceptor(tracingOptions)};
  }

  /** Exports what is still buffered and stops (a few seconds at most). */
  @Override
  public void close() {
    if (sdk != null) {
      sdk.shutdown().join(5, TimeUnit.SECONDS);
    }
  }
}
