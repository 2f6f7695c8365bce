package dev.colony.chat.impl;

import dev.colony.lease.LeaseWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps exactly one live connection of a kind (Discord's gateway session, Slack's Socket Mode
 * connection) per token across all workers on all hosts: a chat platform delivers each event to
 * every connection of a token, so two would answer every command twice. Every worker with the
 * token is a candidate; the holder of a {@link LeaseWorkflow} lease (workflow id derived from a
 * hash of the token, never the token) connects, renews every {@code ttl / 3}, and disconnects as
 * soon as it cannot renew for {@code ttl / 2} (a renewal not answered within {@code ttl / 3} counts
 * as failed), before anyone else may take over at {@code ttl}. A
 * killed holder is replaced within about {@code ttl + ttl / 3}.
 *
 * @param <C> the connection (a chat bridge)
 */
public final class LeasedConnection<C extends LeasedConnection.Connection> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeasedConnection.class);
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(15);

  private final WorkflowClient client;
  private final String taskQueue;
  private final String leaseId;
  private final String candidate;
  private final Duration ttl;
  private final String kind;
  private final Supplier<C> bridges;
  private final Connector<C> connector;
  private final Thread thread;
  private volatile boolean stopped;
  private C bridge;
  private long lastRenewed;
  private boolean warned;
  /** The last connection failure logged: the same one again is not logged every few seconds. */
  private String lastFailure;

  /** A connection the lease guards: closed when the lease is lost or handed over. */
  public interface Connection extends AutoCloseable {
    boolean connected();

    @Override
    void close();
  }

  /** Opens a connection (the token stays on this worker). */
  public interface Connector<C> {
    void connect(C connection) throws Exception;
  }

  /**
   * @param kind names the lease and the log lines: "discord" leases {@code colony-discord-gateway/<hash>}
   */
  public LeasedConnection(WorkflowClient client, String taskQueue, String kind, String token, String candidate,
      Duration ttl, Supplier<C> bridges, Connector<C> connector) {
    this.client = client;
    this.taskQueue = taskQueue;
    this.kind = kind;
    this.leaseId = "colony-" + kind + "-gateway/" + tokenHash(token);
    this.candidate = candidate;
    this.ttl = ttl;
    this.bridges = bridges;
    this.connector = connector;
    this.thread = Thread.ofPlatform().daemon().name("colony-" + kind + "-gateway").unstarted(this::loop);
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

  public LeasedConnection<C> start() {
    thread.start();
    return this;
  }

  public String leaseWorkflowId() {
    return leaseId;
  }

  /** True while this worker holds the lease and its connection is up. */
  public synchronized boolean active() {
    return bridge != null && bridge.connected();
  }

  /** True while this worker holds the lease and has a connection (up or connecting). */
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
      holds = acquireWithin(Duration.ofMillis(Math.max(100, ttl.toMillis() / 3)));
      lastRenewed = System.currentTimeMillis();
      warned = false;
    } catch (RuntimeException e) {
      // Cannot reach Temporal: keep the session only while nobody else can have the lease yet.
      holds = bridge != null && System.currentTimeMillis() - lastRenewed < ttl.toMillis() / 2;
      if (!warned) {
        log.warn("{}: cannot renew the connection's lease: {}", kind, e.getMessage());
        warned = true;
      }
    }
    if (holds && bridge == null) {
      C b = bridges.get();
      try {
        connector.connect(b);
        bridge = b;
        lastFailure = null;
        log.info("{}: this worker holds the connection ({})", kind, candidate);
      } catch (InterruptedException e) {
        b.close();
        Thread.currentThread().interrupt();
      } catch (Exception e) {
        b.close();
        String why = String.valueOf(e.getMessage());
        if (!why.equals(lastFailure)) {
          log.warn("{}: connection failed: {}", kind, why);
          lastFailure = why;
        }
      }
    } else if (!holds && bridge != null) {
      bridge.close();
      bridge = null;
      log.info("{}: connection handed over; this worker no longer holds it", kind);
    }
  }

  /**
   * {@link #acquire} answered within {@code bound}, else a failure: a call to a server this process
   * cannot reach is retried by the SDK for far longer than the lease lasts, and the holder must let
   * go within {@code ttl / 2} of its last renewal whatever the call does. An answer that comes
   * later is ignored (the next ask renews again).
   */
  private boolean acquireWithin(Duration bound) {
    java.util.concurrent.CompletableFuture<Boolean> asked = new java.util.concurrent.CompletableFuture<>();
    Thread.ofVirtual().name("colony-" + kind + "-lease-ask").start(() -> {
      try {
        asked.complete(acquire());
      } catch (Throwable t) {
        asked.completeExceptionally(t);
      }
    });
    try {
      return asked.get(bound.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the lease did not answer within " + bound.toMillis() + " ms");
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking for the lease");
    }
  }

  private boolean acquire() {
    try {
      return client.newWorkflowStub(LeaseWorkflow.class, leaseId).acquire(candidate, ttl.toMillis());
    } catch (RuntimeException e) {
      if (!dev.colony.client.Rpc.notFound(e)) {
        throw e;
      }
      startLease(); // the first candidate ever, or the lease workflow ended
      return client.newWorkflowStub(LeaseWorkflow.class, leaseId).acquire(candidate, ttl.toMillis());
    }
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
