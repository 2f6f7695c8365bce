package dev.colony.cli;

import dev.colony.secrets.Secrets;
import dev.colony.worker.RedactingDataConverter;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.GetClusterInfoRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.util.concurrent.TimeUnit;

/** A checked connection to a Temporal frontend. */
final class Temporal implements AutoCloseable {
  static final java.time.Duration QUERY_TIMEOUT = java.time.Duration.ofSeconds(5);
  static final java.time.Duration WORKER_LONG_POLL = java.time.Duration.ofSeconds(10);
  /**
   * How long the first call may take before the server counts as not answering. A server that is
   * not there refuses at once; this bounds one that accepts but is slow (a loaded machine, a cold
   * JVM making its first connection), so it is generous.
   */
  static final java.time.Duration CONNECT_CHECK = java.time.Duration.ofSeconds(15);
  /** The address of the last connection this command made: errors after it name the server. */
  private static final ThreadLocal<String> LAST_ADDRESS = new ThreadLocal<>();
  /**
   * The resident process's connections, kept open between the commands it runs (one per server,
   * namespace and credentials); null in a process of its own, whose one connection closes with it.
   */
  static volatile ConnectionPool pool;
  final String address;
  final String namespace;
  /** How this connection was made (TLS, API key): for messages and the operator service. */
  final ClientProfile profile;
  final WorkflowServiceStubs stubs;
  final WorkflowClient client;
  /** This connection's own network thread, stopped on close. */
  private final EventLoopGroup loop;
  /** The resident process's pooled connection this command holds (let go on close); null: its own. */
  private final ConnectionPool.Connection lease;

  private Temporal(ClientProfile profile, WorkflowServiceStubs stubs, EventLoopGroup loop, ConnectionPool.Connection lease) {
    this.lease = lease;
    this.profile = profile;
    this.address = profile.address();
    this.namespace = profile.namespace();
    this.stubs = stubs;
    this.loop = loop;
    this.client = WorkflowClient.newInstance(stubs,
        WorkflowClientOptions.newBuilder().setNamespace(this.namespace)
            // Secret values are masked in everything this process sends (the worker's results,
            // failures and answers); the start spec carries ${VAR} references only.
            .setDataConverter(RedactingDataConverter.create(Secrets.process()))
            // Traces, when a worker command turned them on (dev.colony.worker.Tracing): a start or a
            // signal sent from here carries its trace context. None otherwise.
            .setInterceptors(dev.colony.worker.Tracing.process().clientInterceptors())
            .build());
  }

  /** Connects and checks the server answers, or fails with one line saying what to do. */
  static Temporal connect(TemporalOptions o) {
    return connect(o.resolve());
  }

  /**
   * {@link #connect(TemporalOptions)} reporting the SDK's client and worker metrics (a worker made on
   * this client reports to its stubs' scope) to {@code metrics}; null: none.
   */
  static Temporal connect(TemporalOptions o, com.uber.m3.tally.Scope metrics) {
    return connect(o.resolve(), metrics);
  }

  /** A plaintext connection (the local dev server, tests). */
  static Temporal connect(String address, String namespace) {
    return connect(ClientProfile.plain(address, namespace));
  }

  static Temporal connect(String address, String namespace, com.uber.m3.tally.Scope metrics) {
    return connect(ClientProfile.plain(address, namespace), metrics);
  }

  static Temporal connect(ClientProfile profile) {
    return connect(profile, new io.grpc.ClientInterceptor[0]);
  }

  /** {@link #connect(ClientProfile)} with gRPC interceptors: tests see the calls a command makes. */
  static Temporal connect(ClientProfile profile, io.grpc.ClientInterceptor... interceptors) {
    return connect(profile, null, interceptors);
  }

  /**
   * The one place this process makes its service stubs: every client, and so every worker, the CLI
   * makes comes from here. {@code metrics}: the Tally scope the SDK reports its client and worker
   * meters to ({@code dev.colony.worker.Metrics}); null: none (the SDK's no-op scope).
   */
  static Temporal connect(ClientProfile profile, com.uber.m3.tally.Scope metrics,
      io.grpc.ClientInterceptor... interceptors) {
    ConnectionPool kept = pool;
    if (kept == null || metrics != null || interceptors.length > 0) {
      return open(profile, metrics, null, interceptors);
    }
    ConnectionPool.Key key = ConnectionPool.Key.of(profile);
    Temporal kept1 = reuse(kept, key, kept.get(key), profile);
    if (kept1 != null) {
      return kept1;
    }
    java.util.concurrent.locks.ReentrantLock opening = kept.opening(key);
    try {
      opening.lockInterruptibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("the command was stopped").asRuntimeException();
    }
    try {
      Temporal kept2 = reuse(kept, key, kept.get(key), profile);
      if (kept2 != null) {
        return kept2; // another command opened it meanwhile
      }
      Temporal fresh = open(profile, null, null);
      ConnectionPool.Connection c = new ConnectionPool.Connection(fresh.stubs, fresh.loop);
      c.lease();
      kept.put(key, c);
      return new Temporal(profile, fresh.stubs, fresh.loop, c);
    } finally {
      opening.unlock();
    }
  }

  /** The kept connection {@code c}, checked, for this command; null when there is none to use. */
  private static Temporal reuse(ConnectionPool kept, ConnectionPool.Key key, ConnectionPool.Connection c, ClientProfile profile) {
    if (c == null || !c.lease()) {
      return null;
    }
    try {
      check(c.stubs(), profile);
      LAST_ADDRESS.set(profile.address());
      return new Temporal(profile, c.stubs(), c.loop(), c);
    } catch (StatusRuntimeException e) {
      c.release();
      if (Thread.currentThread().isInterrupted() || e.getStatus().getCode() == Status.Code.CANCELLED) {
        throw e; // this command was stopped (Ctrl-C): the connection is fine
      }
      // A kept connection that fails says nothing about the server now (it may be waiting out
      // a reconnect backoff after a restart): only a new one does, with today's messages.
      kept.drop(key, c);
      return null;
    }
  }

