package dev.colony.config;

import dev.colony.spec.AntSpec;
import java.util.List;
import java.util.Optional;

/** A validated colony directory. */
public record LoadedColony(ColonySettings colony, List<AntSpec> ants) {
  public LoadedColony {
    ants = List.copyOf(ants);
  }

  public Optional<AntSpec> ant(String name) {
    return ants.stream().filter(a -> a.name().equals(name)).findFirst();
  }
}
