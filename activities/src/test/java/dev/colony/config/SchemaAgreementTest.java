package dev.colony.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * {@code colony schema} and {@code colony validate} agree on every key whose value has a form and
 * bounds (durations, counts, whole numbers, amounts, choices, switches): for each such key of both
 * schemas, values at and beyond its bounds, in the wrong case and quoted are given to the JSON
 * Schema validator (reading the YAML as an editor does, YAML 1.2) and to the loader, and both
 * accept or both refuse.
 */
@Timeout(300)
class SchemaAgreementTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> ENV = Map.of("TOKEN", "token-value-0123456789",
      "SLACK_BOT", "xoxb-0123456789", "SLACK_APP", "xapp-0123456789");
  private static final String ANT = "name: a\ndescription: d\ninstructions: i\n";

  @TempDir
  Path tmp;

  /** YAML 1.2's core schema, as yaml-language-server reads a file: on/off/yes are text, 0x10 is not decimal. */
  private static final class Yaml12 extends Resolver {
    @Override
    protected void addImplicitResolvers() {
      addImplicitResolver(Tag.BOOL, Pattern.compile("^(true|True|TRUE|false|False|FALSE)$"), "tTfF");
      addImplicitResolver(Tag.INT, Pattern.compile("^[-+]?[0-9]+$"), "-+0123456789");
      addImplicitResolver(Tag.FLOAT, Pattern.compile("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"),
          "-+0123456789.");
      addImplicitResolver(Tag.NULL, Pattern.compile("^(~|null|Null|NULL|)$"), "~nN\0");
    }
  }

  private static Object yaml12(String text) {
    LoaderOptions o = new LoaderOptions();
    return new Yaml(new SafeConstructor(o), new Representer(new DumperOptions()), new DumperOptions(), o, new Yaml12())
        .load(text);
  }

  private static JsonSchema schema(ConfigSchema.Section s) {
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
        .getSchema(JSON.valueToTree(ConfigSchema.jsonSchema(s, "t")));
  }

  /** One key to try: where it is, and what it is. */
  record Site(List<String> path, ConfigSchema.Key key) {
    String dotted() {
      return String.join(".", path);
    }
  }

  private static void walk(ConfigSchema.Section s, List<String> at, List<Site> out) {
    for (ConfigSchema.Key k : s.keys()) {
      List<String> here = new ArrayList<>(at);
      here.add(k.kind() == ConfigSchema.Kind.SECTIONS ? k.name() + "[0]" : k.name());
      switch (k.kind()) {
        case DURATION, COUNT, INTEGER, AMOUNT, CHOICE -> out.add(new Site(here, k));
        case SWITCH_OR_SECTION -> {
          out.add(new Site(here, k));
          walk(k.section(), here, out);
        }
        case SECTION, SECTIONS -> walk(k.section(), here, out);
        default -> { }
      }
    }
  }

  /**
   * Seconds at and around every bound a duration has (0, 10s, 30s, 1m, 1h, 1d, 7d, 30d, 365d): the
   * test does not read the bounds from the declaration it checks.
   */
  private static final long[] SECONDS = {0, 1, 2, 9, 10, 11, 29, 30, 31, 59, 60, 61, 3599, 3600, 3601, 86399, 86400,
      86401, 604799, 604800, 604801, 2591999, 2592000, 2592001, 31535999, 31536000, 31536001, 999999999};
  /** Numbers at and around every bound a count or whole number has (0, 1, 2, 10, 200, the largest int). */
  private static final long[] NUMBERS = {-2147483649L, -2147483648L, -1, 0, 1, 2, 3, 9, 10, 11, 199, 200, 201,
      2147483646L, 2147483647L, 2147483648L};

  /** Values of a key's kind: at and beyond bounds, other units, wrong case, quoted, malformed. */
  private static List<String> values(ConfigSchema.Key k) {
    List<String> v = new ArrayList<>();
    switch (k.kind()) {
      case DURATION -> {
        for (long s : SECONDS) {
          v.add(s + "s");
          if (s % 60 == 0) {
            v.add(s / 60 + "m");
          }
          if (s % 3600 == 0) {
            v.add(s / 3600 + "h");
          }
        }
        v.addAll(List.of("5", "5M", "1.5h", "-1s", "0010s", "5 m", "'30s'", "1d", "x", "16667m", "279h", "8761h",
            "43201m", "721h", "169h", "10081m", "1441m", "25h", "61m", "2h", "0000000010s"));
      }
      case COUNT, INTEGER -> {
        for (long n : NUMBERS) {
          v.add(String.valueOf(n));
          v.add("'" + n + "'");
        }
        v.addAll(List.of("'+5'", "'05'", "1.5", "x", "''"));
      }
      case AMOUNT -> v.addAll(List.of("0", "0.0", "0.5", "1", "2.5", "-1", "'2.5'", "'0'", "1e2", "'1e2'", ".5",
          "x", "'-3'"));
      case CHOICE -> {
        for (String c : k.values()) {
          v.add(c);
          v.add("'" + c + "'");
          v.add(c.toUpperCase(Locale.ROOT));
          v.add(Character.toUpperCase(c.charAt(0)) + c.substring(1));
        }
        v.add("nope");
      }
      case SWITCH_OR_SECTION -> v.addAll(List.of("on", "off", "true", "false", "True", "FALSE", "On", "OFF", "yes",
          "maybe", "'on'"));
      default -> throw new IllegalArgumentException(k.kind().toString());
    }
    return v;
  }

  /**
   * The required keys of a section, with values both accept: the key under test is given its
   * siblings, and only what the loader and the schema say about the key itself is compared.
   */
  private static String required(ConfigSchema.Section s, String indent, String except) {
    StringBuilder sb = new StringBuilder();
    for (ConfigSchema.Key k : s.keys()) {
      if (!k.required() || k.name().equals(except)) {
        continue;
      }
      String v = switch (k.name()) {
        case "token" -> "${TOKEN}";
        case "bot_token" -> "${SLACK_BOT}";
        case "app_token" -> "${SLACK_APP}";
        case "url" -> "https://ntfy.example/topic";
        case "timezone" -> "UTC";
        case "from" -> "'22:00'";
        case "to" -> "'07:00'";
        case "cron" -> "'0 * * * *'";
        case "ants" -> "[a]";
        case "argv" -> "[\"true\"]";
        case "outcome" -> "transient";
        case "type" -> "discord_command";
        case "channel" -> "work";
        default -> "x";
      };
      sb.append(indent).append(k.name()).append(": ").append(v).append('\n');
    }
    return sb.toString();
  }

  /** A document with {@code value} at the site, inside its sections with their required keys. */
  private static String document(ConfigSchema.Section root, Site site, String value, String base) {
    StringBuilder sb = new StringBuilder(base);
    ConfigSchema.Section s = root;
    String indent = "";
    for (int i = 0; i < site.path().size(); i++) {
      String part = site.path().get(i);
      boolean list = part.endsWith("[0]");
      String name = list ? part.substring(0, part.length() - 3) : part;
      boolean last = i == site.path().size() - 1;
      if (i == 0 && base.contains("\n" + name + ":") || i == 0 && base.startsWith(name + ":")) {
        throw new IllegalStateException(name + " is in the base document");
      }
      if (last) {
        sb.append(indent).append(name).append(": ").append(value).append('\n');
        break;
      }
      sb.append(indent).append(name).append(":\n");
      s = s.keys().stream().filter(k -> k.name().equals(name)).findFirst().orElseThrow().section();
      if (list) {
        indent = indent + "  - ";
        String siblings = required(s, "", site.path().get(i + 1).replace("[0]", ""));
        String nested = indent;
        indent = indent.replace("- ", "  ");
        // the first sibling opens the list item; the rest line up under it
        if (!siblings.isEmpty()) {
          String[] lines = siblings.split("\n");
          sb.append(nested).append(lines[0]).append('\n');
          for (int j = 1; j < lines.length; j++) {
            sb.append(indent).append(lines[j]).append('\n');
          }
          continue;
        }
        sb.append(nested.substring(0, nested.length() - 2)).append("-\n");
        continue;
      }
      indent = indent + "  ";
      sb.append(required(s, indent, site.path().get(i + 1).replace("[0]", "")));
    }
    return sb.toString();
  }

  /**
   * Relations between keys (and the defaults of those not written) that a JSON Schema of one file
   * cannot state: the loader alone checks them, and each key's help names the relation.
   */
  private static final List<String> RELATIONS = List.of("must be at least backoff.initial",
      "must be at most window_size", "must be shorter than session_idle_timeout",
      "github_issue needs integrations.github.repos", "only github_issue triggers take 'as' and 'to'",
      "only a trigger with 'as: task' names who the task is for",
      "pull_request needs integrations.github.token", "only used with land: pull_request");

  /** What the loader says about the site: null when it accepts it (or refuses it for a relation only). */
  private String loader(boolean colony, Site site, String doc) throws Exception {
    Path dir = Files.createTempDirectory(tmp, "c");
    Files.createDirectories(dir.resolve("ants"));
    Files.writeString(dir.resolve("colony.yaml"), colony ? doc : "name: c\n");
    Files.writeString(dir.resolve("ants/a.yaml"), colony ? ANT : doc);
    try {
      new ColonyLoader(ENV).loadDir(dir);
      return null;
    } catch (ConfigException e) {
      for (String line : e.getMessage().split("\n")) {
        if (line.strip().startsWith(site.dotted() + ":") && RELATIONS.stream().noneMatch(line::contains)) {
          return line.strip();
        }
      }
      return null; // refused for something else: a key's own verdict is what is compared
    }
  }

  /** What the JSON Schema says about the site: null when it accepts it. */
  private static String schema(JsonSchema schema, Site site, String doc) {
    JsonNode node = JSON.valueToTree(yaml12(doc));
    String at = "$." + site.dotted();
    return schema.validate(node).stream().filter(m -> m.getInstanceLocation().toString().equals(at))
        .map(Object::toString).findFirst().orElse(null);
  }

  @Test
  void theSchemaAndTheLoaderAcceptAndRefuseTheSameValuesForEveryKey() throws Exception {
    List<String> disagreements = new ArrayList<>();
    int tried = 0;
    for (boolean colony : new boolean[] {true, false}) {
      ConfigSchema.Section root = colony ? ConfigSchema.COLONY : ConfigSchema.ANT;
      JsonSchema schema = schema(root);
      List<Site> sites = new ArrayList<>();
      walk(root, List.of(), sites);
      for (Site site : sites) {
        for (String value : values(site.key())) {
          String doc = document(root, site, value, colony ? "name: c\n" : ANT);
          String byLoader = loader(colony, site, doc);
          String bySchema = schema(schema, site, doc);
          tried++;
          if ((byLoader == null) != (bySchema == null)) {
            disagreements.add((colony ? "colony.yaml " : "ants/a.yaml ") + site.dotted() + ": " + value + "  loader: "
                + (byLoader == null ? "accepts" : byLoader) + "  schema: " + (bySchema == null ? "accepts" : bySchema));
          }
        }
      }
    }
    assertTrue(tried > 500, "only " + tried + " values tried");
    assertEquals("", String.join("\n", disagreements), disagreements.size() + " disagreements of " + tried);
  }
}
