package dev.colony.cli;

import static dev.colony.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.testing.OtlpReceiver;
import dev.colony.worker.Metrics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The OTEL_* variables as the long-running commands read them: push with or without
 * {@code --metrics-port}, the command's name as the default {@code service.name}, a bad value a
 * {@link UserError} naming the variable (the headers' values never in it).
 */
@Timeout(60)
class MetricsPushOptionTest {
  private static final String TOKEN = "s3cr3tT0kenOfTheCollector";

  private static MetricsOption option(Object command, Map<String, String> env, String... args) {
    new CommandLine(command).parseArgs(args);
    MetricsOption o = switch (command) {
      case WorkerCommand w -> w.metricsOption;
      case DevCommand d -> d.metricsOption;
      case ConsoleCommand c -> c.metricsOption;
      default -> throw new IllegalArgumentException(command.toString());
    };
    o.environment = () -> env;
    return o;
  }

  @Test
  void pushOnlyWithoutAPortAndBothWithOne() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
          "OTEL_METRIC_EXPORT_INTERVAL", "200", "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "authorization=" + TOKEN);
      StringWriter told = new StringWriter();
      Metrics pushOnly = option(new WorkerCommand(), env, "../examples/hello").start(new PrintWriter(told, true));
      try {
        assertFalse(pushOnly.scraped());
        assertEquals("metrics pushed (OTLP) to " + receiver.endpoint() + "/v1/metrics every 200ms, headers authorization\n",
            told.toString());
        assertEquals("colony-worker", pushOnly.push().resource().get("service.name"));
        eventually(() -> !receiver.posts("/v1/metrics").isEmpty(), "a push");
        assertEquals(TOKEN, receiver.posts("/v1/metrics").get(0).headers().get("authorization"));
      } finally {
        pushOnly.close();
      }
      StringWriter both = new StringWriter();
      Metrics scrapedToo = option(new DevCommand(), env, "../examples/hello", "--metrics-port", "0")
          .start(new PrintWriter(both, true));
      try {
        assertTrue(scrapedToo.scraped());
        assertTrue(both.toString().matches("(?s)metrics on http://127\\.0\\.0\\.1:\\d+/metrics\nmetrics pushed \\(OTLP\\) .*"),
            both.toString());
        assertEquals("colony-dev", scrapedToo.push().resource().get("service.name"));
        assertFalse(both.toString().contains(TOKEN));
      } finally {
        scrapedToo.close();
      }
    }
  }

  @Test
  void runIsAWorkerForTheServiceName() {
    Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1");
    assertEquals("colony-worker", option(new RunCommand(), env, "../examples/hello").push().resource().get("service.name"));
    assertEquals("colony-console", option(new ConsoleCommand(), env, "../examples/hello").push().resource().get("service.name"));
    assertEquals("mine", option(new DevCommand(), Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1",
        "OTEL_SERVICE_NAME", "mine"), "../examples/hello").push().resource().get("service.name"));
  }

  @Test
  void offWithoutAnEndpointOrWithTheExporterNone() {
    assertNull(option(new WorkerCommand(), Map.of(), "../examples/hello").start(new PrintWriter(new StringWriter())));
    assertNull(option(new ConsoleCommand(), Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1",
        "OTEL_METRICS_EXPORTER", "none"), "../examples/hello").start(new PrintWriter(new StringWriter())));
  }

  @Test
  void aBadVariableIsAUserErrorNamingIt() {
    MetricsOption o = option(new WorkerCommand(), Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1",
        "OTEL_EXPORTER_OTLP_HEADERS", TOKEN), "../examples/hello");
    UserError e = assertThrows(UserError.class, o::check);
    assertTrue(e.getMessage().startsWith("invalid OTEL_EXPORTER_OTLP_HEADERS: entry 1"), e.getMessage());
    assertFalse(e.getMessage().contains(TOKEN), e.getMessage());
    UserError interval = assertThrows(UserError.class, option(new DevCommand(), Map.of("OTEL_EXPORTER_OTLP_ENDPOINT",
        "http://127.0.0.1:1", "OTEL_METRIC_EXPORT_INTERVAL", "1m"), "../examples/hello")::check);
    assertTrue(interval.getMessage().startsWith("invalid OTEL_METRIC_EXPORT_INTERVAL '1m': give milliseconds"),
        interval.getMessage());
  }
}
