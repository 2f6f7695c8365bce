package dev.colony.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.yaml.snakeyaml.Yaml;

/**
 * The published JSON Schema ({@code colony schema}) and the loader agree: every example colony
 * and the seed's reference configs pass both, and each kind of mistake is refused by both.
 */
@Timeout(30)
class ConfigSchemaTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonSchema schema(ConfigSchema.Section section, String title) {
    JsonNode node = JSON.valueToTree(ConfigSchema.jsonSchema(section, title));
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(node);
  }

  private static final JsonSchema COLONY = schema(ConfigSchema.COLONY, "colony.yaml");
  private static final JsonSchema ANT = schema(ConfigSchema.ANT, "ants/*.yaml");

  private static Set<ValidationMessage> check(JsonSchema schema, String yaml) {
    Object doc = new Yaml().load(yaml);
    return schema.validate(JSON.valueToTree(doc));
  }

  private static List<Path> colonies() throws Exception {
    List<Path> dirs = new ArrayList<>();
    try (Stream<Path> s = Files.list(Path.of("../examples"))) {
      s.filter(d -> Files.isRegularFile(d.resolve("colony.yaml"))).sorted().forEach(dirs::add);
    }
    dirs.add(Path.of("src/test/resources/config-samples/full"));
    dirs.add(Path.of("src/test/resources/config-samples/minimal"));
    return dirs;
  }

  @Test
  void everyExampleColonyAndTheSeedsReferenceConfigsPass() throws Exception {
    int files = 0;
    for (Path dir : colonies()) {
      assertEquals(Set.of(), check(COLONY, Files.readString(dir.resolve("colony.yaml"))), dir + "/colony.yaml");
      files++;
      Path ants = dir.resolve("ants");
      if (Files.isDirectory(ants)) {
        try (Stream<Path> s = Files.list(ants)) {
          for (Path a : s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).toList()) {
            assertEquals(Set.of(), check(ANT, Files.readString(a)), a.toString());
            files++;
          }
        }
      }
    }
    assertTrue(files >= 20, "only " + files + " files checked");
  }

  @Test
  void whatTheLoaderRefusesTheSchemaRefusesToo() {
    String ant = "name: a\ndescription: d\ninstructions: do it\n";
    Map<String, String> mistakes = Map.of(
        "an unknown key", ant + "autonomyy: full\n",
        "a value outside a choice", ant + "engine: gpt\n",
        "a duration without a unit", ant + "poll_interval: 90\n",
        "a missing required key", "name: a\ndescription: d\n",
        "a count below 1", ant + "max_consecutive_errors: 0\n",
        "an unknown key in a section", ant + "schedule:\n  cron: '0 * * * *'\n  tz: UTC\n",
        "a ${VAR} where the value is stored as written", ant + "schedule:\n  cron: ${CRON}\n",
        "a supervisor that is neither on/off nor a mapping", ant + "supervisor: maybe\n");
    mistakes.forEach((what, yaml) -> assertFalse(check(ANT, yaml).isEmpty(), what + " passed the schema"));
    assertFalse(check(COLONY, "name: c\nintegrations:\n  discord:\n    token: abc.def\n    guild: g\n").isEmpty(),
        "a secret written as its value passed the schema");
    assertEquals(Set.of(), check(COLONY, "name: c\nintegrations:\n  discord:\n    token: ${DISCORD_TOKEN}\n    guild: g\n"));
    assertEquals(Set.of(), check(ANT, ant + "supervisor: off\ncommand:\n  argv: ./agent.sh --fast\n"));
  }

  @Test
  void theSchemaHasHelpForEveryKeyAndNamesTheDraftItFollows() {
    Map<String, Object> s = ConfigSchema.jsonSchema(ConfigSchema.ANT, "ants/*.yaml");
    assertEquals("https://json-schema.org/draft/2020-12/schema", s.get("$schema"));
    for (ConfigSchema.Section section : List.of(ConfigSchema.ANT, ConfigSchema.COLONY)) {
      walk(section);
    }
  }

  private static void walk(ConfigSchema.Section section) {
    for (ConfigSchema.Key k : section.keys()) {
      assertFalse(k.help() == null || k.help().isBlank(), k.name() + " has no help");
      if (k.section() != null) {
        walk(k.section());
      }
    }
  }
}
