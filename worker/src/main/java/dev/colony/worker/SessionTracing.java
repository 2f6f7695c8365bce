package dev.colony.worker;

import dev.colony.secrets.Secrets;
import dev.colony.session.SessionRequest;
import dev.colony.session.SessionResult;
import dev.colony.session.impl.SessionTrace;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.unsafe.WorkflowUnsafe;

/**
 * One session, one trace: around the ant's {@code RunSession} activity, a root span
 * {@code colony.session} (colony, ant, session number, run id, engine; the outcome when the
 * activity's result comes), current while Temporal's tracing interceptor starts its
 * {@code StartActivity:RunSession} span, so that span, the activity's {@code RunActivity:RunSession}
 * on whichever worker runs it and the agent's {@code colony.agent} are in the session's trace.
 *
 * <p>It runs in workflow threads but adds no command and reads nothing that decides one: the span
 * is made only when the workflow is not replaying (a replay re-runs the call and makes nothing),
 * and it ends from the result promise's callback. Listed BEFORE Temporal's interceptor in the
 * factory's interceptors: the first worker interceptor's outbound calls are the outermost (see
 * {@link Tracing#workerInterceptors()}).
 */
final class SessionTracing extends WorkerInterceptorBase {
  static final String RUN_SESSION = "RunSession";

  private final Tracer tracer;
  private final Secrets secrets;

  SessionTracing(Tracer tracer, Secrets secrets) {
    this.tracer = tracer;
    this.secrets = secrets;
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public void init(WorkflowOutboundCallsInterceptor outboundCalls) {
        super.init(new Outbound(outboundCalls));
      }
    };
  }

  private final class Outbound extends WorkflowOutboundCallsInterceptorBase {
    Outbound(WorkflowOutboundCallsInterceptor next) {
      super(next);
    }

    @Override
    public <R> ActivityOutput<R> executeActivity(ActivityInput<R> input) {
      if (!RUN_SESSION.equals(input.getActivityName()) || input.getArgs().length != 1
          || !(input.getArgs()[0] instanceof SessionRequest request) || request.spec() == null
          || WorkflowUnsafe.isReplaying()) {
        return super.executeActivity(input);
      }
      String runId = Workflow.getInfo().getRunId();
      Span root = tracer.spanBuilder(SessionTrace.SESSION_SPAN).setNoParent().setSpanKind(SpanKind.INTERNAL)
          .setAttribute(SessionTrace.COLONY, SessionTrace.value(secrets::redact, request.spec().colony()))
          .setAttribute(SessionTrace.ANT, SessionTrace.value(secrets::redact, request.spec().name()))
          .setAttribute(SessionTrace.SESSION, (long) request.session())
          .setAttribute(SessionTrace.RUN_ID, SessionTrace.value(secrets::redact, runId))
          .setAttribute(SessionTrace.ENGINE, request.spec().engine().configName())
          .startSpan();
      ActivityOutput<R> output;
      try (Scope ignored = root.makeCurrent()) {
        output = super.executeActivity(input);
      } catch (RuntimeException | Error e) {
        root.setAttribute(SessionTrace.OUTCOME, "failed");
        root.end();
        throw e;
      }
      output.getResult().handle((result, failure) -> {
        root.setAttribute(SessionTrace.OUTCOME, outcome(result, failure));
        root.end();
        return null;
      });
      return output;
    }
  }

  /** A closed set: the outcome's name, or how the activity did not return one. */
  static String outcome(Object result, RuntimeException failure) {
    if (failure != null) {
      Throwable cause = failure instanceof ActivityFailure f ? f.getCause() : failure;
      return cause instanceof CanceledFailure || failure instanceof CanceledFailure ? "cancelled" : "failed";
    }
    return result instanceof SessionResult r ? SessionTrace.outcome(r) : "none";
  }
}
