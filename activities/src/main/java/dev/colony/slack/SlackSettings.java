package dev.colony.slack;

import dev.colony.chat.impl.OperatorPolicy;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How a colony talks on Slack, from {@code integrations.slack} of {@code colony.yaml} and of each
 * ant. Tokens appear only as the names of the variables that hold them.
 *
 * @param botTokenVar the variable with the bot token ({@code xoxb-}): posts, lookups
 * @param appTokenVar the variable with the app-level token ({@code xapp-}): the Socket Mode connection
 * @param operators user ids ({@code U…}, {@code W…}) or user group ids ({@code S…}); empty: anyone
 *     in the channel (workspace admins alone may approve requests then)
 * @param antOperators per-ant replacements of {@code operators}
 * @param channels each ant's channel, by name ({@code #name} or {@code name}) or id ({@code C…})
 * @param mentionOperators whether posts that need a human mention the operators
 * @param alertsChannel where a one-line copy of those posts goes, or null
 * @param replyToStrangers answer refused commands from non-operators (else ignore them silently)
 */
public record SlackSettings(String botTokenVar, String appTokenVar, List<String> operators,
    Map<String, List<String>> antOperators, Map<String, String> channels, boolean mentionOperators,
    String alertsChannel, boolean replyToStrangers) implements OperatorPolicy {
  /** A user ({@code U…}, {@code W…}) or user group ({@code S…}) id. */
  public static final Pattern OPERATOR = Pattern.compile("[UWS][A-Z0-9]{2,20}");
  /** A channel id ({@code C…} public, {@code G…} private). */
  public static final Pattern CHANNEL_ID = Pattern.compile("[CG][A-Z0-9]{2,20}");
  /** A channel name, with or without its {@code #}: Slack's names are lower case, at most 80 characters. */
  public static final Pattern CHANNEL_NAME = Pattern.compile("#?[a-z0-9][a-z0-9_-]{0,79}");

  public SlackSettings {
    operators = List.copyOf(operators);
    antOperators = Map.copyOf(antOperators);
    channels = Map.copyOf(channels);
  }

  @Override
  public List<String> operatorsOf(String ant) {
    return antOperators.getOrDefault(ant, operators);
  }

  /** The channel of {@code ant}; null when it names none. */
  public String channelOf(String ant) {
    return channels.get(ant);
  }

  public static boolean isGroup(String operator) {
    return operator.startsWith("S");
  }
}
