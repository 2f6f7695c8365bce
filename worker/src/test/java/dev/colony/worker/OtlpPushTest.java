package dev.colony.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.registry.otlp.AggregationTemporality;
import io.micrometer.registry.otlp.CompressionMode;
import io.micrometer.registry.otlp.OtlpConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The OTEL_* variables read into a push: when it is on, where to, with what; each bad value one line naming its variable. */
@Timeout(30)
class OtlpPushTest {
  static final String TOKEN = "s3cr3t+T0ken==";

  static Map<String, String> env(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  static OtlpPush push(String... kv) {
    return OtlpPush.fromEnv(env(kv), "colony-worker");
  }

  @Test
  void offUnlessAnEndpointIsGivenAndTheExporterIsNotNone() {
    assertNull(push());
    assertNull(push("OTEL_METRICS_EXPORTER", "otlp"), "no endpoint, no push (no guessed localhost)");
    assertNull(push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318", "OTEL_METRICS_EXPORTER", "none"));
    assertNull(push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318", "OTEL_METRICS_EXPORTER", "prometheus"));
    assertNull(push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318", "OTEL_SDK_DISABLED", "true"));
    assertNull(push("OTEL_EXPORTER_OTLP_ENDPOINT", "  "));
    assertEquals("http://127.0.0.1:4318/v1/metrics",
        push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318", "OTEL_METRICS_EXPORTER", "prometheus, otlp")
            .url().toString());
  }

  @Test
  void theBaseEndpointGetsV1MetricsAndTheMetricsEndpointIsUsedAsGiven() {
    assertEquals("http://collector:4318/v1/metrics", push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318").url().toString());
    assertEquals("https://otlp.example.com/prefix/v1/metrics",
        push("OTEL_EXPORTER_OTLP_ENDPOINT", "https://otlp.example.com/prefix/").url().toString());
    OtlpPush own = push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://b:9090/api/v1/otlp/v1/metrics");
    assertEquals("http://b:9090/api/v1/otlp/v1/metrics", own.url().toString());
    assertEquals("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", own.urlVariable());
  }

  @Test
  void headersAreDecodedTheMetricsOnesWinAndNoValueIsEverShown() {
    OtlpPush p = push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318",
        "OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20" + TOKEN + ", x-tenant = one",
        "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "x-tenant=two");
    Map<String, String> h = p.config().headers();
    assertEquals(Map.of("Authorization", "Bearer " + TOKEN, "x-tenant", "two"), h, "'+' and '=' kept, %20 decoded");
    assertFalse(p.toString().contains(TOKEN), p.toString());
    assertTrue(p.toString().contains("Authorization"), p.toString());
    assertEquals("failed: **** refused", p.mask("failed: Bearer " + TOKEN + " refused"));
    assertEquals("failed: **** refused", p.mask("failed: " + TOKEN + " refused"), "the token alone too");
    assertEquals("http://****@c:4318 x", p.mask("http://user:" + TOKEN + "@c:4318 x"));
  }

  @Test
  void intervalResourceAndServiceName() {
    OtlpPush p = push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_METRIC_EXPORT_INTERVAL", "250",
        "OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,team=ants%2Fcore");
    assertEquals(Duration.ofMillis(250), p.interval());
    assertEquals(Map.of("deployment.environment", "prod", "team", "ants/core", "service.name", "colony-worker"), p.resource());
    assertEquals(OtlpPush.DEFAULT_INTERVAL, push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318").interval());
    assertEquals("mine", push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_RESOURCE_ATTRIBUTES",
        "service.name=mine").resource().get("service.name"));
    assertEquals("named", push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_RESOURCE_ATTRIBUTES",
        "service.name=mine", "OTEL_SERVICE_NAME", "named").resource().get("service.name"), "the spec: OTEL_SERVICE_NAME wins");
  }

  @Test
  void micrometersOwnReadingOfTheEnvironmentIsReplacedEverywhere() {
    OtlpConfig c = push("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_METRIC_EXPORT_INTERVAL", "1500",
        "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "Delta", "OTEL_EXPORTER_OTLP_COMPRESSION", "gzip").config();
    assertEquals("http://c:4318/v1/metrics", c.url());
    assertEquals(Duration.ofMillis(1500), c.step());
    assertEquals(AggregationTemporality.DELTA, c.aggregationTemporality());
    assertEquals(CompressionMode.GZIP, c.compressionMode());
    assertEquals(TimeUnit.SECONDS, c.baseTimeUnit(), "durations in seconds, as scraped");
    assertTrue(c.validate().isValid(), c.validate().toString());
  }

  @Test
  void aBadValueIsOneLineNamingItsVariable() {
    assertInvalid("invalid OTEL_EXPORTER_OTLP_ENDPOINT 'collector:4318'", "OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318");
    assertInvalid("invalid OTEL_EXPORTER_OTLP_ENDPOINT 'ftp://c'", "OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://c");
    assertInvalid("invalid OTEL_EXPORTER_OTLP_ENDPOINT 'http://'", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://");
    assertInvalid("invalid OTEL_EXPORTER_OTLP_METRICS_ENDPOINT 'http://a b'",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://a b");
    assertInvalid("invalid OTEL_METRIC_EXPORT_INTERVAL '5s': give milliseconds", "OTEL_METRIC_EXPORT_INTERVAL", "5s");
    assertInvalid("invalid OTEL_METRIC_EXPORT_INTERVAL '0'", "OTEL_METRIC_EXPORT_INTERVAL", "0");
    assertInvalid("invalid OTEL_EXPORTER_OTLP_TIMEOUT '-1'", "OTEL_EXPORTER_OTLP_TIMEOUT", "-1");
    assertInvalid("invalid OTEL_METRICS_EXPORTER 'otlpp'", "OTEL_METRICS_EXPORTER", "otlpp");
    assertInvalid("invalid OTEL_METRICS_EXPORTER 'none,otlp': none goes alone", "OTEL_METRICS_EXPORTER", "none,otlp");
    assertInvalid("invalid OTEL_EXPORTER_OTLP_PROTOCOL 'grpc' for metrics", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc");
    assertInvalid("invalid OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE 'lowmemory'",
        "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "lowmemory");
    assertInvalid("invalid OTEL_EXPORTER_OTLP_COMPRESSION 'zstd'", "OTEL_EXPORTER_OTLP_COMPRESSION", "zstd");
    assertInvalid("invalid OTEL_RESOURCE_ATTRIBUTES: 'team' is not key=value", "OTEL_RESOURCE_ATTRIBUTES", "team");
    // a header's value may be a token: the message says where, never what
    assertInvalid("invalid OTEL_EXPORTER_OTLP_HEADERS: entry 2 (values not shown: they may hold a token) is not key=value",
        "OTEL_EXPORTER_OTLP_HEADERS", "x-a=1,s3cr3tT0kenPastedAlone");
    assertInvalid("invalid OTEL_EXPORTER_OTLP_METRICS_HEADERS: entry 1 (values not shown: they may hold a token) is not URL-encoded",
        "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "authorization=" + TOKEN + "%zz");
    // no endpoint: nothing is pushed, so nothing else is read
    assertNull(push("OTEL_METRIC_EXPORT_INTERVAL", "5s"));
  }

  static void assertInvalid(String starts, String variable, String value) {
    Map<String, String> env = env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318");
    env.put(variable, value);
    OtlpPush.Invalid e = assertThrows(OtlpPush.Invalid.class, () -> OtlpPush.fromEnv(env, "colony-worker"));
    assertTrue(e.getMessage().startsWith(starts), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    assertFalse(e.getMessage().contains(TOKEN) || e.getMessage().contains("s3cr3t"), e.getMessage());
  }
}
