package dev.colony.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --sticky-queue auto|on|off}, shared by the commands that run a worker. */
final class StickyOption {
  @Option(names = "--sticky-queue", defaultValue = "auto", paramLabel = "auto|on|off",
      converter = Converter.class,
      description = "Cache workflows on a per-worker queue. auto (default): off against the embedded "
          + "server (it would strand ants of a killed worker), on against a real Temporal.")
  StickyMode mode;

  static final class Converter implements ITypeConverter<StickyMode> {
    @Override
    public StickyMode convert(String value) {
      return StickyMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
    }
  }
}
