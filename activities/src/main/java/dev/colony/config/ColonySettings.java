package dev.colony.config;

/**
 * Colony-wide settings from {@code colony.yaml}. Secrets appear only as variable names
 * ({@code discordTokenVar}), never as values.
 */
public record ColonySettings(
    String name,
    String dir,
    Discord discord,
    String githubTokenVar,
    long confirmationTimeoutSeconds,
    long pollIntervalSeconds,
    String stateBackend,
    String statePath) {

  /** The colony's Discord integration; null on a colony that chats on the console. */
  public record Discord(String tokenVar, String guild) {}
}
