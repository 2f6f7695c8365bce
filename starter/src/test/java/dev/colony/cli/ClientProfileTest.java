package dev.colony.cli;

import org.junit.jupiter.api.Timeout;
import java.util.concurrent.TimeUnit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colony.secrets.Secrets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The connection is read as the temporal CLI reads it: flag over variable over profile. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClientProfileTest {
  @TempDir
  Path tmp;

  private Path toml(String text) throws IOException {
    Path f = tmp.resolve("temporal.toml");
    Files.writeString(f, text);
    return f;
  }

  private static TemporalOptions parse(String... args) {
    TemporalOptions o = new TemporalOptions();
    new CommandLine(o).parseArgs(args);
    return o;
  }

  private Path pem(String name) throws IOException {
    return Files.writeString(tmp.resolve(name), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  }

  @Test
  void aFlagBeatsItsVariableWhichBeatsTheProfile() throws Exception {
    Path f = toml("""
        [profile.default]
        address = "file-host:7233"
        namespace = "from-file"
        [profile.prod]
        address = "prod-host:7233"
        namespace = "prod"
        """);
    Map<String, String> env = new HashMap<>(Map.of("TEMPORAL_CONFIG_FILE", f.toString()));
    ClientProfile p = ClientProfile.resolve(parse(), env);
    assertEquals("file-host:7233", p.address());
    assertEquals("from-file", p.namespace());
    assertFalse(p.tls());

    env.put("TEMPORAL_NAMESPACE", "from-env");
    p = ClientProfile.resolve(parse(), env);
    assertEquals("file-host:7233", p.address());
    assertEquals("from-env", p.namespace());

    p = ClientProfile.resolve(parse("--address", "flag-host:1234", "--namespace", "from-flag"), env);
    assertEquals("flag-host:1234", p.address());
    assertEquals("from-flag", p.namespace());

    env.put("TEMPORAL_PROFILE", "prod");
    env.remove("TEMPORAL_NAMESPACE");
    assertEquals("prod-host:7233", ClientProfile.resolve(parse(), env).address());
    assertEquals("file-host:7233", ClientProfile.resolve(parse("--profile", "default"), env).address());
    assertEquals("localhost:7233", ClientProfile.resolve(parse("--disable-config-file"), env).address());
  }

  @Test
  void withNoFileAndNoVariableTheShortcutGivesWhatEnvconfigGives() {
    // An existing file that is empty stands for "envconfig loads, finds nothing".
    for (String[] flags : new String[][] {{}, {"--address", "h:1", "--namespace", "n"}, {"--tls"}, {"--api-key", "k-123456"}}) {
      TemporalOptions o = parse(flags);
      org.junit.jupiter.api.Assumptions.assumeTrue(ClientProfile.nothingToLoad(o, Map.of()),
          "a Temporal config file exists in this user's home");
      ClientProfile quick = ClientProfile.resolve(o, Map.of());
      String[] loaded = java.util.Arrays.copyOf(flags, flags.length + 2);
      loaded[flags.length] = "--config-file";
      loaded[flags.length + 1] = "/dev/null";
      ClientProfile full = ClientProfile.resolve(parse(loaded), Map.of());
      assertEquals(full.address(), quick.address(), String.join(" ", flags));
      assertEquals(full.namespace(), quick.namespace(), String.join(" ", flags));
      assertEquals(full.describe(), quick.describe(), String.join(" ", flags));
      assertEquals(full.apiKey(), quick.apiKey(), String.join(" ", flags));
      assertEquals(full.config(), quick.config(), String.join(" ", flags));
    }
    assertFalse(ClientProfile.nothingToLoad(parse(), Map.of("TEMPORAL_ADDRESS", "x:1")));
    assertFalse(ClientProfile.nothingToLoad(parse("--profile", "p"), Map.of()));
  }

  @Test
  void withNothingSetItIsTheLocalServer() {
    ClientProfile p = ClientProfile.resolve(parse("--config-file", "/dev/null"), Map.of());
    assertEquals("localhost:7233", p.address());
    assertEquals("default", p.namespace());
    assertEquals("plaintext", p.describe());
  }

  @Test
  void aMissingProfileOrFileOrABrokenFileIsOneClearLine() throws Exception {
    Path f = toml("[profile.default]\naddress = \"h:1\"\n");
    UserError e = assertThrows(UserError.class,
        () -> ClientProfile.resolve(parse("--profile", "nope"), Map.of("TEMPORAL_CONFIG_FILE", f.toString())));
    assertEquals("no profile 'nope' in the Temporal config file " + f + " (--profile)", e.getMessage());

    e = assertThrows(UserError.class, () -> ClientProfile.resolve(parse(), Map.of("TEMPORAL_CONFIG_FILE", "/no/such.toml")));
    assertEquals("Temporal config file /no/such.toml does not exist ($TEMPORAL_CONFIG_FILE)", e.getMessage());

    Path broken = toml("[profile.default\naddress = ");
    e = assertThrows(UserError.class, () -> ClientProfile.resolve(parse("--config-file", broken.toString()), Map.of()));
    assertTrue(e.getMessage().startsWith("cannot read the Temporal config file " + broken + ": "), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());

    Path badAddress = toml("[profile.default]\naddress = \"https://x:7233\"\n");
    UsageError u = assertThrows(UsageError.class, () -> ClientProfile.resolve(parse("--config-file", badAddress.toString()), Map.of()));
    assertTrue(u.getMessage().contains("profile 'default'") && u.getMessage().contains("has a scheme"), u.getMessage());
  }

  @Test
  void anApiKeyTurnsTlsOnAndIsMaskedEverywhereFromTheMomentItIsRead() {
    String key = "eyJhbGciOiJSUzI1NiJ9.test-key-" + System.nanoTime();
    ClientProfile p = ClientProfile.resolve(parse("--disable-config-file"),
        Map.of("TEMPORAL_ADDRESS", "ns.acct.tmprl.cloud:7233", "TEMPORAL_API_KEY", key));
    assertTrue(p.tls());
    assertEquals("TLS with an API key", p.describe());
    assertEquals(key, p.apiKey());
    assertTrue(Secrets.process().contains("Authorization: Bearer " + key));
    assertFalse(Secrets.process().redact("key " + key).contains(key));

    p = ClientProfile.resolve(parse("--disable-config-file", "--tls=false"), Map.of("TEMPORAL_API_KEY", key));
    assertFalse(p.tls());
    assertEquals("plaintext with an API key", p.describe());
  }

  /**
   * TLS turned off with an API key, by flag, variable or profile: plaintext with the key, as the
   * {@code temporal} CLI does (the SDK would turn TLS back on for the key, and a plaintext server
   * then looked unreachable).
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void tlsTurnedOffWithAnApiKeyConnectsInPlaintext() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String address = "127.0.0.1:" + port;
    String key = "plaintext-key-" + System.nanoTime();
    Path f = toml("[profile.default]\naddress = \"" + address + "\"\napi_key = \"" + key + "\"\n"
        + "[profile.default.tls]\ndisabled = true\n");
    try (EmbeddedServer server = EmbeddedServer.start(port)) {
      for (ClientProfile p : java.util.List.of(
          ClientProfile.resolve(parse("--disable-config-file", "--tls=false", "--address", address, "--api-key", key), Map.of()),
          ClientProfile.resolve(parse("--disable-config-file"),
              Map.of("TEMPORAL_ADDRESS", address, "TEMPORAL_API_KEY", key, "TEMPORAL_TLS", "false")),
          ClientProfile.resolve(parse("--config-file", f.toString()), Map.of()))) {
        assertEquals("plaintext with an API key", p.describe());
        try (Temporal t = Temporal.connect(p)) {
          assertTrue(t.reachable(java.time.Duration.ofSeconds(5)), p.source());
        }
      }
    }
  }

  @Test
  void privateKeyMaterialIsMaskedLineByLine() {
    String line = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg" + System.nanoTime();
    String pem = "-----BEGIN PRIVATE KEY-----\n" + line + "\n-----END PRIVATE KEY-----\n";
    assertThrows(UserError.class, () -> ClientProfile.resolve(parse("--disable-config-file"),
        Map.of("TEMPORAL_TLS_CLIENT_KEY_DATA", pem)), "a key without its certificate");
    assertTrue(Secrets.process().contains("printed: " + line));
  }

  @Test
  void tlsFilesAreCheckedBeforeAnyHandshake() throws Exception {
    Path cert = pem("client.pem");
    UserError e = assertThrows(UserError.class, () -> ClientProfile.resolve(
        parse("--disable-config-file", "--tls-cert-path", cert.toString(), "--tls-key-path", tmp.resolve("nope.key").toString()), Map.of()));
    assertEquals("TLS: the client key (--tls-key-path / $TEMPORAL_TLS_CLIENT_KEY_PATH / tls.client_key_path) "
        + tmp.resolve("nope.key") + " does not exist", e.getMessage());
    e = assertThrows(UserError.class, () -> ClientProfile.resolve(
        parse("--disable-config-file", "--tls-cert-path", cert.toString()), Map.of()));
    assertTrue(e.getMessage().contains("certificate is given without its key"), e.getMessage());

    Path key = pem("client.key");
    ClientProfile p = ClientProfile.resolve(parse("--disable-config-file", "--tls-cert-path", cert.toString(),
        "--tls-key-path", key.toString(), "--tls-server-name", "temporal.internal"), Map.of());
    assertTrue(p.tls() && p.clientCertificate());
    assertEquals("mTLS", p.describe());
    assertEquals("temporal.internal", p.config().getTls().getServerName());
  }

  @Test
  void tlsSettingsFromTheProfileAreKeptUnlessAFlagChangesThem() throws Exception {
    Path ca = pem("ca.pem");
    Path f = toml("""
        [profile.default]
        address = "h:7233"
        [profile.default.tls]
        server_ca_cert_path = "%s"
        server_name = "from-file"
        """.formatted(ca));
    ClientProfile p = ClientProfile.resolve(parse("--config-file", f.toString()), Map.of());
    assertTrue(p.tls());
    assertEquals(ca.toString(), p.config().getTls().getServerCACertPath());
    assertEquals("from-file", p.config().getTls().getServerName());
    p = ClientProfile.resolve(parse("--config-file", f.toString(), "--tls-server-name", "from-flag"),
        Map.of("TEMPORAL_TLS_SERVER_NAME", "from-env"));
    assertEquals("from-flag", p.config().getTls().getServerName());
    assertEquals(ca.toString(), p.config().getTls().getServerCACertPath());
    p = ClientProfile.resolve(parse("--config-file", f.toString(), "--tls=false"), Map.of());
    assertFalse(p.tls());
    assertNull(p.apiKey());
  }
}
