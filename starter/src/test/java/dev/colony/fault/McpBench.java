package dev.colony.fault;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colony.bench.ScaleBench;
import dev.colony.testing.Eventually;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The MCP server measured as a user runs it ({@code bench/mcp} writes {@code bench/MCP.md}):
 * {@code ./colony mcp --dir} (the built jar through the launcher, over stdio) from process start to
 * its answer to {@code initialize} and to the first {@code tools/list}, cold (no start-up archive)
 * and warm; a tool call's latency over stdio and over the console's {@code /mcp} (Streamable HTTP,
 * with a token) for one ant's status, a filtered list of ants and the inbox, at 1,000 and 10,000
 * ants; the stdio server's memory after the calls. The ants are the console bench's
 * ({@link ConsoleBench#startShaped}: search attributes and a card, every 100th waiting for a
 * human), on the real dev server, with no worker: every tool here reads visibility and histories,
 * none needs one. The client is raw JSON-RPC (lines on the server's stdin and stdout, POSTs with
 * java.net.http), so what is timed is the server.
 */
public final class McpBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path LAUNCHER = Path.of(System.getProperty("colony.launcher", "../colony")).toAbsolutePath().normalize();
  private static final Pattern URL = Pattern.compile("console on\\s+(http://\\S+)");
  private static final String PROTOCOL = "2025-11-25";
  private static final String TOKEN = "bench-operator-token-0123456789";
  private static final int CALLS = Integer.getInteger("bench.mcpCalls", 200);
  private static final int WARMUP = Integer.getInteger("bench.mcpWarmup", 20);
  private static final int WARM_STARTS = Integer.getInteger("bench.mcpStarts", 5);
  /** Every this many ants one waits for a human (the inbox's ants). */
  private static final int NEED_HUMAN_EVERY = 100;
  private static final double STATUS_TARGET_MS = 50;
  /**
   * The least time from one call's start to the next's: an agent calls a tool after a model's
   * turn, never back to back; and the dev server allows a namespace 100 visibility calls a second
   * (Temporal's {@code frontend.namespaceRPS.visibility}, raised from 10 by the dev server), which
   * inbox calls back to back (4 visibility reads each) exceed: refused with RESOURCE_EXHAUSTED.
   */
  private static final Duration PACE = Duration.ofMillis(Integer.getInteger("bench.mcpPaceMs", 100));

  private McpBench() {}

  /** A tool measured: its name, the arguments of the i-th call, what the table calls it. */
  record Tool(String name, IntFunction<Map<String, Object>> args, String label) {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "../bench/MCP.md").toAbsolutePath();
    List<Integer> sizes = new ArrayList<>();
    for (String s : System.getProperty("bench.mcpAnts", "1000,10000").split(",")) {
      sizes.add(Integer.parseInt(s.trim()));
    }
    long began = System.nanoTime();
    String loadAtStart = ConsoleBench.loadAverage();
    Path tmp = Files.createTempDirectory("colony-mcp-bench");
    Path fixture = ConsoleBench.fixture(tmp.resolve("fixture"));
    List<String> startRows = new ArrayList<>();
    List<String> latencyRows = new ArrayList<>();
    List<String> memoryRows = new ArrayList<>();
    List<String> callRows = new ArrayList<>();
    try (Cluster c = new Cluster(tmp, fixture)) {
      c.colonyName = "bench";
      c.startServer("dev");
      Path consoleLog = c.logs.resolve("console.log");
      Process console = new ProcessBuilder(Cluster.jvm("console", c.dir.toString(), "--address", c.address,
          "--port", Integer.toString(Cluster.freePort()), "--token", TOKEN)).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(consoleLog.toFile())).start();
      try {
        Eventually.eventually(Duration.ofSeconds(90), () -> {
          if (!console.isAlive()) {
            throw new AssertionError("colony console exited: " + Cluster.read(consoleLog));
          }
          return URL.matcher(Cluster.read(consoleLog)).find();
        }, "the console's URL");
        Matcher m = URL.matcher(Cluster.read(consoleLog));
        m.find();
        String url = m.group(1).replaceAll("/$", "");
        int have = 0;
        boolean cold = true;
        for (int n : sizes) {
          long t0 = System.nanoTime();
          ConsoleBench.startShaped(c, have, n, NEED_HUMAN_EVERY);
          long startMs = (System.nanoTime() - t0) / 1_000_000;
          have = n;
          int needing = (n + NEED_HUMAN_EVERY - 1) / NEED_HUMAN_EVERY;
          Eventually.eventually(Duration.ofMinutes(5), () -> count(c, "") >= n
              && count(c, " AND AntNeedsHuman = true") >= needing, "visibility lists every ant");
          System.out.printf(Locale.ROOT, "%,d ants started in %,d ms (load %s)%n", n, startMs, ConsoleBench.loadAverage());
          List<Tool> tools = tools(n, needing);

          // Start-up: the first start after a build (no archive) once, then warm ones.
          if (cold) {
            forgetArchives();
            Start first = start(c, null, null);
            first.close();
            startRows.add(String.format(Locale.ROOT, "| cold: first start after a build (no start-up archive) | %,d | 1 | %s | %s | none set |",
                n, ms(first.initializedMs), ms(first.listedMs)));
            cold = false;
          }
          List<Double> init = new ArrayList<>();
          List<Double> listed = new ArrayList<>();
          for (int i = 0; i < WARM_STARTS; i++) {
            Start s = start(c, null, null);
            init.add(s.initializedMs);
            listed.add(s.listedMs);
            s.close();
          }
          startRows.add(String.format(Locale.ROOT, "| warm: a later start (the launcher's archive) | %,d | %d | %s | %s | none set |",
              n, WARM_STARTS, spread(init), spread(listed)));

          // Over stdio: one server, the tools in turn.
          String load = ConsoleBench.loadAverage();
          String jfr = System.getProperty("bench.mcpJfr");
          Start server = start(c, c.logs.resolve("mcp-stdio-" + n + ".log"), jfr == null ? null
              : "-Xlog:jfr+startup=off -XX:StartFlightRecording=filename=" + jfr + "-" + n + ".jfr,settings=profile");
          try {
            for (Tool t : tools) {
              List<Double> ms = calls(t, (name, arguments) -> server.call(name, arguments));
              latencyRows.add(row("stdio", n, t, ms, load));
            }
            long rss = ConsoleBench.rssKb(server.process) * 1024;
            long heap = ScaleBench.heapAfterGc(server.process.pid());
            long rssAfterGc = ConsoleBench.rssKb(server.process) * 1024;
            memoryRows.add(String.format(Locale.ROOT, "| %,d | %d | %s | %s | %s |", n, tools.size() * (CALLS + WARMUP),
                mib(rss), mib(heap), mib(rssAfterGc)));
          } finally {
            server.close();
          }

          // Over HTTP: the console's /mcp, one session; the console counts its calls to Temporal.
          load = ConsoleBench.loadAverage();
          Http http = new Http(url);
          for (Tool t : tools) {
            Map<String, Long> before = byMethod(url);
            List<Double> ms = calls(t, http::call);
            Map<String, Long> after = byMethod(url);
            latencyRows.add(row("HTTP", n, t, ms, load));
            callRows.add(String.format(Locale.ROOT, "| %,d | %s | %s |", n, t.label(), perCall(before, after, CALLS + WARMUP)));
          }
        }
      } finally {
        console.destroy();
        console.waitFor(20, TimeUnit.SECONDS);
      }
    }
    String doc = "# The MCP server, measured\n\n"
        + "Measured by `bench/mcp` (the `McpBench` main): `colony server` (the real Temporal dev server, SQLite), the "
        + "ants started the console bench's way (each with its search attributes and a representative card in the memo: a "
        + "30-day ledger, 5 recent sessions; every 100th parked and waiting for a human, so the inbox has 1 ant in 100), "
        + "no worker (no tool here needs one: they read visibility, the cards and the histories). `colony mcp --dir` is "
        + "started as a user's agent host starts it: `./colony mcp --dir DIR --address ADDR` through the launcher (the "
        + "built jar, the launcher's JVM flags and start-up archive); the console is `colony console --token` from the "
        + "same jar. The client is raw JSON-RPC: a line on the server's stdin and its answer's line on stdout; over "
        + "HTTP one POST to `/mcp` per call (`Authorization: Bearer`, the session's `Mcp-Session-Id`), its answer "
        + "read whole.\n\n"
        + "## Start-up of `colony mcp` (stdio)\n\n"
        + "From the process's start (the launcher, then the JVM) to the answer to `initialize` (sent at once), and to "
        + "the answer to the first `tools/list` (sent after `notifications/initialized`), both counted from the start. "
        + "*Cold* is the first start after a build: the bench deletes the start-up archives first, as a build leaves "
        + "them; the launcher's long-running commands write their archive at their first exit, so every later start is "
        + "*warm*.\n\n"
        + "| start | ants | runs | to `initialize` answered: median (min–max) | to first `tools/list` answered | target |\n"
        + "|---|---|---|---|---|---|\n" + String.join("\n", startRows) + "\n\n"
        + "## A tool call's latency\n\n"
        + "From writing the request to reading its whole answer, one call at a time, each begun at least "
        + PACE.toMillis() + " ms after the one before (an agent calls a tool after a model's turn; back to back, the "
        + "inbox's visibility reads exceed the dev server's 100 a second and are refused); " + WARMUP + " calls of each "
        + "tool first (not counted), then " + CALLS + ". Over stdio a server started for the run (warm: after the "
        + "start-ups above); over HTTP the console, up since the bench began. The arguments: `ant_status` "
        + "`{\"ant\": \"ant-NNNNN\"}` (another ant each call; default 10 turns, so its history is read too), "
        + "`colony_ants` `{\"state\": \"paused\"}` (about a sixth of the ants are paused; the first 100 answered), "
        + "`colony_inbox` `{}` (1 ant in 100 waits for a human; no task board or merge queue holds anything). "
        + "Target: p50 under " + (int) STATUS_TARGET_MS + " ms for a status on a warm server at 10,000 ants. "
        + "Load is the machine's one-minute load average when the transport's calls began (2 cores, shared).\n\n"
        + "| transport | ants | tool | calls | p50 | p99 | max | load | target |\n"
        + "|---|---|---|---|---|---|---|---|---|\n" + String.join("\n", latencyRows) + "\n\n"
        + "## Calls to Temporal per tool call\n\n"
        + "Counted by the console (`/api/metrics`, `byMethod`: every call its client makes to Temporal) over each "
        + "tool's calls over HTTP, warm-up included, divided by their number. The stdio server runs the same tools on "
        + "the same client code.\n\n"
        + "| ants | tool | Temporal calls per tool call |\n|---|---|---|\n" + String.join("\n", callRows) + "\n\n"
        + "## Memory of `colony mcp` (stdio)\n\n"
        + "The stdio server's process after the calls above: RSS from `/proc/PID/status` (`VmRSS`), then the JVM's "
        + "heap in use after a full GC (`jcmd PID GC.run`, then `GC.heap_info`: the heap's generations only, not "
        + "metaspace), and RSS again after that GC. The launcher gives long-running commands the JVM's default heap "
        + "settings (here: a quarter of the machine's memory as the maximum).\n\n"
        + "| ants | tool calls served | RSS | heap used after a full GC | RSS after the GC |\n|---|---|---|---|---|\n"
        + String.join("\n", memoryRows) + "\n\n"
        + String.format(Locale.ROOT, "Machine: %d cores, Java %s, %s %s, load average %s at the start and %s at the end "
            + "(other engineers' builds and tests ran beside it: the figures are only as quiet as the machine). Took %d s. "
            + "Recorded %s.%n", Runtime.getRuntime().availableProcessors(), Runtime.version(), System.getProperty("os.name"),
            System.getProperty("os.arch"), loadAtStart, ConsoleBench.loadAverage(), (System.nanoTime() - began) / 1_000_000_000L,
            Instant.now());
    Files.writeString(out, doc);
    System.out.println(doc);
  }

  /** The tools measured at {@code n} ants, {@code needing} of which wait for a human. */
  private static List<Tool> tools(int n, int needing) {
    return List.of(
        new Tool("ant_status", i -> Map.of("ant", String.format(Locale.ROOT, "ant-%05d", (i * 7919 + 1) % n)),
            "`ant_status` (one ant)"),
        new Tool("colony_ants", i -> Map.of("state", "paused"), "`colony_ants` (`state: paused`)"),
        new Tool("colony_inbox", i -> Map.of(), "`colony_inbox` (" + needing + " ants waiting)"));
  }

  @FunctionalInterface
  interface Caller {
    JsonNode call(String tool, Map<String, Object> arguments) throws Exception;
  }

  /**
   * {@link #WARMUP} calls, then {@link #CALLS} timed ones, each answer checked (an error is no
   * figure), each call begun at least {@link #PACE} after the one before.
   */
  private static List<Double> calls(Tool t, Caller caller) throws Exception {
    List<Double> ms = new ArrayList<>();
    long last = 0;
    for (int i = 0; i < WARMUP + CALLS; i++) {
      Map<String, Object> arguments = t.args().apply(i);
      long wait = last + PACE.toNanos() - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      long t0 = System.nanoTime();
      last = t0;
      JsonNode answer = caller.call(t.name(), arguments);
      double took = (System.nanoTime() - t0) / 1e6;
      JsonNode result = answer.path("result");
      if (answer.has("error") || result.path("isError").asBoolean() || !result.has("structuredContent")) {
        throw new AssertionError(t.name() + " " + arguments + " answered: " + answer);
      }
      if (i >= WARMUP) {
        ms.add(took);
      }
    }
    return ms;
  }

  private static String row(String transport, int n, Tool t, List<Double> ms, String load) {
    List<Double> s = new ArrayList<>(ms);
    Collections.sort(s);
    double p50 = pct(s, 50);
    String target = "";
    if (t.name().equals("ant_status") && n >= 10_000) {
      target = "p50 < " + (int) STATUS_TARGET_MS + " ms " + (p50 < STATUS_TARGET_MS ? "✅ met" : "❌ **missed**");
    }
    String line = String.format(Locale.ROOT, "| %s | %,d | %s | %d | %s | %s | %s | %s | %s |", transport, n, t.label(),
        s.size(), ms(p50), ms(pct(s, 99)), ms(s.get(s.size() - 1)), load, target);
    System.out.println(line);
    return line;
  }

  private static double pct(List<Double> sorted, int p) {
    return sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * p / 100.0) - 1));
  }

  private static String ms(double ms) {
    return ms >= 1000 ? String.format(Locale.ROOT, "%.2f s", ms / 1000) : String.format(Locale.ROOT, "%.1f ms", ms);
  }

  private static String spread(List<Double> ms) {
    List<Double> s = new ArrayList<>(ms);
    Collections.sort(s);
    return ms(s.get(s.size() / 2)) + " (" + ms(s.get(0)) + "–" + ms(s.get(s.size() - 1)) + ")";
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,d MiB", bytes / (1024 * 1024));
  }

  /** Running ants of the colony in visibility matching {@code and} (a query's tail). */
  private static long count(Cluster c, String and) {
    return c.stubs.blockingStub().countWorkflowExecutions(CountWorkflowExecutionsRequest.newBuilder().setNamespace("default")
        .setQuery("WorkflowType = 'AntWorkflow' AND ExecutionStatus = 'Running' AND ColonyName = '" + c.colonyName + "'"
            + and).build()).getCount();
  }

  /** As a build leaves them: no start-up archive of any kind (the launcher writes them again). */
  private static void forgetArchives() throws IOException {
    try (Stream<Path> files = Files.list(LAUNCHER.getParent().resolve("starter/target"))) {
      for (Path p : files.filter(f -> f.getFileName().toString().matches("colony(-cli)?\\.(jsa|aot).*")).toList()) {
        Files.delete(p);
      }
    }
  }

  /** A {@code colony mcp} process through the launcher, initialized and listed, timed from its start. */
  static final class Start implements AutoCloseable {
    final Process process;
    double initializedMs;
    double listedMs;
    private final OutputStream in;
    private final BlockingQueue<String> lines;
    private int next = 1;

    Start(Process process, OutputStream in, BlockingQueue<String> lines) {
      this.process = process;
      this.in = in;
      this.lines = lines;
    }

    void send(ObjectNode message) throws IOException {
      in.write((JSON.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    }

    /** The answer to the request {@code id}: the next line with that id (notifications are skipped). */
    JsonNode answer(int id) throws Exception {
      while (true) {
        String line = lines.poll(180, TimeUnit.SECONDS);
        if (line == null) {
          throw new AssertionError("colony mcp did not answer request " + id + " within 180 s (alive: "
              + process.isAlive() + ")");
        }
        JsonNode n = JSON.readTree(line);
        if (n.path("id").asInt(-1) == id) {
          return n;
        }
      }
    }

    JsonNode call(String tool, Map<String, Object> arguments) throws Exception {
      int id = ++next;
      send(request(id, "tools/call", Map.of("name", tool, "arguments", arguments)));
      return answer(id);
    }

    /** Closes its standard input (how a host ends it) and waits for its exit, so its archive is written. */
    @Override
    public void close() throws Exception {
      in.close();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("colony mcp did not end when its standard input closed");
      }
    }
  }

  /**
   * Starts {@code ./colony mcp --dir} as an agent host does; stderr to {@code log} (null:
   * discarded); {@code javaOpts} (null: none) the launcher's {@code COLONY_JAVA_OPTS}, e.g. a
   * flight recording ({@code -Dbench.mcpJfr=/tmp/mcp}: a profile of the stdio server's calls).
   */
  private static Start start(Cluster c, Path log, String javaOpts) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(LAUNCHER.toString(), "mcp", "--dir", c.dir.toString(), "--address", c.address)
        .redirectError(log == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    if (javaOpts != null) {
      pb.environment().put("COLONY_JAVA_OPTS", javaOpts);
    }
    long t0 = System.nanoTime();
    Process p = pb.start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    InputStream stdout = p.getInputStream();
    Thread.ofVirtual().start(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(stdout, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null;) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the server ended
      }
    });
    Start s = new Start(p, p.getOutputStream(), lines);
    s.send(request(0, "initialize", initializeParams()));
    JsonNode init = s.answer(0);
    s.initializedMs = (System.nanoTime() - t0) / 1e6;
    if (!init.path("result").path("protocolVersion").asText().equals(PROTOCOL)) {
      throw new AssertionError("initialize answered: " + init);
    }
    s.send(JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"));
    s.send(request(1, "tools/list", Map.of()));
    JsonNode list = s.answer(1);
    s.listedMs = (System.nanoTime() - t0) / 1e6;
    if (list.path("result").path("tools").size() < 20) {
      throw new AssertionError("tools/list answered: " + list);
    }
    return s;
  }

  private static Map<String, Object> initializeParams() {
    return Map.of("protocolVersion", PROTOCOL, "capabilities", Map.of(),
        "clientInfo", Map.of("name", "colony-bench", "version", "1"));
  }

  private static ObjectNode request(int id, String method, Object params) {
    ObjectNode n = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
    n.set("params", JSON.valueToTree(params));
    return n;
  }

  /** A Streamable HTTP session on the console's {@code /mcp}, with the operator's token. */
  static final class Http {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
    private final URI endpoint;
    private final String session;
    private int next = 1;

    Http(String url) throws Exception {
      this.endpoint = URI.create(url + "/mcp");
      HttpResponse<String> r = post(request(0, "initialize", initializeParams()), null);
      this.session = r.headers().firstValue("Mcp-Session-Id")
          .orElseThrow(() -> new AssertionError("/mcp gave no session: " + r.statusCode() + " " + r.body()));
      answerOf(r, 0);
      HttpResponse<String> ack = post(JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"),
          session);
      if (ack.statusCode() / 100 != 2) {
        throw new AssertionError("notifications/initialized: " + ack.statusCode() + " " + ack.body());
      }
    }

    JsonNode call(String tool, Map<String, Object> arguments) throws Exception {
      int id = ++next;
      return answerOf(post(request(id, "tools/call", Map.of("name", tool, "arguments", arguments)), session), id);
    }

    private HttpResponse<String> post(ObjectNode message, String sessionId) throws Exception {
      HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(120))
          .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
          .header("Authorization", "Bearer " + TOKEN).header("X-Colony-Operator", "bench")
          .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(message)));
      if (sessionId != null) {
        b.header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", PROTOCOL);
      }
      return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The JSON-RPC answer with {@code id} in a response: its JSON body, or the event stream's data line. */
    private static JsonNode answerOf(HttpResponse<String> r, int id) throws Exception {
      if (r.statusCode() != 200) {
        throw new AssertionError("/mcp answered " + r.statusCode() + ": " + r.body());
      }
      String type = r.headers().firstValue("Content-Type").orElse("");
      if (type.startsWith("text/event-stream")) {
        for (String line : r.body().split("\n")) {
          if (line.startsWith("data:")) {
            JsonNode n = JSON.readTree(line.substring(5).strip());
            if (n.path("id").asInt(-1) == id) {
              return n;
            }
          }
        }
        throw new AssertionError("/mcp's stream held no answer to " + id + ": " + r.body());
      }
      return JSON.readTree(r.body());
    }
  }

  /** The console's calls to Temporal so far, by method. */
  private static Map<String, Long> byMethod(String url) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/api/metrics"))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    Map<String, Long> m = new TreeMap<>();
    JSON.readTree(r.body()).path("byMethod").properties().forEach(e -> m.put(e.getKey(), e.getValue().asLong()));
    return m;
  }

  /** The calls between two counts, per tool call: "2.0 (1.0 DescribeWorkflowExecution, ...)". */
  private static String perCall(Map<String, Long> before, Map<String, Long> after, int calls) {
    Map<String, Double> d = new LinkedHashMap<>();
    double total = 0;
    for (Map.Entry<String, Long> e : after.entrySet()) {
      long delta = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      if (delta > 0) {
        d.put(e.getKey().replaceAll("^.*/", ""), delta / (double) calls);
        total += delta / (double) calls;
      }
    }
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%.1f", total));
    if (!d.isEmpty()) {
      sb.append(" (");
      sb.append(String.join(", ", d.entrySet().stream()
          .map(e -> String.format(Locale.ROOT, "%.1f %s", e.getValue(), e.getKey())).toList()));
      sb.append(')');
    }
    return sb.toString();
  }
}
