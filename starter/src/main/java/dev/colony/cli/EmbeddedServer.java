package dev.colony.cli;

import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Temporal's in-memory test server, bound to a real port and running in real time (time
 * skipping locked): {@code --server memory}, and the fallback when no Temporal CLI can be had.
 * No Web UI, no ListWorkflowExecutions, and its state is lost when it stops.
 */
final class EmbeddedServer implements LocalServer {
  private final TestServer.PortBoundTestServer server;
  final int port;

  private EmbeddedServer(TestServer.PortBoundTestServer server, int port) {
    this.server = server;
    this.port = port;
  }

  static EmbeddedServer start(int port) {
    requireFree(port, "--port");
    return new EmbeddedServer(TestServer.createPortBoundServer(port, true), port);
  }

  static void requireFree(int port, String option) {
    try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      probe.setReuseAddress(true);
    } catch (IOException e) {
      throw new UserError("port " + port + " is already in use" + (option.equals("--port")
          ? " (another Temporal server?). Pick another with --port, or use that server with --address localhost:" + port + "."
          : ". Pick another with " + option + "."));
    }
  }

  @Override
  public String address() {
    return "localhost:" + port;
  }

  @Override
  public String webUi() {
    return null;
  }

  @Override
  public String describe() {
    return "Temporal's in-memory test server at " + address() + " (no Web UI; state is lost on exit)";
  }

  @Override
  public java.util.concurrent.CompletableFuture<?> exited() {
    return new java.util.concurrent.CompletableFuture<>();
  }

  @Override
  public void close() {
    server.close();
  }
}
