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
 * greeter's live session as a resource, gets a prompt, is refused a bad argument, pauses the
 * greeter and resumes it. {@code colony status} sees the ant paused, then not, and the ant's
 * history records the MCP client and the operator as who did it. Over stdio too, it is told of
 * the changes it subscribed to and approves a confirmation an ant raised; over the console's
 * Streamable HTTP it acts with the console's tokens, a read-only token is refused a change, and a
 * console off loopback refuses it without a token.
 */
@Timeout(600)
class McpIT {
  private static final Path EXAMPLE = Path.of("../examples/hello").toAbsolutePath().normalize();
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path CLIENT = Path.of("src/test/python/mcp_client.py").toAbsolutePath();
  private static final Path HTTP_CLIENT = Path.of("src/test/python/mcp_http_client.py").toAbsolutePath();
  private static final java.util.regex.Pattern CONSOLE_URL =
      java.util.regex.Pattern.compile("(?:Console:|console on)\\s+(http://\\S+)");
  private static final Path SUBSCRIBE_CLIENT = Path.of("src/test/python/mcp_subscribe_client.py").toAbsolutePath();
  private static final Path HTTP_TOKEN_CLIENT = Path.of("src/test/python/mcp_http_token_client.py").toAbsolutePath();
  /**
   * A stand-in for the Claude Code CLI in stream-json mode, as FaultIT's (fault-colony/fake-claude.sh):
   * asks permission to {@code git push} through the CLI's permission channel, writes the answer it
   * gets to control/pusher/decisions.log and the message that follows it (the approver's note) to
   * control/pusher/told.log, then reports a success.
   */
  private static final String FAKE_CLAUDE = """
      #!/bin/sh
      here=$(cd "$(dirname "$0")" && pwd)
      log="$here/control/pusher"
      mkdir -p "$log"
      read -r first
      echo '{"type":"system","subtype":"init","session_id":"sess-mcp"}'
      echo '{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"git push origin main"}}}'
      while read -r line; do
        case "$line" in
          *control_response*) echo "$line" >> "$log/decisions.log"; break ;;
        esac
      done
      while read -r line; do
        case "$line" in
          *'"type":"user"'*) echo "$line" >> "$log/told.log"; break ;;
        esac
      done
      echo '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"total_cost_usd":0.1,"usage":{"input_tokens":10,"output_tokens":5},"result":"pushed the fix","session_id":"sess-mcp"}'
      while read -r line; do :; done
      """;
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
    // A value the config references is masked in everything the server says, never in the
    // protocol itself: "true" is in every initialize answer ("subscribe": true), and the
    // redactor on colony mcp's whole output lines made it "${GREETING_LOUD}", which no client reads.
    cluster = runningHello(tmp, dir -> {
      Files.writeString(dir.resolve(".env"), "GREETING_LOUD=true\n");
      Path greeter = dir.resolve("ants/greeter.yaml");
      Files.writeString(greeter, Files.readString(greeter)
          + "  env:\n    GREETING_LOUD: \"${GREETING_LOUD}\"   # a referenced value the protocol also holds\n");
    });

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

