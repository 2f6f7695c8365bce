package dev.colony.cli;

import dev.colony.config.ColonyLoader;
import dev.colony.config.ConfigException;
import dev.colony.config.LoadedColony;
import dev.colony.config.Environment;
import dev.colony.secrets.Secrets;
import java.nio.file.Path;
import java.util.Map;

/** Loads a colony directory for a command, turning config problems into a clean exit 1. */
final class ColonyDir {
  private ColonyDir() {}

  /** Loads a colony that has ants to run; one without is an error naming where to add them. */
  static LoadedColony loadRunnable(Path dir) {
    return loadRunnable(dir, false);
  }

  /** With {@code discordTokenOptional}, an unset Discord token means the console is the chat. */
  static LoadedColony loadRunnable(Path dir, boolean discordTokenOptional) {
    LoadedColony colony = load(dir, discordTokenOptional);
    if (colony.ants().isEmpty()) {
      throw new UserError("colony '" + colony.colony().name() + "' has no ants to run: add one <name>.yaml file per ant to "
          + Path.of(colony.colony().dir(), ColonyLoader.ANTS_DIR));
    }
    return colony;
  }

  static LoadedColony load(Path dir) {
    return load(dir, false);
  }

  static LoadedColony load(Path typed, boolean discordTokenOptional) {
    // A directory the caller typed is the caller's: relative to its directory (the resident
    // process runs commands for callers in other directories than its own).
    Path dir = dev.colony.secrets.Invocation.resolve(typed);
    try {
      LoadedColony colony = ColonyLoader.load(dir, discordTokenOptional);
      // From here on, every value the config references is masked in this process's output.
      Map<String, String> env = Environment.forColony(Path.of(colony.colony().dir()));
      Secrets.process().registerAll(colony.variables(), env);
      Secrets.process().registerSecretLookingNames(env);
      // The colony's own paths are public: a short value inside them stays, or the ant's
      // command and workspace would change on their way through history.
      Secrets.process().registerPublic(colony.colony().dir());
      Secrets.process().registerPublic(dir.toAbsolutePath().normalize().toString());
      return colony;
    } catch (ConfigException e) {
      throw new UserError(e.getMessage());
    }
  }
}
