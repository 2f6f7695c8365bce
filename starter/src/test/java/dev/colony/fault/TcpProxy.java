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
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    listener = s;
    Thread t = new Thread(() -> accept(s), "proxy-accept");
    t.setDaemon(true);
    t.start();
  }

  /** Drops every open connection and stops listening: clients see resets, then refusals. */
  synchronized void down() throws IOException {
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
        Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
        open.add(in);
        open.add(out);
        pump(in, out);
        pump(out, in);
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16384];
      try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
        int n;
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
