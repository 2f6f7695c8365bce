package dev.colony.cli;

import dev.colony.config.LoadedColony;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Which colony a command works on, and how to reach its Temporal: {@code --colony}, else
 * {@code $COLONY_COLONY}, else the colony directory ({@code --dir}, or the current directory when it
 * holds colony.yaml). The options of the task and merge commands (their {@code Common} extends it).
 */
class ColonyChoice {
  @Option(names = "--colony", paramLabel = "NAME",
      description = "The colony (default: $COLONY_COLONY, else the one in --dir).")
  String colony;

  @Option(names = "--dir", paramLabel = "DIR",
      description = "The colony directory (default: the current directory, when it holds colony.yaml).")
  Path dir;

  @Mixin
  TemporalOptions temporal;

  private LoadedColony loaded;

  /** The colony's name; loading its directory only when neither --colony nor $COLONY_COLONY says. */
  String colonyName() {
    if (colony != null && !colony.isBlank()) {
      return colony.strip();
    }
    String env = dev.colony.secrets.Invocation.env("COLONY_COLONY");
    if (dir == null && env != null && !env.isBlank()) {
      return env.strip();
    }
    return config("which colony? Give --colony NAME, or --dir DIR (or run this in the colony's directory)")
        .colony().name();
  }

  /**
   * The colony directory this command was given ({@code --dir}), or the current directory when its
   * colony.yaml named the colony; null when the colony came from {@code --colony} or
   * {@code $COLONY_COLONY} alone. After {@link #colonyName()}.
   */
  Path directory() {
    return dev.colony.secrets.Invocation.resolve(dir != null ? dir : loaded != null ? Path.of(".") : null);
  }

  /** The colony's config, loaded once; {@code whenMissing} is the one-line error when no directory holds one. */
  LoadedColony config(String whenMissing) {
    if (loaded == null) {
      Path d = dev.colony.secrets.Invocation.resolve(dir != null ? dir : Path.of("."));
      if (dir == null && !Files.isRegularFile(d.resolve(dev.colony.config.ColonyLoader.COLONY_FILE))) {
        throw new UsageError(whenMissing);
      }
      loaded = ColonyDir.load(d, true);
    }
    return loaded;
  }
}
