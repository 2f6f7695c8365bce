package dev.colony.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The key tables of {@code docs/configuration.md}, rendered from {@link ConfigSchema}: the same
 * definitions the loader checks and {@code colony schema} prints, so the reference cannot drift
 * from what is accepted.
 */
public final class ConfigDoc {
  /** The generated block of {@code docs/configuration.md} for {@code colony.yaml}. */
  public static final String COLONY_BLOCK = "colony-yaml";
  /** The generated block for {@code ants/<name>.yaml}. */
  public static final String ANT_BLOCK = "ant-yaml";

  private ConfigDoc() {}

  /** The table of every key of {@code section}, one row each, nested keys as dotted paths. */
  public static String table(ConfigSchema.Section section) {
    StringBuilder sb = new StringBuilder();
    sb.append("| key | value | required | what it is |\n|---|---|---|---|\n");
    List<String[]> rows = new ArrayList<>();
    walk(section, "", rows);
    for (String[] r : rows) {
      sb.append("| `").append(r[0]).append("` | ").append(cell(r[1])).append(" | ").append(r[2]).append(" | ")
          .append(cell(r[3])).append(" |\n");
    }
    return sb.toString();
  }

  /** {@code doc} with both generated blocks brought up to date. */
  public static String update(String doc) {
    String out = GeneratedBlocks.splice(doc, COLONY_BLOCK, table(ConfigSchema.COLONY));
    return GeneratedBlocks.splice(out, ANT_BLOCK, table(ConfigSchema.ANT));
  }

  private static void walk(ConfigSchema.Section section, String prefix, List<String[]> rows) {
    List<ConfigSchema.Section> shown = new java.util.ArrayList<>();
    for (ConfigSchema.Key k : section.keys()) {
      String path = prefix + k.name() + (k.kind() == ConfigSchema.Kind.SECTIONS ? "[]" : "");
      rows.add(new String[] {path, value(k), k.required() ? "yes" : "", k.help()});
      // A key that is another's old name holds the same section: its keys are listed once, under the new name.
      boolean sameAsSibling = shown.stream().anyMatch(x -> x == k.section());
      if (k.section() != null && !sameAsSibling) {
        shown.add(k.section());
        walk(k.section(), path + ".", rows);
      }
    }
  }

  /** How the value is written, with its limits. */
  static String value(ConfigSchema.Key k) {
    return switch (k.kind()) {
      case TEXT -> "text (`${VAR}` allowed)";
      case LITERAL -> "text, stored as written (no `${VAR}`)";
      case SECRET -> "`${VAR}` only";
      case DURATION -> "duration" + limits(k, true);
      case COUNT -> "whole number" + limits(k, false);
      case INTEGER -> "whole number" + limits(k, false);
      case AMOUNT -> "number > 0";
      case CHOICE -> "one of " + String.join(", ", k.values().stream().map(v -> "`" + v + "`").toList());
      case LIST -> "list";
      case MAP -> "mapping of names to texts";
      case SECTION -> "section";
      case SECTIONS -> "list of sections";
      case COMMAND_LINE -> "list (program and arguments) or a shell command line";
      case SWITCH_OR_SECTION -> "`on`, `off` or section";
      case BOOLEAN -> "`true` or `false`";
      case CHOICE_OR_SECTION -> String.join(", ", k.values().stream().map(v -> "`" + v + "`").toList()) + " or section";
      case SIZE -> "size (`512m`, `4g`) or `off`";
      case COUNT_OR_OFF -> "whole number or `off`";
    };
  }

  /** The limits the schema declares for the key (and a count's own least value, 1). */
  private static String limits(ConfigSchema.Key k, boolean duration) {
    ConfigSchema.Bounds b = k.bounds();
    List<String> parts = new ArrayList<>();
    if (b.min() != null) {
      parts.add("at least " + (duration ? Durations.format(b.min()) : String.valueOf(b.min())));
    } else if (k.kind() == ConfigSchema.Kind.COUNT) {
      parts.add("at least 1");
    }
    if (b.max() != null) {
      parts.add("at most " + (duration ? Durations.format(b.max()) : String.valueOf(b.max())));
    }
    String why = b.why() == null || b.why().isBlank() ? "" : " " + b.why();
    return parts.isEmpty() ? "" : ", " + String.join(", ", parts) + why;
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
