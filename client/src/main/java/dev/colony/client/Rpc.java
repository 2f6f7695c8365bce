package dev.colony.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowNotFoundException;

/**
 * How a surface reads Temporal's answers: the one place that decides "this workflow (an ant, a
 * task, a merge queue, a lease) is not there". Every CLI command, the console, the chat, the
 * ants' channel and the activities that call a workflow ask {@link #notFound}.
 */
public final class Rpc {
  private Rpc() {}

  /**
   * Whether {@code e} says the workflow is not there (never was, or its run is over): the SDK's
   * {@link WorkflowNotFoundException} or gRPC's {@code NOT_FOUND}, anywhere in its causes (the SDK
   * wraps it in a {@code WorkflowServiceException}, an executor in an {@code ExecutionException}).
   * A missing namespace is also {@code NOT_FOUND}; a connection checks that before any call.
   */
  public static boolean notFound(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof WorkflowNotFoundException
          || (c instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.NOT_FOUND)) {
        return true;
      }
    }
    return false;
  }
}
