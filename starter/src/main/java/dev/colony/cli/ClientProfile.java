package dev.colony.cli;

import dev.colony.config.Problem;
import dev.colony.secrets.Secrets;
import io.temporal.envconfig.ClientConfigProfile;
import io.temporal.envconfig.ClientConfigTLS;
import io.temporal.envconfig.LoadClientConfigProfileOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where and how to connect to Temporal, read the way the {@code temporal} CLI reads it (Temporal's
 * own {@code temporal-envconfig}): the {@code temporal.toml} profile, then the {@code TEMPORAL_*}
 * variables over it, then the command's flags over both. The API key and private-key material are
 * registered with the process redactor as soon as they are read, so no log line, error or status
 * output can carry them.
 */
record ClientProfile(String address, String namespace, ClientConfigProfile config, String source) {
  static final String DEFAULT_ADDRESS = "localhost:7233";

  /** A plaintext connection to {@code address} (the local dev server). */
  static ClientProfile plain(String address, String namespace) {
    return new ClientProfile(address, namespace,
        ClientConfigProfile.newBuilder().setAddress(address).setNamespace(namespace).build(), "local");
  }

  static ClientProfile resolve(TemporalOptions o, Map<String, String> env) {
    if (o.disableConfigFile && o.disableConfigEnv) {
      // envconfig refuses both; the CLI means "flags only" by it, and so does Colony.
      return withFlags(ClientConfigProfile.getDefaultInstance(), o, "flags");
    }
    if (nothingToLoad(o, env)) {
      // No config file and no TEMPORAL_* variable: what envconfig would return is the empty
      // profile, without the tenth of a second its loading costs a one-shot command.
      return withFlags(ClientConfigProfile.getDefaultInstance(), o, "profile 'default'");
    }
    String file = o.configFile != null ? o.configFile : env.get("TEMPORAL_CONFIG_FILE");
    LoadClientConfigProfileOptions.Builder load = LoadClientConfigProfileOptions.newBuilder()
        .setEnvOverrides(env)
        .setDisableFile(o.disableConfigFile)
        .setDisableEnv(o.disableConfigEnv);
    if (o.profile != null) {
      load.setConfigFileProfile(o.profile);
    }
    String shownFile = file;
    if (file != null && !file.isBlank() && !o.disableConfigFile) {
      Path p = dev.colony.secrets.Invocation.resolve(Path.of(file));
      if (!Files.exists(p) || Files.isDirectory(p)) {
        throw new UserError("Temporal config file " + Problem.printable(file, 200)
            + (Files.isDirectory(p) ? " is a directory" : " does not exist")
            + (o.configFile != null ? " (--config-file)" : " ($TEMPORAL_CONFIG_FILE)"));
      }
      if (blank(p)) {
        load.setDisableFile(true); // envconfig cannot read an empty file; it names no profile
      } else {
        load.setConfigFilePath(p.toString());
      }
    } else if (!o.disableConfigFile) {
      shownFile = defaultConfigFile(env);
    }
    ClientConfigProfile base;
    try {
      base = ClientConfigProfile.load(load.build());
    } catch (IOException | RuntimeException e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      if (why.startsWith("Unable to find profile")) {
        String name = o.profile != null ? o.profile : env.get("TEMPORAL_PROFILE");
        throw new UserError("no profile '" + Problem.printable(name, 80) + "' in the Temporal config file "
            + shownFile + (o.profile != null ? " (--profile)" : " ($TEMPORAL_PROFILE)"));
      }
      throw new UserError("cannot read the Temporal config file " + shownFile + ": "
          + Problem.printable(firstLine(why), 300));
    }
    String source = o.disableConfigFile ? "environment" : "profile '" + profileName(o, env) + "'";
    return withFlags(base, o, source);
  }

  private static ClientProfile withFlags(ClientConfigProfile base, TemporalOptions o, String source) {
    ClientConfigProfile.Builder b = base.toBuilder();
    if (o.address != null) {
      b.setAddress(o.address);
    }
    if (o.namespace != null) {
      b.setNamespace(o.namespace);
    }
    if (o.apiKey != null) {
      b.setApiKey(o.apiKey);
    }
    boolean tlsFlag = o.tls != null || o.tlsCertPath != null || o.tlsKeyPath != null || o.tlsCaPath != null
        || o.tlsCertData != null || o.tlsKeyData != null || o.tlsCaData != null || o.tlsServerName != null
        || o.tlsDisableHostVerification != null;
    if (tlsFlag) {
      ClientConfigTLS.Builder t = base.getTls() == null ? ClientConfigTLS.newBuilder() : base.getTls().toBuilder();
      if (o.tls != null) {
        t.setDisabled(!o.tls);
      }
      if (o.tlsCertPath != null) {
        t.setClientCertPath(o.tlsCertPath).setClientCertData(null);
      }
      if (o.tlsKeyPath != null) {
        t.setClientKeyPath(o.tlsKeyPath).setClientKeyData(null);
      }
      if (o.tlsCaPath != null) {
        t.setServerCACertPath(o.tlsCaPath).setServerCACertData(null);
      }
      if (o.tlsCertData != null) {
        t.setClientCertData(bytes(o.tlsCertData)).setClientCertPath(null);
      }
      if (o.tlsKeyData != null) {
        t.setClientKeyData(bytes(o.tlsKeyData)).setClientKeyPath(null);
      }
      if (o.tlsCaData != null) {
        t.setServerCACertData(bytes(o.tlsCaData)).setServerCACertPath(null);
      }
      if (o.tlsServerName != null) {
        t.setServerName(o.tlsServerName);
      }
      if (o.tlsDisableHostVerification != null) {
        t.setDisableHostVerification(o.tlsDisableHostVerification);
      }
      b.setTls(t.build());
    }
    ClientConfigProfile merged = b.build();
    registerSecrets(merged);
    String chosen = o.address != null ? o.address
        : merged.getAddress() == null || merged.getAddress().isBlank() ? DEFAULT_ADDRESS : merged.getAddress();
    String problem = Addresses.problem(chosen);
    if (problem != null) {
      throw new UsageError(o.address == null ? problem.replace("--address", "the address (" + source + " or $TEMPORAL_ADDRESS)") : problem);
    }
    String ns = merged.getNamespace() == null || merged.getNamespace().isBlank() ? "default" : merged.getNamespace().strip();
    checkFiles(merged.getTls());
    return new ClientProfile(chosen.strip(), ns, merged.toBuilder().setAddress(chosen.strip()).setNamespace(ns).build(), source);
  }

