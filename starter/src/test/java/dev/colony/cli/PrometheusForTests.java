package dev.colony.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Prometheus for the tests of {@code observability/}: {@code promtool} (the rules' tests)
 * and {@code prometheus} (ObservabilityIT starts its own, in a temporary directory, on loopback).
 * Found at $COLONY_TEST_PROMTOOL / $COLONY_TEST_PROMETHEUS ({@code ./run-tests} sets them through
 * {@code bin/prometheus.sh}), else {@code /usr/bin}. Missing is a failure naming
 * {@code bin/prometheus.sh}, never a skip: a bare {@code mvn verify} would otherwise pass without them.
 */
public final class PrometheusForTests {
  public static final String MISSING = "no %s for the observability tests: install Debian's prometheus package with "
      + "bin/prometheus.sh (./run-tests does it), or set %s to the binary";

  private PrometheusForTests() {}

  public static String promtool() {
    return find("promtool", "COLONY_TEST_PROMTOOL");
  }

  public static String prometheus() {
    return find("prometheus", "COLONY_TEST_PROMETHEUS");
  }

  private static String find(String name, String variable) {
    String configured = System.getenv(variable);
    if (configured != null && !configured.isBlank() && Files.isExecutable(Path.of(configured))) {
      return configured;
    }
    Path debian = Path.of("/usr/bin", name);
    if (Files.isExecutable(debian)) {
      return debian.toString();
    }
    throw new AssertionError(String.format(MISSING, name, variable));
  }

  /** A finished run of promtool: its exit code and its stdout and stderr together. */
  public record Run(int code, String out) {}

  /** Runs {@code promtool ARGS} in {@code dir}; fails the test when it hangs. */
  public static Run promtool(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(promtool()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("promtool " + String.join(" ", args) + " hung: " + out);
    }
    return new Run(p.exitValue(), out);
  }
}
