package dev.colony.sandbox;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ConnectHandler;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.HostPort;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's egress proxy: the only way out of a sandbox whose network is not {@code open}.
 * One Jetty server per worker, started with the first session; each session gets its own Unix
 * socket (a connector), bind-mounted into its sandbox, so the socket a request came in on says
 * which ant asks, and nothing inside can claim another's list. Jetty does the protocol work:
 * {@link ConnectHandler} opens CONNECT tunnels (HTTPS, anything TLS), {@link ProxyHandler.Forward}
 * forwards plain {@code http://} requests; here each destination is checked against the ant's
 * {@link EgressPolicy} first, and the connection goes to the address that was checked.
 *
 * <p>Every refusal is one line in the worker's log ({@code egress refused: ant=..., destination=...,
 * why=...}) and counted, per ant and in all ({@link #refused()}, {@link #refused(String, String)});
 * the per-ant count is what {@code colony_sandbox_refused_connections_total} reads
 * ({@link #export}).
 */
public final class EgressProxy {
  private static final Logger LOG = LoggerFactory.getLogger(EgressProxy.class);
  /** The request attribute holding the address that was checked. */
  private static final String CHECKED = EgressProxy.class.getName() + ".checked";

  private static volatile EgressProxy shared;
  /** Threads at most: one per open session's socket, and those moving data. */
  static final int MAX_THREADS = 4096;
  /**
   * Connections one session may hold open through its door at once (each a tunnel or a forwarded
   * request, and its upstream socket): more wait in the socket's backlog until one closes, so a
   * session that floods its door cannot run the worker out of file descriptors.
   */
  static final int MAX_CONNECTIONS_PER_SESSION = 64;

  private final Server server;
  private final Path dir;
  private final Map<Connector, Door> doors = new ConcurrentHashMap<>();
  private final AtomicLong refusedAll = new AtomicLong();
  /** Refusals by ant (colony and ant: the config names of the door's session). */
  private final Map<AntKey, AtomicLong> refusedByAnt = new ConcurrentHashMap<>();
  private final AtomicLong opened = new AtomicLong();

  /** An ant of a colony (a worker's proxy serves every colony its JVM runs). */
  private record AntKey(String colony, String ant) {}

  /** The worker's proxy, started on first use. */
  public static EgressProxy shared() throws IOException {
    EgressProxy p = shared;
    if (p == null) {
      synchronized (EgressProxy.class) {
        p = shared;
        if (p == null) {
          p = new EgressProxy();
          shared = p;
        }
      }
    }
    return p;
  }

  private EgressProxy() throws IOException {
    // Sockets live in a directory only the worker's user can enter (mode 700): another local user
    // cannot borrow an ant's door. Short path: a Unix socket's name has at most 107 bytes.
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    sweepStale(tmp);
    this.dir = Files.createTempDirectory(tmp, PREFIX + ProcessHandle.current().pid() + "-");
    // Each session's socket has one selector thread (no acceptor thread: its selector accepts);
    // tunnels and forwarded requests are asynchronous and borrow threads only while data moves.
    QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 2, 60_000);
    threads.setName("colony-egress");
    threads.setDaemon(true);
    this.server = new Server(threads);
    server.setStopAtShutdown(true);
    Forward forward = new Forward();
    Tunnels tunnels = new Tunnels(forward);
    server.setHandler(tunnels);
    try {
      server.start();
    } catch (Exception e) {
      throw new IOException("the egress proxy did not start: " + e.getMessage(), e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(this::removeDirectory, "colony-egress-cleanup"));
  }

  /** One session's way out: its socket, and the list it is held to. Closing it shuts the door. */
  public final class Door implements AutoCloseable {
    private final String colony;
    private final String ant;
    private final EgressPolicy policy;
    private final Path socket;
    private final UnixDomainServerConnector connector;

    private Door(String colony, String ant, EgressPolicy policy, Path socket, UnixDomainServerConnector connector) {
      this.colony = colony;
      this.ant = ant;
      this.policy = policy;
      this.socket = socket;
      this.connector = connector;
    }

    /** The socket on the worker's side (bind-mounted into the sandbox). */
    public Path socket() {
      return socket;
    }

    public String ant() {
      return ant;
    }

    private long windowStart;
    private long linesInWindow;
    private long unlogged;

    /**
     * Whether a refusal through this door is logged: -1 when not (its lines this minute are used
     * up), else how many went unlogged since its last line.
     */
    synchronized long logAllowance() {
      long now = System.currentTimeMillis();
      if (now - windowStart >= 60_000) {
        windowStart = now;
        linesInWindow = 0;
      }
      if (linesInWindow >= LOG_PER_MINUTE) {
        unlogged++;
        return -1;
      }
      linesInWindow++;
      long n = unlogged;
      unlogged = 0;
      return n;
    }

    /** Connections open through this door now. */
    int connections() {
      return connector.getConnectedEndPoints().size();
    }

    public EgressPolicy policy() {
      return policy;
    }

    @Override
    public void close() {
      doors.remove(connector);
      try {
        connector.stop();
      } catch (Exception e) {
        LOG.debug("egress: closing {}'s socket", ant, e);
      }
      server.removeConnector(connector);
      try {
        Files.deleteIfExists(socket);
      } catch (IOException ignored) {
        // the directory goes with the worker
      }
    }
  }

  /** Opens a door for one session of {@code ant} of {@code colony}, held to {@code allow}. */
  public Door open(String colony, String ant, java.util.List<String> allow) throws IOException {
    Path socket = dir.resolve("s" + opened.incrementAndGet() + ".sock");
    UnixDomainServerConnector c = new UnixDomainServerConnector(server, 0, 1);
    c.setUnixDomainPath(socket);
    c.setAcceptQueueSize(64);
    c.setIdleTimeout(300_000);
    c.addBean(new org.eclipse.jetty.server.NetworkConnectionLimit(MAX_CONNECTIONS_PER_SESSION, c));
    Door door = new Door(colony, ant, new EgressPolicy(allow), socket, c);
    doors.put(c, door);
    server.addConnector(c);
    try {
      c.start();
    } catch (Exception e) {
      doors.remove(c);
      server.removeConnector(c);
      throw new IOException("the egress proxy could not open a socket for " + ant + ": " + e.getMessage(), e);
    }
    return door;
  }

  /** Connections refused since the worker started, all ants. */
  public long refused() {
    return refusedAll.get();
  }

  /** Connections refused for one ant since the worker started. */
  public long refused(String colony, String ant) {
    AtomicLong n = refusedByAnt.get(new AntKey(colony, ant));
    return n == null ? 0 : n.get();
  }

  /**
   * Exports this proxy's count of {@code ant}'s refused connections as
   * {@code colony_sandbox_refused_connections_total{colony,ant}} on {@code metrics}: read at each
   * scrape, so the metric is the proxy's own count (nothing counted twice, nothing missed).
   */
  public void export(dev.colony.engine.SessionMetrics metrics, String colony, String ant) {
    metrics.egress(this, colony, ant, p -> p.refused(colony, ant));
  }

  /** How many sessions have a door open now. */
  public int open() {
    return doors.size();
  }

  private Door doorOf(Request request) {
    return doors.get(request.getConnectionMetaData().getConnector());
  }

  /**
   * Checks a destination for the session the request came from: the address to connect to, or
   * null after answering 403 and logging the refusal.
   */
  private InetAddress check(Request request, Response response, Callback callback, String host, int port) {
    Door door = doorOf(request);
    EgressPolicy.Decision d = door == null ? new EgressPolicy.Decision(null, "the session's door is closed")
        : door.policy.decide(host, port);
    if (d.allowed()) {
      return d.address();
    }
    String ant = door == null ? "?" : door.ant;
    long forAnt = refusedByAnt.computeIfAbsent(new AntKey(door == null ? "?" : door.colony, ant), k -> new AtomicLong())
        .incrementAndGet();
    refusedAll.incrementAndGet();
    String destination = host + ":" + port;
    long hidden = door == null ? 0 : door.logAllowance();
    if (hidden >= 0) {
      // The destination is the agent's to choose: printable and bounded in the worker's log.
      String shown = dev.colony.text.Printable.of(destination.length() > 200 ? destination.substring(0, 200) + "…" : destination);
      LOG.warn("egress refused: ant={} destination={} why={} (refused for this ant: {}{})", ant, shown, d.refusal(),
          forAnt, hidden > 0 ? "; " + hidden + " more not logged" : "");
    }
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
    Response.writeError(request, response, callback, HttpStatus.FORBIDDEN_403,
        "colony egress proxy: " + destination + " refused: " + d.refusal());
    return null;
  }

  /** Refusal lines one session may put in the log per minute; the rest are counted, not logged. */
  static final int LOG_PER_MINUTE = 20;

  /** CONNECT tunnels, to the checked address. */
  private final class Tunnels extends ConnectHandler {
    Tunnels(Forward forward) {
      super(forward);
      setConnectTimeout(15_000);
      setIdleTimeout(300_000);
    }

    @Override
    protected void handleConnect(Request request, Response response, Callback callback, String serverAddress) {
      HostPort hp;
      try {
        hp = new HostPort(serverAddress);
      } catch (RuntimeException e) {
        check(request, response, callback, String.valueOf(serverAddress), 0);
        return;
      }
      InetAddress a = check(request, response, callback, hp.getHost(), hp.getPort(443));
      if (a != null) {
        request.setAttribute(CHECKED, new InetSocketAddress(a, hp.getPort(443)));
        super.handleConnect(request, response, callback, serverAddress);
      }
    }

    @Override
    protected void connectToServer(Request request, String host, int port, Promise<SocketChannel> promise) {
      Object checked = request.getAttribute(CHECKED);
      if (!(checked instanceof InetSocketAddress address)) {
        promise.failed(new IOException("destination not checked"));
        return;
      }
      SocketChannel channel = null;
      try {
        channel = SocketChannel.open();
        channel.socket().setTcpNoDelay(true);
        channel.configureBlocking(false);
        channel.connect(address);
        promise.succeeded(channel);
      } catch (Throwable x) {
        if (channel != null) {
          try {
            channel.close();
          } catch (IOException ignored) {
            // failing anyway
          }
        }
        promise.failed(x);
      }
    }
  }

  /** Plain {@code http://} requests in absolute form, sent on to the checked address. */
  private final class Forward extends ProxyHandler.Forward {
    @Override
    protected org.eclipse.jetty.client.HttpClient newHttpClient() {
      // Its threads are daemons like the server's: the proxy never keeps a stopping worker (or a
      // bench) alive; Jetty's default pool for it is not.
      org.eclipse.jetty.client.HttpClient client = super.newHttpClient();
      QueuedThreadPool pool = new QueuedThreadPool(MAX_THREADS, 2, 60_000);
      pool.setName("colony-egress-client");
      pool.setDaemon(true);
      client.setExecutor(pool);
      return client;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      if (HttpMethod.CONNECT.is(request.getMethod())) {
        return false;
      }
      HttpURI uri = request.getHttpURI();
      if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
        // https:// in absolute form would need the proxy to speak TLS for the client: CONNECT is the way
        check(request, response, callback, String.valueOf(uri.getHost()), -1);
        return true;
      }
      int port = uri.getPort() > 0 ? uri.getPort() : 80;
      InetAddress a = check(request, response, callback, uri.getHost(), port);
      if (a == null) {
        return true;
      }
      request.setAttribute(CHECKED, new InetSocketAddress(a, port));
      return super.handle(request, response, callback);
    }

    @Override
    protected HttpURI rewriteHttpURI(Request request) {
      InetSocketAddress a = (InetSocketAddress) request.getAttribute(CHECKED);
      String host = a.getAddress().getHostAddress();
      if (host.contains(":")) {
        host = "[" + host + "]";
      }
      // The checked address, not the name (the Host header still carries the name).
      return HttpURI.build(request.getHttpURI()).host(host).port(a.getPort());
    }

    @Override
    protected void copyRequestHeaders(Request request, org.eclipse.jetty.client.Request proxyToServerRequest) {
      super.copyRequestHeaders(request, proxyToServerRequest);
      // The Host the server sees is the one that was checked: a different Host header would ask a
      // shared front end (a CDN) for another site than the allowed one.
      HttpURI uri = request.getHttpURI();
      String authority = uri.getPort() > 0 ? uri.getHost() + ":" + uri.getPort() : uri.getHost();
      proxyToServerRequest.headers(h -> h.put(HttpHeader.HOST, authority));
    }

    @Override
    protected void addProxyHeaders(Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
      // no Via or Forwarded: the destination learns nothing of the worker
    }
  }

  static final String PREFIX = "colony-egress-";

  /**
   * Removes the socket directories of workers that are gone (killed with {@code kill -9}: no
   * shutdown hook ran). A directory's name carries its worker's pid; only this user's are touched.
   */
  static void sweepStale(Path tmp) {
    try (var dirs = Files.newDirectoryStream(tmp, PREFIX + "*")) {
      for (Path d : dirs) {
        String[] parts = d.getFileName().toString().substring(PREFIX.length()).split("-", 2);
        long pid;
        try {
          pid = Long.parseLong(parts[0]);
        } catch (NumberFormatException e) {
          continue;
        }
        if (parts.length == 2 && pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty()
            && Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          removeDirectory(d);
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // best effort: a leftover directory holds no more than dead sockets
    }
  }

  private void removeDirectory() {
    removeDirectory(dir);
  }

  private static void removeDirectory(Path dir) {
    try (var files = Files.list(dir)) {
      files.forEach(f -> {
        try {
          Files.deleteIfExists(f);
        } catch (IOException ignored) {
          // best effort at exit
        }
      });
      Files.deleteIfExists(dir);
    } catch (IOException ignored) {
      // best effort at exit
    }
  }
}
