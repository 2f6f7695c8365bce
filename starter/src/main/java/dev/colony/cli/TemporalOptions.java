package dev.colony.cli;

import dev.colony.spec.AntIds;
import picocli.CommandLine.Option;

/**
 * Connection options shared by every command that talks to Temporal. They are the {@code temporal}
 * CLI's own: a flag beats its {@code TEMPORAL_*} variable, which beats the {@code temporal.toml}
 * profile (see {@link ClientProfile}).
 */
final class TemporalOptions {
  @Option(names = "--address", paramLabel = "HOST:PORT",
      description = "Temporal frontend address (default: $TEMPORAL_ADDRESS, the profile's, else localhost:7233).")
  String address;

  @Option(names = {"--namespace", "-n"}, paramLabel = "NAME",
      description = "Temporal namespace (default: $TEMPORAL_NAMESPACE, the profile's, else default).")
  String namespace;

  @Option(names = "--task-queue", paramLabel = "NAME",
      description = "Task queue the ants run on (default: colony-<colony name>, one per colony).")
  String taskQueue;

  /** The task queue of {@code colony}'s workflows: --task-queue when given, else the colony's own. */
  String taskQueue(String colony) {
    return taskQueue != null ? taskQueue : AntIds.taskQueue(colony);
  }

  @Option(names = "--profile", paramLabel = "NAME",
      description = "Profile of the Temporal config file (default: $TEMPORAL_PROFILE, else default).")
  String profile;

  @Option(names = "--config-file", paramLabel = "FILE",
      description = "Temporal config file (default: $TEMPORAL_CONFIG_FILE, else ~/.config/temporalio/temporal.toml).")
  String configFile;

  @Option(names = "--disable-config-file", description = "Do not read the Temporal config file.")
  boolean disableConfigFile;

  @Option(names = "--disable-config-env", description = "Do not read the TEMPORAL_* variables.")
  boolean disableConfigEnv;

  @Option(names = "--api-key", paramLabel = "KEY",
      description = "API key (default: $TEMPORAL_API_KEY; prefer the variable: a flag shows in the process list).")
  String apiKey;

  @Option(names = "--tls", arity = "0..1", paramLabel = "true|false",
      description = "Use TLS (default: on when an API key or any TLS option is set).")
  Boolean tls;

  @Option(names = "--tls-cert-path", paramLabel = "FILE", description = "Client certificate, PEM ($TEMPORAL_TLS_CLIENT_CERT_PATH).")
  String tlsCertPath;

  @Option(names = "--tls-key-path", paramLabel = "FILE", description = "Client private key, PEM ($TEMPORAL_TLS_CLIENT_KEY_PATH).")
  String tlsKeyPath;

  @Option(names = "--tls-ca-path", paramLabel = "FILE", description = "CA that signed the server's certificate ($TEMPORAL_TLS_SERVER_CA_CERT_PATH).")
  String tlsCaPath;

  @Option(names = "--tls-cert-data", paramLabel = "PEM", description = "Client certificate itself ($TEMPORAL_TLS_CLIENT_CERT_DATA).")
  String tlsCertData;

  @Option(names = "--tls-key-data", paramLabel = "PEM", description = "Client private key itself ($TEMPORAL_TLS_CLIENT_KEY_DATA).")
  String tlsKeyData;

  @Option(names = "--tls-ca-data", paramLabel = "PEM", description = "Server CA itself ($TEMPORAL_TLS_SERVER_CA_CERT_DATA).")
  String tlsCaData;

  @Option(names = "--tls-server-name", paramLabel = "NAME", description = "Name the server's certificate must carry ($TEMPORAL_TLS_SERVER_NAME).")
  String tlsServerName;

  @Option(names = "--tls-disable-host-verification", arity = "0..1", paramLabel = "true|false",
      description = "Accept any server certificate when no CA is given ($TEMPORAL_TLS_DISABLE_HOST_VERIFICATION).")
  Boolean tlsDisableHostVerification;

  /** The connection these options, the environment and the config file describe. */
  ClientProfile resolve() {
    return ClientProfile.resolve(this, dev.colony.secrets.Invocation.env());
  }
}
