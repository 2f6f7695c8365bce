package dev.colony.config;

import dev.colony.spec.AntSpec;
import dev.colony.supervision.GroupSpec;
import dev.colony.spec.TriggerSpec;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Loads and validates a colony directory: {@code colony.yaml} plus every {@code .yaml}/{@code .yml}
 * file in {@code ants/}. Every problem in every file is collected before failing, so one run of
 * {@code colony validate} shows them all.
 */
public final class ColonyLoader {
  public static final String COLONY_FILE = "colony.yaml";
  public static final String ANTS_DIR = "ants";

  private final Function<String, String> env;
  private boolean discordTokenOptional;

  public ColonyLoader(Map<String, String> env) {
    Map<String, String> copy = new HashMap<>(env);
    this.env = copy::get;
  }

  /** Loads with the process environment and the colony's {@code .env}. */
  public static LoadedColony load(Path dir) throws ConfigException {
    return load(dir, false);
  }

  /**
   * Like {@link #load(Path)}; with {@code discordTokenOptional}, an unset Discord token is not an
   * error ({@code colony dev} then chats on the console).
   */
  public static LoadedColony load(Path dir, boolean discordTokenOptional) throws ConfigException {
    Path abs = dir.toAbsolutePath().normalize();
    ColonyLoader loader = new ColonyLoader(Environment.forColony(abs));
    loader.discordTokenOptional = discordTokenOptional;
    return loader.loadDir(abs);
  }

  /** This loader, accepting an unset Discord token (see {@link #load(Path, boolean)}). */
  public ColonyLoader withDiscordTokenOptional() {
    this.discordTokenOptional = true;
    return this;
  }

  public LoadedColony loadDir(Path dir) throws ConfigException {
    Path colonyDir = dir.toAbsolutePath().normalize();
    List<Problem> problems = new ArrayList<>();
    Set<String> referenced = new TreeSet<>();
    ColonyReader colonyReader = new ColonyReader(env, discordTokenOptional);
    AntReader antReader = new AntReader();
    if (!Files.isDirectory(colonyDir)) {
      throw new ConfigException(List.of(new Problem(colonyDir.toString(), "",
          "not a directory (a colony directory holds colony.yaml and ants/)")));
    }
    ColonySettings colony = null;
    Defaults defaults = Defaults.NONE;
    Map<?, ?> colonyMap = parse(colonyDir, COLONY_FILE, problems);
    Node root = null;
    if (colonyMap != null) {
      root = new Node(COLONY_FILE, "", colonyMap, env, problems, referenced);
      defaults = colonyReader.readDefaults(root);
      colony = colonyReader.readColony(root, colonyDir, defaults);
      antReader.slackColony = colonyReader.slack != null;
      antReader.taskRules = colonyReader.tasks;
      antReader.seeds = colonyReader.seeds;
    }

    List<AntSpec> ants = new ArrayList<>();
    Map<String, String> fileOfAnt = new HashMap<>();
    Path antsDir = colonyDir.resolve(ANTS_DIR);
    List<String> antFiles = antFiles(antsDir, problems);
    String colonyName = colony == null ? "colony" : colony.name();
    for (String rel : antFiles) {
      Map<?, ?> map = parse(colonyDir, rel, problems);
      if (map == null) {
        continue;
      }
      AntSpec ant = antReader.readAnt(new Node(rel, "", map, env, problems, referenced), rel, colonyDir, colonyName,
          colony, defaults);
      if (ant == null) {
        continue;
      }
      String other = fileOfAnt.putIfAbsent(ant.name(), rel);
      if (other != null) {
        problems.add(new Problem(rel, "name", "duplicate ant name '" + ant.name()
            + "': also used by " + other + " (ant names must be unique in a colony)"));
        continue;
      }
      ants.add(colonyReader.notices == null ? ant : ant.withNotify(colonyReader.notices));
    }
    if (colony != null) {
      requireGithubToken(colony, ants, problems);
    }
    ants = new ArrayList<>(MergeReader.join(ants, colonyReader.merge, problems));
    List<GroupSpec> groups = root == null ? List.of() : ColonyReader.readGroups(root, ants);
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    ColonyReader.SlackBlock s = colonyReader.slack;
    dev.colony.slack.SlackSettings slack = s == null ? null : new dev.colony.slack.SlackSettings(s.botTokenVar(),
        s.appTokenVar(), s.operators(), antReader.slackOperators, antReader.slackChannels, s.mention(), s.alertsChannel(),
        s.replyToStrangers());
    return new LoadedColony(colony, ants, referenced, antReader.antOperators, groups, slack, colonyReader.merge,
        colonyReader.seeds);
  }

