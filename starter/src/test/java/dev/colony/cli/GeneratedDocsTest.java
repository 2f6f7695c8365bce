package dev.colony.cli;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The generated blocks of {@code docs/configuration.md}, {@code docs/cli.md} and
 * {@code docs/operations.md} are what {@link Docs} renders from {@code ConfigSchema}, the picocli
 * commands and the compatibility ledger: change either and this
 * fails until the documents are regenerated. {@code -Dcolony.writeDocs=true} rewrites them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GeneratedDocsTest {
  static Path repo() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !(Files.isDirectory(p.resolve("docs")) && Files.exists(p.resolve("mvnw")))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("no repository root (a directory with docs/ and mvnw) above "
          + Path.of("").toAbsolutePath());
    }
    return p;
  }

  private static void check(String file, java.util.function.UnaryOperator<String> render) throws Exception {
    Path p = repo().resolve(file);
    String current = Files.readString(p, StandardCharsets.UTF_8);
    String wanted = render.apply(current);
    if (Boolean.getBoolean("colony.writeDocs") && !wanted.equals(current)) {
      Files.writeString(p, wanted, StandardCharsets.UTF_8);
      current = wanted;
    }
    if (!wanted.equals(current)) {
      fail(file + " differs from what its generator produces (" + firstDifference(current, wanted) + "); "
          + Docs.REGENERATE);
    }
  }

  /** Where two texts part: the line number and both lines. */
  static String firstDifference(String current, String wanted) {
    String[] a = current.split("\n", -1);
    String[] b = wanted.split("\n", -1);
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      String x = i < a.length ? a[i] : "<end of file>";
      String y = i < b.length ? b[i] : "<end of file>";
      if (!x.equals(y)) {
        return "line " + (i + 1) + " is '" + x + "', the generator writes '" + y + "'";
      }
    }
    return "same lines";
  }

  @Test
  void configurationMatchesTheSchemaTheLoaderUses() throws Exception {
    check(Docs.CONFIGURATION, Docs::configuration);
  }

  @Test
  void cliMatchesTheCommands() throws Exception {
    check(Docs.CLI, Docs::cli);
  }

  @Test
  void operationsHasTheCompatibilityLedger() throws Exception {
    check(Docs.OPERATIONS, Docs::operations);
  }

  @Test
  void everyKeyAndCommandIsInTheGeneratedBlocks() {
    String config = dev.colony.config.ConfigDoc.table(dev.colony.config.ConfigSchema.ANT);
    assertTrue(config.contains("`budget.daily_usd`") && config.contains("`command.outcomes[].pattern`"), config);
    String cli = Docs.cliUsage();
    for (String command : ColonyCli.commandLine().getSubcommands().keySet()) {
      assertTrue(command.equals("help") || cli.contains("### `colony " + command + "`"), command);
    }
  }
}
