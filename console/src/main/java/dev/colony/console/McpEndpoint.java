package dev.colony.console;

import dev.colony.console.Auth.Principal;
import dev.colony.mcp.ColonyMcp;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.javalin.http.HttpResponseException;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
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
 * {@link ColonyMcp#OPERATOR}: the actor of a change is {@code mcp:<client> (<name>)}.
 */
final class McpEndpoint extends HttpServlet {
  static final String PATH = "/mcp";
  private static final String WHO = "dev.colony.console.who";
  /** The JSON-RPC error code of a request the console's checks refused (the implementation-defined server error). */
  static final int REFUSED = -32000;

  private final transient Function<HttpServletRequest, Principal> guard;
  private final transient HttpServletStreamableServerTransportProvider full;
  private final transient HttpServletStreamableServerTransportProvider reader;
  private final transient McpSyncServer fullServer;
  private final transient McpSyncServer readerServer;
  private final transient Views views;

  McpEndpoint(ColonyMcp mcp, Function<HttpServletRequest, Principal> guard, Views views, Duration keepAlive) {
    this.guard = guard;
    this.views = views;
    this.full = transport(keepAlive);
    this.reader = transport(keepAlive);
    String version = ColonyMcp.class.getPackage().getImplementationVersion();
    this.fullServer = mcp.serve(full, version, false);
    this.readerServer = mcp.serve(reader, version, true);
  }

  private static HttpServletStreamableServerTransportProvider transport(Duration keepAlive) {
    return HttpServletStreamableServerTransportProvider.builder()
        .jsonMapper(ColonyMcp.jsonMapper())
        .mcpEndpoint(PATH)
        .maxRequestSize(ConsoleServer.MAX_BODY)
        // an open stream gets a ping before the connector's idle timeout (30 s) would close it
        .keepAliveInterval(keepAlive)
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
      res.setStatus(refused.getStatus());
      res.setContentType("application/json; charset=utf-8");
      // A JSON-RPC error, so that a client shows the sentence (the Python SDK surfaces one found in
      // a non-2xx body; any other body becomes its "Server returned an error response").
      Map<String, Object> body = new java.util.LinkedHashMap<>();
      body.put("jsonrpc", "2.0");
      body.put("id", null);
      body.put("error", Map.of("code", REFUSED, "message", refused.getMessage()));
      res.getOutputStream().write(views.json(body).getBytes(StandardCharsets.UTF_8));
      return;
    }
    req.setAttribute(WHO, who);
    (who.operator() ? full : reader).service((ServletRequest) req, (ServletResponse) res);
  }

  @Override
  public void init() throws ServletException {
    full.init(getServletConfig());
    reader.init(getServletConfig());
  }

  void close() {
    fullServer.close();
    readerServer.close();
  }
}
