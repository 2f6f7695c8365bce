package dev.colony.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EgressProxyTest {
  @TempDir
  Path tmp;

  @Test
  void aKilledWorkersSocketDirectoryIsSweptAndALiveOneIsKept() throws Exception {
    // A pid no process has (above the kernel's pid_max), and this JVM's own.
    Path dead = Files.createDirectory(tmp.resolve(EgressProxy.PREFIX + "999999999-123"));
    Files.writeString(dead.resolve("s1.sock"), "");
    Path live = Files.createDirectory(tmp.resolve(EgressProxy.PREFIX + ProcessHandle.current().pid() + "-456"));
    Path other = Files.createDirectory(tmp.resolve("colony-something-else"));
    EgressProxy.sweepStale(tmp);
    assertFalse(Files.exists(dead), "a dead worker's directory goes");
    assertTrue(Files.exists(live), "a live worker's stays");
    assertTrue(Files.exists(other));
  }

  @Test
  void aSessionThatFloodsItsDoorHoldsAtMostItsShareOfConnections() throws Exception {
    java.util.concurrent.atomic.AtomicInteger upstream = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean release = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.List<java.nio.channels.SocketChannel> clients = new java.util.ArrayList<>();
    try (java.net.ServerSocket server = new java.net.ServerSocket(0, 500, java.net.InetAddress.getLoopbackAddress());
        EgressProxy.Door door = EgressProxy.shared().open("c", "flood", java.util.List.of("127.0.0.1:" + server.getLocalPort()))) {
      Thread.ofVirtual().start(() -> {
        while (!server.isClosed()) {
          try {
            java.net.Socket s = server.accept();
            upstream.incrementAndGet();
            if (release.get()) {
              s.close(); // the tunnel's far end goes at once
            } else {
              held.add(s); // holds the tunnel open
            }
          } catch (java.io.IOException e) {
            return;
          }
        }
      });
      byte[] connect = ("CONNECT 127.0.0.1:" + server.getLocalPort() + " HTTP/1.1\r\nHost: 127.0.0.1:"
          + server.getLocalPort() + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      int flood = EgressProxy.MAX_CONNECTIONS_PER_SESSION + 40;
      for (int i = 0; i < flood; i++) {
        clients.add(connect(door, connect));
      }
      dev.colony.testing.Eventually.eventually(() -> upstream.get() >= EgressProxy.MAX_CONNECTIONS_PER_SESSION,
          "the session's share of tunnels opens");
      org.awaitility.Awaitility.await().during(java.time.Duration.ofSeconds(1)).atMost(java.time.Duration.ofSeconds(5))
          .until(() -> upstream.get() == EgressProxy.MAX_CONNECTIONS_PER_SESSION
              && door.connections() <= EgressProxy.MAX_CONNECTIONS_PER_SESSION);
      // The session's connections end, both ways: its share is free again, and new tunnels open.
      release.set(true);
      for (var c : clients) {
        c.close();
      }
      for (var h : held) {
        h.close();
      }
      clients.clear();
      dev.colony.testing.Eventually.eventually(() -> door.connections() == 0, "the ended tunnels free the door");
      int before = upstream.get();
      for (int i = 0; i < 10; i++) {
        clients.add(connect(door, connect));
      }
      dev.colony.testing.Eventually.eventually(() -> upstream.get() >= before + 10, "new tunnels open");
    } finally {
      for (var c : clients) {
        c.close();
      }
      for (var h : held) {
        h.close();
      }
    }
  }

  /** A connection to the door with the request written (a refused one is closed: the flood's excess). */
  private static java.nio.channels.SocketChannel connect(EgressProxy.Door door, byte[] request) throws java.io.IOException {
    java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(door.socket()));
    try {
      c.write(java.nio.ByteBuffer.wrap(request));
    } catch (java.io.IOException refused) {
      // Accepted as the limit was reached, and closed at once.
    }
    return c;
  }

  @Test
  void aSessionThatHammersRefusedDestinationsFillsTheLogAtItsRateOnly() throws Exception {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
    long before = EgressProxy.shared().refused("c", "hammer");
    // The metric reads the proxy's own count: every refusal, at each scrape.
    var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    EgressProxy.shared().export(new dev.colony.engine.SessionMetrics(registry), "c", "hammer");
    System.setErr(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
    try (EgressProxy.Door door = EgressProxy.shared().open("c", "hammer", java.util.List.of("example.com"))) {
      for (int i = 0; i < 100; i++) {
        try (java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(
            java.net.UnixDomainSocketAddress.of(door.socket()))) {
          String to = "10.0.0." + (i % 250) + ":80";
          c.write(java.nio.ByteBuffer.wrap(("CONNECT " + to + " HTTP/1.1\r\nHost: " + to + "\r\n\r\n")
              .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)));
          c.read(java.nio.ByteBuffer.allocate(4096)); // the 403
        }
      }
    } finally {
      System.setErr(err);
    }
    String logged = log.toString(java.nio.charset.StandardCharsets.UTF_8);
    long lines = logged.lines().filter(l -> l.contains("egress refused: ant=hammer")).count();
    assertEquals(100, EgressProxy.shared().refused("c", "hammer") - before, "every refusal is counted");
    assertEquals(before + 100, registry.get(dev.colony.engine.SessionMetrics.SANDBOX_REFUSED_CONNECTIONS)
        .tags("colony", "c", "ant", "hammer").functionCounter().count(), "the metric is the proxy's count");
    assertEquals(0, EgressProxy.shared().refused("other-colony", "hammer"), "an ant is counted in its own colony");
    // A hundred in well under a minute: the session's first lines are logged, the rest counted.
    assertEquals(EgressProxy.LOG_PER_MINUTE, lines, "lines logged:\n" + logged);
  }
}
