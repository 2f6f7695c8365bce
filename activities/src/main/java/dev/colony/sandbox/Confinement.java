package dev.colony.sandbox;

import dev.colony.engine.Processes;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How an engine starts the agent's processes: inside the ant's sandbox, or (with {@code sandbox:
 * off}, or in tests of an engine alone) as a plain child of the worker.
 */
public interface Confinement {
  /**
   * A process builder for {@code argv} in {@code cwd}, tied to the worker (it dies with it).
   *
   * @param workerEnv the worker's environment with the colony's .env and the session's variables:
   *     what an unconfined agent sees; the sandbox passes none of it but what the session is granted
   * @param engineEnv the engine's own variables for this process (its prompt file, the ant's
   *     {@code command.env}): passed in either way
   */
  ProcessBuilder processFor(List<String> argv, Map<String, String> workerEnv, Map<String, String> engineEnv, Path cwd);

  /** What a human sees about these walls in the status and the console (one short phrase). */
  String describe();

  /** The kernel refuses a variable holding a NUL: such a value is passed without it. */
  static void putAllClean(Map<String, String> into, Map<String, String> from) {
    from.forEach((k, v) -> {
      if (k != null && v != null && !k.isEmpty() && k.indexOf('=') < 0 && k.indexOf('\0') < 0) {
        into.put(k, v.indexOf('\0') < 0 ? v : v.replace("\0", ""));
      }
    });
  }

  /**
   * No walls: the child runs with the worker's powers and sees the worker's environment
   * (engine tests; an ant with {@code sandbox: off}).
   */
  Confinement NONE = new Confinement() {
    @Override
    public ProcessBuilder processFor(List<String> argv, Map<String, String> workerEnv, Map<String, String> engineEnv,
        Path cwd) {
      ProcessBuilder pb = new ProcessBuilder(Processes.tiedToWorker(argv)).directory(cwd.toFile());
      putAllClean(pb.environment(), workerEnv);
      putAllClean(pb.environment(), engineEnv);
      return pb;
    }

    @Override
    public String describe() {
      return "no sandbox";
    }
  };
}
