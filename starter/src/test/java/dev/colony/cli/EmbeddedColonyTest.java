package dev.colony.cli;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colony.chat.ChatPost;
import dev.colony.worker.ColonyWorker;
import dev.colony.worker.WorkerSettings;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The CLI against a real embedded server on a real port, in real time, with the hello example. */
@Timeout(180)
class EmbeddedColonyTest {
  @TempDir
  java.nio.file.Path tmp;

  private EmbeddedServer server;
  private Temporal temporal;
  private ColonyWorker worker;
  private String address;
  private final List<ChatPost> posts = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    server = EmbeddedServer.start(port);
    address = "127.0.0.1:" + port;
    temporal = Temporal.connect(address, "default");
    assertTrue(temporal.isEmbeddedTestServer());
    SearchAttributeSetup.ensure(temporal);
    worker = ColonyWorker.start(temporal.client, new WorkerSettings("colony-hello", false, posts::add, "test-worker", null));
  }

  @AfterEach
  void tearDown() {
    worker.close();
    temporal.close();
    server.close();
  }

  private CliTest.Result cli(String... args) {
    String[] full = new String[args.length + 2];
    System.arraycopy(args, 0, full, 0, args.length);
    full[args.length] = "--address";
    full[args.length + 1] = address;
    return CliTest.run(full);
  }

  private JsonNode statusJson() throws Exception {
    CliTest.Result r = cli("status", "--json");
    assertEquals(0, r.code(), r.err());
    return new ObjectMapper().readTree(r.out());
  }

  private JsonNode ant(String name) throws Exception {
    for (JsonNode a : statusJson().get("ants")) {
      if (a.get("name").asText().equals(name)) {
        return a;
      }
    }
    throw new AssertionError("no ant " + name);
  }

  private boolean posted(String text) {
    return posts.stream().anyMatch(p -> p.text().equals(text));
  }

  /**
   * A bare ant name is resolved with one visibility call filtered by that name (at 3,000 ants,
   * listing them all made pause, resume and status of one ant cost seconds); the in-memory
   * server, which has no such call, still resolves it.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void aBareAntNameIsResolvedWithOneCallFilteredByItsName() throws Exception {
    assertEquals(0, cli("start", "../examples/hello").code());
    List<String> queries = new CopyOnWriteArrayList<>();
    io.grpc.ClientInterceptor record = new io.grpc.ClientInterceptor() {
      @Override
      public <Q, R> io.grpc.ClientCall<Q, R> interceptCall(io.grpc.MethodDescriptor<Q, R> method,
          io.grpc.CallOptions options, io.grpc.Channel next) {
        return new io.grpc.ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
          @Override
          public void sendMessage(Q message) {
            if (message instanceof io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest r) {
              queries.add(r.getQuery());
            }
            super.sendMessage(message);
          }
        };
      }
    };
    try (Temporal t = Temporal.connect(ClientProfile.plain(address, "default"), record)) {
      Ants.Ref ref = Ants.resolve(t, "greeter", null);
      assertEquals("ant/hello/greeter", ref.workflowId());
      assertEquals(1, queries.size(), queries.toString());
      assertTrue(queries.get(0).contains("AntName = 'greeter'") && queries.get(0).contains("ExecutionStatus = 'Running'"),
          queries.get(0));
      UserError none = org.junit.jupiter.api.Assertions.assertThrows(UserError.class, () -> Ants.resolve(t, "nobody", null));
      assertTrue(none.getMessage().startsWith("no running ant named 'nobody' at " + address), none.getMessage());
    }
  }

  @Test
  void startTwiceNeverDuplicatesAndTheCliDrivesTheAnts() throws Exception {
    CliTest.Result first = cli("start", "../examples/hello");
    assertEquals(0, first.code(), first.err());
    CliTest.Result again = cli("start", "../examples/hello");
    assertEquals(0, again.code(), again.err());
    assertTrue(again.out().contains("greeter already running (config sent; a changed config applies between sessions)"),
        again.out());
    assertTrue(first.out().contains("started greeter"), first.out());
    JsonNode doc = statusJson();
    assertEquals("hello", doc.get("colony").asText());
    assertEquals(2, doc.get("ants").size());
    for (JsonNode a : doc.get("ants")) {
      for (String field : List.of("name", "state", "paused", "pauseReason", "queueDepth", "sessions",
          "consecutiveErrors", "nextWakeTime")) {
        assertTrue(a.has(field), field + " in " + a);
      }
    }
    // status reads visibility and no longer waits for the worker: wait for the first post here
    eventually(Duration.ofSeconds(20), () -> posted("🐜 **greeter** is starting up."), "posted(\"🐜 **greeter** is starting up.\")");
    assertEquals(1, posts.stream().filter(p -> p.text().equals("🐜 **greeter** is starting up.")).count());

    eventually(Duration.ofSeconds(20), () -> posts.stream().anyMatch(p -> p.text().startsWith("✅ **greeter** finished session 1")), "posts.stream().anyMatch(p -> p.text().startsWith(\"✅ **greeter** finished session 1\"))");
    assertEquals(0, cli("pause", "greeter").code());
    eventually(Duration.ofSeconds(20), () -> {
      try {
        return ant("greeter").get("state").asText().equals("paused");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }, "{ try { return ant(\"greeter\").get(\"state\").asText().equals(\"paused\"); } catch (Exceptio...");
    JsonNode paused = ant("greeter");
    assertTrue(paused.get("paused").asBoolean());
    assertEquals("operator", paused.get("pauseReason").asText());
    // Sent as this CLI's user through the CLI, as every surface records who steered an ant.
    assertEquals(List.of(SignalCommands.cli().identity()), temporal.client
        .fetchHistory(dev.colony.spec.AntIds.workflowId("hello", "greeter")).getEvents().stream()
        .filter(e -> e.hasWorkflowExecutionSignaledEventAttributes())
        .map(e -> e.getWorkflowExecutionSignaledEventAttributes())
        .filter(a -> a.getSignalName().equals("pause")).map(a -> a.getIdentity()).toList());
    assertTrue(SignalCommands.cli().identity().startsWith("cli:"), SignalCommands.cli().identity());
    int sessions = paused.get("sessions").asInt();

    CliTest.Result send = cli("send", "greeter", "say", "hi", "to", "the", "team");
    assertEquals(0, send.code(), send.err());
    eventually(Duration.ofSeconds(5), () -> posted("▶️ **greeter** resuming."), "posted(\"▶️ **greeter** resuming.\")");
    eventually(Duration.ofSeconds(20), () -> {
      try {
        return ant("greeter").get("sessions").asInt() > sessions;
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }, "{ try { return ant(\"greeter\").get(\"sessions\").asInt() > sessions; } catch (Exception e)...");

    // the rate-limited ant waits for its reset and then recovers
    eventually(Duration.ofSeconds(40), () -> posts.stream().anyMatch(p -> p.text().startsWith("⏳ **flaky** is rate limited. Resuming in")), "posts.stream().anyMatch(p -> p.text().startsWith(\"⏳ **flaky** is rate limited. Resuming...");
    eventually(Duration.ofSeconds(40), () -> posts.stream().anyMatch(p -> p.text().startsWith("✅ **flaky** finished session 3")), "posts.stream().anyMatch(p -> p.text().startsWith(\"✅ **flaky** finished session 3\"))");

    // approve/deny ask the ant first: nothing waiting, or a wrong id, is an error, not "sent"
    CliTest.Result approve = cli("approve", "greeter", "999");
    assertEquals(1, approve.code(), approve.out());
    assertTrue(approve.err().contains("hello/greeter has no request waiting for a decision"), approve.err());
    CliTest.Result longOne = cli("send", "greeter", "x".repeat(20_000));
    assertEquals(0, longOne.code(), longOne.err());
    assertTrue(longOne.out().contains("cut to its first 16,000 of 20,000 characters"), longOne.out());

    CliTest.Result human = cli("status", "greeter");
    assertTrue(human.out().contains("hello/greeter (engine command)"), human.out());
    assertEquals(0, cli("stop", "flaky").code());
    eventually(Duration.ofSeconds(20), () -> posted("⏹️ **flaky** stopped."), "posted(\"⏹️ **flaky** stopped.\")");
    CliTest.Result gone = cli("pause", "flaky");
    assertEquals(1, gone.code());
    // Which of the two depends on whether visibility has seen its run close yet; both say it is gone.
    assertTrue(gone.err().contains("no running ant named 'flaky'")
        || gone.err().contains("ant hello/flaky is not running (it is completed)"), gone.err());
  }

  @Test
  void statusOfAnAntWhoseLastLineIsEscapeSequencesPrintsThemEscaped() throws Exception {
    // The agent's last line retitles (OSC 0), clears (CSI 2J) and recolours the operator's terminal
    // when printed raw; it becomes the ant's error detail.
    java.nio.file.Path dir = tmp.resolve("hostile");
    java.nio.file.Files.createDirectories(dir.resolve("ants"));
    // Colony 'hello': the task queue this class's worker polls.
    java.nio.file.Files.writeString(dir.resolve("colony.yaml"), "name: hello\ndefaults:\n  poll_interval: 1h\n");
    java.nio.file.Files.writeString(dir.resolve("ants/evil.yaml"), """
        name: evil
        description: prints escape sequences
        instructions: say something
        engine: command
        command:
          argv: ["sh", "-c", 'printf "\\033]0;pwned\\007\\033[2J\\033[31mboom\\302\\233\\n"; exit 1']
        """);
    CliTest.Result started = cli("start", dir.toString());
    assertEquals(0, started.code(), started.err());
    eventually(Duration.ofSeconds(30), () -> cli("status", "evil").out().contains("exit code 1"), "cli(\"status\", \"evil\").out().contains(\"exit code 1\")");
    CliTest.Result live = cli("status", "evil");
    assertEquals(0, live.code(), live.err());
    // The workflow keeps what the agent said without its controls; whatever prints it escapes the rest.
    assertTrue(live.out().contains("]0;pwned"), live.out());
    for (String out : List.of(live.out(), cli("status").out())) {
      assertTrue(out.chars().noneMatch(c -> c == 0x1b || c == 0x07 || c == 0x9b), out);
    }
  }

  /**
   * A value the config references is masked everywhere, but never inside the colony's own
   * path: a short number given to an ant as {@code ${PROBE_NUMBER}} that was also part of the
   * colony's folder name turned the ant's command into "…/${PROBE_NUMBER}…/scripts/…" on its
   * way through history, and the ant could not start.
   */
  @Test
  void aReferencedValueThatIsPartOfTheColonysPathDoesNotChangeTheAntsCommand() throws Exception {
    java.nio.file.Path dir = tmp.resolve("colony-4817305");
    java.nio.file.Files.createDirectories(dir.resolve("ants"));
    java.nio.file.Files.createDirectories(dir.resolve("scripts"));
    java.nio.file.Files.writeString(dir.resolve("colony.yaml"), "name: hello\ndefaults:\n  poll_interval: 1h\n");
    java.nio.file.Files.writeString(dir.resolve(".env"), "PROBE_NUMBER=17305\n");
    java.nio.file.Path script = dir.resolve("scripts/probe.sh");
    java.nio.file.Files.writeString(script, "#!/bin/sh\necho \"probe $PROBE_NUMBER done\"\n");
    script.toFile().setExecutable(true);
    java.nio.file.Files.writeString(dir.resolve("ants/probe.yaml"), """
        name: probe
        description: is given a number that is also part of its colony's folder name
        instructions: say it
        engine: command
        command:
          argv: ["./scripts/probe.sh"]
          env:
            PROBE_NUMBER: "${PROBE_NUMBER}"
        """);
    CliTest.Result started = cli("start", dir.toString());
    assertEquals(0, started.code(), started.err());
    eventually(Duration.ofSeconds(30),
        () -> posts.stream().anyMatch(p -> p.text().startsWith("✅ **probe** finished session 1")),
        "probe finished its first session");
    // Elsewhere the value is still masked: the agent's line reached the chat without it.
    eventually(Duration.ofSeconds(10), () -> posts.stream().anyMatch(p -> p.text().contains("probe ${PROBE_NUMBER} done")),
        "the agent's line with the number masked");
    assertTrue(posts.stream().noneMatch(p -> p.text().contains("17305") && !p.text().contains(dir.toString())),
        posts.toString());
  }
}
