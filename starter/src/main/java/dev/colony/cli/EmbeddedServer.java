package dev.colony.cli;

import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Temporal's test server, bound to a real port and running in real time (time skipping locked).
 * State lives in memory only: it is for development, like {@code temporal server start-dev}.
 */
final class EmbeddedServer implements AutoCloseable {
  private final TestServer.PortBoundTestServer server;
  final int port;

  private EmbeddedServer(TestServer.PortBoundTestServer server, int port) {
    this.server = server;
    this.port = port;
  }

  static EmbeddedServer start(int port) {
    try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      probe.setReuseAddress(true);
    } catch (IOException e) {
      throw new UserError("port " + port + " is already in use (another Temporal server?). "
          + "Pick another with --port, or use that server with --address localhost:" + port + ".");
    }
    return new EmbeddedServer(TestServer.createPortBoundServer(port, true), port);
  }

  @Override
  public void close() {
    server.close();
  }
}
