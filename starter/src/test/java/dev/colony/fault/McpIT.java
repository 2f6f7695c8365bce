package dev.colony.fault;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code colony mcp} driven by a client nobody here wrote: the official MCP Python SDK
 * (bin/mcp-python.sh, pinned) starts {@code ./colony mcp --dir <colony>} over stdio against
 * examples/hello on the real dev server with a worker, lists the tools, reads the inbox, reads the
 * greeter's live session as a resource, gets a prompt, is refused a bad argument, pauses the greeter and resumes it. {@code colony status} sees the ant
 * paused, then not, and the ant's history records the MCP client and the operator as who did it.
 */
@Timeout(600)
class McpIT {
  private static final Path EXAMPLE = Path.of("../examples/hello").toAbsolutePath().normalize();
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path CLIENT = Path.of("src/test/python/mcp_client.py").toAbsolutePath();
  private static final Path HTTP_CLIENT = Path.of("src/test/python/mcp_http_client.py").toAbsolutePath();
  private static final java.util.regex.Pattern CONSOLE_URL =
      java.util.regex.Pattern.compile("(?:Console:|console on)\\s+(http://\\S+)");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration STEP = Duration.ofSeconds(120);
  private static final java.util.regex.Pattern PAUSED = java.util.regex.Pattern.compile("(?m)^\\s*paused:\\s+yes");
  private static final java.util.regex.Pattern NOT_PAUSED = java.util.regex.Pattern.compile("(?m)^\\s*paused:\\s+no");

  @TempDir
  Path tmp;

  private Cluster cluster;
  private Process client;
  private Process console;

  @AfterEach
  void tearDown() throws Exception {
    if (client != null) {
      client.descendants().forEach(ProcessHandle::destroyForcibly);
      client.destroyForcibly();
    }
    if (console != null) {
      console.destroyForcibly();
      console.waitFor(30, TimeUnit.SECONDS);
    }
    Cluster.closeAll(cluster);
  }

  /** The MCP Python SDK's python: $COLONY_MCP_PYTHON, else what bin/mcp-python.sh installed under .tools/. */
  static String python() throws IOException {
    String env = System.getenv("COLONY_MCP_PYTHON");
    if (env != null && Files.isExecutable(Path.of(env))) {
      return env;
    }
    Path tools = ROOT.resolve(".tools");
    try (Stream<Path> s = Files.isDirectory(tools) ? Files.list(tools) : Stream.empty()) {
      for (Path p : s.filter(d -> d.getFileName().toString().startsWith("mcp-python-")
          && !d.getFileName().toString().endsWith(".partial")).sorted(Comparator.reverseOrder()).toList()) {
        if (Files.isExecutable(p.resolve("bin/python"))) {
          return p.resolve("bin/python").toString();
        }
      }
    }
    throw new AssertionError("no MCP Python SDK for this integration test: install it with bin/mcp-python.sh "
        + "(the pinned mcp into .tools/; ./run-tests does it), or set COLONY_MCP_PYTHON");
  }

  /** What a test adds to its copy of examples/hello before anything starts (an ant, a .env). */
  interface Preparation {
    void prepare(Path colonyDir) throws Exception;
  }

