package dev.colony.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.ByteString;
import dev.colony.config.Secrets;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.failure.v1.Failure;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.FailureConverter;
import io.temporal.failure.DefaultFailureConverter;
import io.temporal.payload.codec.PayloadCodec;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The data converter of every Colony client and worker: Temporal's default, with every secret
 * value {@link Secrets} knows replaced by its {@code ${VAR}} on the way out. That covers all a
 * worker sends to the server (activity results, heartbeat details, workflow commands, query
 * answers, memo) and, through the failure converter, every failure message and stack trace with
 * its causes. Nothing is changed on the way in.
 */
public final class RedactingDataConverter {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JSON_ENCODING = "json/plain";

  private RedactingDataConverter() {}

  public static DataConverter create(Secrets secrets) {
    // Jackson keeps its buffers per thread by default. Workflow code runs on virtual threads,
    // thousands of them parked in a big colony, each holding its own ~16 KB of buffers: one
    // shared pool instead cut a worker's heap by a fifth.
    ObjectMapper mapper = io.temporal.common.converter.JacksonJsonPayloadConverter.newDefaultObjectMapper();
    mapper.getFactory().setRecyclerPool(com.fasterxml.jackson.core.util.JsonRecyclerPools.sharedConcurrentDequePool());
    DataConverter inner = DefaultDataConverter.newDefaultInstance()
        .withPayloadConverterOverrides(new io.temporal.common.converter.JacksonJsonPayloadConverter(mapper))
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
