package dev.colony.spec;

import java.util.List;
import java.util.Map;

/**
 * The {@code command} engine: runs {@code argv} in the ant's workspace with the prompt on stdin
 * and in {@code COLONY_PROMPT}. Values may hold {@code ${VAR}} names, resolved on the worker.
 */
public record CommandSpec(List<String> argv, Map<String, String> env, List<OutcomeRule> outcomes) {
  public CommandSpec {
    argv = List.copyOf(argv);
    env = dev.colony.determinism.SortedCopies.of(env);
    outcomes = outcomes == null ? List.of() : List.copyOf(outcomes);
  }
}
