package dev.colony.discord;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a colony talks on Discord, from {@code integrations.discord} of {@code colony.yaml} and of
 * each ant.
 *
 * @param guild the server, by name or id
 * @param operators who may command the ants: user ids, role ids or role names; empty means
 *     anyone in the guild (with Administrator needed for approvals and resuming a
 *     billing/auth/budget pause)
 * @param antOperators per-ant replacements of {@code operators}
 * @param mentionOperators whether posts that need a human mention the operators
 * @param alertsChannel where a one-line copy of those posts goes, or null
 * @param replyToStrangers answer refused commands from non-operators (else ignore them silently)
 */
public record DiscordSettings(String guild, List<String> operators, Map<String, List<String>> antOperators,
    boolean mentionOperators, String alertsChannel, boolean replyToStrangers) implements dev.colony.chat.impl.OperatorPolicy {
  public DiscordSettings {
    operators = List.copyOf(operators);
    antOperators = Map.copyOf(antOperators);
  }

  @Override
  public List<String> operatorsOf(String ant) {
    return antOperators.getOrDefault(ant, operators);
  }

  /**
   * The mentions for a post of {@code ant} that needs a human. Role ids are told from user ids
   * with the guild's roles ({@code roles}: id to name, looked up by the caller).
   */
  public Mentions mentionsFor(String ant, Map<String, String> known) {
    List<String> ops = operatorsOf(ant);
    if (!mentionOperators || ops.isEmpty()) {
      return Mentions.NONE;
    }
    List<String> users = new ArrayList<>();
    List<String> roleIds = new ArrayList<>();
    for (String op : ops) {
      if (known.containsKey(op)) {
        roleIds.add(op);
      } else if (DiscordRest.isSnowflake(op)) {
        users.add(op);
      } else {
        for (Map.Entry<String, String> r : known.entrySet()) {
          if (r.getValue().equalsIgnoreCase(op)) {
            roleIds.add(r.getKey());
          }
        }
      }
    }
    return new Mentions(users, roleIds);
  }
}
