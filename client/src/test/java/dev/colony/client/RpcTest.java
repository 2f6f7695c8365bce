package dev.colony.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowServiceException;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Rpc#notFound}, the one reading of "this workflow is not there": what the SDK and the raw
 * service stubs really throw for a workflow that never ran (a signal, a query, a describe, both
 * ways), and the wrappings a surface sees it in.
 */
@Timeout(60)
class RpcTest {
  TestWorkflowEnvironment env;
  WorkflowClient client;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    client = env.getWorkflowClient();
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void everyWayTemporalSaysAWorkflowIsNotThereIsNotFound() {
    var stub = client.newUntypedWorkflowStub("ant/acme/nobody");
    assertTrue(Rpc.notFound(assertThrows(RuntimeException.class, () -> stub.signal("pause"))));
    assertTrue(Rpc.notFound(assertThrows(RuntimeException.class, () -> stub.query("status", String.class))));
    assertTrue(Rpc.notFound(assertThrows(RuntimeException.class, stub::describe)));
    assertTrue(Rpc.notFound(assertThrows(StatusRuntimeException.class, () -> client.getWorkflowServiceStubs()
        .blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId("ant/acme/nobody")).build()))));
  }

  @Test
  void notFoundIsReadFromTheSdkAndFromGrpcAnywhereInTheCauses() {
    StatusRuntimeException grpc = new StatusRuntimeException(Status.NOT_FOUND);
    WorkflowExecution x = WorkflowExecution.newBuilder().setWorkflowId("x").build();
    assertTrue(Rpc.notFound(grpc));
    assertTrue(Rpc.notFound(new WorkflowServiceException(x, "Tally", grpc)));
    assertTrue(Rpc.notFound(new ExecutionException(grpc)));
    assertTrue(Rpc.notFound(new WorkflowNotFoundException(x, "Tally", null)));
    assertFalse(Rpc.notFound(new StatusRuntimeException(Status.UNAVAILABLE)));
    assertFalse(Rpc.notFound(new WorkflowServiceException(x, "Tally", new StatusRuntimeException(Status.DEADLINE_EXCEEDED))));
    assertFalse(Rpc.notFound(null));
  }
}
