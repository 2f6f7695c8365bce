package dev.colony.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretRedactorTest {
  @Test
  void secretValuesBecomeTheirVariableNames() {
    SecretRedactor r = new SecretRedactor(Map.of("GITHUB_TOKEN", "ghp_abcdefghijkl", "ANTHROPIC_API_KEY", "sk-ant-0123456789",
        "HOME", "/root/home-directory", "SHORT_KEY", "abc"));
    assertEquals("curl -H 'Authorization: ${GITHUB_TOKEN}' x", r.redact("curl -H 'Authorization: ghp_abcdefghijkl' x"));
    assertEquals("key=${ANTHROPIC_API_KEY}", r.redact("key=sk-ant-0123456789"));
    assertEquals("cd /root/home-directory abc", r.redact("cd /root/home-directory abc"), "only secret-looking names, long values");
  }
}