  /** True when this connection uses TLS (set up, or implied by an API key). */
  boolean tls() {
    ClientConfigTLS t = config.getTls();
    if (t != null) {
      return t.isDisabled() == null || !t.isDisabled();
    }
    return apiKey() != null;
  }

  boolean clientCertificate() {
    ClientConfigTLS t = config.getTls();
    return tls() && t != null && (t.getClientCertPath() != null || t.getClientCertData() != null);
  }

  String apiKey() {
    String k = config.getApiKey();
    return k == null || k.isEmpty() ? null : k;
  }

  /** How this connection authenticates, for messages: never the secret itself. */
  String describe() {
    if (!tls()) {
      return apiKey() != null ? "plaintext with an API key" : "plaintext";
    }
    StringBuilder s = new StringBuilder(clientCertificate() ? "mTLS" : "TLS");
    if (apiKey() != null) {
      s.append(" with an API key");
    }
    return s.toString();
  }

  private static void registerSecrets(ClientConfigProfile p) {
    Secrets secrets = Secrets.process();
    if (p.getApiKey() != null) {
      secrets.register("TEMPORAL_API_KEY", p.getApiKey());
    }
    ClientConfigTLS t = p.getTls();
    if (t != null && t.getClientKeyData() != null) {
      String pem = new String(t.getClientKeyData(), StandardCharsets.UTF_8);
      secrets.register("TEMPORAL_TLS_CLIENT_KEY_DATA", pem.strip());
      // A PEM may be printed line by line (or cut): each base64 line is masked on its own too.
      for (String line : pem.split("\\R")) {
        if (line.length() >= 16 && !line.startsWith("-----")) {
          secrets.register("TEMPORAL_TLS_CLIENT_KEY_DATA", line.strip());
        }
      }
    }
  }

  /** Names a missing certificate or key file before TLS turns it into a stack of exceptions. */
  private static void checkFiles(ClientConfigTLS t) {
    if (t == null || Boolean.TRUE.equals(t.isDisabled())) {
      return;
    }
    check(t.getClientCertPath(), "client certificate (--tls-cert-path / $TEMPORAL_TLS_CLIENT_CERT_PATH / tls.client_cert_path)");
    check(t.getClientKeyPath(), "client key (--tls-key-path / $TEMPORAL_TLS_CLIENT_KEY_PATH / tls.client_key_path)");
    check(t.getServerCACertPath(), "server CA (--tls-ca-path / $TEMPORAL_TLS_SERVER_CA_CERT_PATH / tls.server_ca_cert_path)");
    boolean cert = t.getClientCertPath() != null || t.getClientCertData() != null;
    boolean key = t.getClientKeyPath() != null || t.getClientKeyData() != null;
    if (cert != key) {
      throw new UserError("TLS: a client " + (cert ? "certificate is given without its key" : "key is given without its certificate")
          + ": set both --tls-cert-path and --tls-key-path (or their TEMPORAL_TLS_CLIENT_* variables)");
    }
  }

  private static void check(String path, String what) {
    if (path == null || path.isEmpty()) {
      return;
    }
    Path p = Path.of(path);
    if (!p.isAbsolute() && dev.colony.secrets.Invocation.current() != null) {
      // The SDK reads the file itself, against this process's directory, not the caller's.
      throw new dev.colony.secrets.Invocation.OwnProcessNeeded("a relative TLS file path");
    }
    if (!Files.isRegularFile(p)) {
      throw new UserError("TLS: the " + what + " " + Problem.printable(path, 200) + " does not exist");
    }
    if (!Files.isReadable(p)) {
      throw new UserError("TLS: the " + what + " " + Problem.printable(path, 200) + " is not readable by this user");
    }
  }

  private static String profileName(TemporalOptions o, Map<String, String> env) {
    if (o.profile != null) {
      return o.profile;
    }
    String p = env.get("TEMPORAL_PROFILE");
    return p == null || p.isEmpty() ? "default" : p;
  }

  /** Where envconfig looks when no file is named (on Linux; macOS and Windows have their own). */
  private static String defaultConfigFile(Map<String, String> env) {
    return Path.of(System.getProperty("user.home"), ".config", "temporalio", "temporal.toml").toString();
  }

  /** Whether envconfig would find nothing: no file named or at its default place, no variable. */
  static boolean nothingToLoad(TemporalOptions o, Map<String, String> env) {
    return o.configFile == null && o.profile == null && !o.disableConfigFile && !o.disableConfigEnv
        && env.keySet().stream().noneMatch(k -> k.startsWith("TEMPORAL_"))
        && !Files.exists(Path.of(defaultConfigFile(env)));
  }

  private static boolean blank(Path p) {
    try {
      return Files.size(p) == 0 || Files.readString(p).isBlank();
    } catch (IOException | RuntimeException e) {
      return false; // envconfig reports what is wrong with it
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
