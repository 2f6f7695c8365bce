package dev.colony.cli;

import dev.colony.visibility.AntSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesResponse;
import io.temporal.common.SearchAttributeKey;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import java.time.Duration;
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
  /**
   * Every custom search attribute Colony uses: the ants' and the tasks' (which share
   * {@code ColonyName}). They fit SQL visibility's limits per namespace: 9 of 10 Keyword, 2 of 3
   * KeywordList, 3 of 3 Datetime, 3 of 3 Int, 2 of 3 Bool.
   */
  static final List<SearchAttributeKey<?>> ALL = java.util.stream.Stream.concat(AntSearchAttributes.ALL.stream(),
      dev.colony.task.TaskSearchAttributes.ALL.stream()).toList();

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
      for (SearchAttributeKey<?> key : ALL) {
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
      awaitUsable(t, missing.keySet(), USABLE_WITHIN);
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

  /** How long a server may take to let the namespace use attributes it has just added. */
  static final Duration USABLE_WITHIN = Duration.ofSeconds(60);

  /**
   * Waits until the namespace accepts {@code names} in a query. A cluster adds them to its
   * database at once, but each frontend maps them only at its next namespace refresh (every 10 s
   * by default): until then a start that sets them is refused ("has no mapping defined for search
   * attribute"). The dev server and the in-memory one map them at once, or cannot count: no wait.
   */
  static void awaitUsable(Temporal t, java.util.Collection<String> names, Duration within) {
    dev.colony.client.VisibilityQuery nothing = dev.colony.client.VisibilityQuery.where();
    for (String n : names) {
      nothing = nothing.isNull(n);
    }
    String query = nothing.toString();
    try {
      whileUnmapped(() -> t.stubs.blockingStub().withDeadlineAfter(10, TimeUnit.SECONDS).countWorkflowExecutions(
          CountWorkflowExecutionsRequest.newBuilder().setNamespace(t.namespace).setQuery(query).build()), within);
    } catch (StatusRuntimeException e) {
      if (unmapped(e)) {
        throw new UserError("Temporal at " + t.address + " added Colony's search attributes but namespace '"
            + t.namespace + "' still cannot use them after " + within.toSeconds() + " s: "
            + e.getStatus().getDescription());
      }
      // cannot count here (in-memory server), or a failure the next call reports itself
    }
  }

  /** Whether {@code e} says the namespace does not (yet) know a search attribute of Colony's. */
  static boolean unmapped(Throwable e) {
    io.grpc.StatusRuntimeException s = ColonyCli.grpcCause(e);
    if (s == null || s.getStatus().getCode() != Status.Code.INVALID_ARGUMENT || s.getStatus().getDescription() == null) {
      return false;
    }
    String d = s.getStatus().getDescription();
    return (d.contains("search attribute") || d.contains("Search attribute"))
        && ALL.stream().anyMatch(k -> d.contains(k.getName()));
  }

  /**
   * Runs {@code call}, again while the namespace does not yet map Colony's attributes: another
   * frontend of the same cluster may refresh later than the one {@link #awaitUsable} asked.
   */
  static <T> T whileUnmapped(java.util.function.Supplier<T> call, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    long pause = 100;
    while (true) {
      try {
        return call.get();
      } catch (RuntimeException e) {
        if (!unmapped(e) || System.nanoTime() - deadline > 0) {
          throw e;
        }
      }
      sleep(pause);
      pause = Math.min(1000, pause * 2);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UserError("interrupted while waiting for Temporal to map Colony's search attributes");
    }
  }

  /**
   * The {@code temporal} commands that add every attribute by hand, joined by {@code &&}: one per
   * attribute (the CLI pairs one {@code --type} with one {@code --name}; extra names are ignored).
   */
  static String createCommands(String namespace) {
    List<String> commands = new ArrayList<>();
    for (SearchAttributeKey<?> key : ALL) {
      commands.add("temporal operator search-attribute create --namespace " + namespace + " --name "
          + key.getName() + " --type " + DevServer.typeName(key.getValueType()));
    }
    return String.join(" && ", commands);
  }
}
