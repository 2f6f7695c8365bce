package dev.colony.cli;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.fault.Cluster;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a Temporal that lacks Colony's search attributes (a plain {@code temporal server start-dev}
 * here, standing for any other server), they are registered once, idempotently; and the manual
 * commands the refusal message prints really create them.
 */
@Timeout(600)
class SearchAttributeSetupIT {
  @TempDir
  Path tmp;

  private final List<Process> servers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(Process::destroyForcibly);
  }

  private String plainDevServer() throws Exception {
    // Below the ephemeral range, in this test JVM's slice (a port from port 0 can be taken by any
    // outgoing connection before the server binds it; other test JVMs run at the same time).
    int port = Cluster.freePort();
    int ui = Cluster.freePort();
    servers.add(new ProcessBuilder(Cluster.temporalCli(), "server", "start-dev", "--ip", "127.0.0.1",
        "--port", Integer.toString(port), "--ui-port", Integer.toString(ui), "--headless", "--log-level", "error")
        .redirectErrorStream(true).redirectOutput(tmp.resolve("server-" + port + ".log").toFile()).start());
    String address = "127.0.0.1:" + port;
    eventually(java.time.Duration.ofSeconds(60), () -> {
      try (Temporal t = Temporal.connect(address, "default")) {
        t.stubs.blockingStub().describeNamespace(io.temporal.api.workflowservice.v1.DescribeNamespaceRequest
            .newBuilder().setNamespace("default").build());
        return true;
      } catch (RuntimeException notYet) {
        return false;
      }
    }, "the plain dev server at " + address + " answers");
    return address;
  }

  private static Map<String, io.temporal.api.enums.v1.IndexedValueType> registered(Temporal t) {
    OperatorServiceStubs op = OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
        .setChannel(t.stubs.getRawChannel()).validateAndBuildWithDefaults());
    try {
      return op.blockingStub().listSearchAttributes(ListSearchAttributesRequest.newBuilder()
          .setNamespace("default").build()).getCustomAttributesMap();
    } finally {
      op.shutdownNow();
    }
  }

  private static void assertAllRegistered(Temporal t) {
    Map<String, io.temporal.api.enums.v1.IndexedValueType> have = registered(t);
    for (var key : SearchAttributeSetup.ALL) {
      assertEquals(key.getValueType(), have.get(key.getName()), key.getName());
    }
  }

  @Test
  void missingAttributesAreAddedOnceAndAgainIsANoOp() throws Exception {
    try (Temporal t = Temporal.connect(plainDevServer(), "default")) {
      assertTrue(!registered(t).containsKey("AntState"));
      assertEquals(SearchAttributeSetup.ALL.size(), SearchAttributeSetup.ensure(t).size());
      assertAllRegistered(t);
      assertEquals(List.of(), SearchAttributeSetup.ensure(t), "the second call added something");
    }
  }

  @Test
  void theCommandsInTheRefusalMessageCreateEveryAttribute() throws Exception {
    String address = plainDevServer();
    String commands = SearchAttributeSetup.createCommands("default");
    for (String command : commands.split(" && ")) {
      List<String> argv = new ArrayList<>(List.of(command.split(" ")));
      argv.set(0, Cluster.temporalCli());
      argv.addAll(List.of("--address", address));
      Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, command + ": " + out);
    }
    try (Temporal t = Temporal.connect(address, "default")) {
      assertAllRegistered(t);
    }
  }
}
