package dev.colony.discord;

import dev.colony.lease.LeaseWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps exactly one Discord gateway session (one {@link DiscordBridge}) per bot token across all
 * workers on all hosts. Every worker with the token is a candidate; the holder of a
 * {@link LeaseWorkflow} lease (workflow id derived from a hash of the token, never the token)
 * connects, renews every {@code ttl / 3}, and disconnects as soon as it cannot renew for
 * {@code ttl / 2}, before anyone else may take over at {@code ttl}. A killed holder is replaced
 * within about {@code ttl + ttl / 3}.
 */
public final class DiscordGateway implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DiscordGateway.class);
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(15);

  private final WorkflowClient client;
  private final String taskQueue;
  private final String leaseId;
  private final String candidate;
  private final Duration ttl;
  private final Supplier<DiscordBridge> bridges;
  private final BridgeConnector connector;
  private final Thread thread;
  private volatile boolean stopped;
  private DiscordBridge bridge;
  private long lastRenewed;
  private boolean warned;

  /** Opens a bridge's gateway session (the token stays on this worker). */
  public interface BridgeConnector {
    void connect(DiscordBridge bridge) throws Exception;
  }

  public DiscordGateway(WorkflowClient client, String taskQueue, String token, String candidate, Duration ttl,
      Supplier<DiscordBridge> bridges, BridgeConnector connector) {
    this.client = client;
    this.taskQueue = taskQueue;
    this.leaseId = "colony-discord-gateway/" + tokenHash(token);
    this.candidate = candidate;
    this.ttl = ttl;
    this.bridges = bridges;
    this.connector = connector;
    this.thread = Thread.ofPlatform().daemon().name("colony-discord-gateway").unstarted(this::loop);
  }

  /** The first 16 hex digits of SHA-256 of the token: names the lease, reveals nothing. */
  static String tokenHash(String token) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public DiscordGateway start() {
    thread.start();
    return this;
  }

  public String leaseWorkflowId() {
    return leaseId;
  }

  /** True while this worker holds the lease and its bridge is connected. */
  public synchronized boolean active() {
    return bridge != null && bridge.connected();
  }

  /** True while this worker holds the lease and has a bridge (connected or connecting). */
  public synchronized boolean holding() {
    return bridge != null;
  }

  /** Stops renewing without letting go, as a killed process would (tests). */
  void crash() {
    stopped = true;
    thread.interrupt();
  }

  private void loop() {
    long every = Math.max(200, ttl.toMillis() / 3);
    while (!stopped) {
      step();
      try {
        Thread.sleep(every);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private synchronized void step() {
    boolean holds;
    try {
      holds = acquire();
      lastRenewed = System.currentTimeMillis();
      warned = false;
    } catch (RuntimeException e) {
      // Cannot reach Temporal: keep the session only while nobody else can have the lease yet.
      holds = bridge != null && System.currentTimeMillis() - lastRenewed < ttl.toMillis() / 2;
      if (!warned) {
        log.warn("discord: cannot renew the gateway lease: {}", e.getMessage());
        warned = true;
      }
    }
    if (holds && bridge == null) {
      DiscordBridge b = bridges.get();
      try {
        connector.connect(b);
        bridge = b;
        log.info("discord: this worker holds the gateway ({})", candidate);
      } catch (InterruptedException e) {
        b.close();
        Thread.currentThread().interrupt();
      } catch (Exception e) {
        b.close();
        log.warn("discord: gateway connection failed: {}", e.getMessage());
      }
    } else if (!holds && bridge != null) {
      bridge.close();
      bridge = null;
      log.info("discord: gateway handed over; this worker no longer holds it");
    }
  }

  private boolean acquire() {
    try {
      return client.newWorkflowStub(LeaseWorkflow.class, leaseId).acquire(candidate, ttl.toMillis());
    } catch (RuntimeException e) {
      if (!isNotFound(e)) {
        throw e;
      }
      startLease(); // the first candidate ever, or the lease workflow ended
      return client.newWorkflowStub(LeaseWorkflow.class, leaseId).acquire(candidate, ttl.toMillis());
    }
  }

  private static boolean isNotFound(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof WorkflowNotFoundException || (c instanceof io.grpc.StatusRuntimeException s
          && s.getStatus().getCode() == io.grpc.Status.Code.NOT_FOUND)) {
        return true;
      }
    }
    return false;
  }

  private void startLease() {
    LeaseWorkflow stub = client.newWorkflowStub(LeaseWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(leaseId).setTaskQueue(taskQueue).build());
    try {
      WorkflowClient.start(stub::run, (LeaseWorkflow.LeaseState) null);
    } catch (WorkflowExecutionAlreadyStarted e) {
      // another worker started it first
    }
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
    synchronized (this) {
      if (bridge != null) {
        bridge.close();
        bridge = null;
        try {
          client.newWorkflowStub(LeaseWorkflow.class, leaseId).release(candidate);
        } catch (RuntimeException e) {
          // the lease expires by itself
        }
      }
    }
  }
}
