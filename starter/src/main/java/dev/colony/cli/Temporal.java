package dev.colony.cli;

import dev.colony.config.Secrets;
import dev.colony.worker.RedactingDataConverter;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
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
  final String address;
  final String namespace;
  final WorkflowServiceStubs stubs;
  final WorkflowClient client;
  /** This connection's own network thread, stopped on close. */
  private final EventLoopGroup loop;

  private Temporal(String address, String namespace, WorkflowServiceStubs stubs, EventLoopGroup loop) {
    this.address = address;
    this.namespace = namespace;
    this.stubs = stubs;
    this.loop = loop;
    this.client = WorkflowClient.newInstance(stubs,
        WorkflowClientOptions.newBuilder().setNamespace(namespace)
            // Secret values are masked in everything this process sends (the worker's results,
            // failures and answers); the start spec carries ${VAR} references only.
            .setDataConverter(RedactingDataConverter.create(Secrets.process()))
            .build());
  }

  /** Connects and checks the server answers, or fails with one line saying what to do. */
  static Temporal connect(TemporalOptions o) {
    return connect(o.address(), o.namespace);
  }

  static Temporal connect(String address, String namespace) {
    // A network thread of its own (gRPC's shared one outlives the channel by a second): close()
    // stops it, so the JVM need not wait for a thread blocked in epoll when a command exits.
    EventLoopGroup loop = new NioEventLoopGroup(1, r -> {
      Thread t = new Thread(r, "colony-grpc");
      t.setDaemon(true);
      return t;
    });
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(address)
            .setChannelInitializer(b -> ((NettyChannelBuilder) b).eventLoopGroup(loop)
                .channelType(NioSocketChannel.class))
            // A query needs a worker; with none it would hang about a minute. Say so sooner.
            .setRpcQueryTimeout(QUERY_TIMEOUT)
            // Workers re-poll at least this often, so `colony status` can tell a dead worker
            // from an idle one by the server's last-poll time (see WorkerCheck).
            .setRpcLongPollTimeout(WORKER_LONG_POLL)
            .build());
    try {
      stubs.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      stubs.shutdownNow();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      String why = e.getStatus().getDescription();
      boolean unknownHost = why != null && why.startsWith("Unable to resolve host");
      throw new UserError("cannot reach Temporal at " + address + " (" + (unknownHost ? "unknown host "
          + why.substring("Unable to resolve host".length()).strip() : e.getStatus().getCode()) + "). Start one with './colony server' (or see docker-compose.temporal.yml), "
          + "or point --address / $TEMPORAL_ADDRESS at yours.");
    }
    return new Temporal(address, namespace, stubs, loop);
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

  @Override
  public void close() {
    // Every call of this process has returned by now: nothing is left to drain, and waiting for
    // the transport's orderly goodbye cost a third of a short command's time.
    stubs.shutdownNow();
    stubs.awaitTermination(1, TimeUnit.SECONDS);
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
  }
}
