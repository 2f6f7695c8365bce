package dev.colony.cli;

import dev.colony.config.ColonyLoader;
import dev.colony.config.ConfigException;
import dev.colony.config.LoadedColony;
import java.nio.file.Path;

/** Loads a colony directory for a command, turning config problems into a clean exit 1. */
final class ColonyDir {
  private ColonyDir() {}

  static LoadedColony load(Path dir) {
    try {
      return ColonyLoader.load(dir);
    } catch (ConfigException e) {
      throw new UserError(e.getMessage());
    }
  }
}
