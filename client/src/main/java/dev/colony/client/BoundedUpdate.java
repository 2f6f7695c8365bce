package dev.colony.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage;
import io.temporal.api.update.v1.Input;
import io.temporal.api.update.v1.Meta;
import io.temporal.api.update.v1.Request;
import io.temporal.api.update.v1.WaitPolicy;
import io.temporal.api.workflowservice.v1.UpdateWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.UpdateWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.common.converter.DataConverter;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One update of a running workflow that a person waits for: applied by a worker and answered, or
 * given up after {@link #within()} (the SDK's own update call waits for a worker without end). Every
 * surface that changes a task or a merge queue goes through it, so each says the same four things
 * the same way: {@link NoWorker}, {@link NotRunning} (read by {@link Rpc#notFound}), {@link Refused} (the validator's sentence),
 * {@link Unreachable}.
 *
 * <p>It is the raw {@code UpdateWorkflowExecution} call with a gRPC deadline, waiting for the
 * update's completion, under a fresh update id.
 */
public final class BoundedUpdate {
  /** How long a change waits for a worker to apply it, unless told otherwise. */
  public static final Duration ANSWER_WITHIN = Duration.ofSeconds(10);
  /** The most of Temporal's own words an {@link Unreachable} repeats. */
  private static final int MAX_DETAIL = 300;

  private final WorkflowClient client;
  private final String colony;
  private final Duration within;
  private final String identity;

  /** Updates of {@code colony}'s workflows, answered within {@link #ANSWER_WITHIN}, as the client's identity. */
  public BoundedUpdate(WorkflowClient client, String colony) {
    this(client, colony, ANSWER_WITHIN, client.getOptions().getIdentity());
  }

  private BoundedUpdate(WorkflowClient client, String colony, Duration within, String identity) {
    if (within.isNegative() || within.isZero()) {
      throw new IllegalArgumentException("an update needs a positive bound, not " + within);
    }
    this.client = client;
    this.colony = colony;
    this.within = within;
    this.identity = identity;
  }

  /** The same, answered within {@code bound}. */
  public BoundedUpdate within(Duration bound) {
    return new BoundedUpdate(client, colony, bound, identity);
  }

  /** The same, sent as {@code who} (the history's record of who asked: {@code console:@Ada}). */
  public BoundedUpdate as(String who) {
    return new BoundedUpdate(client, colony, within, who);
  }

  public Duration within() {
    return within;
  }

  /**
   * Runs update {@code name} with {@code arg} on the running workflow {@code workflowId} and
   * returns its answer as {@code answer}.
   *
   * @throws NoWorker no worker applied it within the bound (it was not applied)
   * @throws NotRunning there is no running workflow {@code workflowId}
   * @throws Refused its validator (or handler) refused it: the message is the workflow's sentence
   * @throws Unreachable Temporal answered something else (unavailable, denied, ...)
   */
  public <T> T call(String workflowId, String name, Object arg, Class<T> answer) {
    DataConverter dc = client.getOptions().getDataConverter();
    UpdateWorkflowExecutionRequest request = UpdateWorkflowExecutionRequest.newBuilder()
        .setNamespace(client.getOptions().getNamespace())
        .setWorkflowExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
        .setWaitPolicy(WaitPolicy.newBuilder().setLifecycleStage(
            UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED))
        .setRequest(Request.newBuilder()
            .setMeta(Meta.newBuilder().setUpdateId(UUID.randomUUID().toString()).setIdentity(identity))
            .setInput(Input.newBuilder().setName(name).setArgs(dc.toPayloads(arg).orElseThrow())))
        .build();
    UpdateWorkflowExecutionResponse r;
    try {
      r = client.getWorkflowServiceStubs().blockingStub()
          .withDeadlineAfter(within.toMillis(), TimeUnit.MILLISECONDS).updateWorkflowExecution(request);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
        throw new NoWorker(noWorkerSentence(), e);
      }
      if (Rpc.notFound(e)) {
        throw new NotRunning("workflow " + workflowId + " is not running", e);
      }
      throw new Unreachable(temporalSaid(e), e);
    }
    if (!r.hasOutcome()) {
      throw new NoWorker(noWorkerSentence(), null); // the server stopped waiting first: still not applied
    }
    if (r.getOutcome().hasFailure()) {
      RuntimeException refused = dc.failureToException(r.getOutcome().getFailure());
      String why = refused instanceof ApplicationFailure f ? f.getOriginalMessage() : refused.getMessage();
      throw new Refused(why, refused);
    }
    return dc.fromPayloads(0, Optional.of(r.getOutcome().getSuccess()), answer, answer);
  }

  /** The one sentence every surface says when no worker applied a change in time. */
  private String noWorkerSentence() {
    return "no worker answered within " + within.toSeconds() + " s: is a worker (colony dev / colony worker) running "
        + "for colony " + colony + "?";
  }

  /** "Temporal answered CODE: description" of the first gRPC status in {@code e}'s causes, bounded. */
  public static String temporalSaid(Throwable e) {
    StatusRuntimeException s = null;
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof StatusRuntimeException g) {
        s = g;
        break;
      }
    }
    String detail = s == null ? e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
        : s.getStatus().getCode() + (s.getStatus().getDescription() == null ? "" : ": " + s.getStatus().getDescription());
    if (detail.length() > MAX_DETAIL) {
      detail = detail.substring(0, MAX_DETAIL) + "…";
    }
    return "Temporal answered " + detail;
  }

  /** Why an update was not applied, in one sentence; the kinds are closed. */
  public abstract static sealed class Failure extends RuntimeException permits NoWorker, NotRunning, Refused, Unreachable {
    Failure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** No worker applied the update within the bound: it was not applied. */
  public static final class NoWorker extends Failure {
    NoWorker(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The workflow is not running (never was, or its run ended): the caller names what is missing. */
  public static final class NotRunning extends Failure {
    NotRunning(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The workflow refused the update: the message is its sentence, the cause the decoded failure. */
  public static final class Refused extends Failure {
    Refused(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Temporal answered something else ({@code UNAVAILABLE}, {@code PERMISSION_DENIED}, ...): "Temporal answered ...". */
  public static final class Unreachable extends Failure {
    Unreachable(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
