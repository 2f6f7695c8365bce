package dev.colony.chat.impl;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.lease.LeaseWorkflow;
import dev.colony.lease.LeaseWorkflowImpl;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The connection election on Temporal's in-memory server: one holder, takeover after a crash or a clean stop. */
@Timeout(180)
class LeasedConnectionTest {
  private TestWorkflowEnvironment env;
  private final List<String> connects = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    env.close();
  }

  /** A connection that is up from connect to close. */
  private static final class Up implements LeasedConnection.Connection {
    volatile boolean up;

    @Override
    public boolean connected() {
      return up;
    }

    @Override
    public void close() {
      up = false;
    }
  }

  private LeasedConnection<Up> gateway(String name) {
    return new LeasedConnection<Up>(env.getWorkflowClient(), "q", "discord", "token-abc", name, Duration.ofMillis(1500),
        Up::new, c -> {
          c.up = true;
          connects.add(name);
        });
  }

  private LeaseWorkflow.LeaseState lease(LeasedConnection<?> any) {
    return env.getWorkflowClient().newWorkflowStub(LeaseWorkflow.class, any.leaseWorkflowId()).holder();
  }

  /** Until {@code holder} has renewed the lease twice more (ttl / 3 apart), in the lease's time. */
  private void renewedTwiceBy(LeasedConnection<?> any, String holder) {
    LeaseWorkflow.LeaseState now = lease(any);
    assertEquals(holder, now.holder());
    eventually(() -> {
      LeaseWorkflow.LeaseState s = lease(any);
      return holder.equals(s.holder()) && s.renewedAtMillis() >= now.renewedAtMillis() + 2 * 500;
    }, holder + " renewed twice");
  }

  @Test
  void oneHolderAtATimeAndATakeoverAfterACrashOrAStop() throws Exception {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    env.newWorker("q").registerWorkflowImplementationTypes(LeaseWorkflowImpl.class);
    env.start();
    LeasedConnection<Up> a = gateway("a").start();
    eventually(a::holding, "a holds the lease");
    LeasedConnection<Up> b = gateway("b").start();
    renewedTwiceBy(a, "a"); // b asks meanwhile, every ttl / 3
    assertTrue(a.holding());
    assertFalse(b.holding());
    assertEquals(List.of("a"), connects);

    // The takeover is read in the lease's own (workflow) time, not the test's clock: b's lease
    // starts no sooner than a ttl after a's last renewal. Every renewal of a is seen: the polls
    // are 20 ms apart, the renewals 500.
    a.crash();
    AtomicReference<LeaseWorkflow.LeaseState> lastOfA = new AtomicReference<>(lease(a));
    eventually(() -> {
      LeaseWorkflow.LeaseState s = lease(a);
      if ("a".equals(s.holder())) {
        lastOfA.set(s);
      }
      return b.holding();
    }, "b holds the lease");
    LeaseWorkflow.LeaseState ofB = lease(a);
    assertEquals("b", ofB.holder());
    assertTrue(ofB.renewedAtMillis() - lastOfA.get().renewedAtMillis() >= 1500,
        "b took the lease before a's expired: a renewed at " + lastOfA.get().renewedAtMillis() + ", b took it at "
            + ofB.renewedAtMillis());
    assertEquals(List.of("a", "b"), connects);

    LeasedConnection<Up> c = gateway("c").start();
    renewedTwiceBy(b, "b");
    assertFalse(c.holding());
    b.close(); // a clean stop lets go at once
    eventually(c::holding, "c holds the lease");
    assertEquals(List.of("a", "b", "c"), connects);
    assertTrue(c.active());
    c.close();
    assertFalse(c.active());
    assertTrue(LeasedConnection.tokenHash("token-abc").matches("[0-9a-f]{16}"));
    assertTrue(c.leaseWorkflowId().startsWith("colony-discord-gateway/"), c.leaseWorkflowId());
  }

  /** A client on the environment's connection whose calls fail while {@code cut} is set (a holder cut off). */
  private io.temporal.client.WorkflowClient cuttable(java.util.concurrent.atomic.AtomicBoolean cut) {
    io.temporal.serviceclient.WorkflowServiceStubs stubs = env.getWorkflowServiceStubs();
    io.grpc.ClientInterceptor cutter = new io.grpc.ClientInterceptor() {
      @Override
      public <Q, A> io.grpc.ClientCall<Q, A> interceptCall(io.grpc.MethodDescriptor<Q, A> method,
          io.grpc.CallOptions options, io.grpc.Channel next) {
        if (cut.get()) {
          throw io.grpc.Status.UNAVAILABLE.withDescription("cut off (test)").asRuntimeException();
        }
        return next.newCall(method, options);
      }
    };
    var o = stubs.getOptions();
    var mine = io.temporal.serviceclient.WorkflowServiceStubs.newServiceStubs(
        io.temporal.serviceclient.WorkflowServiceStubsOptions.newBuilder(o).setTarget(null).setChannelInitializer(null)
            .setSslContext(null).setEnableHttps(false).setChannel(stubs.getRawChannel())
            .setGrpcClientInterceptors(List.of(cutter)).build());
    return io.temporal.client.WorkflowClient.newInstance(mine, env.getWorkflowClient().getOptions());
  }

  @Test
  void aHolderCutOffFromTemporalLetsGoBeforeTheLeaseRunsOutThoughItsCallsHang() {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    env.newWorker("q").registerWorkflowImplementationTypes(LeaseWorkflowImpl.class);
    env.start();
    java.util.concurrent.atomic.AtomicBoolean cut = new java.util.concurrent.atomic.AtomicBoolean();
    Duration ttl = Duration.ofMillis(1500);
    LeasedConnection<Up> a = new LeasedConnection<Up>(cuttable(cut), "q", "discord", "token-abc", "a", ttl, Up::new,
        c -> c.up = true).start();
    eventually(a::holding, "a holds the lease");
    LeasedConnection<Up> b = gateway("b").start();
    long cutAt = System.currentTimeMillis();
    cut.set(true); // the SDK retries an unreachable server's calls far longer than the lease lasts
    eventually(() -> !a.holding(), "a let go");
    long held = System.currentTimeMillis() - cutAt;
    assertTrue(held < ttl.toMillis(), "a held the connection " + held + " ms after it was cut off: two at once");
    eventually(b::holding, "b holds the lease");
    b.close();
    a.close();
  }
}
