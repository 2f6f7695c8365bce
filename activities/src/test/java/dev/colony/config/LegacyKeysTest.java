package dev.colony.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colony.compat.Compatibility;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every old YAML key the loader still reads is in the compatibility ledger, and every one the ledger lists is read. */
@Timeout(30)
class LegacyKeysTest {
  private static final Pattern OLD_NAME = Pattern.compile("^Old name of (\\w+)");

  private static void collect(ConfigSchema.Section section, TreeSet<String> out) {
    for (ConfigSchema.Key k : section.keys()) {
      Matcher m = OLD_NAME.matcher(k.help());
      if (m.find()) {
        out.add(k.name() + ": -> " + m.group(1) + ":");
      }
      if (k.section() != null) {
        collect(k.section(), out);
      }
    }
  }

  @Test
  void theOldKeysTheLoaderReadsAreTheLedgers() {
    TreeSet<String> schema = new TreeSet<>();
    collect(ConfigSchema.COLONY, schema);
    collect(ConfigSchema.ANT, schema);
    TreeSet<String> ledger = new TreeSet<>();
    Compatibility.LEGACY_NAMES.stream().filter(n -> n.kind() == Compatibility.Kind.YAML_KEY)
        .forEach(n -> ledger.add(n.old() + " -> " + n.current()));
    assertEquals(ledger, schema, "old YAML keys in ConfigSchema (help 'Old name of ...') and in the ledger");
  }
}
