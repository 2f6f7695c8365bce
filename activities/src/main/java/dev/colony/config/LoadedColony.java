package dev.colony.config;

import dev.colony.spec.AntSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A validated colony directory.
 *
 * @param variables every {@code ${VAR}} the config references: their values are secrets
 */
public record LoadedColony(ColonySettings colony, List<AntSpec> ants, Set<String> variables) {
  public LoadedColony {
    ants = List.copyOf(ants);
    variables = Set.copyOf(variables);
  }

  public LoadedColony(ColonySettings colony, List<AntSpec> ants) {
    this(colony, ants, Set.of());
  }

  public Optional<AntSpec> ant(String name) {
    return ants.stream().filter(a -> a.name().equals(name)).findFirst();
  }
}
