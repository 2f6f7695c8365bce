package dev.colony.cli;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.temporal.envconfig.ClientConfigTLS;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The resident process's connections to Temporal, kept open between the commands it runs: a
 * command then pays one round trip for its connection check instead of a TCP and HTTP/2 (and TLS)
 * handshake. One connection per server, namespace and credentials ({@link Key}); at most
 * {@link #MAX} of them, the one used longest ago closed first.
 */
final class ConnectionPool implements AutoCloseable {
  static final int MAX = 8;

  /**
   * A kept connection: the service stubs and their network thread, and how many commands hold it
   * now. One that is dropped or pushed out is closed when the last command holding it lets go:
   * never under a command's feet (gRPC refuses new calls on stubs that are shutting down).
   */
  static final class Connection {
    private final WorkflowServiceStubs stubs;
    private final EventLoopGroup loop;
    private int leases;
    private boolean retired;
    private long lastUsed = System.nanoTime();

    Connection(WorkflowServiceStubs stubs, EventLoopGroup loop) {
      this.stubs = stubs;
      this.loop = loop;
    }

    WorkflowServiceStubs stubs() {
      return stubs;
    }

    EventLoopGroup loop() {
      return loop;
    }

    /** Takes it for one command; false when it is being closed. */
    synchronized boolean lease() {
      if (retired) {
        return false;
      }
      leases++;
      lastUsed = System.nanoTime();
      return true;
    }

    synchronized void release() {
      leases--;
      lastUsed = System.nanoTime();
      if (retired && leases == 0) {
        closeNow();
      }
    }

    /** No new command takes it; closed now, or when the last one holding it lets go. */
    synchronized void retire() {
      retired = true;
      if (leases == 0) {
        closeNow();
      }
    }

    synchronized boolean idleFor(long nanos) {
      return leases == 0 && System.nanoTime() - lastUsed > nanos;
    }

    private void closeNow() {
      stubs.shutdownNow();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  /**
   * What makes two connections the same: the address, namespace, TLS and credentials the profile
   * resolved to, and the change time of every file it names (a renewed certificate is a new
   * connection). Secret material enters only as a digest.
   */
  record Key(String digest) {
    static Key of(ClientProfile p) {
      StringBuilder s = new StringBuilder();
      field(s, p.address());
      field(s, p.namespace());
      field(s, Boolean.toString(p.tls()));
      field(s, p.apiKey());
      field(s, p.config().getMetadata() == null ? null : p.config().getMetadata().toString());
      ClientConfigTLS t = p.config().getTls();
      if (t != null) {
        field(s, String.valueOf(t.isDisabled()));
        file(s, t.getClientCertPath());
        data(s, t.getClientCertData());
        file(s, t.getClientKeyPath());
        data(s, t.getClientKeyData());
        file(s, t.getServerCACertPath());
        data(s, t.getServerCACertData());
        field(s, t.getServerName());
        field(s, String.valueOf(t.isDisableHostVerification()));
      }
      try {
        return new Key(HexFormat.of().formatHex(
            MessageDigest.getInstance("SHA-256").digest(s.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    private static void field(StringBuilder s, String v) {
      s.append(v == null ? "-" : v.length() + ":" + v).append('\n');
    }

    private static void data(StringBuilder s, byte[] v) {
      field(s, v == null ? null : java.util.Base64.getEncoder().encodeToString(v));
    }

    private static void file(StringBuilder s, String path) {
      field(s, path);
      if (path != null && !path.isEmpty()) {
        try {
          field(s, Files.getLastModifiedTime(Path.of(path)).toString() + "/" + Files.size(Path.of(path)));
        } catch (java.io.IOException | RuntimeException e) {
          field(s, "unreadable");
        }
      }
    }
  }

  private final Map<Key, Connection> kept = new LinkedHashMap<>(16, 0.75f, true);
  /**
   * One opening at a time per key: two commands' first use share one connection. A lock a waiting
   * command can be interrupted out of (Ctrl-C of a command waiting behind another's opening).
   */
  private final Map<Key, java.util.concurrent.locks.ReentrantLock> opening = new java.util.concurrent.ConcurrentHashMap<>();

  /** The lock to hold while looking for, and opening, the connection of {@code key}. */
  java.util.concurrent.locks.ReentrantLock opening(Key key) {
    return opening.computeIfAbsent(key, k -> new java.util.concurrent.locks.ReentrantLock());
  }

  synchronized Connection get(Key key) {
    return kept.get(key);
  }

  synchronized void put(Key key, Connection c) {
    Connection before = kept.put(key, c);
    if (before != null && before != c) {
      before.retire();
    }
    while (kept.size() > MAX) {
      var eldest = kept.entrySet().iterator().next();
      kept.remove(eldest.getKey());
      eldest.getValue().retire();
    }
  }

  /** Forgets {@code c} (when it is still the one kept for {@code key}) and retires it. */
  synchronized void drop(Key key, Connection c) {
    if (kept.remove(key, c)) {
      c.retire();
    }
  }

  /**
   * Closes the connections no command used for {@code nanos}: the credentials a caller connected
   * with stay in this process no longer than that after its last command.
   */
  synchronized void closeIdle(long nanos) {
    kept.entrySet().removeIf(e -> {
      if (e.getValue().idleFor(nanos)) {
        e.getValue().retire();
        return true;
      }
      return false;
    });
  }

  synchronized int size() {
    return kept.size();
  }

  @Override
  public synchronized void close() {
    kept.values().forEach(Connection::retire);
    kept.clear();
  }
}
