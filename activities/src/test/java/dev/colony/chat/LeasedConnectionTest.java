package dev.colony.chat;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.lease.LeaseWorkflowImpl;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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

  @Test
  void oneHolderAtATimeAndATakeoverAfterACrashOrAStop() throws Exception {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    env.newWorker("q").registerWorkflowImplementationTypes(LeaseWorkflowImpl.class);
    env.start();
    LeasedConnection<Up> a = gateway("a").start();
    eventually(a::holding, "a::holding");
    LeasedConnection<Up> b = gateway("b").start();
    Thread.sleep(2000); // several renewals of both
    assertTrue(a.holding());
    assertFalse(b.holding());
    assertEquals(List.of("a"), connects);

    long killed = System.nanoTime();
    a.crash();
    eventually(b::holding, "b::holding");
    long takeoverMillis = (System.nanoTime() - killed) / 1_000_000;
    assertTrue(takeoverMillis >= 1000, "not before the lease expired: " + takeoverMillis);
    assertEquals(List.of("a", "b"), connects);

    LeasedConnection<Up> c = gateway("c").start();
    Thread.sleep(1000);
    assertFalse(c.holding());
    b.close(); // a clean stop lets go at once
    eventually(c::holding, "c::holding");
    assertEquals(List.of("a", "b", "c"), connects);
    assertTrue(c.active());
    c.close();
    assertFalse(c.active());
    assertTrue(LeasedConnection.tokenHash("token-abc").matches("[0-9a-f]{16}"));
    assertTrue(c.leaseWorkflowId().startsWith("colony-discord-gateway/"), c.leaseWorkflowId());
  }
}