  /** Ant files, sorted. None is valid config (nothing to run yet); commands that run ants check. */
  private static List<String> antFiles(Path antsDir, List<Problem> problems) {
    if (Files.exists(antsDir) && !Files.isDirectory(antsDir)) {
      problems.add(new Problem(ANTS_DIR, "", "is a file; it must be a directory holding one <name>.yaml per ant"));
      return List.of();
    }
    if (!Files.isDirectory(antsDir)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(antsDir, "*.{yaml,yml}")) {
      for (Path p : ds) {
        if (Files.isRegularFile(p)) {
          names.add(ANTS_DIR + "/" + p.getFileName());
        }
      }
    } catch (IOException e) {
      problems.add(new Problem(ANTS_DIR + "/", "", "cannot list: " + e.getMessage()));
    }
    names.sort(null);
    return names;
  }

  private static Map<?, ?> parse(Path colonyDir, String rel, List<Problem> problems) {
    Path file = colonyDir.resolve(rel);
    if (!Files.isRegularFile(file)) {
      problems.add(new Problem(rel, "", "file not found in " + colonyDir));
      return null;
    }
    try {
      // A symbolic link may point anywhere; only files inside the colony are read (and echoed).
      Path real = file.toRealPath();
      if (!real.startsWith(colonyDir.toRealPath())) {
        problems.add(new Problem(rel, "", "is a symbolic link to a file outside the colony directory; refused"));
        return null;
      }
    } catch (IOException e) {
      problems.add(new Problem(rel, "", "cannot read: " + e.getMessage()));
      return null;
    }
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    Yaml yaml = new Yaml(new SafeConstructor(options), new Representer(new DumperOptions()), new DumperOptions(),
        options, new LiteralResolver());
    Object doc;
    try {
      doc = yaml.load(ConfigText.read(file));
    } catch (ConfigText.NotText e) {
      problems.add(new Problem(rel, "", e.getMessage()));
      return null;
    } catch (MarkedYAMLException e) {
      String where = e.getProblemMark() == null ? ""
          : "line " + (e.getProblemMark().getLine() + 1) + ", column " + (e.getProblemMark().getColumn() + 1) + ": ";
      problems.add(new Problem(rel, "", "not valid YAML: " + where + e.getProblem()));
      return null;
    } catch (YAMLException | IOException e) {
      problems.add(new Problem(rel, "", "cannot read: " + e.getMessage()));
      return null;
    }
    if (doc == null) {
      problems.add(new Problem(rel, "", "the file is empty"));
      return null;
    }
    if (!(doc instanceof Map<?, ?> map)) {
      problems.add(new Problem(rel, "", "expected a mapping of keys at the top level, found " + Node.describe(doc)));
      return null;
    }
    return map;
  }

  private static void requireGithubToken(ColonySettings colony, List<AntSpec> ants, List<Problem> problems) {
    if (colony.githubTokenVar() != null) {
      return;
    }
    for (AntSpec a : ants) {
      boolean usesGithub = !a.githubRepos().isEmpty()
          || a.triggers().stream().anyMatch(t -> t.type() == TriggerSpec.Type.GITHUB_ISSUE);
      if (usesGithub) {
        problems.add(new Problem(COLONY_FILE, "integrations.github.token", "required: ant '" + a.name()
            + "' (" + a.sourceFile() + ") uses GitHub; set token: ${GITHUB_TOKEN}"));
        return;
      }
    }
  }

  /** A repository given as a URL (cloned), not as a path on this machine. */
  public static boolean looksLikeUrl(String repo) {
    return AntReader.looksLikeUrl(repo);
  }
}
