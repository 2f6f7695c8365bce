package dev.colony.cli;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.worker.ColonyWorker;
import dev.colony.worker.Metrics;
import dev.colony.worker.WorkerSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code --metrics-port}: a worker made the way {@code colony worker} makes it (its options parsed
 * by the command's own parser, its client from {@code Temporal.connect} with the metrics' scope)
 * serves the Temporal SDK's worker and client meters and the JVM's at {@code /metrics}; the
 * options' bad values are one line naming the option, before anything starts.
 */
@Timeout(120)
class MetricsEndpointTest {
  private static final Pattern URL = Pattern.compile("metrics on (http://\\S+/metrics)");

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static String get(String url) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
          HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : "HTTP " + r.statusCode();
    } catch (Exception e) {
      return e.toString();
    }
  }

  @Test
  void aWorkerWithAMetricsPortServesTheSdksAndTheJvmsSeries() throws Exception {
    int port = freePort();
    EmbeddedServer server = EmbeddedServer.start(port);
    WorkerCommand command = new WorkerCommand();
    new CommandLine(command).parseArgs("../examples/hello", "--address", "127.0.0.1:" + port, "--metrics-port", "0");
    StringWriter told = new StringWriter();
    Metrics metrics = command.metricsOption.start(new PrintWriter(told, true));
    try (Temporal t = Temporal.connect(command.temporal, metrics.scope())) {
      Matcher m = URL.matcher(told.toString());
      assertTrue(m.find(), told.toString());
      String url = m.group(1);
      assertTrue(url.startsWith("http://127.0.0.1:"), url);
      SearchAttributeSetup.ensure(t);
      ColonyWorker worker = ColonyWorker.start(t.client, new WorkerSettings("colony-hello", false, p -> { }, "test-worker", null));
      try {
        AtomicReference<String> last = new AtomicReference<>("");
        eventually(java.time.Duration.ofSeconds(30), () -> {
          last.set(get(url));
          return last.get().contains("temporal_num_pollers{") && last.get().contains("task_queue=\"colony-hello\"");
        }, () -> "the worker's pollers in the scrape:\n" + last.get());
        String scrape = last.get();
        assertTrue(scrape.contains("temporal_request_total{"), scrape); // the client's calls
        assertTrue(scrape.contains("temporal_worker_task_slots_available{"), scrape);
        assertTrue(scrape.contains("jvm_memory_used_bytes{"), scrape);
        assertTrue(scrape.contains("jvm_gc_"), scrape);
        assertTrue(scrape.contains("process_cpu_usage "), scrape);
        assertEquals(java.util.Set.of(), metrics.refused(), "every meter exported");
        // The console's stubs are made from this client's (counted): their calls land in the same registry.
        var source = new dev.colony.client.TemporalColonySource(t.client, "hello", null);
        try {
          source.counts();
        } catch (RuntimeException e) {
          // the in-memory server may not count: the call was made all the same
        }
        eventually(java.time.Duration.ofSeconds(30), () -> {
          last.set(get(url));
          return last.get().contains("operation=\"CountWorkflowExecutions\"");
        }, () -> "the console source's call in the scrape:\n" + last.get());
      } finally {
        worker.close();
      }
    } finally {
      metrics.close();
      server.close();
    }
  }

  @Test
  void offUnlessAPortIsGiven() {
    WorkerCommand command = new WorkerCommand();
    new CommandLine(command).parseArgs("../examples/hello");
    StringWriter told = new StringWriter();
    assertNull(command.metricsOption.start(new PrintWriter(told, true)));
    assertEquals("", told.toString());
  }

  private static void oneLine(CliTest.Result r, int code, String expected) {
    String what = r.out() + r.err();
    assertEquals(code, r.code(), what);
    assertTrue(r.err().contains(expected), what);
    assertEquals(1, r.err().strip().lines().count(), "one line: " + what);
    assertFalse(r.err().contains("Exception"), what);
  }

  @Test
  void badValuesAreOneLineNamingTheOptionBeforeAnythingStarts() {
    // 127.0.0.1:1 has no server: each refusal comes before a connection is tried.
    for (String cmd : List.of("worker", "run", "console", "dev")) {
      List<String> to = cmd.equals("dev") ? List.of() : List.of("--address", "127.0.0.1:1");
      oneLine(run(cmd, to, "--metrics-port", "70000"), 2, "colony: invalid --metrics-port '70000': give a port from 1 to 65535");
      oneLine(run(cmd, to, "--metrics-port", "-1"), 2, "invalid --metrics-port '-1'");
      oneLine(run(cmd, to, "--metrics-port", "nine"), 2, "invalid --metrics-port 'nine'");
      oneLine(run(cmd, to, "--metrics-bind", "0.0.0.0"), 2, "--metrics-bind needs --metrics-port");
      oneLine(run(cmd, to, "--metrics-port", "0", "--metrics-bind", " "), 2, "invalid --metrics-bind ''");
    }
    // the hidden period of the colony's figures of state (tests shorten it)
    oneLine(run("worker", List.of("--address", "127.0.0.1:1"), "--metrics-port", "0", "--metrics-state-every", "soon"),
        2, "invalid --metrics-state-every 'soon'");
    oneLine(run("worker", List.of("--address", "127.0.0.1:1"), "--metrics-port", "0", "--metrics-state-every", "0s"),
        2, "invalid --metrics-state-every '0s'");
    oneLine(run("worker", List.of("--address", "127.0.0.1:1"), "--metrics-port", "0", "--metrics-bind", "no-such-host.invalid"),
        1, "invalid --metrics-bind 'no-such-host.invalid'");
    // an address of another machine (TEST-NET-1): nothing can listen on it here
    oneLine(run("worker", List.of("--address", "127.0.0.1:1"), "--metrics-port", "0", "--metrics-bind", "192.0.2.1"),
        1, "cannot serve the metrics on 192.0.2.1 port 0 (--metrics-bind, --metrics-port)");
  }

  @Test
  void aTakenPortIsRefusedAndAFailedStartLetsThePortGo() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
      int p = taken.getLocalPort();
      for (String cmd : List.of("worker", "console", "dev")) {
        List<String> to = cmd.equals("dev") ? List.of() : List.of("--address", "127.0.0.1:1");
        oneLine(run(cmd, to, "--metrics-port", String.valueOf(p)), 1,
            "--metrics-port " + p + " on 127.0.0.1 is taken: choose another port");
      }
    }
    // Metrics served, then no Temporal at the address: the command fails and lets the port go.
    int p = freePort();
    CliTest.Result r = run("worker", List.of("--address", "127.0.0.1:1"), "--metrics-port", String.valueOf(p));
    assertEquals(1, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("metrics on http://127.0.0.1:" + p + "/metrics"), r.out());
    assertTrue(r.err().contains("cannot reach Temporal at 127.0.0.1:1"), r.err());
    try (ServerSocket again = new ServerSocket(p, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
      assertEquals(p, again.getLocalPort());
    }
  }

  private static CliTest.Result run(String cmd, List<String> temporal, String... options) {
    List<String> args = new java.util.ArrayList<>(List.of(cmd, "../examples/hello"));
    args.addAll(temporal);
    args.addAll(List.of(options));
    return CliTest.run(args.toArray(String[]::new));
  }
}
