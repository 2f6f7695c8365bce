package dev.colony.session.impl;

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
 * the SWARM_* variables other colonies set):
 * <ul>
 *   <li>{@code COLONY_ANT}, {@code COLONY_COLONY}, {@code COLONY_SESSION}, {@code COLONY_DIR}
 *   <li>{@code COLONY_PEERS}: the other ants of the colony, comma-separated
 *   <li>{@code TEMPORAL_ADDRESS}, {@code TEMPORAL_NAMESPACE}: where the worker's Temporal is (the
 *       names the {@code temporal} and {@code colony} CLIs read)
 *   <li>{@code COLONY_BIN}: a {@code colony} command for this worker's build
 *   <li>with a task from the board: {@code COLONY_TASK_ID}, {@code COLONY_TASK_TITLE},
 *       {@code COLONY_TASK_FILE}
 *   <li>with traces on: {@code TRACEPARENT} (and {@code TRACESTATE}), the W3C context of the
 *       session's {@code colony.agent} span ({@link SessionTrace}), so an agent that traces joins
 *       the session's trace
 * </ul>
 * In a session's sandbox the worker's own ({@code TEMPORAL_*}, {@code COLONY_BIN}) are left out ({@code SessionWalls}); {@code COLONY_BIN} is then the session's channel's client
 * ({@code ColonyChannel}).
 */
public record SessionEnvironment(String temporalAddress, String namespace, String colonyBin) {
  public static final SessionEnvironment NONE = new SessionEnvironment(null, null, null);

  /**
   * With the task from the board the session works on: {@code COLONY_TASK_ID},
   * {@code COLONY_TASK_TITLE}, and {@code COLONY_TASK_FILE} (the task's text as the prompt shows
   * it, under the colony's {@code .colony/tasks/}) when the colony has a directory.
   */
  public Map<String, String> forSession(AntSpec spec, int session, dev.colony.task.TaskBrief task) {
    return forSession(spec, session, task, Map.of());
  }

  /**
   * With the session's trace context too ({@link SessionTrace#environment()}: {@code TRACEPARENT},
   * {@code TRACESTATE}; empty with traces off). These are session variables, so a sandboxed
   * session gets them as it gets {@code COLONY_SESSION}.
   */
  public Map<String, String> forSession(AntSpec spec, int session, dev.colony.task.TaskBrief task,
      Map<String, String> trace) {
    Map<String, String> env = forSession(spec, session);
    trace.forEach((k, v) -> {
      if (k.equals("TRACEPARENT") || k.equals("TRACESTATE")) {
        env.put(k, v);
      }
    });
    if (task != null) {
      env.put("COLONY_TASK_ID", task.id());
      env.put("COLONY_TASK_TITLE", task.title() == null ? "" : task.title().replace('\n', ' '));
      Path file = taskFile(spec, task);
      if (file != null) {
        env.put("COLONY_TASK_FILE", file.toString());
      }
    }
    return env;
  }

  private static Path taskFile(AntSpec spec, dev.colony.task.TaskBrief task) {
    if (spec.colonyDir() == null) {
      return null;
    }
    try {
      Path file = Path.of(spec.colonyDir(), ".colony", "tasks", spec.name() + ".md");
      Files.createDirectories(file.getParent());
      Files.writeString(file, dev.colony.engine.PromptBuilder.taskSection(task));
      return file;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  public Map<String, String> forSession(AntSpec spec, int session) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("COLONY_ANT", spec.name());
    env.put("COLONY_COLONY", spec.colony());
    env.put("COLONY_SESSION", Integer.toString(session));
    // The identity of the ant's commits (defaults.git), given in the environment: the worker never
    // writes it into a repository the ant has had in its hands (its .git could point anywhere).
    if (spec.git() != null && spec.git().userName() != null) {
      env.put("GIT_AUTHOR_NAME", spec.git().userName());
      env.put("GIT_COMMITTER_NAME", spec.git().userName());
    }
    if (spec.git() != null && spec.git().userEmail() != null) {
      env.put("GIT_AUTHOR_EMAIL", spec.git().userEmail());
      env.put("GIT_COMMITTER_EMAIL", spec.git().userEmail());
    }
    if (spec.colonyDir() != null) {
      env.put("COLONY_DIR", spec.colonyDir());
    }
    List<String> peers = peers(spec);
    String joined = String.join(",", peers);
    if (joined.length() > MAX_PEERS_CHARS) {
      // A big colony: the whole list would not fit in one environment variable (Linux caps one at
      // 128 KiB). The variable holds the first names; the file holds every name, one per line.
      Path file = peersFile(spec, peers);
      if (file != null) {
        env.put("COLONY_PEERS_FILE", file.toString());
      }
      int cut = joined.lastIndexOf(',', MAX_PEERS_CHARS);
      joined = joined.substring(0, Math.max(0, cut));
    }
    env.put("COLONY_PEERS", joined);
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

  /** How long COLONY_PEERS may be; a longer list goes to COLONY_PEERS_FILE. */
  static final int MAX_PEERS_CHARS = 32 * 1024;
  /** How long a colony's ant list is reused while its files look unchanged. */
  private static final long PEERS_TTL_MILLIS = 30_000;

  private record Cached(long antsDirMillis, long colonyFileMillis, long readAtMillis, List<String> names) {}

  /** Per colony directory: its ant names, read once rather than parsing every ant file per session. */
  private static final java.util.concurrent.ConcurrentHashMap<Path, Cached> PEERS = new java.util.concurrent.ConcurrentHashMap<>();

  private static Path peersFile(AntSpec spec, List<String> peers) {
    try {
      Path file = Path.of(spec.colonyDir(), ".colony", "peers", spec.name() + ".txt");
      Files.createDirectories(file.getParent());
      Files.write(file, peers);
      return file;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The colony's other ants, as its directory says (re-read when it changes, at most every 30 s). */
  static List<String> peers(AntSpec spec) {
    if (spec.colonyDir() == null) {
      return List.of();
    }
    Path dir = Path.of(spec.colonyDir());
    long antsDir = modified(dir.resolve("ants"));
    long colonyFile = modified(dir.resolve("colony.yaml"));
    long now = System.currentTimeMillis();
    Cached c = PEERS.get(dir);
    if (c == null || c.antsDirMillis() != antsDir || c.colonyFileMillis() != colonyFile
        || now - c.readAtMillis() > PEERS_TTL_MILLIS) {
      c = new Cached(antsDir, colonyFile, now, List.copyOf(allAnts(dir)));
      PEERS.put(dir, c);
    }
    List<String> names = new ArrayList<>(c.names());
    names.remove(spec.name());
    return names;
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Every ant of the colony (file names when the config is broken). */
  private static List<String> allAnts(Path dir) {
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
    return names;
  }
}
