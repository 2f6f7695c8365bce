package dev.colony.cli;

import dev.colony.config.ConfigSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code colony schema}: the JSON Schema of {@code colony.yaml} or of an ant's file, made from the
 * definitions the loader checks, for editors that validate and complete YAML.
 */
@Command(name = "schema", mixinStandardHelpOptions = true,
    description = "Print the JSON Schema of colony.yaml (or of ants/*.yaml with 'ant'), for editors; "
        + "--write DIR puts both in DIR/schema/.")
final class SchemaCommand implements Callable<Integer> {
  enum Which { colony, ant }

  @Parameters(index = "0", arity = "0..1", paramLabel = "colony|ant", defaultValue = "colony",
      description = "Which file's schema (default: ${DEFAULT-VALUE}).")
  Which which;

  @Option(names = "--write", paramLabel = "DIR",
      description = "Write both schemas into the colony directory DIR (DIR/schema/), replacing older ones.")
  Path write;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    var out = spec.commandLine().getOut();
    if (write == null) {
      out.print(ConfigSchema.json(which == Which.ant));
      out.flush();
      return 0;
    }
    if (!Files.isDirectory(write)) {
      throw new UserError("not a directory: " + write + " (give the colony directory)");
    }
    for (Path p : ConfigSchema.write(write)) {
      out.println("wrote " + p);
    }
    out.printf("editors with the YAML language server use them when a file starts with:%n  colony.yaml:   %s%n"
        + "  ants/*.yaml:   %s%n", ConfigSchema.COLONY_MODELINE, ConfigSchema.ANT_MODELINE);
    out.flush();
    return 0;
  }
}
