package dev.colony.cli;

import dev.colony.visibility.AntSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesResponse;
import io.temporal.common.SearchAttributeKey;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Registers Colony's search attributes on the namespace (OperatorService), idempotently. Ants
 * upsert them; on a server that lacks them their workflow tasks would fail, so commands that
 * run or start ants refuse to go on without them, saying how to add them.
 */
final class SearchAttributeSetup {
  private SearchAttributeSetup() {}

  /** Adds whichever attributes are missing; returns the names added. */
  static List<String> ensure(Temporal t) {
    // The raw channel carries no credentials of its own: the API key and headers are added here.
    OperatorServiceStubsOptions.Builder options = OperatorServiceStubsOptions.newBuilder()
        .setChannel(t.stubs.getRawChannel());
    String apiKey = t.profile.apiKey();
    if (apiKey != null) {
      options.addApiKey(() -> apiKey);
    }
    io.grpc.Metadata headers = t.profile.config().getMetadata();
    if (headers != null) {
      options.addGrpcMetadataProvider(() -> headers);
    }
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(options.validateAndBuildWithDefaults());
    try {
      Map<String, IndexedValueType> known;
      try {
        ListSearchAttributesResponse existing = operator.blockingStub().withDeadlineAfter(10, TimeUnit.SECONDS)
            .listSearchAttributes(ListSearchAttributesRequest.newBuilder().setNamespace(t.namespace).build());
        known = new LinkedHashMap<>(existing.getCustomAttributesMap());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
          throw e;
        }
        known = Map.of(); // the in-memory server can add but not list: add them all
      }
      Map<String, IndexedValueType> missing = new LinkedHashMap<>();
      List<String> wrongType = new ArrayList<>();
      for (SearchAttributeKey<?> key : AntSearchAttributes.ALL) {
        IndexedValueType have = known.get(key.getName());
        if (have == null) {
          missing.put(key.getName(), key.getValueType());
        } else if (have != key.getValueType()) {
          wrongType.add(key.getName() + " is " + DevServer.typeName(have) + ", Colony needs "
              + DevServer.typeName(key.getValueType()));
        }
      }
      if (!wrongType.isEmpty()) {
        throw new UserError("namespace '" + t.namespace + "' at " + t.address
            + " has search attributes of the wrong type: " + String.join("; ", wrongType));
      }
      if (missing.isEmpty()) {
        return List.of();
      }
      operator.blockingStub().withDeadlineAfter(30, TimeUnit.SECONDS).addSearchAttributes(
          AddSearchAttributesRequest.newBuilder().setNamespace(t.namespace).putAllSearchAttributes(missing).build());
      return List.copyOf(missing.keySet());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
        return List.of(); // another process registered them first
      }
      throw new UserError("Temporal at " + t.address + " refused to register Colony's search attributes ("
          + e.getStatus().getCode() + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription())
          + "). Add them to namespace '" + t.namespace + "' yourself (on Temporal Cloud: the namespace's "
          + "Search Attributes settings): " + createCommands(t.namespace));
    } finally {
      operator.shutdownNow();
    }
  }

  /**
   * The {@code temporal} commands that add every attribute by hand, joined by {@code &&}: one per
   * attribute (the CLI pairs one {@code --type} with one {@code --name}; extra names are ignored).
   */
  static String createCommands(String namespace) {
    List<String> commands = new ArrayList<>();
    for (SearchAttributeKey<?> key : AntSearchAttributes.ALL) {
      commands.add("temporal operator search-attribute create --namespace " + namespace + " --name "
          + key.getName() + " --type " + DevServer.typeName(key.getValueType()));
    }
    return String.join(" && ", commands);
  }
}
