package dev.colony.console;

import dev.colony.client.ColonySource;
import dev.colony.client.MergeSource;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colony.board.TaskBoard;
import dev.colony.secrets.Secrets;
import dev.colony.console.Auth.Principal;
import dev.colony.client.AntVerb;
import dev.colony.client.Verbs;
import dev.colony.client.ColonySource.Filter;
import dev.colony.client.ColonySource.Row;
import dev.colony.client.ColonySource.SourceException;
import dev.colony.mcp.ColonyMcp;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.javalin.http.sse.SseClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.regex.Pattern;
import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP server: the pages, the JSON API (docs/console.md), the live events and the
 * checks every request passes (Host, cross-site, content type, body size, token). Javalin over
 * Jetty 12: small, well kept, server-sent events built in.
 */
public final class ConsoleServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);
  /** A message of the ant's longest (16,000 characters) in the worst UTF-8 and JSON escaping fits. */
  static final int MAX_BODY = 100 * 1024;
  /** Open event streams at most: each has a writer thread and a queue. */
  static final int MAX_STREAMS = 200;
  static final Pattern ANT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
  /** The most tasks the board reads (and paints, column by column). */
  static final int MAX_TASKS = 10_000;
  private static final Pattern STATIC_FILE = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*\\.(html|js|css|svg|png|ico|map|json)");
  private static final Pattern WEBJAR_PATH = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*");
  static final String WEB = "dev/colony/console/web/";
  static final String CSP = "default-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; "
      + "base-uri 'none'; form-action 'self'";
  private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8", "js",
      "text/javascript; charset=utf-8", "css", "text/css; charset=utf-8", "svg", "image/svg+xml", "png", "image/png",
      "ico", "image/x-icon", "map", "application/json; charset=utf-8", "json", "application/json; charset=utf-8");
  private static final Map<String, String> PAGES = Map.of("/", "overview.html", "/inbox", "inbox.html", "/costs",
      "costs.html", "/supervision", "supervision.html", "/board", "board.html", "/merge", "merge.html");

  /**
   * How the console serves.
   *
   * @param bind the address to listen on (127.0.0.1 by default)
   * @param port the port; 0 for any free one
   * @param token the operator token; null for none (loopback only)
   * @param readToken the read-only token; null for none
   * @param webUi the Temporal Web UI's address, for links; null when none
   * @param pollEvery how often the colony poller asks visibility while a page is open
   * @param keepAlive how often an idle event stream gets a comment
   */
  public record Options(String bind, int port, String token, String readToken, String webUi, Duration pollEvery,
      Duration keepAlive) {
    public static Options defaults() {
      return new Options("127.0.0.1", 8080, null, null, null, Duration.ofMillis(400), Duration.ofSeconds(5));
    }

    public Options withBind(String b, int p) {
      return new Options(b, p, token, readToken, webUi, pollEvery, keepAlive);
    }

    public Options withTokens(String t, String r) {
      return new Options(bind, port, t, r, webUi, pollEvery, keepAlive);
    }

    public Options withWebUi(String w) {
      return new Options(bind, port, token, readToken, w, pollEvery, keepAlive);
    }

    public Options withTiming(Duration poll, Duration alive) {
      return new Options(bind, port, token, readToken, webUi, poll, alive);
    }

    boolean loopback() {
      try {
        return InetAddress.getByName(bind).isLoopbackAddress();
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("cannot resolve the address to serve on, '" + bind + "'");
      }
    }

    /** Refuses what is unsafe: a non-loopback address without a token, a read token alone. */
    public void check() {
      boolean hasToken = token != null && !token.isBlank();
      if (!loopback() && !hasToken) {
        throw new IllegalArgumentException("refusing to serve the console on " + bind + " without a token: anyone "
            + "who reaches it could steer the colony; set --token or COLONY_CONSOLE_TOKEN (or bind 127.0.0.1)");
      }
      if (!hasToken && readToken != null && !readToken.isBlank()) {
        throw new IllegalArgumentException("a read-only token needs an operator token too (--token or COLONY_CONSOLE_TOKEN)");
      }
      if (hasToken && token.length() < 16) {
        throw new IllegalArgumentException("the console's token is too short: use 16 characters or more");
      }
    }
  }

  private final Options options;
  private final ColonySource source;
  private final TaskRoutes tasks;
  private final MergeRoutes merge;
  private final Views views;
  private final Auth auth;
  private final LiveHub hub;
  private final McpEndpoint mcp;
  private final Javalin app;
  private volatile Set<String> hosts = Set.of();
  private final boolean anyHost;

  private ConsoleServer(Options options, ColonySource source, TaskBoard board, MergeSource merges, Secrets secrets) {
    options.check();
    this.options = options;
    this.source = source;
    this.views = new Views(secrets, source.colony(), source.namespace(), options.webUi());
    this.tasks = new TaskRoutes(board, source, views);
    this.merge = new MergeRoutes(merges != null ? merges : source.merges(), source.colony());
    this.auth = new Auth(options.token(), options.readToken());
    this.hub = new LiveHub(source, board, merge, views, options.pollEvery(), options.keepAlive(), 256);
    this.anyHost = !options.loopback() && isWildcard(options.bind());
    MergeSource mcpMerges = merges != null ? merges : source.merges(ColonyMcp.SURFACE);
    this.mcp = new McpEndpoint(new ColonyMcp(source, board, mcpMerges, secrets, null)
        .noTranscripts("the console serves no transcripts, as its pages show none (colony mcp --dir DIR on that "
            + "machine reads them)"), hub, this::mcpGuard, views,
        options.keepAlive());
    views.warmUp();
    this.app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.startup.showOldJavalinVersionWarning = false;
      config.http.maxRequestSize = MAX_BODY;
      // Answers are small; a compressed event stream could sit in the deflater's buffer.
      config.http.compressionStrategy = io.javalin.compression.CompressionStrategy.NONE;
      config.jetty.addConnector((server, http) -> {
        // A slow client cannot hold a thread: headers are bounded, an idle connection (one that
        // sends nothing, or does not read) is closed after 30 s; event streams write a comment
        // every 5 s, so they are never idle that long.
        http.setRequestHeaderSize(8 * 1024);
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        ServerConnector c = new ServerConnector(server, new HttpConnectionFactory(http));
        c.setHost(options.bind());
        c.setPort(options.port());
        c.setIdleTimeout(30_000);
        return c;
      });
      // The MCP SDK's servlet transport at /mcp, beside Javalin's servlet (at /*): an exact mapping wins.
      config.jetty.modifyServletContextHandler(handler -> {
        ServletHolder holder = new ServletHolder("mcp", mcp);
        holder.setAsyncSupported(true); // its event streams answer asynchronously
        handler.addServlet(holder, McpEndpoint.PATH);
      });
      routes(config);
    });
  }

  private static boolean isWildcard(String bind) {
    try {
      return InetAddress.getByName(bind).isAnyLocalAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * A loopback name on any port: an SSH tunnel or an editor's forwarded port reaches a loopback
   * console on another port; DNS rebinding needs a name of the attacker's, which this is not.
   */
  private static final Pattern LOOPBACK_HOST = Pattern.compile("(localhost|127\\.0\\.0\\.1|\\[::1\\])(:[0-9]{1,5})?");

  /** The sign-in cookie's name: one per port, since cookies ignore ports and several consoles may share a host. */
  private String cookieName() {
    return Auth.COOKIE + "_" + port();
  }

  /** Starts serving, without a task board (its routes answer 404); see {@link #start(Options, ColonySource, TaskBoard, Secrets)}. */
  public static ConsoleServer start(Options options, ColonySource source, Secrets secrets) {
    return start(options, source, null, secrets);
  }

  /**
   * Starts serving the colony of {@code source} and its task {@code board} (null: none); throws
   * {@link IllegalArgumentException} with one line when it may not.
   */
  public static ConsoleServer start(Options options, ColonySource source, TaskBoard board, Secrets secrets) {
    return start(options, source, board, null, secrets);
  }

  /**
   * Starts serving the colony of {@code source}, its task {@code board} (null: none) and its merge
   * queues {@code merges} (null: {@link ColonySource#merges()}).
   */
  public static ConsoleServer start(Options options, ColonySource source, TaskBoard board, MergeSource merges,
      Secrets secrets) {
    ConsoleServer s = new ConsoleServer(options, source, board, merges, secrets);
    s.app.start();
    int port = s.port();
    java.util.Set<String> h = new java.util.HashSet<>();
    h.add(hostPort(options.bind(), port));
    if (options.loopback()) {
      h.add("localhost:" + port);
      h.add("127.0.0.1:" + port);
      h.add("[::1]:" + port);
    }
    s.hosts = Set.copyOf(h);
    return s;
  }

  /** Whether {@code e} says the port is taken. */
  public static boolean portTaken(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException || t instanceof io.javalin.util.JavalinBindException) {
        return true;
      }
    }
    return false;
  }

  /** {@link #start} on {@code options.port()}, or on any free port when that one is taken. */
  public static ConsoleServer startOnAnyPort(Options options, ColonySource source, Secrets secrets) {
    return startOnAnyPort(options, source, null, secrets);
  }

  /** {@link #start} on {@code options.port()}, or on any free port when that one is taken. */
  public static ConsoleServer startOnAnyPort(Options options, ColonySource source, TaskBoard board, Secrets secrets) {
    try {
      return start(options, source, board, secrets);
    } catch (RuntimeException e) {
      if (!portTaken(e) || options.port() == 0) {
        throw e;
      }
      return start(options.withBind(options.bind(), 0), source, board, secrets);
    }
  }

  private static String hostPort(String host, int port) {
    return (host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
  }

  public int port() {
    return app.port();
  }

  /** Where a browser on this machine opens the console. */
  public String url() {
    String host = options.loopback() || anyHost ? "127.0.0.1" : options.bind();
    return "http://" + hostPort(host, port());
  }

  /** The calls made to Temporal so far. */
  public long temporalCalls() {
    return source.calls();
  }

  @Override
  public void close() {
    hub.close();
    mcp.close();
    app.stop();
  }

  private void routes(io.javalin.config.JavalinConfig config) {
    var r = config.routes;
    r.before(this::guard);
    r.get("/api/colony", ctx -> json(ctx, views.colony(source.counts(), who(ctx))));
    r.get("/api/ants", this::listAnts);
    r.get("/api/ants/{name}", ctx -> {
      var d = source.ant(antName(ctx));
      if (d == null) {
        throw new NoSuchElementException("no ant '" + ctx.pathParam("name") + "' in colony '" + source.colony() + "'");
      }
      json(ctx, views.detail(d));
    });
    r.get("/api/ants/{name}/config", ctx -> {
      Object c = source.config(antName(ctx));
      if (c == null) {
        throw new NoSuchElementException("no ant '" + ctx.pathParam("name") + "' in colony '" + source.colony() + "'");
      }
      json(ctx, c);
    });
    r.get("/api/ants/{name}/live", ctx -> json(ctx, source.live(antName(ctx))));
    r.post("/api/ants/{name}/{action}", this::act);
    r.get("/api/inbox", ctx -> json(ctx, views.inbox(source.list(Filter.NEED_YOU))));
    r.get("/api/tasks", ctx -> json(ctx, tasks.board(ctx)));
    r.get("/api/tasks/{id}", ctx -> json(ctx, tasks.detail(ctx)));
    r.post("/api/tasks", ctx -> json(ctx, tasks.add(ctx, body(ctx), who(ctx).name())));
    r.post("/api/tasks/{id}/{action}", ctx -> json(ctx, tasks.act(ctx, body(ctx), who(ctx).name())));
    r.get("/api/merge", ctx -> json(ctx, merge.queues()));
    r.post("/api/merge/{repo}/{action}", ctx -> {
      if (!ctx.pathParam("action").equals("decide")) {
        throw new HttpResponseException(404, "no such merge action (POST /api/merge/REPO/decide)");
      }
      json(ctx, merge.decide(ctx, body(ctx), who(ctx).name()));
    });
    r.get("/api/costs", ctx -> json(ctx, views.costs(source.costRows(), days(ctx))));
    r.get("/api/costs.csv", ctx -> {
      String csv = views.costsCsv(source.costRows(), days(ctx));
      ctx.contentType("text/csv; charset=utf-8").header("Content-Disposition", "attachment; filename=\"costs.csv\"").result(csv);
    });
    r.get("/api/supervision", ctx -> json(ctx, source.supervision()));
    r.get("/api/metrics", ctx -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("temporalCalls", source.calls());
      m.put("byMethod", source.callsByMethod());
      m.put("viewers", hub.viewers());
      m.put("polls", hub.polls());
      json(ctx, m);
    });
    r.sse("/api/events", this::events);
    PAGES.forEach((path, file) -> r.get(path, ctx -> page(ctx, file)));
    r.get("/ants/{name}", ctx -> {
      antName(ctx);
      page(ctx, "ant.html");
    });
    r.get("/login", ctx -> page(ctx, "login.html"));
    r.post("/login", this::login);
    r.post("/logout", ctx -> {
      ctx.header("Set-Cookie", cookieName() + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
      ctx.redirect("/login", HttpStatus.SEE_OTHER);
    });
    r.get("/static/{file}", ctx -> {
      String f = ctx.pathParam("file");
      if (!STATIC_FILE.matcher(f).matches()) {
        throw new HttpResponseException(404, "no such file");
      }
      resource(ctx, WEB + f, f);
    });
    r.get("/webjars/<path>", ctx -> {
      String p = ctx.pathParam("path");
      if (!WEBJAR_PATH.matcher(p).matches() || p.contains("..")) {
        throw new HttpResponseException(404, "no such file");
      }
      resource(ctx, "META-INF/resources/webjars/" + p, p);
    });
    r.exception(HttpResponseException.class, (e, ctx) -> error(ctx, e.getStatus(), e.getMessage()));
    r.exception(IllegalArgumentException.class, (e, ctx) -> error(ctx, 400, e.getMessage()));
    r.exception(NoSuchElementException.class, (e, ctx) -> error(ctx, 404, e.getMessage()));
    r.exception(SourceException.class, (e, ctx) -> error(ctx, 502, e.getMessage()));
    // The board refused the change (not in review, no such task, no worker answered in time): said in one sentence.
    r.exception(dev.colony.board.TaskBoardException.class, (e, ctx) -> error(ctx, 409, e.getMessage()));
    // The merge queue refused the decision (no such item, not in a state that takes it).
    r.exception(MergeSource.Refused.class, (e, ctx) -> error(ctx, 409, e.getMessage()));
    r.exception(Exception.class, (e, ctx) -> {
      log.warn("console: {} {} failed: {}", ctx.method(), ctx.path(), views.redact(String.valueOf(e)));
      error(ctx, 500, "the console failed to answer (see its log)");
    });
  }

  private void error(Context ctx, int status, String message) {
    ctx.status(status).contentType("application/json; charset=utf-8")
        .result(views.json(Map.of("error", message == null ? "error" : message)));
  }

  private void json(Context ctx, Object answer) {
    ctx.contentType("application/json; charset=utf-8").result(views.json(answer));
  }

  private static boolean isPublic(String path) {
    return path.equals("/login") || path.startsWith("/static/") || path.startsWith("/webjars/");
  }

  /** Every request: security headers, the Host, cross-site and content-type checks, the token. */
  private void guard(Context ctx) {
    ctx.header("Content-Security-Policy", CSP);
    ctx.header("X-Content-Type-Options", "nosniff");
    ctx.header("Referrer-Policy", "same-origin");
    ctx.header("X-Frame-Options", "DENY");
    ctx.header("Cache-Control", "no-store");
    String host = ctx.header("Host");
    checkHost(host);
    boolean post = ctx.method() != HandlerType.GET && ctx.method() != HandlerType.HEAD;
    // A page on another site may not read the API either (an EventSource opened from there would
    // hold one of the streams until the next keep-alive).
    String fetchSite = ctx.header("Sec-Fetch-Site");
    if (!post && ctx.path().startsWith("/api/") && fetchSite != null
        && (fetchSite.equals("cross-site") || fetchSite.equals("same-site"))) {
      throw new HttpResponseException(403, "cross-site requests are refused");
    }
    if (post) {
      if (ctx.method() != HandlerType.POST) {
        throw new HttpResponseException(405, "method not allowed");
      }
      String site = ctx.header("Sec-Fetch-Site");
      if (site != null && !site.equals("same-origin") && !site.equals("none")) {
        throw new HttpResponseException(403, "cross-site requests are refused");
      }
      String origin = ctx.header("Origin");
      if (origin != null && !(origin.equals("http://" + host) || origin.equals("https://" + host))) {
        throw new HttpResponseException(403, "cross-site requests are refused");
      }
      long length = ctx.req().getContentLengthLong();
      if (length > MAX_BODY) {
        throw new HttpResponseException(413, "the request body is over " + MAX_BODY / 1024 + " KB");
      }
      String type = ctx.header("Content-Type");
      String base = type == null ? "" : type.split(";")[0].strip().toLowerCase(Locale.ROOT);
      boolean form = ctx.path().equals("/login") || ctx.path().equals("/logout");
      if (!form && !base.equals("application/json")) {
        throw new HttpResponseException(415, "a POST must be application/json");
      }
    }
    if (isPublic(ctx.path())) {
      return;
    }
    Principal who = principal(ctx);
    if (who == null) {
      if (!ctx.path().startsWith("/api/") && !post) {
        ctx.redirect("/login", HttpStatus.SEE_OTHER);
        ctx.skipRemainingHandlers();
        return;
      }
      throw new HttpResponseException(401, "sign in: a token is needed (Authorization: Bearer TOKEN, or /login)");
    }
    ctx.attribute("who", who);
    if (post && !who.operator() && !ctx.path().equals("/logout")) {
      throw new HttpResponseException(403, "a read-only token may not act");
    }
  }

  private Principal principal(Context ctx) {
    return principal(ctx.header("X-Colony-Operator"), ctx.header("Authorization"), ctx.cookie(cookieName()));
  }

  /** Who asks: without tokens everyone is an operator; with them, a Bearer token or the sign-in cookie; null: no one. */
  private Principal principal(String named, String authz, String cookie) {
    if (!auth.required()) {
      Principal fromCookie = auth.fromCookie(cookie, System.currentTimeMillis());
      return new Principal(Auth.name(named, fromCookie != null ? fromCookie.name() : "local"), true);
    }
    if (authz != null && authz.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return auth.byToken(authz.substring(7).strip(), named);
    }
    return auth.fromCookie(cookie, System.currentTimeMillis());
  }

  /** The Host check of every request: one of the console's own names (any, bound to a wildcard address). */
  private void checkHost(String host) {
    if (!anyHost && (host == null || !(hosts.contains(host.toLowerCase(Locale.ROOT))
        || options.loopback() && LOOPBACK_HOST.matcher(host.toLowerCase(Locale.ROOT)).matches()))) {
      throw new HttpResponseException(403, "this console does not answer to the host '"
          + (host == null ? "" : host.replaceAll("[^A-Za-z0-9.:\\[\\]_-]", "?")) + "'");
    }
  }

  /**
   * The checks of a request to {@code /mcp}, the API's: the Host; no page of another site (a browser's
   * {@code Origin} must be the console's own, on every method, as Streamable HTTP asks against DNS
   * rebinding; {@code Sec-Fetch-Site} cross-site or same-site is refused); a token as the API takes
   * it (none needed on loopback without tokens). Answers who asks, or throws the refusal.
   */
  Principal mcpGuard(HttpServletRequest req) {
    String host = req.getHeader("Host");
    checkHost(host);
    String site = req.getHeader("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      throw new HttpResponseException(403, "cross-site requests are refused");
    }
    String origin = req.getHeader("Origin");
    if (origin != null && !(origin.equals("http://" + host) || origin.equals("https://" + host))) {
      throw new HttpResponseException(403, "cross-site requests are refused: the Origin is not this console's");
    }
    String cookie = null;
    if (req.getCookies() != null) {
      for (jakarta.servlet.http.Cookie c : req.getCookies()) {
        if (c.getName().equals(cookieName())) {
          cookie = c.getValue();
        }
      }
    }
    Principal who = principal(req.getHeader("X-Colony-Operator"), req.getHeader("Authorization"), cookie);
    if (who == null) {
      throw new HttpResponseException(401, "a token is needed (Authorization: Bearer TOKEN)");
    }
    return who;
  }

  private static Principal who(Context ctx) {
    return ctx.attribute("who");
  }

  private static String antName(Context ctx) {
    String name = ctx.pathParam("name");
    if (!ANT_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not an ant name (letters, digits, '.', '_', '-'; 63 at most)");
    }
    return name;
  }

  private static int intParam(Context ctx, String name, int dflt, int min, int max) {
    String v = ctx.queryParam(name);
    if (v == null || v.isEmpty()) {
      return dflt;
    }
    try {
      int i = Integer.parseInt(v);
      if (i >= min && i <= max) {
        return i;
      }
    } catch (NumberFormatException bad) {
      // below
    }
    throw new IllegalArgumentException(name + " must be a number from " + min + " to " + max);
  }

  private static int days(Context ctx) {
    return intParam(ctx, "days", 30, 1, dev.colony.visibility.AntCard.LEDGER_DAYS);
  }

  private void listAnts(Context ctx) {
    Filter filter = Filter.parse(ctx.queryParam("filter"));
    String q = ctx.queryParam("q");
    if (q != null && q.length() > 100) {
      throw new IllegalArgumentException("q is over 100 characters");
    }
    int size = intParam(ctx, "pageSize", 50, 1, 200);
    String token = ctx.queryParam("page");
    if (token != null && token.length() > 2000) {
      throw new IllegalArgumentException("page is over 2000 characters");
    }
    ColonySource.Page page = source.page(filter, q, size, token == null || token.isBlank() ? null : token);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ants", page.rows().stream().map(views::row).toList());
    m.put("next", page.next());
    m.put("total", page.total());
    json(ctx, m);
  }

  /** The request body, at most {@link #MAX_BODY} bytes (413 beyond, whatever the headers said). */
  static byte[] body(Context ctx) throws IOException {
    try (InputStream in = ctx.req().getInputStream()) {
      byte[] b = in.readNBytes(MAX_BODY + 1);
      if (b.length > MAX_BODY) {
        throw new HttpResponseException(413, "the request body is over " + MAX_BODY / 1024 + " KB");
      }
      return b;
    }
  }

  private void act(Context ctx) throws IOException {
    String name = antName(ctx);
    String kind = ctx.pathParam("action");
    if (!Verbs.NAMED.contains(kind)) {
      throw new IllegalArgumentException("unknown action '" + kind.replaceAll("[^A-Za-z0-9_-]", "?")
          + "' (" + String.join(", ", Verbs.NAMED) + ")");
    }
    JsonNode body = Views.jsonObject(body(ctx));
    String text = textField(body, "text");
    String note = textField(body, "note");
    Integer id = null;
    if (body.hasNonNull("id")) {
      if (!body.get("id").canConvertToInt() || !body.get("id").isIntegralNumber()) {
        throw new IllegalArgumentException("id must be a number");
      }
      id = body.get("id").intValue();
    }
    // The one reading of a verb and its bounds (a refusal is a 400 with its sentence).
    AntVerb verb = Verbs.named().action(kind, text, id, note);
    String message = source.act(name, verb, new dev.colony.client.Actor(who(ctx).name(), "console"));
    json(ctx, Map.of("ok", true, "message", message));
  }

  static String textField(JsonNode body, String field) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw new IllegalArgumentException(field + " must be a string");
    }
    return n.textValue();
  }

  private void login(Context ctx) throws IOException {
    Map<String, String> form = new HashMap<>();
    for (String pair : new String(body(ctx), StandardCharsets.UTF_8).split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        try {
          form.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException bad) {
          throw new IllegalArgumentException("the form is malformed");
        }
      }
    }
    String name = form.get("name");
    Principal p = auth.required() ? auth.byToken(form.get("token"), name) : new Principal(Auth.name(name, "local"), true);
    if (p == null) {
      ctx.redirect("/login?error=token", HttpStatus.SEE_OTHER);
      return;
    }
    ctx.header("Set-Cookie", cookieName() + "=" + auth.cookie(p, System.currentTimeMillis()) + "; Path=/; HttpOnly; "
        + "SameSite=Strict; Max-Age=" + Auth.COOKIE_LIFE.toSeconds());
    ctx.redirect("/", HttpStatus.SEE_OTHER);
  }

  private void page(Context ctx, String file) throws IOException {
    resource(ctx, WEB + file, file);
  }

  private static void resource(Context ctx, String path, String name) throws IOException {
    try (InputStream in = ConsoleServer.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new HttpResponseException(404, "no such file");
      }
      String ext = name.substring(name.lastIndexOf('.') + 1);
      ctx.contentType(TYPES.getOrDefault(ext, "application/octet-stream")).result(in.readAllBytes());
      if (!name.endsWith(".html")) {
        ctx.header("Cache-Control", "no-cache");
      }
    }
  }

  private void events(SseClient client) {
    Context ctx = client.ctx();
    String ant = ctx.queryParam("ant");
    boolean tasks = "1".equals(ctx.queryParam("tasks"));
    boolean merges = "1".equals(ctx.queryParam("merge"));
    if (ant != null && !ANT_NAME.matcher(ant).matches()) {
      client.sendEvent("error", views.json(Map.of("error", "not an ant name")));
      client.close();
      return;
    }
    if (hub.viewers() >= MAX_STREAMS) {
      client.sendEvent("error", views.json(Map.of("error", "too many open pages (" + MAX_STREAMS + ")")));
      client.close();
      return;
    }
    client.keepAlive();
    LiveHub.Viewer v = hub.attach(new LiveHub.Sink() {
      @Override
      public boolean send(String event, String data) {
        client.sendEvent(event, data);
        return !client.terminated();
      }

      @Override
      public boolean comment(String text) {
        client.sendComment(text);
        return !client.terminated();
      }

      @Override
      public void close() {
        client.close();
      }
    }, ant, tasks, merges);
    client.onClose(() -> hub.detach(v));
  }
}
