package dev.colony.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Who is subscribed to what on one MCP server, over all its sessions, so that the server watches
 * the colony only while someone listens (docs/mcp.md, Subscriptions). The SDK keeps its own list
 * of subscriptions (it sends {@code notifications/resources/updated} only to the sessions
 * subscribed to a URI) but tells nobody when one is made or dropped; this class sees each
 * session's {@code resources/subscribe} and {@code resources/unsubscribe} on their way to the SDK,
 * and the session's end (the client closed standard input, a {@code DELETE}, the transport evicted
 * an idle session, the server closed), and tells its {@link Listener} when a URI gains its first
 * subscriber and loses its last. Only the URIs a server ever notifies count ({@code colony://inbox},
 * {@code colony://ant/{name}/live}); at most {@value #MAX_PER_SESSION} per session.
 *
 * <p>It wraps the transport's sessions: every method is handed to the SDK's own session, so the
 * protocol is the SDK's; only the two requests and the end are looked at. Over stdio the session
 * is handed each message; over Streamable HTTP the transport hands requests to streams of the
 * session instead, so the servlet in front of it shows each POST's body to {@link #request} (the
 * console's {@code McpEndpoint}); the session's end is seen on the session either way.
 */
public final class Subscriptions {
  /** The resource whose changes a subscriber of the inbox hears of. */
  public static final String INBOX = ColonyResources.INBOX;
  /** Subscriptions one session may hold that the server follows (more are the SDK's only: never told). */
  public static final int MAX_PER_SESSION = 64;

  /** Told, under this tracker's lock (quickly, never calling back), when a URI is watched and when no longer. */
  public interface Listener {
    /** {@code uri} has its first subscriber. */
    void watched(String uri);

    /** {@code uri} has no subscriber any more. */
    void unwatched(String uri);
  }

  private static final McpJsonMapper JSON = ColonyMcp.jsonMapper();
  private final Listener listener;
  private final Map<String, Set<String>> bySession = new HashMap<>();
  private final Map<String, Integer> byUri = new HashMap<>();
  /** The sessions begun and not ended: only theirs count (a request naming another is refused by the transport). */
  private final Set<String> live = new HashSet<>();

  public Subscriptions(Listener listener) {
    this.listener = listener;
  }

  /** The ant whose live view {@code uri} is ({@code colony://ant/{name}/live}), else null. */
  public static String liveAnt(String uri) {
    Matcher m = uri == null ? null : ColonyResources.ANT_URI.matcher(uri);
    return m != null && m.matches() && m.group(2).equals("live") ? m.group(1) : null;
  }

  /** Whether a server ever tells a subscriber of {@code uri} that it changed. */
  public static boolean notified(String uri) {
    return INBOX.equals(uri) || liveAnt(uri) != null;
  }

  /**
   * Why a subscription of {@code session} to {@code uri} is refused (answered as the protocol's
   * invalid-params error, so the SDK never records it): a URI no server tells of changes, or one
   * past {@link #MAX_PER_SESSION}; null when it is taken.
   */
  synchronized String refusal(String session, String uri) {
    if (!notified(uri)) {
      return "only colony://inbox and colony://ant/{name}/live are told of changes; read the others again instead";
    }
    Set<String> mine = bySession.get(session);
    if (mine != null && mine.size() >= MAX_PER_SESSION && !mine.contains(uri)) {
      return "a session holds at most " + MAX_PER_SESSION + " subscriptions";
    }
    return null;
  }

  /** The JSON-RPC error answering {@code message} when it is a subscription refused, else null. */
  private McpSchema.JSONRPCResponse refused(String session, McpSchema.JSONRPCMessage message) {
    if (!(message instanceof McpSchema.JSONRPCRequest r)
        || !McpSchema.METHOD_RESOURCES_SUBSCRIBE.equals(r.method())) {
      return null;
    }
    String uri = r.params() instanceof Map<?, ?> params && params.get("uri") instanceof String u ? u : null;
    String why = uri == null ? "resources/subscribe needs 'uri'" : refusal(session, uri);
    return why == null ? null : new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, r.id(), null,
        new McpSchema.JSONRPCResponse.JSONRPCError(McpSchema.ErrorCodes.INVALID_PARAMS, why, null));
  }

  synchronized void subscribe(String session, String uri) {
    if (!notified(uri) || !live.contains(session)) {
      return;
    }
    Set<String> mine = bySession.computeIfAbsent(session, k -> new LinkedHashSet<>());
    if (mine.size() >= MAX_PER_SESSION || !mine.add(uri)) {
      return;
    }
    if (byUri.merge(uri, 1, Integer::sum) == 1) {
      listener.watched(uri);
    }
  }

  synchronized void unsubscribe(String session, String uri) {
    Set<String> mine = bySession.get(session);
    if (mine != null && mine.remove(uri)) {
      drop(uri);
    }
  }

  synchronized void begin(String session) {
    live.add(session);
  }

  /** The session ended: every subscription it held goes. */
  synchronized void end(String session) {
    live.remove(session);
    Set<String> mine = bySession.remove(session);
    if (mine != null) {
      mine.forEach(this::drop);
    }
  }

  private void drop(String uri) {
    Integer n = byUri.get(uri);
    if (n == null) {
      return;
    }
    if (n <= 1) {
      byUri.remove(uri);
      listener.unwatched(uri);
    } else {
      byUri.put(uri, n - 1);
    }
  }

  /**
   * Looks at one message a client of Streamable HTTP sent in session {@code session} (the body of
   * its POST, before the transport takes it). The SDK's HTTP transport hands a request to a stream
   * of the session that shows it to nobody, so the servlet in front of it (the console's) shows the
   * body here first; a session that is not one this server began is ignored, as is a body that is
   * not a message (the transport answers it). Answers the JSON-RPC error to send instead of
   * passing the request on when it is a subscription refused ({@link #refusal}), else null.
   */
  public String request(String session, String body) {
    if (session == null || body == null || !body.contains("subscribe")) {
      return null; // most requests: not read twice
    }
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(JSON, body);
    } catch (RuntimeException | java.io.IOException notAMessage) {
      return null; // the transport answers it
    }
    synchronized (this) {
      if (!live.contains(session)) {
        return null; // not a session of this server: the transport refuses it
      }
      McpSchema.JSONRPCResponse refused = refused(session, message);
      if (refused != null) {
        try {
          return JSON.writeValueAsString(refused);
        } catch (java.io.IOException e) {
          throw new IllegalStateException(e);
        }
      }
      look(session, message);
      return null;
    }
  }

  /** Looks at one request of {@code session} before the SDK answers it. */
  private void look(String session, McpSchema.JSONRPCMessage message) {
    if (!(message instanceof McpSchema.JSONRPCRequest r) || !(r.params() instanceof Map<?, ?> params)
        || !(params.get("uri") instanceof String uri)) {
      return;
    }
    if (McpSchema.METHOD_RESOURCES_SUBSCRIBE.equals(r.method())) {
      subscribe(session, uri);
    } else if (McpSchema.METHOD_RESOURCES_UNSUBSCRIBE.equals(r.method())) {
      unsubscribe(session, uri);
    }
  }

  // ---- stdio: one session per transport ----

  /** {@code transport}, its session looked at. */
  McpServerTransportProvider track(McpServerTransportProvider transport) {
    return new McpServerTransportProvider() {
      @Override
      public void setSessionFactory(McpServerSession.Factory factory) {
        transport.setSessionFactory(t -> {
          McpServerSession s = factory.create(t);
          begin(s.getId());
          return new Session(s, t);
        });
      }

      @Override
      public Mono<Void> notifyClients(String method, Object params) {
        return transport.notifyClients(method, params);
      }

      @Override
      public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return transport.notifyClient(sessionId, method, params);
      }

      @Override
      public void close() {
        transport.close();
      }

      @Override
      public Mono<Void> closeGracefully() {
        return transport.closeGracefully();
      }

      @Override
      public List<String> protocolVersions() {
        return transport.protocolVersions();
      }
    };
  }

  /** The SDK's session, every call handed to it; a subscription and the end seen on the way. */
  private final class Session extends McpServerSession {
    private final McpServerSession sdk;
    private final McpServerTransport transport;

    Session(McpServerSession sdk, McpServerTransport transport) {
      super(sdk.getId(), Duration.ofSeconds(1), transport, init -> Mono.empty(), Map.of(), Map.of());
      this.sdk = sdk;
      this.transport = transport;
    }

    @Override
    public String getId() {
      return sdk.getId();
    }

    @Override
    public void init(McpSchema.ClientCapabilities capabilities, McpSchema.Implementation info) {
      sdk.init(capabilities, info);
    }

    @Override
    public void setMinLoggingLevel(McpSchema.LoggingLevel level) {
      sdk.setMinLoggingLevel(level);
    }

    @Override
    public boolean isNotificationForLevelAllowed(McpSchema.LoggingLevel level) {
      return sdk.isNotificationForLevelAllowed(level);
    }

    @Override
    public <T> Mono<T> sendRequest(String method, Object params, TypeRef<T> type) {
      return sdk.sendRequest(method, params, type);
    }

    @Override
    public Mono<Void> sendNotification(String method, Object params) {
      return sdk.sendNotification(method, params);
    }

    @Override
    public Mono<Void> handle(McpSchema.JSONRPCMessage message) {
      McpSchema.JSONRPCResponse refused = refused(sdk.getId(), message);
      if (refused != null) {
        return transport.sendMessage(refused);
      }
      look(sdk.getId(), message);
      return sdk.handle(message);
    }

    @Override
    public Mono<Void> closeGracefully() {
      end(sdk.getId());
      return sdk.closeGracefully();
    }

    @Override
    public void close() {
      end(sdk.getId());
      sdk.close();
    }
  }

  // ---- Streamable HTTP: many sessions ----

  /** {@code transport}, its sessions looked at. */
  McpStreamableServerTransportProvider track(McpStreamableServerTransportProvider transport) {
    return new McpStreamableServerTransportProvider() {
      @Override
      public void setSessionFactory(McpStreamableServerSession.Factory factory) {
        transport.setSessionFactory(init -> {
          McpStreamableServerSession.McpStreamableServerSessionInit s = factory.startSession(init);
          begin(s.session().getId());
          return new McpStreamableServerSession.McpStreamableServerSessionInit(new StreamableSession(s.session()),
              s.initResult());
        });
      }

      @Override
      public Mono<Void> notifyClients(String method, Object params) {
        return transport.notifyClients(method, params);
      }

      @Override
      public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return transport.notifyClient(sessionId, method, params);
      }

      @Override
      public void close() {
        transport.close();
      }

      @Override
      public Mono<Void> closeGracefully() {
        return transport.closeGracefully();
      }

      @Override
      public List<String> protocolVersions() {
        return transport.protocolVersions();
      }
    };
  }

  /** The SDK's session over Streamable HTTP, every call handed to it; a subscription and the end seen on the way. */
  private final class StreamableSession extends McpStreamableServerSession {
    private final McpStreamableServerSession sdk;

    StreamableSession(McpStreamableServerSession sdk) {
      super(sdk.getId(), null, null, Duration.ofSeconds(1), Map.of(), Map.of());
      this.sdk = sdk;
    }

    @Override
    public String getId() {
      return sdk.getId();
    }

    @Override
    public void setMinLoggingLevel(McpSchema.LoggingLevel level) {
      sdk.setMinLoggingLevel(level);
    }

    @Override
    public boolean isNotificationForLevelAllowed(McpSchema.LoggingLevel level) {
      return sdk.isNotificationForLevelAllowed(level);
    }

    @Override
    public <T> Mono<T> sendRequest(String method, Object params, TypeRef<T> type) {
      return sdk.sendRequest(method, params, type);
    }

    @Override
    public Mono<Void> sendNotification(String method, Object params) {
      return sdk.sendNotification(method, params);
    }

    @Override
    public Mono<Void> delete() {
      end(sdk.getId());
      return sdk.delete();
    }

    @Override
    public boolean hasListeningStream() {
      return sdk.hasListeningStream();
    }

    @Override
    public boolean hasOpenStream() {
      return sdk.hasOpenStream();
    }

    @Override
    public McpStreamableServerSessionStream listeningStream(McpStreamableServerTransport transport) {
      return sdk.listeningStream(transport);
    }

    @Override
    public void releaseListeningStream() {
      sdk.releaseListeningStream();
    }

    @Override
    public Flux<McpSchema.JSONRPCMessage> replay(Object lastEventId) {
      return sdk.replay(lastEventId);
    }

    @Override
    public McpStreamableServerSessionStream responseStream(McpStreamableServerTransport transport) {
      return sdk.responseStream(transport);
    }

    @Override
    public Mono<Void> responseStream(McpSchema.JSONRPCRequest request, McpStreamableServerTransport transport) {
      look(sdk.getId(), request);
      return sdk.responseStream(request, transport);
    }

    @Override
    public Mono<Void> accept(McpSchema.JSONRPCNotification notification) {
      return sdk.accept(notification);
    }

    @Override
    public Mono<Void> accept(McpSchema.JSONRPCResponse response) {
      return sdk.accept(response);
    }

    @Override
    public Mono<Void> closeGracefully() {
      end(sdk.getId());
      return sdk.closeGracefully();
    }

    @Override
    public void close() {
      end(sdk.getId());
      sdk.close();
    }
  }
}
