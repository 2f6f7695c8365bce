package dev.colony.config;

import dev.colony.spec.AntSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A validated colony directory.
 *
 * @param variables every {@code ${VAR}} the config references: their values are secrets
 * @param groups the declared supervision groups (ants in none supervise alone)
 * @param slack how the colony talks on Slack; null when it does not
 * @param merge the merge queues of {@code merge.repos}, one per repository (empty: none)
 */
public record LoadedColony(ColonySettings colony, List<AntSpec> ants, Set<String> variables,
    java.util.Map<String, List<String>> discordOperators, List<dev.colony.supervision.GroupSpec> groups,
    dev.colony.slack.SlackSettings slack, List<dev.colony.merge.MergeRepo> merge,
    java.util.Map<String, String> seeds) {
  public LoadedColony {
    seeds = seeds == null ? java.util.Map.of() : java.util.Map.copyOf(seeds);
    merge = merge == null ? List.of() : List.copyOf(merge);
    groups = groups == null ? List.of() : List.copyOf(groups);
    ants = List.copyOf(ants);
    variables = Set.copyOf(variables);
    discordOperators = java.util.Map.copyOf(discordOperators);
  }

  public LoadedColony(ColonySettings colony, List<AntSpec> ants, Set<String> variables,
      java.util.Map<String, List<String>> discordOperators, List<dev.colony.supervision.GroupSpec> groups,
      dev.colony.slack.SlackSettings slack) {
    this(colony, ants, variables, discordOperators, groups, slack, List.of(), null);
  }

  public LoadedColony(ColonySettings colony, List<AntSpec> ants) {
    this(colony, ants, Set.of(), java.util.Map.of(), List.of(), null, List.of(), null);
  }

  /** The merge queue named {@code name}. */
  public Optional<dev.colony.merge.MergeRepo> mergeRepo(String name) {
    return merge.stream().filter(m -> m.name().equals(name)).findFirst();
  }

  /** How the bridge and the sink talk on Discord; null for a console colony. */
  public dev.colony.discord.DiscordSettings discordSettings() {
    ColonySettings.Discord d = colony.discord();
    if (d == null) {
      return null;
    }
    return new dev.colony.discord.DiscordSettings(d.guild(), d.operators(), discordOperators, d.mention(),
        d.alertsChannel(), d.replyToStrangers());
  }

  public Optional<AntSpec> ant(String name) {
    return ants.stream().filter(a -> a.name().equals(name)).findFirst();
  }
}
