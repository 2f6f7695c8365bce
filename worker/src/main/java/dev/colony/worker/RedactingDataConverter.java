package dev.colony.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.ByteString;
import dev.colony.secrets.Secrets;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.failure.v1.Failure;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.FailureConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import io.temporal.common.converter.PayloadConverter;
import io.temporal.failure.DefaultFailureConverter;
import io.temporal.payload.codec.PayloadCodec;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data converter of every Colony client and worker: Temporal's default, with every secret
 * value {@link Secrets} knows replaced by its {@code ${VAR}} on the way out. That covers all a
 * worker sends to the server (activity results, heartbeat details, workflow commands, query
 * answers, memo) and, through the failure converter, every failure message and stack trace with
 * its causes. Nothing is changed on the way in.
 */
public final class RedactingDataConverter {
  private static final ObjectMapper JSON = shared(new ObjectMapper());
  private static final String JSON_ENCODING = "json/plain";
  private static final Logger log = LoggerFactory.getLogger(RedactingDataConverter.class);

  private RedactingDataConverter() {}

  /**
   * Jackson keeps its buffers per thread by default, for every thread that ever wrote JSON.
   * Workflow code runs on virtual threads, three parked per ant, so a big colony held thousands
   * of idle buffer sets. One pool shared by every thread instead.
   */
  static ObjectMapper shared(ObjectMapper mapper) {
    mapper.getFactory().setRecyclerPool(JsonRecyclerPools.sharedConcurrentDequePool());
    return mapper;
  }

  /**
   * The SDK encodes search attributes with its own standard converter, whose mapper no option
   * reaches. Its Jackson converter is the one in the public {@code STANDARD_PAYLOAD_CONVERTERS}
   * array; its mapper is a private field, so it is set by reflection. If a later SDK changes
   * that, the worker logs it and runs on, with more memory per ant (a test fails first).
   */
  static boolean shareStandardConverterBuffers() {
    try {
      java.lang.reflect.Field field = JacksonJsonPayloadConverter.class.getDeclaredField("mapper");
      field.setAccessible(true);
      boolean found = false;
      for (PayloadConverter c : DefaultDataConverter.STANDARD_PAYLOAD_CONVERTERS) {
        if (c instanceof JacksonJsonPayloadConverter jackson && field.get(jackson) instanceof ObjectMapper m) {
          shared(m);
          found = true;
        }
      }
      return found;
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Jackson buffers of the SDK's standard converter stay per thread: {}", e.toString());
      return false;
    }
  }

  public static DataConverter create(Secrets secrets) {
    shareStandardConverterBuffers();
    ObjectMapper mapper = shared(JacksonJsonPayloadConverter.newDefaultObjectMapper());
    DataConverter inner = DefaultDataConverter.newDefaultInstance()
        .withPayloadConverterOverrides(new JacksonJsonPayloadConverter(mapper))
        .withFailureConverter(new Failures(secrets));
    return new CodecDataConverter(inner, List.of(new Codec(secrets)));
  }

  /** Masks secrets inside the string values of JSON payloads; other payloads pass unchanged. */
  static final class Codec implements PayloadCodec {
    private final Secrets secrets;

    Codec(Secrets secrets) {
      this.secrets = secrets;
    }

    @Override
    public List<Payload> encode(List<Payload> payloads) {
      return payloads.stream().map(this::encode).toList();
    }

    private Payload encode(Payload p) {
      ByteString encoding = p.getMetadataMap().get("encoding");
      if (encoding == null || !JSON_ENCODING.equals(encoding.toStringUtf8())) {
        return p;
      }
      String json = p.getData().toStringUtf8();
      // A value with quotes or backslashes appears escaped in JSON: parse whenever escapes exist.
      if (!secrets.contains(json) && json.indexOf('\\') < 0) {
        return p;
      }
      try {
        JsonNode tree = JSON.readTree(json);
        JsonNode masked = mask(tree);
        if (masked == tree && !secrets.contains(json)) {
          return p;
        }
        return p.toBuilder().setData(ByteString.copyFromUtf8(JSON.writeValueAsString(masked))).build();
      } catch (JsonProcessingException e) {
        // Not JSON after all: mask the text as it is.
        return p.toBuilder().setData(ByteString.copyFromUtf8(secrets.redact(json))).build();
      }
    }

    /** The node with secrets masked in every string; the same node when nothing changed. */
    private JsonNode mask(JsonNode node) {
      if (node.isTextual()) {
        String masked = secrets.redact(node.textValue());
        return masked.equals(node.textValue()) ? node : TextNode.valueOf(masked);
      }
      if (node instanceof ObjectNode o) {
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          JsonNode m = mask(e.getValue());
          if (m != e.getValue()) {
            e.setValue(m);
          }
        }
      } else if (node instanceof ArrayNode a) {
        for (int i = 0; i < a.size(); i++) {
          JsonNode m = mask(a.get(i));
          if (m != a.get(i)) {
            a.set(i, m);
          }
        }
      }
      return node;
    }

    @Override
    public List<Payload> decode(List<Payload> payloads) {
      return payloads;
    }
  }

  /** Temporal's failure converter, with messages and stack traces masked down the cause chain. */
  static final class Failures implements FailureConverter {
    private final FailureConverter delegate = new DefaultFailureConverter();
    private final Secrets secrets;

    Failures(Secrets secrets) {
      this.secrets = secrets;
    }

    @Override
    public RuntimeException failureToException(Failure failure, DataConverter dataConverter) {
      return delegate.failureToException(failure, dataConverter);
    }

    @Override
    public Failure exceptionToFailure(Throwable e, DataConverter dataConverter) {
      return mask(delegate.exceptionToFailure(e, dataConverter));
    }

    private Failure mask(Failure f) {
      Failure.Builder b = f.toBuilder()
          .setMessage(secrets.redact(f.getMessage()))
          .setStackTrace(secrets.redact(f.getStackTrace()));
      if (f.hasCause()) {
        b.setCause(mask(f.getCause()));
      }
      return b.build();
    }
  }
}
