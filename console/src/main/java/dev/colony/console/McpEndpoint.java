package dev.colony.console;

import dev.colony.console.Auth.Principal;
import dev.colony.mcp.ColonyMcp;
import dev.colony.mcp.Subscriptions;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.javalin.http.HttpResponseException;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

/**
 * The colony's MCP tools over Streamable HTTP at {@value #PATH} (docs/mcp.md): the MCP SDK's own
 * servlet transport, mounted in the console's Jetty beside Javalin's servlet, behind the console's
 * checks ({@link ConsoleServer#mcpGuard}: Host, Origin, token). Two servers, one per access level:
 * an operator's requests reach every tool, a reader's reach a server that has only the read-only
 * tools (so tools/list omits the others and a call to one is "unknown tool"); a session begun on
 * one is unknown to the other. The signed-in name travels in the request's transport context as
 * {@link ColonyMcp#OPERATOR}: the actor of a change is {@code mcp:<client> (<name>)}. Both servers
 * declare {@code resources.subscribe}: their subscriptions are told from the console's one live
 * stream ({@link McpLive} on the {@link LiveHub}), which runs only while a session is subscribed or
 * a page is open.
 */
final class McpEndpoint extends HttpServlet {
  static final String PATH = "/mcp";
  private static final String WHO = "dev.colony.console.who";
  /** The JSON-RPC error code of a request the console's checks refused (the implementation-defined server error). */
  static final int REFUSED = -32000;
  private static final String SESSION = "Mcp-Session-Id";
  /** Keep-alive intervals after which a session with no stream and no request is forgotten (1 min). */
  static final int SWEEP_KEEP_ALIVES = 12;

  private final transient Function<HttpServletRequest, Principal> guard;
  private final transient HttpServletStreamableServerTransportProvider full;
  private final transient HttpServletStreamableServerTransportProvider reader;
  private final transient McpSyncServer fullServer;
  private final transient McpSyncServer readerServer;
  private final transient Views views;
  private final transient McpLive live;
  private final transient Subscriptions fullSubscriptions;
  private final transient Subscriptions readerSubscriptions;

  McpEndpoint(ColonyMcp mcp, LiveHub hub, Function<HttpServletRequest, Principal> guard, Views views,
      Duration keepAlive) {
    this.guard = guard;
    this.views = views;
    this.full = transport(keepAlive);
    this.reader = transport(keepAlive);
    this.live = new McpLive(hub);
    this.fullSubscriptions = new Subscriptions(live);
    this.readerSubscriptions = new Subscriptions(live);
    String version = ColonyMcp.class.getPackage().getImplementationVersion();
    this.fullServer = mcp.serve(full, version, false, fullSubscriptions);
    this.readerServer = mcp.serve(reader, version, true, readerSubscriptions);
    live.tell(java.util.List.of(fullServer, readerServer));
  }

  private static HttpServletStreamableServerTransportProvider transport(Duration keepAlive) {
    return HttpServletStreamableServerTransportProvider.builder()
        .jsonMapper(ColonyMcp.jsonMapper())
        .mcpEndpoint(PATH)
        .maxRequestSize(ConsoleServer.MAX_BODY)
        // an open stream gets a ping before the connector's idle timeout (30 s) would close it
        .keepAliveInterval(keepAlive)
        // A session with no open stream that sent nothing for one to two of these is forgotten,
        // its subscriptions with it (a client that went away without a DELETE: the keep-alive
        // finds its event stream dead)
        .sessionSweepInterval(keepAlive.multipliedBy(SWEEP_KEEP_ALIVES))
        .contextExtractor(req -> {
          Principal who = (Principal) req.getAttribute(WHO);
          return who == null ? McpTransportContext.EMPTY : McpTransportContext.create(Map.of(ColonyMcp.OPERATOR, who.name()));
        })
        .build();
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse res) throws ServletException, IOException {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Referrer-Policy", "same-origin");
    Principal who;
    try {
      who = guard.apply(req);
    } catch (HttpResponseException refused) {
      if (refused.getStatus() == 401) {
        res.setHeader("WWW-Authenticate", "Bearer realm=\"colony\"");
      }
      refuse(res, refused.getStatus(), refused.getMessage());
      return;
    }
    req.setAttribute(WHO, who);
    HttpServletRequest forward = req;
    if ("POST".equals(req.getMethod())) {
      // The body is read here (bounded as on the API) so that the server's subscriptions see a
      // resources/subscribe or unsubscribe before the SDK answers it (its transport shows nobody).
      byte[] body = req.getContentLengthLong() > ConsoleServer.MAX_BODY ? null
          : req.getInputStream().readNBytes(ConsoleServer.MAX_BODY + 1);
      if (body == null || body.length > ConsoleServer.MAX_BODY) {
        refuse(res, 413, "the request body is over " + ConsoleServer.MAX_BODY / 1024 + " KB");
        return;
      }
      String refused = (who.operator() ? fullSubscriptions : readerSubscriptions).request(req.getHeader(SESSION),
          new String(body, StandardCharsets.UTF_8));
      if (refused != null) {
        // A subscription no server follows, or one too many: answered here, never recorded by the SDK.
        res.setStatus(200);
        res.setContentType("application/json; charset=utf-8");
        res.getOutputStream().write(refused.getBytes(StandardCharsets.UTF_8));
        return;
      }
      forward = new Body(req, body);
    }
    (who.operator() ? full : reader).service((ServletRequest) forward, (ServletResponse) res);
  }

  /**
   * A refusal: {@code status} with a JSON-RPC error whose message is {@code sentence}, so that a
   * client shows the sentence (the Python SDK surfaces a JSON-RPC error found in a non-2xx body;
   * any other body becomes its "Server returned an error response").
   */
  private void refuse(HttpServletResponse res, int status, String sentence) throws IOException {
    res.setStatus(status);
    res.setContentType("application/json; charset=utf-8");
    Map<String, Object> body = new java.util.LinkedHashMap<>();
    body.put("jsonrpc", "2.0");
    body.put("id", null);
    body.put("error", Map.of("code", REFUSED, "message", sentence));
    res.getOutputStream().write(views.json(body).getBytes(StandardCharsets.UTF_8));
  }

  /** A request whose body was read already: it is read again from memory. */
  private static final class Body extends HttpServletRequestWrapper {
    private final byte[] body;

    Body(HttpServletRequest req, byte[] body) {
      super(req);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public int read() {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
          return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          // The whole body is in memory: available at once, then at its end.
          try {
            listener.onDataAvailable();
            listener.onAllDataRead();
          } catch (IOException e) {
            listener.onError(e);
          }
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      String cs = getCharacterEncoding();
      return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body),
          cs == null ? StandardCharsets.UTF_8 : java.nio.charset.Charset.forName(cs)));
    }
  }

  @Override
  public void init() throws ServletException {
    full.init(getServletConfig());
    reader.init(getServletConfig());
  }

  void close() {
    live.close();
    fullServer.close();
    readerServer.close();
  }
}
