package dev.colony.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A loopback TCP proxy that can drop every connection and refuse new ones for a while. */
final class TcpProxy implements AutoCloseable {
  final int port;
  private final int target;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile ServerSocket listener;
  /** Calls (gRPC requests) let through before {@link #down()}, or -1: no limit. */
  private final java.util.concurrent.atomic.AtomicInteger callsLeft = new java.util.concurrent.atomic.AtomicInteger(-1);

  TcpProxy(int target) throws IOException {
    this.target = target;
    this.port = Cluster.freePort();
    up();
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  /** Starts accepting again. */
  synchronized void up() throws IOException {
    isDown = false;
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    listener = s;
    Thread t = new Thread(() -> accept(s), "proxy-accept");
    t.setDaemon(true);
    t.start();
  }

  /**
   * Lets {@code calls} more gRPC calls through, then goes {@link #down()} the moment the client
   * starts the next one: a server that dies in the middle of a command, at an exact point of it.
   * Calls are counted by their HTTP/2 HEADERS frames from the client.
   */
  /** Set by {@link #down()}: nothing passes after it, whatever the call count says. */
  private volatile boolean isDown;

  void downAfterCalls(int calls) {
    callsLeft.set(calls);
  }

  /** Drops every open connection and stops listening: clients see resets, then refusals. */
  synchronized void down() throws IOException {
    isDown = true;
    listener.close();
    for (Socket s : open) {
      s.close();
    }
    open.clear();
  }

  private void accept(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket in = s.accept();
        synchronized (this) {
          // A connection accepted just before down() closed the listener would outlive it.
          if (isDown || s.isClosed()) {
            in.close();
            return;
          }
          Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
          open.add(in);
          open.add(out);
          pump(in, out, true);
          pump(out, in, false);
        }
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean fromClient) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16384];
      try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
        int n;
        if (fromClient) {
          // HTTP/2 from the client: the 24-byte preface, then frames of a 9-byte header and a payload.
          i.readNBytes(buf, 0, 24);
          o.write(buf, 0, 24);
          while (true) {
            byte[] head = i.readNBytes(9);
            if (head.length < 9) {
              return;
            }
            int length = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
            // HEADERS: a new call. Counted atomically: a client with two connections has two
            // pump threads, and a decrement lost between them would let one call too many through.
            if (isDown || head[3] == 0x1 && callsLeft.getAndUpdate(left -> left >= 0 ? left - 1 : left) == 0) {
              down();
              return;
            }
            o.write(head);
            o.write(i.readNBytes(length));
            o.flush();
          }
        }
        while ((n = i.read(buf)) >= 0) {
          o.write(buf, 0, n);
          o.flush();
        }
      } catch (IOException ignored) {
        // connection dropped
      } finally {
        try {
          from.close();
          to.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }, "proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    down();
  }
}