  /**
   * examples/hello copied into {@code tmp} (with what {@code prepare} adds), served by the real
   * dev server with a worker: its ants started, the greeter's first session begun. A cluster that
   * fails to get there is closed here (the caller never had it to close).
   */
  static Cluster runningHello(Path tmp, Preparation prepare) throws Exception {
    Cluster cluster = new Cluster(tmp, EXAMPLE);
    try {
      cluster.colonyName = "hello";
      deleteTree(cluster.dir.resolve(".colony")); // a checkout where examples/hello ran holds its state
      prepare.prepare(cluster.dir);
      cluster.startServer("dev");
      cluster.startWorker("w1");
      cluster.start();
      eventually(STEP, () -> quietly(cluster, "status", "hello/greeter").contains("sessions:"),
          () -> "greeter never ran:\n" + cluster.diagnostics());
      return cluster;
    } catch (Exception | AssertionError e) {
      try {
        Cluster.closeAll(cluster);
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  @Test
  void thePythonSdkReadsTheInboxAResourceAndAPromptAndPausesAndResumesAnAnt() throws Exception {
    String python = python();
    cluster = runningHello(tmp, dir -> { });

    List<String> server = List.of(ROOT.resolve("colony").toString(), "mcp", "--dir", cluster.dir.toString(),
        "--address", cluster.target());
    Path stderr = cluster.logs.resolve("mcp-client.log");
    ProcessBuilder pb = new ProcessBuilder(python, CLIENT.toString(), JSON.writeValueAsString(server), "greeter")
        .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("USER", "dana");
    pb.environment().putAll(cluster.env);
    client = pb.start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread.ofVirtual().start(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null;) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the client ended
      }
    });
    try {
      JsonNode init = step(lines, "initialize", stderr).get("result");
      assertEquals("2025-11-25", init.get("protocolVersion").asText(), "the protocol's current revision");
      assertEquals("colony", init.get("serverInfo").get("name").asText());

      JsonNode tools = step(lines, "tools", stderr).get("tools");
      List<String> names = new ArrayList<>();
      JsonNode stop = null;
      JsonNode inboxTool = null;
      for (JsonNode t : tools) {
        names.add(t.get("name").asText());
        stop = t.get("name").asText().equals("ant_stop") ? t : stop;
        inboxTool = t.get("name").asText().equals("colony_inbox") ? t : inboxTool;
      }
      assertEquals(24, names.size(), names.toString());
      assertTrue(stop.get("annotations").get("destructiveHint").asBoolean(), "ant_stop is destructive: " + stop);
      assertTrue(inboxTool.get("annotations").get("readOnlyHint").asBoolean(), inboxTool.toString());

      JsonNode inbox = step(lines, "inbox", stderr).get("result");
      assertFalse(inbox.path("isError").asBoolean(), inbox.toString());
      assertEquals("hello", inbox.get("structuredContent").get("colony").asText());
      assertTrue(inbox.get("content").get(1).get("text").asText().startsWith("Untrusted content from"), inbox.toString());

      JsonNode live = step(lines, "resource", stderr).get("result").get("contents").get(0);
      assertEquals("colony://ant/greeter/live", live.get("uri").asText(), live.toString());
      assertTrue(live.get("text").asText().contains("of ant 'greeter' in colony 'hello'"), live.toString());
      assertEquals("ant 'greeter'", live.get("_meta").get("dev.colony/untrusted").asText(), live.toString());
      JsonNode prompt = step(lines, "prompt", stderr).get("result");
      assertTrue(prompt.get("messages").get(0).get("content").get("text").asText().contains("colony://ant/greeter/live"),
          prompt.toString());

      JsonNode bad = step(lines, "bad", stderr).get("result");
      assertTrue(bad.get("isError").asBoolean(), bad.toString());
      assertTrue(bad.get("content").get(0).get("text").asText().startsWith("'ant' is not an ant's name"), bad.toString());

      JsonNode paused = step(lines, "paused", stderr).get("result");
      assertFalse(paused.path("isError").asBoolean(), paused.toString());
      assertEquals("mcp:python-sdk-it (dana)", paused.get("structuredContent").get("by").asText());
      eventually(STEP, () -> PAUSED.matcher(quietly("status", "hello/greeter")).find(),
          () -> "greeter is not paused in colony status:\n" + quietly("status", "hello/greeter"));
      assertTrue(cluster.history("greeter").contains("mcp:python-sdk-it (dana)"),
          "the ant's history records the MCP client and the operator as who paused it");

      OutputStream in = client.getOutputStream();
      in.write("go on\n".getBytes(StandardCharsets.UTF_8));
      in.flush();
      JsonNode resumed = step(lines, "resumed", stderr).get("result");
      assertFalse(resumed.path("isError").asBoolean(), resumed.toString());
      eventually(STEP, () -> NOT_PAUSED.matcher(quietly("status", "hello/greeter")).find(),
          () -> "greeter is still paused in colony status:\n" + quietly("status", "hello/greeter"));
      in.close();
      assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client did not end");
      assertEquals(0, client.exitValue(), Cluster.read(stderr));
      // The server's own line went to standard error (the client passes it on), and its standard output held
      // only protocol messages: the SDK logs a line it cannot parse as "Failed to parse JSONRPC message".
      String err = Cluster.read(stderr);
      assertTrue(err.contains("colony 'hello': MCP server on stdio"), err);
      assertFalse(err.contains("Failed to parse JSONRPC message"), err);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nclient's stderr:\n" + Cluster.read(stderr) + "\n"
          + cluster.diagnostics(), e);
    }
  }

  /**
   * The console's {@code /mcp} driven by the Python SDK over Streamable HTTP ({@code colony console}
   * with an operator and a read-only token): the operator's session lists every tool, reads the
   * inbox and pauses the greeter (recorded as the client and the operator's name); the read-only
   * session lists only reads and is refused a change; no token is refused.
   */
  @Test
  void thePythonSdkOverStreamableHttpActsWithTheConsolesTokens() throws Exception {
    String python = python();
    cluster = runningHello(tmp, dir -> { });

    String operator = "operator-secret-0123456789";
    String reader = "reader-secret-0123456789";
    Path consoleLog = cluster.logs.resolve("console.log");
    console = new ProcessBuilder(Cluster.jvm("console", cluster.dir.toString(), "--address", cluster.address,
        "--port", Integer.toString(Cluster.freePort()), "--token", operator, "--read-token", reader))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(consoleLog.toFile())).start();
    eventually(STEP, () -> {
      if (!console.isAlive()) {
        throw new AssertionError("colony console exited: " + Cluster.read(consoleLog));
      }
      return CONSOLE_URL.matcher(Cluster.read(consoleLog)).find();
    }, () -> "colony console printed no URL: " + Cluster.read(consoleLog));
    java.util.regex.Matcher m = CONSOLE_URL.matcher(Cluster.read(consoleLog));
    assertTrue(m.find());
    String url = m.group(1).replaceAll("/$", "") + "/mcp";

    Path stderr = cluster.logs.resolve("mcp-http-client.log");
    ProcessBuilder pb = new ProcessBuilder(python, HTTP_CLIENT.toString(), url, operator, reader, "greeter")
        .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
    client = pb.start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread.ofVirtual().start(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null;) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the client ended
      }
    });
    try {
      assertEquals("colony", step(lines, "initialize", stderr).get("result").get("serverInfo").get("name").asText());
      List<String> names = strings(step(lines, "tools", stderr).get("tools"));
      assertEquals(24, names.size(), names.toString());
      assertTrue(names.contains("ant_pause") && names.contains("ant_stop"), names.toString());

      JsonNode inbox = step(lines, "inbox", stderr).get("result");
      assertFalse(inbox.path("isError").asBoolean(), inbox.toString());
      assertEquals("hello", inbox.get("structuredContent").get("colony").asText());

      JsonNode paused = step(lines, "paused", stderr).get("result");
      assertFalse(paused.path("isError").asBoolean(), paused.toString());
      assertEquals("mcp:python-sdk-http-it (dana)", paused.get("structuredContent").get("by").asText());
      eventually(STEP, () -> PAUSED.matcher(quietly("status", "hello/greeter")).find(),
          () -> "greeter is not paused in colony status:\n" + quietly("status", "hello/greeter"));
      assertTrue(cluster.history("greeter").contains("mcp:python-sdk-http-it (dana)"),
          "the ant's history records the MCP client and the operator's name as who paused it");

      List<String> readerTools = strings(step(lines, "reader_tools", stderr).get("tools"));
      assertTrue(readerTools.contains("colony_inbox") && readerTools.contains("ant_status"), readerTools.toString());
      assertFalse(readerTools.contains("ant_pause") || readerTools.contains("ant_resume")
          || readerTools.contains("ant_stop") || readerTools.contains("task_add"), readerTools.toString());
      JsonNode write = step(lines, "reader_write", stderr);
      // the read-only server has no such tool: the SDK's JSON-RPC error (-32602, "Unknown tool")
      assertTrue(write.path("error").asText().startsWith("Unknown tool"), write.toString());
      assertTrue(PAUSED.matcher(quietly("status", "hello/greeter")).find(), "a read-only token resumed the greeter");

      JsonNode anonymous = step(lines, "anonymous", stderr);
      assertFalse(anonymous.path("error").asText().isEmpty(), "no token was let in: " + anonymous);
      assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client did not end");
      assertEquals(0, client.exitValue(), Cluster.read(stderr));
      assertFalse(Cluster.read(consoleLog).contains(operator), "the console logged its token");
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nclient's stderr:\n" + Cluster.read(stderr) + "\nconsole:\n"
          + Cluster.read(consoleLog) + "\n" + cluster.diagnostics(), e);
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private String quietly(String... args) {
    return quietly(cluster, args);
  }

  /** The CLI's output whatever its exit code, or what failed: for conditions polled until they hold. */
  static String quietly(Cluster cluster, String... args) {
    try {
      return cluster.cliRun(args).out();
    } catch (Exception e) {
      return e.toString();
    }
  }

  /** The client's next line, which must be {@code step}'s. */
  private static JsonNode step(BlockingQueue<String> lines, String step, Path stderr) throws Exception {
    String line = lines.poll(STEP.toSeconds(), TimeUnit.SECONDS);
    if (line == null) {
      throw new AssertionError("the client printed no '" + step + "' within " + STEP.toSeconds() + " s");
    }
    JsonNode n = JSON.readTree(line);
    assertEquals(step, n.get("step").asText(), line);
    return n;
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }
}
