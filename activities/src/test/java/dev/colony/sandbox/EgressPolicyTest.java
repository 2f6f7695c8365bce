package dev.colony.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The allow list's rules, with a resolver the test controls (what DNS says is up to an attacker). */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EgressPolicyTest {
  private static EgressPolicy.Resolver dns(Map<String, String> names) {
    return host -> {
      String a = names.get(host);
      if (a == null) {
        if (EgressPolicy.isAddressLiteral(host)) {
          return new InetAddress[] {InetAddress.getByName(host)};
        }
        throw new UnknownHostException(host);
      }
      String[] parts = a.split(",");
      InetAddress[] out = new InetAddress[parts.length];
      for (int i = 0; i < parts.length; i++) {
        out[i] = InetAddress.getByName(parts[i]);
      }
      return out;
    };
  }

  private static final Map<String, String> NAMES = Map.of(
      "api.example.com", "93.184.216.34",
      "inside.corp.example", "10.1.2.3",
      "meta.corp.example", "169.254.169.254",
      "loop.example.com", "127.0.0.1",
      "mixed.example.com", "93.184.216.35,192.168.1.10",
      "v6.example.com", "fd00::1",
      "mapped.example.com", "::ffff:127.0.0.1",
      "cgnat.example.com", "100.64.0.1",
      "localhost", "127.0.0.1");

  private static EgressPolicy policy(String... allow) {
    return new EgressPolicy(List.of(allow), dns(NAMES));
  }

  @Test
  void aHostOnTheListIsAllowedAtTheAddressThatWasChecked() throws Exception {
    EgressPolicy.Decision d = policy("api.example.com").decide("API.example.com.", 443);
    assertTrue(d.allowed(), d.refusal());
    assertEquals(InetAddress.getByName("93.184.216.34"), d.address());
  }

  @Test
  void anythingElseIsRefused() {
    EgressPolicy p = policy("api.example.com:443", "*.corp.example");
    assertEquals("not on the allow list", p.decide("evil.example.net", 443).refusal());
    assertEquals("not on the allow list", p.decide("api.example.com", 80).refusal(), "the port is part of the entry");
    assertEquals("not on the allow list", p.decide("corp.example", 443).refusal(), "*.d is the names under d");
    assertEquals("not on the allow list", policy().decide("api.example.com", 443).refusal(), "an empty list: nothing");
  }

  @Test
  void aNameOnTheListThatResolvesToAPrivateAddressIsRefused() {
    EgressPolicy p = policy("*.corp.example", "*.example.com", "localhost");
    assertTrue(p.decide("inside.corp.example", 443).refusal().contains("private address 10.1.2.3"));
    assertTrue(p.decide("meta.corp.example", 80).refusal().contains("link-local address 169.254.169.254"));
    assertTrue(p.decide("loop.example.com", 8080).refusal().contains("loopback"));
    assertTrue(p.decide("localhost", 8080).refusal().contains("loopback"), "a name alone never reaches loopback");
    assertTrue(p.decide("mixed.example.com", 443).refusal().contains("192.168.1.10"), "one private answer is enough");
    assertTrue(p.decide("v6.example.com", 443).refusal().contains("unique-local"));
    assertTrue(p.decide("mapped.example.com", 443).refusal().contains("loopback"));
    assertTrue(p.decide("cgnat.example.com", 443).refusal().contains("private"));
  }

  @Test
  void privateAddressesOnlyWhenNamedExactly() {
    assertTrue(policy("127.0.0.1:8089").decide("127.0.0.1", 8089).allowed());
    assertFalse(policy("127.0.0.1:8089").decide("127.0.0.1", 7233).allowed(), "Temporal's port is another port");
    assertTrue(policy("localhost:8089").decide("localhost", 8089).allowed(), "host and port named exactly");
    assertTrue(policy("10.0.0.5").decide("10.0.0.5", 5432).allowed(), "the address itself is named");
    assertFalse(policy("10.0.0.5").decide("10.0.0.6", 5432).allowed());
    String metadata = policy("*.corp.example:80").decide("169.254.169.254", 80).refusal();
    assertEquals("not on the allow list", metadata);
    assertTrue(policy("*.example.com:8080").decide("loop.example.com", 8080).refusal().contains("loopback"),
        "a wildcard with a port is not an exact name");
  }

  @Test
  void specialRangesAreRecognised() throws Exception {
    for (String a : List.of("127.0.0.1", "127.8.9.1", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.0.1",
        "169.254.169.254", "0.0.0.0", "224.0.0.1", "100.64.0.1", "::1", "::", "fe80::1", "fc00::1", "fd12::1", "ff02::1",
        "::ffff:10.0.0.1", "240.0.0.1")) {
      assertTrue(EgressPolicy.special(InetAddress.getByName(a)) != null, a);
    }
    for (String a : List.of("93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111")) {
      assertNull(EgressPolicy.special(InetAddress.getByName(a)), a);
    }
  }

  @Test
  void theEnginesApiHostIsOnTheListByDefault() {
    assertEquals("api.anthropic.com:443", SessionWalls.apiHost(null));
    assertEquals("127.0.0.1:8089", SessionWalls.apiHost("http://127.0.0.1:8089"));
    assertEquals("gateway.example.com:443", SessionWalls.apiHost("https://Gateway.example.com/v1"));
    assertEquals("gateway.example.com:80", SessionWalls.apiHost("http://gateway.example.com"));
  }

  @Test
  void theSandboxesOwnLoopbackIsNotProxiedUnlessTheListSendsItToTheWorker() {
    Map<String, String> v = SessionWalls.proxyVariables(List.of("api.example.com"));
    assertEquals("http://127.0.0.1:" + Bubblewrap.PROXY_PORT, v.get("HTTPS_PROXY"));
    assertEquals("http://127.0.0.1:" + Bubblewrap.PROXY_PORT, v.get("http_proxy"));
    assertEquals("localhost,127.0.0.1,::1", v.get("NO_PROXY"));
    assertEquals("localhost,::1", SessionWalls.proxyVariables(List.of("127.0.0.1:8089")).get("no_proxy"));
  }
}
