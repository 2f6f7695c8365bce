package dev.colony.session.impl;

import dev.colony.session.SessionResult;
import dev.colony.spec.AntSpec;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * A session's part of its trace on the worker that runs the agent: the {@code colony.agent} span
 * (a child of Temporal's {@code RunActivity:RunSession}, itself under the ant's {@code colony.session}
 * root), and its W3C context handed to the agent as {@code TRACEPARENT} (and {@code TRACESTATE}).
 * With tracing off (no interceptor, the API's no-op tracer) the span is invalid, nothing is
 * recorded and the agent gets no variable.
 *
 * <p>Attributes are allow-listed ({@link #KEYS}): only the colony's own names and numbers, each
 * string through the worker's redactor; never text an agent wrote.
 */
public final class SessionTrace implements AutoCloseable {
  /** The instrumentation scope of Colony's own spans. */
  public static final String SCOPE = "dev.colony";
  public static final String AGENT_SPAN = "colony.agent";
  public static final String SESSION_SPAN = "colony.session";

  public static final AttributeKey<String> COLONY = AttributeKey.stringKey("colony.name");
  public static final AttributeKey<String> ANT = AttributeKey.stringKey("colony.ant");
  public static final AttributeKey<Long> SESSION = AttributeKey.longKey("colony.session");
  public static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("colony.run_id");
  public static final AttributeKey<String> ENGINE = AttributeKey.stringKey("colony.engine");
  public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("colony.outcome");
  public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("colony.attempt");
  /** Every attribute key Colony sets on a span. */
  public static final Set<String> KEYS = Set.of(COLONY.getKey(), ANT.getKey(), SESSION.getKey(), RUN_ID.getKey(),
      ENGINE.getKey(), OUTCOME.getKey(), ATTEMPT.getKey());
  /** How long an attribute's text may be (a name or an id; longer is cut). */
  public static final int MAX_VALUE_CHARS = 200;

  private static final SessionTrace NONE = new SessionTrace(Span.getInvalid(), s -> s);

  private final Span span;
  private final UnaryOperator<String> mask;

  private SessionTrace(Span span, UnaryOperator<String> mask) {
    this.span = span;
    this.mask = mask;
  }

  /**
   * Starts the {@code colony.agent} span under the current one (the activity's), and marks the
   * activity's span with the run and the session.
   *
   * @param mask the worker's redactor ({@code Secrets::redact})
   */
  public static SessionTrace start(Tracer tracer, AntSpec spec, int session, String runId, int attempt,
      UnaryOperator<String> mask) {
    Span activity = Span.current();
    if (!activity.getSpanContext().isValid() && !activity.isRecording()) {
      // No trace reached this activity: tracing is off, or the ant's worker runs without it.
      return NONE;
    }
    if (activity.isRecording()) {
      activity.setAttribute(RUN_ID, value(mask, runId));
      activity.setAttribute(SESSION, (long) session);
    }
    Span span = tracer.spanBuilder(AGENT_SPAN).setParent(Context.current()).setSpanKind(SpanKind.INTERNAL)
        .setAttribute(COLONY, value(mask, spec.colony()))
        .setAttribute(ANT, value(mask, spec.name()))
        .setAttribute(SESSION, (long) session)
        .setAttribute(RUN_ID, value(mask, runId))
        .setAttribute(ENGINE, spec.engine().configName())
        .setAttribute(ATTEMPT, (long) attempt)
        .startSpan();
    return new SessionTrace(span, mask);
  }

  /** A name or an id as an attribute: masked, one line, bounded. */
  public static String value(UnaryOperator<String> mask, String s) {
    if (s == null) {
      return "";
    }
    String v = mask.apply(s).replaceAll("\\p{Cntrl}", " ");
    return v.length() > MAX_VALUE_CHARS ? v.substring(0, MAX_VALUE_CHARS) : v;
  }

  /** The outcome's name as an attribute ({@code success}, {@code rate_limit}, ...): a closed set. */
  public static String outcome(SessionResult result) {
    return result == null || result.outcome() == null ? "none" : result.outcome().name().toLowerCase(Locale.ROOT);
  }

  /** {@code TRACEPARENT} (and {@code TRACESTATE} when it has entries) for the agent; empty without a trace. */
  public Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    SpanContext context = span.getSpanContext();
    if (!context.isValid()) {
      return env;
    }
    W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), env, (carrier, key, value) -> {
      if (carrier != null && value != null && !value.isEmpty()) {
        carrier.put(key.toUpperCase(Locale.ROOT), value);
      }
    });
    return env;
  }

  /** How the session ended, on the span. */
  public void ended(SessionResult result) {
    span.setAttribute(OUTCOME, outcome(result));
  }

  /** Ended without a result (cancelled, interrupted, failed). */
  public void ended(String outcome) {
    span.setAttribute(OUTCOME, value(mask, outcome));
  }

  @Override
  public void close() {
    span.end();
  }
}
