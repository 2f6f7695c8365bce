package dev.colony.session;

import dev.colony.config.ColonyLoader;
import dev.colony.config.ConfigException;
import dev.colony.spec.AntSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What every session's agent finds in its environment about its colony, so it can message its
 * peers with {@code "$COLONY_BIN" send --from "$COLONY_ANT" OTHER TEXT} (Colony's counterpart of
 * seed 001's SWARM_* variables):
 * <ul>
 *   <li>{@code COLONY_ANT}, {@code COLONY_COLONY}, {@code COLONY_SESSION}, {@code COLONY_DIR}
 *   <li>{@code COLONY_PEERS}: the other ants of the colony, comma-separated
 *   <li>{@code TEMPORAL_ADDRESS}, {@code TEMPORAL_NAMESPACE}: where the worker's Temporal is (the
 *       names the {@code temporal} and {@code colony} CLIs read)
 *   <li>{@code COLONY_BIN}: a {@code colony} command for this worker's build
 * </ul>
 */
public record SessionEnvironment(String temporalAddress, String namespace, String colonyBin) {
  public static final SessionEnvironment NONE = new SessionEnvironment(null, null, null);

  public Map<String, String> forSession(AntSpec spec, int session) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("COLONY_ANT", spec.name());
    env.put("COLONY_COLONY", spec.colony());
    env.put("COLONY_SESSION", Integer.toString(session));
    if (spec.colonyDir() != null) {
      env.put("COLONY_DIR", spec.colonyDir());
    }
    env.put("COLONY_PEERS", String.join(",", peers(spec)));
    if (temporalAddress != null) {
      env.put("TEMPORAL_ADDRESS", temporalAddress);
    }
    if (namespace != null) {
      env.put("TEMPORAL_NAMESPACE", namespace);
    }
    if (colonyBin != null) {
      env.put("COLONY_BIN", colonyBin);
    }
    return env;
  }

  /** The colony's other ants, as its directory says now (file names when the config is broken). */
  static List<String> peers(AntSpec spec) {
    if (spec.colonyDir() == null) {
      return List.of();
    }
    Path dir = Path.of(spec.colonyDir());
    List<String> names = new ArrayList<>();
    try {
      ColonyLoader.load(dir, true).ants().forEach(a -> names.add(a.name()));
    } catch (ConfigException | RuntimeException e) {
      try (Stream<Path> files = Files.list(dir.resolve("ants"))) {
        files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml") || n.endsWith(".yml"))
            .map(n -> n.substring(0, n.lastIndexOf('.'))).sorted().forEach(names::add);
      } catch (IOException ignored) {
        // no ants directory: no peers
      }
    }
    names.remove(spec.name());
    return names;
  }
}
