package dev.colony.fault;

import io.temporal.envconfig.ClientConfigProfile;
import io.temporal.envconfig.LoadClientConfigProfileOptions;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/cluster.sh} as the tests and benchmarks drive it: its own state directory and ports,
 * so it never meets a cluster the user runs.
 */
public final class ClusterScript {
  private static final Path SCRIPT = Path.of("../bin/cluster.sh").toAbsolutePath().normalize();
  private final Path state;
  private final int port;

  /**
   * Every port {@code bin/cluster.sh} derives from its base (see its ports()): the services' gRPC
   * and HTTP ports, PostgreSQL's (+50), the membership ports (+100..+106) and the Web UI's (+1000).
   */
  static final int[] PORT_OFFSETS = {0, 1, 2, 3, 4, 6, 10, 14, 50, 100, 101, 102, 103, 104, 105, 106, 1000};

  /** A base port for a cluster whose every port is free and this JVM's alone (see {@link Cluster#freePorts}). */
  static int freeBase() throws IOException {
    return Cluster.freePorts(PORT_OFFSETS);
  }

  public ClusterScript(Path state, int port) {
    this.state = state.toAbsolutePath();
    this.port = port;
  }

  public record Run(int code, String out) {}

  public Path state() {
    return state;
  }

  /** The port of a service: the mTLS frontend's plus the script's offset. */
  public int port(int offset) {
    return port + offset;
  }

  /** Runs {@code bin/cluster.sh ARGS}; fails when it takes longer than {@code limit}. */
  public Run run(Duration limit, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("COLONY_CLUSTER_DIR", state.toString());
    pb.environment().put("COLONY_CLUSTER_PORT", Integer.toString(port));
    Path out = Files.createTempFile("cluster", ".out");
    try {
      pb.redirectOutput(out.toFile());
      Process p = pb.start();
      if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("bin/cluster.sh " + String.join(" ", args) + " took over " + limit + ": "
            + Files.readString(out, StandardCharsets.UTF_8));
      }
      return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /** {@code up}, or an error with the script's output. */
  public void up() throws IOException, InterruptedException {
    Run r = run(Duration.ofMinutes(15), "up");
    if (r.code() != 0) {
      throw new AssertionError("bin/cluster.sh up failed: " + r.out());
    }
  }

  /** The TEMPORAL_* variables of the mTLS frontend ({@code bin/cluster.sh env}). */
  public Map<String, String> env() throws IOException, InterruptedException {
    Map<String, String> env = new LinkedHashMap<>();
    for (String line : run(Duration.ofSeconds(10), "env").out().split("\n")) {
      if (line.startsWith("export ")) {
        String kv = line.substring("export ".length());
        env.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
    }
    return env;
  }

  /** A client's options for those variables, read by Temporal's envconfig as Colony reads them. */
  public static WorkflowServiceStubsOptions stubsOptions(Map<String, String> env) throws IOException {
    return ClientConfigProfile.load(LoadClientConfigProfileOptions.newBuilder().setDisableFile(true)
        .setEnvOverrides(env).build()).toWorkflowServiceStubsOptions();
  }
}
