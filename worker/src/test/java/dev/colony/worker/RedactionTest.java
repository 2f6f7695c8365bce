package dev.colony.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.secrets.Secrets;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.failure.v1.Failure;
import io.temporal.common.converter.DataConverter;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RedactionTest {
  record Result(String detail, List<String> lines, Map<String, String> env, long count) {}

  private static Secrets secrets() {
    Secrets s = new Secrets();
    s.register("TOKEN", "tok-\"quoted\\-4242");
    s.register("DB_PASS", "hunter2-db");
    return s;
  }

  @Test
  void payloadsLeaveWithEveryStringMasked() {
    DataConverter dc = RedactingDataConverter.create(secrets());
    Result in = new Result("pw hunter2-db", List.of("a tok-\"quoted\\-4242 b"), Map.of("k", "hunter2-db"), 4242);
    Payload p = dc.toPayload(in).orElseThrow();
    String wire = p.getData().toStringUtf8();
    assertFalse(wire.contains("hunter2-db"), wire);
    assertFalse(wire.contains("quoted"), wire);
    Result out = dc.fromPayload(p, Result.class, Result.class);
    assertEquals(new Result("pw ${DB_PASS}", List.of("a ${TOKEN} b"), Map.of("k", "${DB_PASS}"), 4242), out);
    // Nothing to mask: the payload is passed on untouched.
    Payload plain = dc.toPayload("nothing here").orElseThrow();
    assertEquals("\"nothing here\"", plain.getData().toStringUtf8());
  }

  @Test
  void failuresLeaveWithMessagesStackTracesAndCausesMasked() {
    DataConverter dc = RedactingDataConverter.create(secrets());
    RuntimeException e = ApplicationFailure.newNonRetryableFailureWithCause(
        "git clone https://bot:hunter2-db@host/r.git failed", "GitFailed",
        new IllegalStateException("inner hunter2-db"));
    Failure f = dc.exceptionToFailure(e);
    String all = f.toString();
    assertFalse(all.contains("hunter2-db"), all);
    assertTrue(f.getMessage().contains("https://bot:${DB_PASS}@host"), f.getMessage());
    assertEquals("inner ${DB_PASS}", f.getCause().getMessage());
  }

  @Test
  void printedLinesAreMaskedEvenWhenWrittenInPieces() throws IOException {
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    RedactingPrintStream out = new RedactingPrintStream(sink, secrets());
    out.print("password hunt");
    out.write("er2".getBytes(StandardCharsets.UTF_8));
    out.println("-db ok");
    out.printf("%s%n", "x hunter2-db");
    out.flush();
    assertEquals("password ${DB_PASS} ok\nx ${DB_PASS}\n".replace("\n", System.lineSeparator()),
        sink.toString(StandardCharsets.UTF_8));
  }

  @Test
  void everyJacksonMapperOnWorkflowThreadsSharesOnePoolOfBuffers() throws Exception {
    RedactingDataConverter.create(secrets());
    // Search attributes go through the SDK's standard converter, not the worker's.
    assertTrue(RedactingDataConverter.shareStandardConverterBuffers(), "the SDK's Jackson converter was found");
    var field = io.temporal.common.converter.JacksonJsonPayloadConverter.class.getDeclaredField("mapper");
    field.setAccessible(true);
    var shared = com.fasterxml.jackson.core.util.JsonRecyclerPools.sharedConcurrentDequePool();
    for (var c : io.temporal.common.converter.DefaultDataConverter.STANDARD_PAYLOAD_CONVERTERS) {
      if (c instanceof io.temporal.common.converter.JacksonJsonPayloadConverter j) {
        var mapper = (com.fasterxml.jackson.databind.ObjectMapper) field.get(j);
        assertTrue(mapper.getFactory()._getRecyclerPool() == shared, "the standard converter's pool is the shared one");
      }
    }
    // and the encoding still works
    assertEquals("\"waiting\"", io.temporal.common.converter.DefaultDataConverter.STANDARD_INSTANCE
        .toPayload("waiting").orElseThrow().getData().toStringUtf8());
  }
}