  /**
   * Subscriptions and a confirmation over stdio: the Python SDK subscribes to the greeter's live
   * view and to the inbox; {@code colony pause} from outside reaches it as
   * {@code notifications/resources/updated} for the greeter, after which it reads the greeter
   * paused; an ant started then (its agent a stand-in for the Claude Code CLI, as FaultIT's) asks
   * to {@code git push}, which reaches it as an update of the inbox holding the request; it
   * approves the request with a note, the agent is allowed its call and told the note, the ant's
   * session goes on to its success, the history records the client and the operator as who
   * decided, and the inbox update says the request left.
   */
  @Test
  void thePythonSdkIsToldOfWhatItSubscribedToAndApprovesAConfirmationAnAntRaised() throws Exception {
    String python = python();
    cluster = new Cluster(tmp, EXAMPLE);
    cluster.colonyName = "hello";
    deleteTree(cluster.dir.resolve(".colony"));
    Path fake = cluster.dir.resolve("fake-claude.sh");
    Files.writeString(fake, FAKE_CLAUDE);
    assertTrue(fake.toFile().setExecutable(true));
    Files.writeString(cluster.dir.resolve(".env"), "COLONY_CLAUDE_BIN=" + fake + "\n");
    cluster.startServer("dev");
    cluster.startWorker("w1");
    cluster.start();
    eventually(STEP, () -> quietly("status", "hello/greeter").contains("sessions:"),
        () -> "greeter never ran:\n" + cluster.diagnostics());

    String note = "only origin main, once";
    List<String> server = List.of(ROOT.resolve("colony").toString(), "mcp", "--dir", cluster.dir.toString(),
        "--address", cluster.target());
    Path stderr = cluster.logs.resolve("mcp-subscribe-client.log");
    BlockingQueue<String> lines = launch(stderr, python, SUBSCRIBE_CLIENT.toString(), JSON.writeValueAsString(server),
        "greeter", "pusher", note);
    try {
      JsonNode subscribed = step(lines, "subscribed", stderr);
      assertTrue(subscribed.get("capabilities").get("resources").get("subscribe").asBoolean(), subscribed.toString());
      assertFalse(subscribed.get("data").get("paused").asBoolean(), "the greeter was paused already: " + subscribed);

      cluster.cli("pause", "hello/greeter");
      JsonNode paused = waited(lines, "watched_paused", stderr);
      assertTrue(notified(paused, "colony://ant/greeter/live"), paused.toString());
      assertTrue(paused.get("data").get("paused").asBoolean(), paused.toString());
      assertTrue(PAUSED.matcher(quietly("status", "hello/greeter")).find(), quietly("status", "hello/greeter"));

      Files.writeString(cluster.dir.resolve("ants/pusher.yaml"), """
          name: pusher
          description: pushes the fix, asking first (its agent a stand-in for the Claude Code CLI)
          instructions: Push the fix.
          engine: claude
          poll_interval: 1h
          session_timeout: 10m
          sandbox:
            write: [control]
          """);
      cluster.start("pusher");
      JsonNode asked = waited(lines, "inbox_confirmation", stderr);
      assertTrue(notified(asked, "colony://inbox"), asked.toString());
      JsonNode item = null;
      for (JsonNode i : step(lines, "inbox_tool", stderr).get("result").get("structuredContent").get("ants")) {
        item = i.get("ant").asText().equals("pusher") ? i : item;
      }
      assertTrue(item != null, "colony_inbox does not list the pusher: " + asked);
      JsonNode request = item.get("confirmation");
      assertEquals("Bash", request.get("tool").asText(), item.toString());
      assertEquals("`git push origin main`", request.get("summary").asText(), item.toString());
      assertTrue(strings(item.get("answer_with")).contains("ant_decide"), item.toString());
      int id = request.get("request").asInt();
      assertEquals(List.of(id), cluster.status("pusher").confirmations().stream().map(p -> p.id()).toList(),
          "the request the client saw is the one the ant waits on");
      assertTrue(!Files.exists(cluster.dir.resolve("control/pusher/decisions.log")), "the agent was answered unasked");
      OutputStream in = client.getOutputStream();
      in.write("go on\n".getBytes(StandardCharsets.UTF_8));
      in.flush();

      JsonNode decided = step(lines, "decided", stderr);
      assertEquals(id, decided.get("request").asInt());
      JsonNode result = decided.get("result");
      assertFalse(result.path("isError").asBoolean(), result.toString());
      assertEquals("mcp:python-sdk-it (dana)", result.get("structuredContent").get("by").asText(), result.toString());
      eventually(STEP, () -> {
        var s = cluster.status("pusher");
        return s.confirmations().isEmpty() && s.sessions() >= 1 && "success".equals(s.lastOutcome());
      }, () -> "the pusher did not go on after the approval: " + cluster.status("pusher"));
      String answer = Cluster.read(cluster.dir.resolve("control/pusher/decisions.log"));
      assertTrue(answer.contains("\"behavior\":\"allow\"") && answer.contains("git push origin main"),
          "the agent was not allowed its call: " + answer);
      String told = Cluster.read(cluster.dir.resolve("control/pusher/told.log"));
      assertTrue(told.contains("approved by python-sdk-it (dana) (mcp), with a note: " + note), "the agent was not "
          + "told the note: " + told);
      // The history: the decision's signal, sent by the client for the operator, its decider and note.
      List<java.util.Map.Entry<String, String>> decisions = decideSignals("pusher");
      assertEquals(1, decisions.size(), decisions.toString());
      assertEquals("mcp:python-sdk-it (dana)", decisions.get(0).getKey(), decisions.toString());
      JsonNode decide = JSON.readTree(decisions.get(0).getValue());
      assertEquals(id, decide.get("id").asInt(), decide.toString());
      assertTrue(decide.get("approve").asBoolean(), decide.toString());
      assertEquals("python-sdk-it (dana) (mcp)", decide.get("by").asText(), decide.toString());
      assertEquals(note, decide.get("note").asText(), decide.toString());
      String worker = Cluster.read(cluster.logs.resolve("worker-w1.log"));
      assertTrue(worker.contains("request #" + id + " approved by python-sdk-it (dana) (mcp)."), worker);

      JsonNode cleared = waited(lines, "inbox_cleared", stderr);
      assertTrue(notified(cleared, "colony://inbox"), cleared.toString());
      assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client did not end");
      assertEquals(0, client.exitValue(), Cluster.read(stderr));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nclient's stderr:\n" + Cluster.read(stderr) + "\n"
          + cluster.diagnostics(), e);
    }
  }

  /**
   * A console off loopback ({@code --bind} the machine's own non-loopback address, or all of them
   * when it has none): it will not start without a token, and with one the Python SDK is refused
   * without it (401, told why) and let in with it: its pause reaches {@code colony status}, and its
   * subscription to the ant's live view is told of the change over the session's event stream.
   */
  @Test
  void offLoopbackTheConsolesMcpRefusesAClientWithoutAToken() throws Exception {
    String python = python();
    cluster = new Cluster(tmp, EXAMPLE);
    cluster.colonyName = "hello";
    deleteTree(cluster.dir.resolve(".colony"));
    cluster.startServer("dev");
    cluster.startWorker("w1");
    cluster.start();
    eventually(STEP, () -> quietly("status", "hello/greeter").contains("sessions:"),
        () -> "greeter never ran:\n" + cluster.diagnostics());

    String own = nonLoopbackAddress();
    // Without one (a machine with loopback only), all addresses: a console that is not on loopback just the same.
    String bind = own != null ? own : "0.0.0.0";
    String port = Integer.toString(Cluster.freePort());
    Path refusedLog = cluster.logs.resolve("console-refused.log");
    ProcessBuilder refusedPb = new ProcessBuilder(Cluster.jvm("console", cluster.dir.toString(), "--address",
        cluster.address, "--bind", bind, "--port", port)).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(refusedLog.toFile()));
    refusedPb.environment().remove("COLONY_CONSOLE_TOKEN");
    Process refused = refusedPb.start();
    try {
      assertTrue(refused.waitFor(60, TimeUnit.SECONDS), "a console off loopback without a token started: "
          + Cluster.read(refusedLog));
    } finally {
      refused.destroyForcibly();
    }
    assertEquals(1, refused.exitValue(), Cluster.read(refusedLog));
    assertTrue(Cluster.read(refusedLog).contains("refusing to serve the console on " + bind + " without a token"),
        Cluster.read(refusedLog));

    String token = "operator-secret-0123456789";
    Path consoleLog = cluster.logs.resolve("console.log");
    console = new ProcessBuilder(Cluster.jvm("console", cluster.dir.toString(), "--address", cluster.address,
        "--bind", bind, "--port", port, "--token", token))
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
    assertTrue(url.startsWith("http://" + (own != null ? own : "127.0.0.1") + ":" + port + "/"), url);

    Path stderr = cluster.logs.resolve("mcp-http-token-client.log");
    BlockingQueue<String> lines = launch(stderr, python, HTTP_TOKEN_CLIENT.toString(), url, token, "greeter");
    try {
      JsonNode anonymous = step(lines, "anonymous", stderr);
      // the SDK raises the console's sentence (a JSON-RPC error in the 401's body)
      assertTrue(anonymous.get("error").asText().contains("a token is needed (Authorization: Bearer TOKEN)"),
          "no token was let in, or the client was not told why: " + anonymous);
      JsonNode plain = step(lines, "anonymous_http", stderr);
      assertEquals(401, plain.get("status").asInt(), plain.toString());
      JsonNode refusal = JSON.readTree(plain.get("body").asText());
      assertEquals("a token is needed (Authorization: Bearer TOKEN)", refusal.path("error").path("message").asText(),
          plain.toString());

      assertEquals("colony", step(lines, "initialize", stderr).get("result").get("serverInfo").get("name").asText());
      List<String> names = strings(step(lines, "tools", stderr).get("tools"));
      assertEquals(24, names.size(), names.toString());
      JsonNode paused = step(lines, "paused", stderr).get("result");
      assertFalse(paused.path("isError").asBoolean(), paused.toString());
      assertEquals("mcp:python-sdk-http-it (dana)", paused.get("structuredContent").get("by").asText());
      eventually(STEP, () -> PAUSED.matcher(quietly("status", "hello/greeter")).find(),
          () -> "greeter is not paused in colony status:\n" + quietly("status", "hello/greeter"));
      JsonNode told = waited(lines, "told", stderr);
      assertTrue(notified(told, "colony://ant/greeter/live"), "the subscription over HTTP was not told: " + told);
      assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client did not end");
      assertEquals(0, client.exitValue(), Cluster.read(stderr));
      assertFalse(Cluster.read(consoleLog).contains(token), "the console logged its token");
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\nclient's stderr:\n" + Cluster.read(stderr) + "\nconsole:\n"
          + Cluster.read(consoleLog) + "\n" + cluster.diagnostics(), e);
    }
  }

  /** The ant's {@code decide} signals: each its sender's identity and its input as JSON. */
  private List<java.util.Map.Entry<String, String>> decideSignals(String ant) {
    List<java.util.Map.Entry<String, String>> out = new ArrayList<>();
    for (var e : cluster.client.fetchHistory("ant/" + cluster.colonyName + "/" + ant).getEvents()) {
      if (e.hasWorkflowExecutionSignaledEventAttributes()
          && e.getWorkflowExecutionSignaledEventAttributes().getSignalName().equals("decide")) {
        var a = e.getWorkflowExecutionSignaledEventAttributes();
        out.add(java.util.Map.entry(a.getIdentity(), a.getInput().getPayloads(0).getData().toStringUtf8()));
      }
    }
    return out;
  }

  /** An IPv4 address of this machine's that is not loopback (nor link-local), or null. */
  private static String nonLoopbackAddress() throws IOException {
    for (java.net.NetworkInterface ni : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
      if (!ni.isUp() || ni.isLoopback()) {
        continue;
      }
      for (java.net.InetAddress a : java.util.Collections.list(ni.getInetAddresses())) {
        if (a instanceof java.net.Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()
            && !a.isAnyLocalAddress()) {
          return a.getHostAddress();
        }
      }
    }
    return null;
  }

  /** Starts the Python client {@code command} (as {@link #client}, the operator dana); its stdout's lines. */
  private BlockingQueue<String> launch(Path stderr, String... command) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
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
    return lines;
  }

  /** A step the client waited for notifications for (it waits 150 s at most, then says so). */
  private static JsonNode waited(BlockingQueue<String> lines, String step, Path stderr) throws Exception {
    JsonNode n = step(lines, step, stderr, Duration.ofSeconds(240));
    assertFalse(n.path("timeout").asBoolean(), "the client was told nothing that led to '" + step + "': " + n);
    System.out.println("McpIT: '" + step + "' after the notifications " + n.get("notified"));
    return n;
  }

  /** Whether the client was sent {@code notifications/resources/updated} for {@code uri} while it waited. */
  private static boolean notified(JsonNode step, String uri) {
    for (JsonNode n : step.get("notified")) {
      if ("notifications/resources/updated".equals(n.path("method").asText()) && uri.equals(n.path("uri").asText())) {
        return true;
      }
    }
    return false;
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
    return step(lines, step, stderr, STEP);
  }

  private static JsonNode step(BlockingQueue<String> lines, String step, Path stderr, Duration within) throws Exception {
    String line = lines.poll(within.toSeconds(), TimeUnit.SECONDS);
    if (line == null) {
      throw new AssertionError("the client printed no '" + step + "' within " + within.toSeconds() + " s");
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
