package dev.colony.cli;

import dev.colony.config.ConfigDoc;
import dev.colony.config.GeneratedBlocks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/**
 * Regenerates the generated blocks of {@code docs/configuration.md} (from {@code ConfigSchema}),
 * {@code docs/cli.md} (from the picocli commands' usage help) and {@code docs/operations.md} (the
 * compatibility ledger, from {@code Compatibility}). {@code GeneratedDocsTest}
 * fails when the committed files differ from what this produces.
 *
 * <pre>. bin/jdk.sh && colony_find_jdk && "$JAVA_HOME/bin/java" -cp starter/target/colony.jar dev.colony.cli.Docs [--check] [REPO_DIR]</pre>
 */
public final class Docs {
  /** The generated block of {@code docs/cli.md}. */
  static final String CLI_BLOCK = "cli-usage";
  static final String CONFIGURATION = "docs/configuration.md";
  static final String CLI = "docs/cli.md";
  /** The compatibility ledger's generated block of {@code docs/operations.md} (from {@code Compatibility}). */
  static final String LEDGER_BLOCK = "compatibility-ledger";
  static final String OPERATIONS = "docs/operations.md";
  /** How to regenerate, for messages. */
  static final String REGENERATE = "regenerate with: ./mvnw -B -q -o -ntp -pl starter -am test -Dtest=GeneratedDocsTest"
      + " -Dsurefire.failIfNoSpecifiedTests=false -Dcolony.writeDocs=true"
      + "   (or, after a build: \"$JAVA_HOME/bin/java\" -cp starter/target/colony.jar dev.colony.cli.Docs)";

  private Docs() {}

  /** Every command's usage help, as {@code colony help COMMAND} prints it, without colours, 80 columns. */
  static String cliUsage() {
    CommandLine root = ColonyCli.commandLine();
    StringBuilder sb = new StringBuilder();
    sb.append("### `colony`\n\n```text\n").append(usage(root)).append("```\n");
    for (Map.Entry<String, CommandLine> e : root.getSubcommands().entrySet()) {
      CommandLine sub = e.getValue();
      if (sub.getCommandSpec().usageMessage().hidden() || e.getKey().equals("help")
          || !e.getKey().equals(sub.getCommandName())) {
        continue; // aliases are listed with their command
      }
      sb.append("\n### `colony ").append(e.getKey()).append("`\n\n```text\n").append(usage(sub)).append("```\n");
      // A command with its own subcommands (colony task add, list, ...): each one too.
      for (Map.Entry<String, CommandLine> n : sub.getSubcommands().entrySet()) {
        if (n.getKey().equals(n.getValue().getCommandName()) && !n.getValue().getCommandSpec().usageMessage().hidden()) {
          sb.append("\n#### `colony ").append(e.getKey()).append(' ').append(n.getKey()).append("`\n\n```text\n")
              .append(usage(n.getValue())).append("```\n");
        }
      }
    }
    return sb.toString();
  }

  private static String usage(CommandLine cl) {
    cl.setUsageHelpAutoWidth(false);
    cl.setUsageHelpWidth(80);
    String text = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
    // Trailing blanks are noise in a document (and editors strip them).
    return text.lines().map(String::stripTrailing).reduce(new StringBuilder(),
        (b, l) -> b.append(l).append('\n'), StringBuilder::append).toString();
  }

  /** What {@code docs/configuration.md} should be, given its current text. */
  static String configuration(String current) {
    return ConfigDoc.update(current);
  }

  /** What {@code docs/cli.md} should be, given its current text. */
  static String cli(String current) {
    return GeneratedBlocks.splice(current, CLI_BLOCK, cliUsage());
  }

  /** What {@code docs/operations.md} should be, given its current text: the ledger of compatibility paths. */
  static String operations(String current) {
    return GeneratedBlocks.splice(current, LEDGER_BLOCK, dev.colony.compat.Compatibility.markdown());
  }

  /** Rewrites the documents under {@code repo} (or, with {@code check}, says which differ); true when up to date. */
  static boolean run(Path repo, boolean check) throws IOException {
    boolean same = true;
    for (String file : new String[] {CONFIGURATION, CLI, OPERATIONS}) {
      Path p = repo.resolve(file);
      String current = Files.readString(p, StandardCharsets.UTF_8);
      String wanted = file.equals(CLI) ? cli(current) : file.equals(OPERATIONS) ? operations(current)
          : configuration(current);
      if (!wanted.equals(current)) {
        same = false;
        if (check) {
          System.err.println(file + " is out of date; " + REGENERATE);
        } else {
          Files.writeString(p, wanted, StandardCharsets.UTF_8);
          System.err.println("wrote " + file);
        }
      }
    }
    return same;
  }

  public static void main(String[] args) throws IOException {
    boolean check = false;
    Path repo = Path.of(".");
    for (String a : args) {
      if (a.equals("--check")) {
        check = true;
      } else {
        repo = Path.of(a);
      }
    }
    boolean same = run(repo, check);
    System.exit(check && !same ? 1 : 0);
  }
}
