package dev.colony.config;

/**
 * Colony-wide settings from {@code colony.yaml}. Secrets appear only as variable names
 * ({@code discordTokenVar}), never as values.
 *
 * @param webhookUrl {@code integrations.webhook.url} as written ({@code ${VAR}} unresolved); null for none
 * @param webhookSecretVar the variable holding the webhook's signing secret; null: unsigned
 */
public record ColonySettings(
    String name,
    String dir,
    Discord discord,
    String githubTokenVar,
    long confirmationTimeoutSeconds,
    long pollIntervalSeconds,
    String stateBackend,
    String statePath,
    long githubPollSeconds,
    String githubWebhookSecretVar,
    String webhookUrl,
    String webhookSecretVar) {

  public static final long DEFAULT_GITHUB_POLL_SECONDS = 300;

  public ColonySettings(String name, String dir, Discord discord, String githubTokenVar,
      long confirmationTimeoutSeconds, long pollIntervalSeconds, String stateBackend, String statePath) {
    this(name, dir, discord, githubTokenVar, confirmationTimeoutSeconds, pollIntervalSeconds, stateBackend,
        statePath, DEFAULT_GITHUB_POLL_SECONDS, null, null, null);
  }

  /**
   * The colony's Discord integration; null on a colony that chats on the console.
   *
   * @param operators user ids, role ids or role names obeyed in the ants' channels (empty: anyone)
   * @param mention whether posts that need a human mention the operators
   * @param alertsChannel where a one-line copy of such posts goes; null for none
   * @param replyToStrangers answer refused commands (else ignore them silently)
   */
  public record Discord(String tokenVar, String guild, java.util.List<String> operators, boolean mention,
      String alertsChannel, boolean replyToStrangers) {
    public Discord {
      operators = operators == null ? java.util.List.of() : java.util.List.copyOf(operators);
    }

    public Discord(String tokenVar, String guild) {
      this(tokenVar, guild, java.util.List.of(), true, null, true);
    }
  }
}