  /** Checks the server answers on {@code stubs} (and, with credentials, reads the namespace). */
  private static void check(WorkflowServiceStubs stubs, ClientProfile profile) {
    stubs.blockingStub().withDeadlineAfter(CONNECT_CHECK.toMillis(), TimeUnit.MILLISECONDS)
        .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
    if (profile.apiKey() != null || profile.tls()) {
      // Servers answer GetSystemInfo without credentials: ask for the namespace, which a
      // refused (or missing) key may not read, so it fails here and not in the middle of a
      // command. A plaintext local server is spared the extra call.
      stubs.blockingStub().withDeadlineAfter(CONNECT_CHECK.toMillis(), TimeUnit.MILLISECONDS)
          .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace(profile.namespace()).build());
    }
  }

  private static Temporal open(ClientProfile profile, com.uber.m3.tally.Scope metrics, ConnectionPool.Connection lease,
      io.grpc.ClientInterceptor... interceptors) {
    String address = profile.address();
    WorkflowServiceStubsOptions fromProfile;
    try {
      fromProfile = profile.config().toWorkflowServiceStubsOptions();
    } catch (RuntimeException e) {
      throw new UserError(ConnectFailure.tlsSetup(e));
    }
    // A network thread of its own (gRPC's shared one outlives the channel by a second): close()
    // stops it, so the JVM need not wait for a thread blocked in epoll when a command exits.
    EventLoopGroup loop = new NioEventLoopGroup(1, r -> {
      Thread t = new Thread(r, "colony-grpc");
      t.setDaemon(true);
      return t;
    });
    String serverName = profile.config().getTls() == null ? null : profile.config().getTls().getServerName();
    WorkflowServiceStubsOptions.Builder options = WorkflowServiceStubsOptions.newBuilder(fromProfile);
    if (metrics != null) {
      options.setMetricsScope(metrics);
    }
    if (!profile.tls()) {
      // TLS turned off (--tls=false, TEMPORAL_TLS=false, tls.disabled) with an API key: plaintext
      // with the key, as the temporal CLI does. Unsaid, the SDK turns TLS on for any API key.
      options.setEnableHttps(false);
    }
    WorkflowServiceStubsOptions built =
        options.setTarget(address).setGrpcClientInterceptors(java.util.List.of(interceptors))
            .setChannelInitializer(b -> {
              ((NettyChannelBuilder) b).eventLoopGroup(loop).channelType(NioSocketChannel.class);
              if (profile.tls() && serverName != null && !serverName.isEmpty()) {
                b.overrideAuthority(serverName);
              }
            })
            // A query needs a worker; with none it would hang about a minute. Say so sooner.
            .setRpcQueryTimeout(QUERY_TIMEOUT)
            // Workers re-poll at least this often, so `colony status` can tell a dead worker
            // from an idle one by the server's last-poll time (see WorkerCheck).
            .setRpcLongPollTimeout(WORKER_LONG_POLL)
            .build();
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(built);
    try {
      check(stubs, profile);
    } catch (StatusRuntimeException e) {
      StatusRuntimeException cause = e;
      if (ConnectFailure.closedBeforeAnswering(e, profile)) {
        // A plaintext client to a TLS server sees that; so does one whose server just died. Ask
        // once more: a server that is gone now refuses the connection, and is named for that.
        // On a channel of its own: the first one may not have seen its connection close yet (a
        // warm process asks again within microseconds) and would put the call on it again.
        WorkflowServiceStubs probe = WorkflowServiceStubs.newServiceStubs(built);
        try {
          probe.blockingStub().withDeadlineAfter(2, TimeUnit.SECONDS).getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
        } catch (StatusRuntimeException again) {
          cause = ConnectFailure.closedBeforeAnswering(again, profile) ? e : again;
        } finally {
          probe.shutdownNow();
        }
      }
      stubs.shutdownNow();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw new UserError(ConnectFailure.explain(cause, profile));
    }
    LAST_ADDRESS.set(address);
    return new Temporal(profile, stubs, loop, lease);
  }

  /**
   * True when the server is Temporal's embedded test server (it does not implement
   * GetClusterInfo). That server has no sticky schedule-to-start timeout, so workers must not
   * use sticky queues against it.
   */
  boolean isEmbeddedTestServer() {
    try {
      stubs.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS)
          .getClusterInfo(GetClusterInfoRequest.getDefaultInstance());
      return false;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode() == Status.Code.UNIMPLEMENTED;
    }
  }

  /** Whether the server answers within {@code within} (one GetSystemInfo, no retry). */
  boolean reachable(java.time.Duration within) {
    try {
      stubs.blockingStub().withDeadlineAfter(within.toMillis(), TimeUnit.MILLISECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Forgets the address of this thread's last connection (a resident process's thread, between commands). */
  static void forgetAddress() {
    LAST_ADDRESS.remove();
  }

  /** The address of the last connection this command made; null before any. */
  static String lastAddress() {
    return LAST_ADDRESS.get();
  }

  @Override
  public void close() {
    if (lease != null) {
      lease.release(); // the resident process's: open for its next command
      return;
    }
    // Every call of this process has returned by now: nothing is left to drain, and waiting for
    // the transport's orderly goodbye cost a third of a short command's time.
    stubs.shutdownNow();
    stubs.awaitTermination(1, TimeUnit.SECONDS);
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
  }
}
