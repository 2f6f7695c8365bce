package dev.colony.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.colony.engine.Progress;
import dev.colony.engine.SessionContext;
import dev.colony.engine.command.CommandEngine;
import dev.colony.spec.AntSpec;
import dev.colony.spec.Autonomy;
import dev.colony.spec.ClaudeSpec;
import dev.colony.spec.CommandSpec;
import dev.colony.spec.ConfirmationSpec;
import dev.colony.spec.EngineKind;
import dev.colony.spec.GeminiSpec;
import dev.colony.spec.LmOutput;
import dev.colony.spec.RecoveryPolicy;
import dev.colony.spec.SandboxSpec;
import dev.colony.spec.ToolCallLogging;
import dev.colony.spec.WorkspaceSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sandboxed session's way out: the worker's egress proxy, reached with curl from a {@code command}
 * script through the ordinary proxy variables. An allowed local server is reached (plain HTTP and a
 * CONNECT tunnel); everything else is refused, logged and counted; and without the proxy nothing
 * gets out at all.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SandboxEgressTest {
  @TempDir
  Path tmp;
  Path colony;
  Path workspace;
  HttpServer server;
  int port;
  final List<String> seen = new CopyOnWriteArrayList<>();
  /** The worker's metrics registry, as the session activity hands it to the walls. */
  final io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
      new io.micrometer.core.instrument.simple.SimpleMeterRegistry();

  @BeforeAll
  static void toolsAreThere() {
    Bubblewrap.Probe p = Bubblewrap.probe();
    assertTrue(p.works(), "bubblewrap: " + p.problem());
    assertTrue(Files.isExecutable(Bubblewrap.SOCAT), "socat is installed by the project's scripts (run-tests)");
  }

  @BeforeEach
  void colonyAndServer() throws IOException {
    colony = tmp.resolve("colony");
    workspace = colony.resolve(".colony/workspaces/a");
    Files.createDirectories(workspace);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/", ex -> {
      seen.add(ex.getRequestMethod() + " " + ex.getRequestURI() + " host=" + ex.getRequestHeaders().getFirst("Host"));
      byte[] body = ("hello-from-the-allowed-server " + ex.getRequestURI().getPath() + "\n").getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    server.start();
    port = server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private AntSpec spec(String script, SandboxSpec sandbox) {
    return CommandAnts.ant(colony, "a", List.of("/bin/bash", "-c", script)).sandbox(sandbox).build();
  }

  private static SandboxSpec allowing(String... hosts) {
    return new SandboxSpec(false, false, List.of(hosts), List.of(), 0, 0, List.of(), List.of());
  }

  private String run(String script, SandboxSpec sandbox) throws Exception {
    Map<String, String> worker = new LinkedHashMap<>(System.getenv());
    Map<String, String> session = Map.of("COLONY_ANT", "a", "COLONY_COLONY", "c");
    worker.putAll(session);
    return CommandAnts.run(spec(script, sandbox), 1, workspace, worker, session, Duration.ofSeconds(90), null,
        new dev.colony.engine.SessionMetrics(registry)).output();
  }


  /** curl through the proxy variables, printing the status (and for a tunnel, the proxy's answer). */
  private static String curl(String label, String args) {
    return "echo \"" + label + " $(curl -s -o /dev/null --max-time 15 -w '%{http_code}/%{http_connect}' " + args + ")\"; ";
  }

  @Test
  void anAllowedServerIsReachedThroughTheProxyPlainAndTunnelled() throws Exception {
    String script = "curl -sS --max-time 15 http://127.0.0.1:" + port + "/plain; "
        + "curl -sS --max-time 15 --proxytunnel http://127.0.0.1:" + port + "/tunnel; "
        + curl("fronted", "-H 'Host: other-site.example' http://127.0.0.1:" + port + "/fronted")
        + "echo proxy=$HTTPS_PROXY; echo END";
    String out = run(script, allowing("127.0.0.1:" + port));
    assertTrue(out.contains("hello-from-the-allowed-server /plain"), out);
    assertTrue(out.contains("hello-from-the-allowed-server /tunnel"), "through a CONNECT tunnel: " + out);
    assertTrue(out.contains("proxy=http://127.0.0.1:" + Bubblewrap.PROXY_PORT), out);
    assertTrue(seen.contains("GET /plain host=127.0.0.1:" + port), seen.toString());
    assertTrue(seen.contains("GET /tunnel host=127.0.0.1:" + port), seen.toString());
    // A Host header naming another site than the allowed one is not sent on (domain fronting).
    assertTrue(out.contains("fronted 400/000"), out);
    assertTrue(seen.stream().noneMatch(r -> r.contains("other-site")), seen.toString());
    // The proxy's threads (its server's and the client it forwards with) never keep the JVM alive.
    List<String> kept = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("proxy-client") || t.getName().startsWith("colony-egress"))
        .filter(t -> !t.isDaemon()).map(Thread::getName).toList();
    assertEquals(List.of(), kept, "non-daemon proxy threads");
  }

  @Test
  void anAllowedHttpsServerIsReachedThroughATunnel() throws Exception {
    // A TLS server with a key made here (the JDK's keytool): curl speaks TLS to it end to end,
    // through the proxy's CONNECT tunnel.
    Path store = tmp.resolve("tls.p12");
    Process kt = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "s", "-keyalg", "EC", "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1",
        "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit")
        .redirectErrorStream(true).start();
    String ktOut = new String(kt.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(kt.waitFor(60, TimeUnit.SECONDS) && kt.exitValue() == 0, ktOut);
    java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(store)) {
      ks.load(in, "changeit".toCharArray());
    }
    javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance("SunX509");
    kmf.init(ks, "changeit".toCharArray());
    javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
    tls.init(kmf.getKeyManagers(), null, null);
    com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
    https.createContext("/", ex -> {
      seen.add("TLS " + ex.getRequestURI());
      byte[] body = "hello-over-tls\n".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    https.start();
    try {
      int tlsPort = https.getAddress().getPort();
      String out = run("curl -sS -k --max-time 15 https://127.0.0.1:" + tlsPort + "/secure; echo END",
          allowing("127.0.0.1:" + tlsPort));
      assertTrue(out.contains("hello-over-tls"), out);
      assertTrue(seen.contains("TLS /secure"), seen.toString());
    } finally {
      https.stop(0);
    }
  }

  @Test
  void everyOtherDestinationIsRefusedLoggedAndCounted() throws Exception {
    int other;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      other = s.getLocalPort(); // a loopback port not on the list (a Temporal, a console...)
    }
    String script = curl("notlisted", "http://example.com/")
        + curl("notlisted-tls", "https://example.com/")
        + curl("loopback-port", "http://127.0.0.1:" + other + "/")
        + curl("private", "http://10.0.0.1/")
        + curl("metadata", "http://169.254.169.254/latest/meta-data/")
        + curl("name-to-loopback", "http://localhost:" + port + "/")
        + "echo END";
    // localhost is on the list by name only: a name never reaches loopback unless host:port is named.
    SandboxSpec s = allowing("127.0.0.1:" + port, "localhost", "example.com:8443");
    long before = EgressProxy.shared().refused("c", "a");
    long beforeAll = EgressProxy.shared().refused();
    PrintStream err = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    String out;
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      out = run(script, s);
    } finally {
      System.setErr(err);
    }
    String logged = log.toString(StandardCharsets.UTF_8);
    err.print(logged);
    assertTrue(out.contains("notlisted 403/000"), out);
    assertTrue(out.contains("notlisted-tls 000/403"), "the CONNECT is answered 403: " + out);
    assertTrue(out.contains("loopback-port 403/000"), out);
    assertTrue(out.contains("private 403/000"), out);
    assertTrue(out.contains("metadata 403/000"), out);
    assertTrue(out.contains("name-to-loopback 403/000"), out);
    assertTrue(seen.isEmpty(), "nothing reached the server: " + seen);
    assertEquals(6, EgressProxy.shared().refused("c", "a") - before);
    // ... and exported: the walls registered the proxy's count of this ant on the worker's registry.
    assertEquals(before + 6, registry.get(dev.colony.engine.SessionMetrics.SANDBOX_REFUSED_CONNECTIONS)
        .tags("colony", "c", "ant", "a").functionCounter().count(), "colony_sandbox_refused_connections_total");
    assertTrue(EgressProxy.shared().refused() - beforeAll >= 6);
    for (String line : List.of("ant=a destination=example.com:80 why=not on the allow list",
        "ant=a destination=example.com:443 why=not on the allow list",
        "ant=a destination=127.0.0.1:" + other + " why=not on the allow list",
        "ant=a destination=10.0.0.1:80 why=not on the allow list",
        "ant=a destination=169.254.169.254:80 why=not on the allow list",
        "ant=a destination=localhost:" + port + " why=resolves to a loopback address 127.0.0.1")) {
      assertTrue(logged.contains("egress refused: " + line), "logged: " + line + "\n" + logged);
    }
  }

  @Test
  void withoutTheProxyNothingGetsOut() throws Exception {
    List<String> hosts = new ArrayList<>(List.of("127.0.0.1"));
    for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      for (InetAddress a : Collections.list(nif.getInetAddresses())) {
        if (a instanceof Inet4Address && !a.isLoopbackAddress()) {
          hosts.add(a.getHostAddress());
        }
      }
    }
    StringBuilder script = new StringBuilder();
    for (String h : hosts) {
      script.append("curl -sS --noproxy '*' --max-time 5 http://").append(h).append(':').append(port)
          .append("/direct && echo DOOR-direct-").append(h).append("; ");
      script.append("timeout 5 bash -c 'echo > /dev/tcp/").append(h).append('/').append(port)
          .append("' 2>/dev/null && echo DOOR-tcp-").append(h).append("; ");
    }
    script.append("echo END");
    // The server is on the list: the proxy would let it through, but only the proxy.
    String out = run(script.toString(), allowing("127.0.0.1:" + port));
    assertFalse(out.contains("DOOR-"), out);
    assertTrue(out.contains("END"), out);
    assertTrue(seen.isEmpty(), seen.toString());
    // With network: open the same script gets through: the test can fail.
    SandboxSpec open = new SandboxSpec(false, true, List.of(), List.of(), 0, 0, List.of(), List.of());
    String opened = run("curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:" + port + "/direct && echo DOOR-direct", open);
    assertTrue(opened.contains("DOOR-direct"), opened);
  }

  @Test
  void theBridgeKeepsTheProgramsStreamsAndExitCode() throws Exception {
    AntSpec spec = spec("true", allowing());
    Map<String, String> worker = new LinkedHashMap<>(System.getenv());
    try (SessionWalls walls = SessionWalls.of(spec, workspace, worker, Map.of("COLONY_ANT", "a"), List.of(),
        "egress-" + System.nanoTime())) {
      assertNull(walls.refusal());
      assertNotNull(walls.egress());
      ProcessBuilder pb = walls.confinement().processFor(List.of("/bin/sh", "-c",
          "read x; echo \"out:$x\"; echo err >&2; exit 7"), worker, Map.of(), workspace);
      Process p = pb.start();
      p.getOutputStream().write("from-stdin\n".getBytes(StandardCharsets.UTF_8));
      p.getOutputStream().close();
      String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS));
      assertEquals("out:from-stdin\n", stdout);
      assertEquals("err\n", stderr);
      assertEquals(7, p.exitValue());
    }
  }

  @Test
  void networkOpenHasNoProxyAndSaysSo() throws Exception {
    SandboxSpec open = new SandboxSpec(false, true, List.of(), List.of(), 0, 0, List.of(), List.of());
    AntSpec spec = spec("true", open);
    try (SessionWalls walls = SessionWalls.of(spec, workspace, System.getenv(), Map.of("COLONY_ANT", "a"), List.of(),
        "egress-" + System.nanoTime())) {
      assertNull(walls.egress());
      assertFalse(walls.granted().containsKey("HTTPS_PROXY"));
      assertEquals("sandbox (network open)", walls.confinement().describe());
    }
    int opened = EgressProxy.shared().open();
    try (SessionWalls walls = SessionWalls.of(spec("true", allowing()), workspace, System.getenv(),
        Map.of("COLONY_ANT", "a"), List.of(), "egress-" + System.nanoTime())) {
      assertNotNull(walls.egress());
      assertEquals(opened + 1, EgressProxy.shared().open());
    }
    assertEquals(opened, EgressProxy.shared().open(), "the session's door closes with it");
  }
}
