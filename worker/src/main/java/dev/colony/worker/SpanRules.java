package dev.colony.worker;

import dev.colony.secrets.Secrets;
import dev.colony.session.impl.SessionTrace;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.DelegatingSpanData;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import io.temporal.workflow.unsafe.WorkflowUnsafe;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * What every span of a Colony process goes through, whichever code made it (Colony's or Temporal's
 * interceptors): no span from a workflow's replay ({@link #replayAware}); the run and the session
 * carried from a span to its children ({@link #sessionAttributes}); and, on the way out, only
 * allow-listed attributes, each string through the worker's redactor ({@link #hygienic}).
 */
final class SpanRules {
  private SpanRules() {}

  /** Temporal's tracing interceptor's tags (ids only; its error logs are cut to their type). */
  static final AttributeKey<String> TEMPORAL_RUN_ID = AttributeKey.stringKey("runId");
  static final Set<String> TEMPORAL_KEYS = Set.of("workflowId", "runId", "activityId", "parentWorkflowId",
      "parentRunId", "evicted", "failed", "error");
  /** Of an event, only these attributes leave (an exception's message could hold anything). */
  static final Set<String> EVENT_KEYS = Set.of("exception.type", "event");

  static boolean allowed(String key) {
    return SessionTrace.KEYS.contains(key) || TEMPORAL_KEYS.contains(key);
  }

  /**
   * Drops every span begun in a workflow thread while the workflow replays: Temporal's interceptor
   * opens {@code RunWorkflow} and {@code HandleSignal} spans again on each replay; the first time
   * they ran they were recorded already.
   */
  static Sampler replayAware(Sampler delegate) {
    return new Sampler() {
      @Override
      public SamplingResult shouldSample(Context parentContext, String traceId, String name, SpanKind spanKind,
          Attributes attributes, List<io.opentelemetry.sdk.trace.data.LinkData> parentLinks) {
        if (WorkflowUnsafe.isWorkflowThread() && WorkflowUnsafe.isReplaying()) {
          return SamplingResult.drop();
        }
        return delegate.shouldSample(parentContext, traceId, name, spanKind, attributes, parentLinks);
      }

      @Override
      public String getDescription() {
        return "ReplayAware{" + delegate.getDescription() + "}";
      }
    };
  }

  /**
   * Gives each span the run id and the session its parent has (when the parent is a span of this
   * process), else the run id Temporal's interceptor tagged it with.
   */
  static SpanProcessor sessionAttributes() {
    return new SpanProcessor() {
      @Override
      public void onStart(Context parentContext, ReadWriteSpan span) {
        if (Span.fromContext(parentContext) instanceof ReadableSpan parent) {
          copy(parent, span, SessionTrace.RUN_ID);
          copy(parent, span, SessionTrace.SESSION);
        }
        if (span.getAttribute(SessionTrace.RUN_ID) == null) {
          String runId = span.getAttribute(TEMPORAL_RUN_ID);
          if (runId != null) {
            span.setAttribute(SessionTrace.RUN_ID, runId);
          }
        }
      }

      private <T> void copy(ReadableSpan from, ReadWriteSpan to, AttributeKey<T> key) {
        T value = from.getAttribute(key);
        if (value != null && to.getAttribute(key) == null) {
          to.setAttribute(key, value);
        }
      }

      @Override
      public boolean isStartRequired() {
        return true;
      }

      @Override
      public void onEnd(ReadableSpan span) {
      }

      @Override
      public boolean isEndRequired() {
        return false;
      }
    };
  }

  /** {@code exporter} given only allow-listed attributes, masked and bounded; events cut to their type. */
  static SpanExporter hygienic(SpanExporter exporter, Secrets secrets) {
    return new SpanExporter() {
      @Override
      public CompletableResultCode export(Collection<SpanData> spans) {
        List<SpanData> clean = new ArrayList<>(spans.size());
        for (SpanData s : spans) {
          clean.add(clean(s, secrets));
        }
        return exporter.export(clean);
      }

      @Override
      public CompletableResultCode flush() {
        return exporter.flush();
      }

      @Override
      public CompletableResultCode shutdown() {
        return exporter.shutdown();
      }

      @Override
      public String toString() {
        return "Hygienic{" + exporter + "}";
      }
    };
  }

  static SpanData clean(SpanData span, Secrets secrets) {
    Attributes attributes = filter(span.getAttributes(), secrets, null);
    List<EventData> events = new ArrayList<>();
    for (EventData e : span.getEvents()) {
      events.add(EventData.create(e.getEpochNanos(), e.getName(), filter(e.getAttributes(), secrets, EVENT_KEYS)));
    }
    // The status keeps its code; its description (an exception's message) does not leave.
    StatusData status = span.getStatus().getStatusCode() == StatusCode.ERROR ? StatusData.error() : span.getStatus();
    return new DelegatingSpanData(span) {
      @Override
      public Attributes getAttributes() {
        return attributes;
      }

      @Override
      public int getTotalAttributeCount() {
        return attributes.size();
      }

      @Override
      public List<EventData> getEvents() {
        return events;
      }

      @Override
      public int getTotalRecordedEvents() {
        return events.size();
      }

      @Override
      public StatusData getStatus() {
        return status;
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static Attributes filter(Attributes in, Secrets secrets, Set<String> only) {
    AttributesBuilder out = Attributes.builder();
    in.forEach((key, value) -> {
      if (only == null ? !allowed(key.getKey()) : !only.contains(key.getKey())) {
        return;
      }
      switch (key.getType()) {
        case STRING -> out.put((AttributeKey<String>) key, SessionTrace.value(secrets::redact, (String) value));
        case BOOLEAN, LONG, DOUBLE -> out.put((AttributeKey<Object>) key, value);
        default -> { } // arrays: none of ours; dropped
      }
    });
    return out.build();
  }
}
